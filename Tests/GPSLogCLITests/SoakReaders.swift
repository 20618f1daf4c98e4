// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport

// The soak's readers (and small writers): the web view walked by a plain HTTP client and now and then by Chromium,
// and the command-line tools a user runs beside a recording.

extension SoakRun {
    /// Session ids in a JSON or HTML text (`"id":"..."`, `/sessions/...`).
    static func sessionIDs(_ text: String) -> [String] {
        let pattern = #"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let matches = regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
        return Array(Set(matches.compactMap { Range($0.range, in: text).map { String(text[$0]) } })).sorted()
    }

    /// The local links of a page (`href="/..."`, `src="/..."`): its style sheets, scripts and pictures.
    static func localLinks(_ html: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: #"(?:href|src)="(/[^"]*)""#) else { return [] }
        let matches = regex.matches(in: html, range: NSRange(html.startIndex..., in: html))
        return Array(Set(matches.compactMap { Range($0.range(at: 1), in: html).map { String(html[$0]) } })).sorted()
    }

    /// One GET of the view; a 5xx outside the full disk, or a 4xx other than a session gone, is a finding.
    @discardableResult func get(_ path: String, port: Int, streamSeconds: Double? = nil) -> SoakHTTPResult {
        let sent = Date()
        let answer = soakHTTP("GET", port: port, path: path, timeout: 60, streamSeconds: streamSeconds)
        var route = path.split(separator: "?").first.map(String.init) ?? path
        for id in Self.sessionIDs(route) { route = route.replacingOccurrences(of: id, with: "ID") }
        switch answer {
        case .answered(200, _):
            count("GETs answered 200")
        case .answered(404, _) where route.contains("ID"):
            count("GETs of a session deleted meanwhile (404)")
        case .answered(let status, let text):
            count("GETs answered \(status)")
            if status >= 500 && (diskWasFull(at: sent) || diskWasFull()) { break }
            findingOnce("GET \(route) \(status)", "GET \(route) was answered \(status): \(text.prefix(200))")
        case .failed:
            count("GETs without an answer (serve killed or restarting)")
        }
        return answer
    }

    /// Walks every page and API route of the view, for a session drawn from the list each round.
    func walkTheView() {
        var pace = Date()
        for round in 0..<100_000 where loadRunning {
            pace = max(pace.addingTimeInterval(0.4), Date())
            pause(until: pace)
            guard let port = servePort else { continue }
            let list = get("/api/sessions", port: port)
            guard let id = pick(Self.sessionIDs(list.body)) else { continue }
            let api = "/api/sessions/\(id)"
            for path in [
                "/", "/?name=soak", api, api + "/track.geojson", api + "/track.geojson?tolerance=5", api + "/entries",
                api + "/entries?from=2025-06-01T00:00:00Z&to=2025-06-20T00:00:00Z", api + "/marks", api + "/plot.svg",
            ] {
                get(path, port: port)
            }
            get(api + "/live", port: port, streamSeconds: 1.5)
            let page = get("/sessions/\(id)", port: port)
            if round % 10 == 0 {
                for link in Self.localLinks(page.body) where !link.hasPrefix("/api/") { get(link, port: port) }
            }
        }
    }

    /// Headless Chromium loads a session's page (scripts, map, charts) now and then: once in a short run, every
    /// 150 s in a long one.
    func browse(seconds: Double) {
        let times = seconds < 300 ? [seconds * 0.55] : Array(stride(from: 60.0, to: seconds - 30, by: 150))
        for at in times {
            pause(until: started.addingTimeInterval(at))
            guard loadRunning else { return }
            guard let port = servePort, let id = pick(Self.sessionIDs(get("/api/sessions", port: port).body)) else {
                count("Chromium visits skipped (serve restarting)")
                continue
            }
            do {
                let child = try spawn(
                    "chromium",
                    [
                        "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(folder)/chromium",
                        "--virtual-time-budget=10000", "--dump-dom", "http://127.0.0.1:\(port)/sessions/\(id)",
                    ], executable: "/usr/bin/chromium")
                if !child.wait(timeout: 120) {
                    child.killGroup()
                    _ = child.wait(timeout: 30)
                    count("Chromium visits over 120 s")
                }
                // The page's own header: the browser got it (serve may have been killed meanwhile).
                if child.stdout.contains(#"<a href="/">gpslog</a>"#) {
                    count("Chromium pages")
                } else {
                    count("Chromium pages not loaded")
                    keepOutput(child)
                }
                finish(child, crashScan: false)
            } catch {
                count("Chromium visits that could not start")
            }
        }
    }

