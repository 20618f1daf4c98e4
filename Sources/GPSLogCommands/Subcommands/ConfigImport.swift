// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel
import GPSLogUpload

extension GPSLog.Config {
    /// Stores what an Overland setup link carries, as tapping it does in the app.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store an Overland setup link's URL, token and device id in the user's config file.",
            discussion: """
                overland://setup?url=...&token=...&device_id=...&unique_id=yes sets [record] send and [upload] url \
                to the URL, device-id, unique-id when asked, and token-file: the token goes to a file of its own \
                beside the config file (mode 0600), never into it. The file is edited line by line, so its comments \
                stay. Give - to read the link from standard input (out of `ps` and the shell's history).
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The setup link, or - to read it from standard input.") var link: String

        func run() throws {
            let text = link == "-" ? (readLine(strippingNewline: true) ?? "") : link
            let setup = try SetupLink(text)
            let environment = ProcessInfo.processInfo.environment
            let locations = ConfigLocations(explicit: global.config, environment: environment)
            let path = locations.user
            let old = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
            // The file must read before it is edited, and after: an edit never leaves a broken file behind.
            let catalog = try OptionCatalog.gpslog()
            if !old.isEmpty { _ = try ConfigDocument.parse(old, path: path, catalog: catalog) }
            let tokenPath = locations.userFileDirectory + "/token"
            var editor = ConfigEditor(text: old)
            var stored: [String] = []
            func set(_ key: String, _ value: ConfigValue, in table: String) {
                let was = editor.set(key, to: value, in: table)
                let replaced = was.map { " (was \(key == "token-file" ? $0 : GPSLog.Config.shown(key, $0)))" } ?? ""
                stored.append("[\(table)] \(key) = \(GPSLog.Config.shown(key, value).display)\(replaced)")
            }
            for (table, urlKey) in [("record", "send"), ("upload", "url")] {
                set(urlKey, .string(setup.url), in: table)
                if let id = setup.deviceID { set("device-id", .string(id), in: table) }
                if setup.uniqueID { set("unique-id", .boolean(true), in: table) }
                if setup.token != nil {
                    if editor.remove("token", in: table) != nil { stored.append("[\(table)] token removed") }
                    set("token-file", .string(tokenPath), in: table)
                }
            }
            do {
                _ = try ConfigDocument.parse(editor.text, path: path, catalog: catalog)
            } catch {
                throw CommandError.refused(
                    "\(path.visible) could not be edited safely (\(error.localizedDescription)): add the settings by hand."
                )
            }
            if let token = setup.token { try PrivateFiles.write(token.secret + "\n", to: tokenPath) }
            try PrivateFiles.write(editor.text, to: path)
            print("Stored in \(path.visible):")
            for line in stored { print("  " + line.visible) }
            if setup.token != nil { print("Token: *** in \(tokenPath.visible) (mode 0600).") }
            if setup.uniqueID {
                let id = try PrivateFiles.uniqueID(in: locations.userDirectory)
                print("Unique id: \(id) in \((locations.userDirectory + "/unique-id").visible).")
            }
        }
    }
}
