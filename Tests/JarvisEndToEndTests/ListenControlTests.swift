import Foundation
import XCTest

/// `jarvis ctl` against a running `jarvis listen` (through the ALSA file-plugin PCM), and the history file.
extension ListenCommandTests {
    func ctl(_ args: [String]) throws -> (Int32?, String) {
        let (status, r) = try run(["ctl"] + args, timeout: 10)
        return (status, r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    func testControlSocketMuteUnmuteInjectAndTheHistory() throws {
        let opener = dir.appendingPathComponent("opener").path
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" >> \"$0.argv\"\n".write(toFile: opener, atomically: true, encoding: .utf8)
        chmod(opener, 0o755)
        // session.wav: "go back" at 0.8 s, "double click" at 4.09 s, "open youtube" at 7.58 s; real-time pace.
        let r = try start(["listen", "--device", "jarvistest", "--json", "--pace", "1", "--duration", "10.5",
                           "--actions", "xdotool", "--opener", opener])
        XCTAssertTrue(r.waitFor(timeout: 20) { !r.events("intent").isEmpty }, "first command: \(r.stdout)\(r.stderr)")
        let socket = dir.appendingPathComponent("jarvis.sock").path
        let mode = try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? Int
        XCTAssertEqual(mode.map { $0 & 0o777 }, 0o600)

        // Mute before "double click" starts (4.09 s of audio): it must not be acted on.
        let (muteStatus, muted) = try ctl(["mute"])
        XCTAssertEqual(muteStatus, 0)
        XCTAssertEqual(json(muted)["muted"] as? Bool, true, muted)
        let status = json(try ctl(["status"]).1)
        XCTAssertEqual(status["muted"] as? Bool, true)
        XCTAssertEqual(status["device"] as? String, "jarvistest")
        XCTAssertLessThan(status["t"] as? Double ?? 99, 4.0, "muted in time (else the machine is too slow for this test)")

        // Unmute after "double click" ended (5.58 s), before "open youtube" (7.58 s).
        XCTAssertTrue(r.waitFor(timeout: 10) { (self.json((try? self.ctl(["status"]).1) ?? "")["t"] as? Double ?? 0) >= 6.2 })
        XCTAssertEqual(json(try ctl(["unmute"]).1)["muted"] as? Bool, false)

        // Inject: spoken text is data, the query reaches the opener percent-encoded, in one argument.
        let (injectStatus, injected) = try ctl(["inject", "search for \"pizza\"; rm -rf ~"])
        XCTAssertEqual(injectStatus, 0)
        let replyEvents = json(injected)["events"] as? [[String: Any]] ?? []
        XCTAssertEqual(replyEvents.compactMap { $0["type"] as? String }, ["transcript", "intent", "action"], injected)
        XCTAssertEqual((replyEvents[1]["slots"] as? [String: Any])?["query"] as? String, "pizza rm rf")

        XCTAssertEqual(r.finish(timeout: 20), 0, r.stderr)
        let intents = r.events("intent").compactMap { e -> String? in
            let slots = e["slots"] as? [String: Any] ?? [:]
            return "\(e["name"] ?? "")/\(slots["target"] ?? slots["query"] ?? slots["button"] ?? "")"
        }
        XCTAssertEqual(intents, ["navigate/back", "search/pizza rm rf", "navigate/url"], "double click was muted")
        XCTAssertEqual(r.events("control").compactMap { $0["command"] as? String }, ["mute", "unmute", "inject"])
        let opened = try String(contentsOfFile: opener + ".argv", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(opened, ["https://www.google.com/search?q=pizza%20rm%20rf", "https://www.youtube.com/"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket), "the socket is removed on exit")

        // The history holds the wakes, intents, actions and control requests, each line JSON with a time.
        let history = try String(contentsOfFile: dir.appendingPathComponent("jarvis/history.jsonl").path, encoding: .utf8)
        let entries = history.split(separator: "\n").map { json(String($0)) }
        XCTAssertTrue(entries.allSatisfy { $0["time"] is String })
        let types = entries.compactMap { $0["type"] as? String }
        XCTAssertEqual(types.filter { $0 == "intent" }.count, 3)
        XCTAssertEqual(types.filter { $0 == "action" }.count, 3)
        XCTAssertEqual(types.filter { $0 == "control" }.count, 3)
        XCTAssertEqual(types.filter { $0 == "wake" }.count, 2)
        XCTAssertFalse(types.contains("speech_start"))
    }

    func testCtlWithoutAListenerExits5() throws {
        let (status, _) = try ctl(["status"])
        XCTAssertEqual(status, 5)
        let (usage, _) = try ctl(["reboot"])
        XCTAssertEqual(usage, 2)
    }
}

extension ListenCommandTests {
    /// The systemd unit in the repo starts `listen` with options that exist.
    func testSystemdUnitUsesRealOptions() throws {
        let unit = try String(contentsOf: Self.fixtures.deletingLastPathComponent()
            .appendingPathComponent("contrib/systemd/jarvis.service"), encoding: .utf8)
        let exec = try XCTUnwrap(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let words = exec.split(separator: " ").dropFirst()
        XCTAssertEqual(words.first, "listen")
        let (status, help) = try run(["listen", "--help"])
        XCTAssertEqual(status, 0)
        for option in words.dropFirst() where option.hasPrefix("--") {
            XCTAssertTrue(help.stdout.contains(String(option)), "\(option) is a listen option")
        }
        XCTAssertTrue(unit.contains("ExecReload=/bin/kill -HUP $MAINPID"))
    }
}
