// SPDX-License-Identifier: MIT
import GPSLogConfig
import Testing

@Suite struct ConfigEditorTests {
    @Test func editsKeepCommentsAndLayout() throws {
        var editor = ConfigEditor(
            text: """
                # mine
                json = true

                [record]
                # keep this
                min-distance = 50  # metres
                send = "http://old/"

                # about export
                [sessions]
                """)
        #expect(editor.set("send", to: .string("https://new/"), in: "record") == "\"http://old/\"")
        #expect(editor.set("token-file", to: .string("/t"), in: "record") == nil)
        #expect(editor.set("db", to: .string("/d"), in: nil) == nil)
        #expect(editor.set("url", to: .string("https://new/"), in: "upload") == nil)
        #expect(editor.remove("min-distance", in: "record") == "50  # metres")
        #expect(
            editor.text == """
                # mine
                json = true
                db = "/d"

                [record]
                # keep this
                send = "https://new/"
                token-file = "/t"

                # about export
                [sessions]

                [upload]
                url = "https://new/"

                """)
    }

    /// A value replaced in place keeps the comment after it; a `#` inside the old string is no comment.
    @Test func aReplacedLineKeepsItsTrailingComment() throws {
        var editor = ConfigEditor(
            text: "[record]\ntoken-file = \"/old/#x\"  # my token\ninterval = '5s'# walking\nverbose = false\n")
        #expect(editor.set("token-file", to: .string("/new"), in: "record") == "\"/old/#x\"  # my token")
        editor.set("interval", to: .string("1s # no comment"), in: "record")
        editor.set("verbose", to: .boolean(true), in: "record")
        #expect(
            editor.text
                == "[record]\ntoken-file = \"/new\"  # my token\ninterval = \"1s # no comment\"  # walking\nverbose = true\n"
        )
        let document = try ConfigDocument.parse(editor.text, path: "/c/config.toml", catalog: catalog)
        #expect(
            document.settings.sections["record"]?.map(\.value) == [
                .string("/new"), .string("1s # no comment"), .boolean(true),
            ])
    }

    @Test func anEmptyFileGetsItsTables() {
        var editor = ConfigEditor(text: "")
        editor.set("device-id", to: .string("a \"pi\""), in: "record")
        editor.set("unique-id", to: .boolean(true), in: "record")
        #expect(editor.text == "[record]\ndevice-id = \"a \\\"pi\\\"\"\nunique-id = true\n")
    }
}

@Suite struct SetupLinkParsingTests {
    @Test func readsOverlandsLink() throws {
        let link = try SetupLink(
            "overland://setup?url=https%3A%2F%2Fexample.org%2Fapi%3Fx%3D1&token=T0ken&device_id=pi&unique_id=yes")
        #expect(link.url == "https://example.org/api?x=1")
        #expect(link.token?.secret == "T0ken")
        #expect(link.deviceID == "pi")
        #expect(link.uniqueID)
        #expect(try SetupLink("overland://setup?url=http%3A%2F%2F127.0.0.1%3A8080%2F").token == nil)
    }

    @Test func refusesOtherLinks() {
        func refusal(_ text: String) -> SetupLinkError? {
            do {
                _ = try SetupLink(text)
                return nil
            } catch { return error }
        }
        #expect(refusal("owntracks:///config?url=http%3A%2F%2Fx") == .wrongScheme("owntracks://"))
        #expect(refusal("https://setup?url=http%3A%2F%2Fx") == .wrongScheme("https://setup"))
        #expect(refusal("overland://setup?url=ftp%3A%2F%2Fx") == .notHTTP("ftp://x"))
        #expect(refusal("overland://setup?url=javascript:alert(1)") != nil)
        #expect(refusal("overland://setup?token=abc") == .noURL)
        guard case .badToken(let message) = refusal("overland://setup?url=http%3A%2F%2Fx&token=") else {
            Issue.record("an empty token was taken")
            return
        }
        #expect(message.contains("empty"))
    }
}
