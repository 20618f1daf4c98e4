// SPDX-License-Identifier: MIT
import GPSLogSystem
import Testing

struct HTTPAnswerTests {
    @Test func statusCodesAreReadOneWay() {
        #expect(HTTPAnswer(status: 200) == .success)
        #expect(HTTPAnswer(status: 204) == .success)
        #expect(HTTPAnswer(status: 429) == .rateLimited(retryAfter: nil))
        #expect(HTTPAnswer(status: 503, retryAfter: "30") == .rateLimited(retryAfter: 30))
        #expect(HTTPAnswer(status: 429, retryAfter: "0") == .rateLimited(retryAfter: nil))
        #expect(HTTPAnswer(status: 429, retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT") == .rateLimited(retryAfter: nil))
        #expect(HTTPAnswer(status: 500, retryAfter: "30") == .serverError)
        #expect(HTTPAnswer(status: 502) == .serverError)
        #expect(HTTPAnswer(status: 600) == .serverError)
        #expect(HTTPAnswer(status: 403) == .forbidden)
        #expect(HTTPAnswer(status: 400) == .refused)
        #expect(HTTPAnswer(status: 404) == .refused)
        #expect(HTTPAnswer(status: 301) == .unexpected)
        #expect(HTTPAnswer(status: 101) == .unexpected)
    }
}
