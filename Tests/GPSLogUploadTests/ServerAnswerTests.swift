// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogUpload

/// `set` is read only from `{"result":"ok"}` answers; OwnTracks' `[]` and error answers carry nothing.
@Suite(.ownThreads)
struct ServerAnswerTests {
    @Test func settingsComeOnlyWithAnOkAnswer() {
        let ok =
            #"{"result":"ok","set":{"send_interval":"1s","main":{"min_distance":"50m","batch_size":500,"visit_tracking":true},"trip":{"min_time":"5s"}}}"#
        #expect(
            ServerAnswer.settings(in: ok) == [
                ServerSetting(section: "main", name: "batch_size", value: "500"),
                ServerSetting(section: "main", name: "min_distance", value: "50m"),
                ServerSetting(section: "main", name: "visit_tracking", value: "true"),
                ServerSetting(section: "top", name: "send_interval", value: "1s"),
                ServerSetting(section: "trip", name: "min_time", value: "5s"),
            ])
        #expect(ServerAnswer.settings(in: #"{"result":"error","set":{"send_interval":"1s"}}"#).isEmpty)
        #expect(ServerAnswer.settings(in: "[]").isEmpty)
        #expect(ServerAnswer.settings(in: "<html>").isEmpty)
    }
}
