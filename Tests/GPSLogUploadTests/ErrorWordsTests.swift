// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogSystem
import GPSLogTestSupport
import NIOCore
import Testing

/// `describeForPeople`: the errors of the network libraries in words, never a Swift type dump.
@Suite(.ownThreads)
struct ErrorWordsTests {

    struct Refusal: LocalizedError {
        var errorDescription: String? { "the server refused it: check the token" }
    }

    struct Opaque: Error {
        let inner: any Error
    }

    @Test func eachKindOfErrorReadsAsWords() {
        #expect(describeForPeople(CancellationError()) == "cancelled")
        #expect(
            describeForPeople(POSIXError(.ECONNREFUSED), peer: "127.0.0.1:1") == "connection refused by 127.0.0.1:1")
        #expect(
            describeForPeople(
                IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)"),
                peer: "http://u:pw@127.0.0.1:1/x")
                == "connection refused by 127.0.0.1:1")
        #expect(
            describeForPeople(HTTPClientError.connectTimeout, peer: "127.0.0.1:1", timeout: 30)
                == "timed out connecting to 127.0.0.1:1 after 30 s")
        #expect(describeForPeople(HTTPClientError.deadlineExceeded, timeout: 30) == "timed out after 30 s")
        #expect(describeForPeople(HTTPClientError.readTimeout) == "timed out")
        #expect(describeForPeople(HTTPClientError.cancelled) == "cancelled")
        #expect(
            describeForPeople(HTTPClientError.remoteConnectionClosed, peer: "127.0.0.1:8080")
                == "the connection was closed by 127.0.0.1:8080")
        #expect(
            describeForPeople(ChannelError.connectTimeout(.seconds(10)), timeout: 10)
                == "timed out connecting after 10 s")
        #expect(describeForPeople(ChannelError.ioOnClosedChannel) == "the connection was already closed")
        #expect(describeForPeople(Refusal()) == "the server refused it: check the token")
        // A struct we do not know: the error it wraps, else its name in words.
        #expect(describeForPeople(Opaque(inner: CancellationError())) == "cancelled")
        #expect(describeForPeople(Opaque(inner: HTTPClientError.invalidURL)) == "invalid url")
    }

    @Test(.timeLimit(.minutes(2)))
    func aRefusedConnectionOfTheRealHTTPClientReadsAsWords() async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:1/")
        request.method = .POST
        do {
            _ = try await HTTPClient.shared.execute(request, timeout: .seconds(3))
            Issue.record("port 1 answered")
        } catch {
            let words = describeForPeople(error, peer: "http://127.0.0.1:1/", timeout: 3)
            #expect(isPlainForPeople(words), "\(words) (from \(String(reflecting: error)))")
            #expect(words.contains("refused") || words.contains("timed out"), "\(words)")
        }
    }
}