    /// `sessions`, `export`, `mark` (the recorder's, and a manual mark), `delete --dry-run` and `check` in turn.
    func runCommands() {
        // Sessions are listed, then used: the import loop may have deleted one meanwhile.
        let gone = "no session is named"
        var pace = Date()
        var sessions: [(id: String, name: String)] = []
        for round in 0..<100_000 where loadRunning {
            pace = max(pace.addingTimeInterval(0.3), Date())
            pause(until: pace)
            let any = pick(sessions)
            let own = pick(sessions.filter { $0.name.hasPrefix("soak-rec") || $0.name.hasPrefix("soak-import") })
            do {
                switch round % 6 {
                case 0:
                    let child = try command("sessions", ["sessions", "--json"])
                    let list = (try? JSONSerialization.jsonObject(with: Data(child.utf8))) as? [[String: Any]] ?? []
                    let listed = list.compactMap { s in
                        (s["id"] as? String).map { ($0, s["name"] as? String ?? "") }
                    }
                    if !listed.isEmpty { sessions = listed }
                case 1:
                    if let any {
                        try command("export", ["export", any.id, "--format", "gpx", "-o", "-"], excuses: [gone])
                    }
                case 2:
                    // The recorder may be killed by the soak while it answers: the mark is then not confirmed.
                    try command(
                        "mark", ["mark", "soak mark \(round)"],
                        excuses: ["no recording is running", "ended before it answered"])
                case 3:
                    if let own {
                        try command(
                            "mark", ["mark", "manual \(round)", "--session", own.id, "--lat", "47.5", "--lon", "8.5"],
                            // Deleted by the import writer between the lookup and the write: refused whole.
                            excuses: [gone, "its session does not exist"])
                    }
                case 4:
                    if let any {
                        try command("delete", ["delete", any.id, "--dry-run"], excuses: [gone, "is being recorded"])
                    }
                default:
                    try command("check", ["check"])
                }
            } catch {
                finding("cannot run a command: \(error)")
                return
            }
        }
    }

    /// Runs a gpslog command to its end (180 s at most: longer is a hang) and judges it; returns its stdout.
    /// `excuses`: words of a refusal that is right here (no recorder to mark, a session deleted meanwhile): counted,
    /// not a finding.
    @discardableResult func command(_ kind: String, _ arguments: [String], excuses: [String] = []) throws -> String {
        let child = try spawn(kind, arguments)
        let start = Date()
        if !child.wait(timeout: 180) {
            findingOnce("\(kind) hung", "\(kind) hung: still running after 180 s (\(arguments.joined(separator: " ")))")
            child.kill9()
            _ = child.wait(timeout: 30)
        }
        let out = child.stdout
        judge(child, start: start, excuses: excuses)
        return out
    }

    /// Books an ended command: well, killed by the soak, refused on the full disk, or a finding.
    func judge(_ child: SoakChild, start: Date, excuses: [String] = []) {
        let outcome = child.outcome
        if outcome.killedBySoak {
            count("\(child.kind) killed")
        } else if outcome.status == 0 {
            count("\(child.kind) ok")
        } else if outcome.signal == nil && (diskWasFull(at: start) || diskWasFull()) {
            count("\(child.kind) refused on the full disk")
        } else if outcome.signal == nil, let excuse = excuses.first(where: { child.stderr.contains($0) }) {
            count("\(child.kind) refused: \(excuse)")
        } else if outcome.signal == nil {
            keepOutput(child)
            // Said once per kind of error (its first words), however often it comes.
            let words = child.stderr.split(separator: "\n").last?.prefix(28) ?? ""
            findingOnce(
                "\(child.kind) \(outcome): \(words)",
                "\(child.kind) ended with \(outcome) outside the full disk (\(child.stderrPath)): \(lastLines(child.stderr))"
            )
        }
        finish(child)
    }
}
