// SPDX-License-Identifier: MIT
import GPSLogModel
import Testing

@Suite struct AccessTokenTests {
    /// An empty or blank token used to mean "no authentication": every one of these is refused as empty.
    @Test(arguments: ["", " ", "   ", "\t", "\n", "\u{00A0}", " \t\r\n"])
    func emptyOrBlankTokensAreRefused(text: String) {
        #expect(throws: AccessTokenError.empty(origin: "--token")) { try AccessToken(text, origin: "--token") }
    }

    @Test(arguments: ["two words", " leading", "trailing ", "bell\u{07}", "nul\u{00}inside", "line\nbreak"])
    func tokensThatAreNotOneWordAreRefused(text: String) {
        #expect(throws: AccessTokenError.notOneWord(origin: "$GPSLOG_TOKEN")) {
            try AccessToken(text, origin: "$GPSLOG_TOKEN")
        }
    }

    @Test func longTokensAreBoundedAndShortOnesRefusedOffLoopback() throws {
        #expect(throws: AccessTokenError.tooLong(origin: "--token", limit: 4096)) {
            try AccessToken(String(repeating: "x", count: 4097), origin: "--token")
        }
        #expect(try AccessToken(String(repeating: "x", count: 4096), origin: "--token").secret.utf8.count == 4096)
        let short = try AccessToken("abc", origin: "--token")
        #expect(throws: AccessTokenError.tooShortOffLoopback(origin: "--token", minimum: 16)) {
            try short.checkStrongEnoughOffLoopback(origin: "--token")
        }
        try AccessToken("0123456789abcdef", origin: "--token").checkStrongEnoughOffLoopback(origin: "--token")
    }

    /// A set but empty variable is an error, an unset one is no token, and the option wins over the variable.
    @Test func resolvingFromOptionAndEnvironment() throws {
        #expect(throws: AccessTokenError.empty(origin: "$GPSLOG_TOKEN")) {
            try AccessToken.resolve(option: nil, environment: ["GPSLOG_TOKEN": ""])
        }
        #expect(try AccessToken.resolve(option: nil, environment: [:]) == nil)
        #expect(
            try AccessToken.resolve(option: "from-option", environment: ["GPSLOG_TOKEN": "from-env"])?.secret
                == "from-option")
        #expect(try AccessToken.resolve(option: nil, environment: ["GPSLOG_TOKEN": "from-env"])?.secret == "from-env")
    }

    /// Interpolation, which is how a token would reach a log line or an error, never shows it.
    @Test func interpolationNeverShowsTheSecret() throws {
        let token = try AccessToken("hunter2-hunter2-hunter2", origin: "--token")
        #expect("\(token)" == "***" && String(reflecting: token) == "AccessToken(***)")
        let refusal = (try? AccessToken("hunter2 hunter2", origin: "--token")).map { _ in "" } ?? ""
        #expect(refusal.isEmpty)
        for error in [
            AccessTokenError.empty(origin: "--token"), .notOneWord(origin: "--token"),
            .tooShortOffLoopback(origin: "--token", minimum: 16),
        ] {
            #expect(error.errorDescription?.contains("--token") == true)
        }
    }
}
