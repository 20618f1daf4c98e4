// SPDX-License-Identifier: MIT
import Foundation
import GPSLogRecording

extension FuzzTarget {
    /// What a client sent on the control socket, read as the recorder reads it (`ControlRequest.read`): a request
    /// that encodes and decodes to itself, a refusal in plain words, or a wait for the rest of the line.
    static func control(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let newline = bytes.firstIndex(of: UInt8(ascii: "\n"))
        switch ControlRequest.read(bytes) {
        case .incomplete:
            FuzzInvariant.check(
                newline == nil && bytes.count <= ControlRequest.maxLineLength, "waited for more after a whole line")
        case .tooLong:
            FuzzInvariant.check(
                newline == nil && bytes.count > ControlRequest.maxLineLength, "dropped a client within the limit")
        case .refused(let message):
            FuzzInvariant.check(newline != nil, "refused a line that has not ended")
            FuzzInvariant.checkVisible(message, what: "the control socket's refusal")
        case .request(let request):
            FuzzInvariant.check(newline != nil, "answered a line that has not ended")
            do {
                let again = try JSONDecoder().decode(ControlRequest.self, from: JSONEncoder().encode(request))
                FuzzInvariant.check(again == request, "\(request) came back from JSON as \(again)")
            } catch {
                fatalError("fuzz invariant broken: \(request) does not survive JSON: \(error)")
            }
        }
    }
}
