import Foundation
import XCTest

/// Actions carried out for real: xdotool against a real X server (Xvfb) with a real X client (xev)
/// watching, URL openers and configured programs that record their argv, and the config commands.
final class DesktopActionTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    var binary: URL { JarvisBinary.url(for: Self.self) }

    var scratch: URL!

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: binary.path),
                          "build the jarvis executable first (swift build)")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-desktop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    func fixture(_ name: String) -> String { Self.root.appendingPathComponent("audio-fixtures/\(name)").path }

    typealias Run = JarvisBinary.Result

    func jarvis(_ args: [String], environment: [String: String] = [:]) throws -> Run {
        // No user config leaks into the tests.
        try JarvisBinary.run(binary, args, environment: ["XDG_CONFIG_HOME": scratch.path].merging(environment) { $1 })
    }

    /// A program that appends its arguments, one per line, to `name`.argv in the scratch folder.
    func recorder(_ name: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> \"$0.argv\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    func recorded(_ program: String) -> [String]? {
        guard let text = try? String(contentsOfFile: program + ".argv", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").map(String.init)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: a real X server

    static func which(_ program: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(program)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    func start(_ program: String, _ args: [String], env: [String: String] = [:], output: URL? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try XCTUnwrap(Self.which(program), "\(program) is not installed (scripts/install-deps.sh --test installs it)"))
        p.arguments = args
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = try output.map { _ = FileManager.default.createFile(atPath: $0.path, contents: nil); return try FileHandle(forWritingTo: $0) } ?? FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Polls `condition` every 50 ms for up to `seconds`.
    func wait(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    func succeeds(_ program: String, _ args: [String], display: String) -> Bool {
        guard let p = try? start(program, args, env: ["DISPLAY": display]) else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// Starts Xvfb on a free display and an `xev` window under the pointer; returns the display and a
    /// function that reads what xev saw as "button N" / "key NAME" lines.
    func startXServerWithWatcher() throws -> (display: String, seen: () -> [String]) {
        var number = 90 + Int.random(in: 0..<100)
        while FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") { number += 1 }
        let display = ":\(number)"
        let xvfb = try start("Xvfb", [display, "-nolisten", "tcp", "-screen", "0", "640x480x24"])
        addTeardownBlock { xvfb.terminate(); xvfb.waitUntilExit() }
        XCTAssertTrue(wait(10) { succeeds("xdotool", ["getdisplaygeometry"], display: display) }, "Xvfb did not start")
        let log = scratch.appendingPathComponent("xev.log")
        // stdbuf: xev's stdout is a file, so make it line-buffered to read it while it runs. On a loaded
        // machine the first client can be slow to map its window: give it three tries.
        var mapped = false
        for _ in 0..<3 where !mapped {
            let xev = try start("stdbuf", ["-oL", "xev", "-geometry", "400x400+0+0", "-event", "button", "-event", "keyboard"],
                                env: ["DISPLAY": display], output: log)
            addTeardownBlock { xev.terminate(); xev.waitUntilExit() }
            mapped = wait(10) { succeeds("xdotool", ["search", "--name", "Event Tester"], display: display) }
            if !mapped { xev.terminate() }
        }
        XCTAssertTrue(mapped, "the xev window did not appear")
        XCTAssertTrue(succeeds("xdotool", ["mousemove", "200", "200"], display: display))
        Thread.sleep(forTimeInterval: 0.3)
        let seen = { () -> [String] in
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            var out: [String] = []
            var pending: String?
            for line in text.split(separator: "\n") {
                if line.hasPrefix("ButtonPress event") { pending = "button" }
                else if line.hasPrefix("KeyPress event") { pending = "key" }
                else if !line.hasPrefix(" ") { pending = nil }
                guard let kind = pending else { continue }
                if kind == "button", let r = line.range(of: "button ") {
                    out.append("button " + line[r.upperBound...].prefix { $0.isNumber })
                    pending = nil
                } else if kind == "key", let r = line.range(of: "keysym 0x") {
                    let name = line[r.upperBound...].drop { $0 != "," }.dropFirst().prefix { $0 != ")" }
                    out.append("key " + name.trimmingCharacters(in: .whitespaces))
                    pending = nil
                }
            }
            return out
        }
        return (display, seen)
    }

    func testReplayExecuteClicksScrollsAndPressesKeysInARealXClient() throws {
        let (display, seen) = try startXServerWithWatcher()
        XCTAssertEqual(seen(), [], "nothing before the replay")
        let opener = try recorder("opener")
        let r = try jarvis(["replay", fixture("scroll_down.wav"), fixture("session.wav"), "--json",
                            "--execute", "--actions", "xdotool", "--opener", opener],
                           environment: ["DISPLAY": display])
        XCTAssertEqual(r.status, 0, r.stderr)
        let actions = r.events("action")
        XCTAssertEqual(actions.map { $0["status"] as? String }, ["ok", "ok", "ok", "ok"], r.stdout)
        XCTAssertEqual(actions.map { $0["backend"] as? String }, ["xdotool", "xdotool", "xdotool", "opener"])
        XCTAssertTrue(wait(3) { seen().count >= 7 })
        // "scroll down": 3 wheel-down notches (button 5); "go back": alt+Left; "double click": button 1 twice.
        XCTAssertEqual(seen(), ["button 5", "button 5", "button 5", "key Alt_L", "key Left", "button 1", "button 1"])
        XCTAssertEqual(recorded(opener), ["https://www.youtube.com/"], "\"open youtube\" goes to the opener")
    }

    func testConfiguredChordsAndNotchesAreUsed() throws {
        let (display, seen) = try startXServerWithWatcher()
        let config = try write("c.yaml", "scroll_notches: 1\nkeys:\n  back: ctrl+bracketleft\n")
        let r = try jarvis(["replay", fixture("scroll_down.wav"), fixture("session.wav"), "--json", "--config", config,
                            "--execute", "--actions", "xdotool", "--opener", try recorder("opener")],
                           environment: ["DISPLAY": display])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(wait(3) { seen().count >= 5 })
        XCTAssertEqual(seen(), ["button 5", "key Control_L", "key bracketleft", "button 1", "button 1"])
    }

    func testCustomCommandFromAudioRunsTheProgramWithTheSlotValue() throws {
        let program = try recorder("volume")
        let config = try write("c.yaml", """
        commands:
          - name: set_volume
            say: "set [the] volume to <number>"
            run: [\(program), volume, "{number}"]
        """)
        let dry = try jarvis(["replay", fixture("custom_volume.flac"), "--json", "--config", config])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertNil(recorded(program), "replay runs nothing without --execute")
        XCTAssertEqual(dry.events("action").first?["status"] as? String, "dry-run")

        let r = try jarvis(["replay", fixture("custom_volume.flac"), "--json", "--config", config,
                            "--execute", "--actions", "dry-run"])
        XCTAssertNil(recorded(program), "--actions dry-run executes nothing")
        let run = try jarvis(["replay", fixture("custom_volume.flac"), "--json", "--config", config,
                              "--execute", "--actions", "xdotool"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(run.status, 0, run.stderr)
        let intent = try XCTUnwrap(run.events("intent").first)
        XCTAssertEqual(intent["name"] as? String, "set_volume")
        XCTAssertEqual((intent["slots"] as? [String: Any])?["number"] as? Int, 7)
        XCTAssertEqual(run.events("action").first?["status"] as? String, "ok")
        XCTAssertEqual(recorded(program), ["volume", "7"])
    }

    func testReplayWithoutExecuteCallsNoHelper() throws {
        let opener = try recorder("opener")
        let r = try jarvis(["replay", fixture("session.wav"), fixture("search_pizza.wav"), "--json", "--opener", opener])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.events("action").map { $0["status"] as? String }, ["dry-run", "dry-run", "dry-run", "dry-run"])
        XCTAssertNil(recorded(opener))
    }

    func testAutoWithoutADisplayWarnsAndOnlyReports() throws {
        let opener = try recorder("opener")
        let r = try jarvis(["replay", fixture("scroll_down.wav"), "--json", "--execute", "--opener", opener],
                           environment: ["DISPLAY": "", "WAYLAND_DISPLAY": "", "XDG_SESSION_TYPE": "tty"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.events("warning").first?["code"] as? String, "no-display")
        XCTAssertEqual(r.events("action").first?["status"] as? String, "dry-run")
    }

    func testMissingHelperIsAFailedActionNotACrash() throws {
        let r = try jarvis(["replay", fixture("search_pizza.wav"), fixture("scroll_down.wav"), "--json", "--execute",
                            "--actions", "xdotool", "--opener", "/nonexistent/opener"],
                           environment: ["PATH": "/nonexistent"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let actions = r.events("action")
        XCTAssertEqual(actions.map { $0["status"] as? String }, ["failed", "failed"])
        XCTAssertTrue((actions[0]["detail"] as? String ?? "").contains("/nonexistent/opener"), "\(actions[0])")
        XCTAssertTrue((actions[1]["detail"] as? String ?? "").contains("xdotool"), "\(actions[1])")
        XCTAssertEqual(r.events("end").count, 2, "the pipeline goes on after a failed action")
    }

    func testYdotoolWhereItsDaemonCanRun() throws {
        // ydotool needs its daemon and write access to /dev/uinput; CI containers have neither. Its argv
        // construction is tested in ActionTests.testYdotoolArgv; here it runs for real when it can.
        guard Self.which("ydotool") != nil, Self.which("ydotoold") != nil else {
            throw XCTSkip("ydotool/ydotoold are not installed here: only ydotool's argv construction is tested (ActionTests.testYdotoolArgv).")
        }
        guard access("/dev/uinput", W_OK) == 0 else {
            throw XCTSkip("/dev/uinput is not writable here, so ydotoold cannot run: only ydotool's argv construction is tested.")
        }
        let r = try jarvis(["replay", fixture("scroll_down.wav"), "--json", "--execute", "--actions", "ydotool"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.events("action").first?["backend"] as? String, "ydotool")
        XCTAssertNotNil(r.events("action").first?["status"] as? String)
    }

    // MARK: config commands

    func testCheckConfig() throws {
        let example = Self.root.appendingPathComponent("docs/config.example.yaml").path
        let ok = try jarvis(["check-config", example])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.contains("OK"), ok.stdout)

        let bad = try write("bad.yaml", """
        actions: xdotool
        sitez: {}
        commands:
          - say: "open the frobnicator"
            run: [echo]
          - say: "go back"
            keys: alt+Left
        """)
        let r = try jarvis(["check-config", bad])
        XCTAssertEqual(r.status, 2)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, r.stdout)
        XCTAssertTrue(lines[0].hasPrefix("\(bad):2: unknown setting 'sitez' (did you mean 'sites'?)"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("\(bad):4: 'frobnicator' is not in the pronunciation dictionary"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("\(bad):6: \"go back\" is said by both"), lines[2])
        XCTAssertTrue(r.stderr.contains("3 problems"), r.stderr)

        let missing = try jarvis(["check-config", scratch.appendingPathComponent("none.yaml").path])
        XCTAssertEqual(missing.status, 2)
    }

    func testBadConfigStopsReplayWithExit2AndAnErrorEvent() throws {
        let bad = try write("bad.yaml", "actions: sometimes\n")
        let r = try jarvis(["replay", fixture("scroll_down.wav"), "--json", "--config", bad])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.events("error").first?["code"] as? String, "config")
        XCTAssertTrue(r.stderr.contains("bad.yaml:1: actions must be one of"), r.stderr)
        let usage = try jarvis(["replay", fixture("scroll_down.wav"), "--actions", "telepathy"])
        XCTAssertEqual(usage.status, 2)
    }

    func testDefaultConfigFileIsReadFromXDGConfigHome() throws {
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("jarvis"), withIntermediateDirectories: true)
        _ = try write("jarvis/config.yaml", "commands:\n  - say: \"set [the] volume to <number>\"\n    run: [echo, \"{number}\"]\n")
        let r = try jarvis(["commands"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("set [the] volume to <number>"), r.stdout)
        let grammar = try jarvis(["commands", "--grammar"])
        XCTAssertTrue(grammar.stdout.contains(" volume"), "custom words reach the recogniser's grammar")
    }
}
