// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogRecording

extension GPSLog {
    /// Sets OwnTracks' tag of the running recording, as the iOS app's "Set tag" does.
    struct Tag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set or clear the tag kept with every following entry of the running recording (OwnTracks' tag).",
            discussion: "Without a tag, prints the one set. OwnTracks exports and live sending carry it as `tag`.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The tag, e.g. 'Spain 2023'.") var tag: String?
        @Flag(help: "Clear the tag.") var clear = false

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            if clear && tag != nil { throw ValidationError("Give a tag or --clear, not both.") }
        }

        func run() async throws {
            let db = global.databasePath
            let response = try await ControlClient.send(
                .tag(clear ? "" : tag), socketPath: ControlSocket.path(forDatabase: db), database: db)
            guard response.ok, let status = response.status else {
                throw RecordingError.recorder(response.error ?? "the recorder did not answer with its status")
            }
            print(status.tag.map { "Tag: \($0.visible)" } ?? "No tag.")
        }
    }
}
