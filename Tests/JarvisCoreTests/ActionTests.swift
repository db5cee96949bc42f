import Foundation
import XCTest
@testable import JarvisCore

final class ActionTests: XCTestCase {
    func intent(_ name: String, _ slots: [String: SlotValue]) -> Intent {
        Intent(name: name, slots: slots, text: "")
    }

    // MARK: key chords

    func testKeyChordParsing() throws {
        XCTAssertEqual(try KeyChord(parsing: "ctrl+shift+Tab").description, "ctrl+shift+Tab")
        XCTAssertEqual(try KeyChord(parsing: "Control + T").description, "ctrl+t")
        XCTAssertEqual(try KeyChord(parsing: "alt+left").description, "alt+Left")
        XCTAssertEqual(try KeyChord(parsing: "page_down").description, "Next")
        XCTAssertEqual(try KeyChord(parsing: "super+F5").description, "super+F5")
        XCTAssertThrowsError(try KeyChord(parsing: "ctrl+"))
        XCTAssertThrowsError(try KeyChord(parsing: "hyper+t"))
        XCTAssertThrowsError(try KeyChord(parsing: "ctrl+nosuchkey"))
        XCTAssertThrowsError(try KeyChord(parsing: ""))
    }

    func testYdotoolKeyEventsPressInOrderReleaseInReverse() throws {
        // ctrl=29, shift=42, Tab=15 (linux/input-event-codes.h)
        XCTAssertEqual(try KeyChord(parsing: "ctrl+shift+Tab").ydotoolKeyEvents,
                       ["29:1", "42:1", "15:1", "15:0", "42:0", "29:0"])
        XCTAssertEqual(try KeyChord(parsing: "ctrl+t").ydotoolKeyEvents, ["29:1", "20:1", "20:0", "29:0"])
    }

    // MARK: planning

    func testPlanScrollClickNavigate() throws {
        let planner = ActionPlanner()
        XCTAssertEqual(try planner.plan(intent("scroll", ["direction": .string("down"), "amount": .int(2)])),
                       .scroll(direction: .down, notches: 6))
        XCTAssertEqual(try planner.plan(intent("scroll", ["direction": .string("up"), "amount": .int(1), "unit": .string("page")])),
                       .keys(try KeyChord(parsing: "Prior"), times: 1))
        XCTAssertEqual(try planner.plan(intent("click", ["button": .string("right"), "count": .int(1)])),
                       .click(button: .right, count: 1))
        XCTAssertEqual(try planner.plan(intent("click", ["button": .string("left"), "count": .int(3)])),
                       .click(button: .left, count: 3))
        XCTAssertEqual(try planner.plan(intent("navigate", ["target": .string("previous_tab")])),
                       .keys(try KeyChord(parsing: "ctrl+shift+Tab"), times: 1))
        XCTAssertEqual(try planner.plan(intent("navigate", ["target": .string("url"), "url": .string("https://github.com/")])),
                       .open(url: "https://github.com/"))
    }

    func testPlanRefusesNonWebURLsAndUnknownIntents() {
        let planner = ActionPlanner()
        for url in ["file:///etc/passwd", "javascript:alert(1)", "https://", "https://a b/", "ftp://x.org/"] {
            XCTAssertThrowsError(try planner.plan(intent("navigate", ["target": .string("url"), "url": .string(url)])), url)
        }
        XCTAssertThrowsError(try planner.plan(intent("teleport", [:])))
        XCTAssertThrowsError(try planner.plan(intent("scroll", ["direction": .string("sideways")])))
    }

    func testSearchQueryIsPercentEncodedIntoOneURL() throws {
        let nasty = "pizza \"quoted\" 'single' $(touch /tmp/x); rm -rf ~ & a=b#frag ünï\u{7}"
        let step = try ActionPlanner().plan(intent("search", ["query": .string(nasty)]))
        guard case .open(let url) = step else { return XCTFail("\(step)") }
        XCTAssertTrue(url.hasPrefix("https://www.google.com/search?q=pizza%20%22quoted%22%20%27single%27%20%24%28touch%20%2Ftmp%2Fx%29%3B%20rm%20-rf%20~%20%26%20a%3Db%23frag%20%C3%BCn%C3%AF%07"), url)
        XCTAssertEqual(URL(string: url)?.host, "www.google.com")
        XCTAssertTrue(ActionPlanner.isWebURL(url))
    }

    func testCustomRunSubstitutesSlotsInsideOneArgument() throws {
        var settings = ActionSettings()
        settings.custom["note"] = .run(["notify-send", "note: {what}", "{n}"])
        let step = try ActionPlanner(settings: settings).plan(intent("note", ["what": .string("a; rm -rf /"), "n": .int(3)]))
        XCTAssertEqual(step, .run(argv: ["notify-send", "note: a; rm -rf /", "3"]))
    }

    // MARK: backends

    func testXdotoolArgv() throws {
        let x = XdotoolBackend()
        XCTAssertEqual(x.argv(for: .click(button: .right, count: 2)),
                       ["xdotool", "click", "--repeat", "2", "--delay", "80", "3"])
        XCTAssertEqual(x.argv(for: .scroll(direction: .down, notches: 3)),
                       ["xdotool", "click", "--repeat", "3", "--delay", "15", "5"])
        XCTAssertEqual(x.argv(for: .scroll(direction: .left, notches: 1))?.last, "6")
        XCTAssertEqual(x.argv(for: .keys(try KeyChord(parsing: "alt+Left"), times: 1)),
                       ["xdotool", "key", "--clearmodifiers", "--repeat", "1", "--delay", "40", "alt+Left"])
        XCTAssertNil(x.argv(for: .open(url: "https://x.org/")))
    }

    func testYdotoolArgv() throws {
        let y = YdotoolBackend()
        XCTAssertEqual(y.argv(for: .click(button: .left, count: 2)),
                       ["ydotool", "click", "--repeat", "2", "--next-delay", "80", "0xC0"])
        XCTAssertEqual(y.argv(for: .click(button: .middle, count: 1))?.last, "0xC2")
        XCTAssertEqual(y.argv(for: .scroll(direction: .down, notches: 3)),
                       ["ydotool", "mousemove", "--wheel", "-x", "0", "-y", "-3"])
        XCTAssertEqual(y.argv(for: .scroll(direction: .right, notches: 2)),
                       ["ydotool", "mousemove", "--wheel", "-x", "2", "-y", "0"])
        XCTAssertEqual(y.argv(for: .keys(try KeyChord(parsing: "ctrl+w"), times: 2)),
                       ["ydotool", "key", "--key-delay", "20", "29:1", "17:1", "17:0", "29:0", "29:1", "17:1", "17:0", "29:0"])
    }

    func testAutoBackendFollowsTheSession() {
        XCTAssertEqual(DesktopCommandProcessor.backend(for: .auto, environment: ["WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"]).backend?.name, "ydotool")
        XCTAssertEqual(DesktopCommandProcessor.backend(for: .auto, environment: ["DISPLAY": ":0"]).backend?.name, "xdotool")
        let none = DesktopCommandProcessor.backend(for: .auto, environment: [:])
        XCTAssertNil(none.backend)
        XCTAssertNotNil(none.warning)
        XCTAssertNil(DesktopCommandProcessor.backend(for: .dryRun, environment: ["DISPLAY": ":0"]).backend)
    }

    // MARK: running real helper programs

    func makeScript(_ body: String) throws -> (script: String, dir: URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-action-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("helper").path
        try ("#!/bin/sh\n" + body).write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        return (script, dir)
    }

    func testFakeOpenerReceivesOnePercentEncodedArgumentAndNothingIsExecuted() throws {
        // The opener records its argv, one argument per line, NUL-free.
        let (script, dir) = try makeScript("for a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$(dirname \"$0\")/argv\"\n")
        defer { try? FileManager.default.removeItem(at: dir) }
        let canary = dir.appendingPathComponent("pwned").path
        let processor = DesktopCommandProcessor(backend: XdotoolBackend(), opener: [script])
        let query = "pizza \"recipes\" $(touch \(canary)) `touch \(canary)`; touch \(canary) | über 🍕"
        let outcome = processor.perform(intent("search", ["query": .string(query)]))
        XCTAssertEqual(outcome.status, "ok", outcome.detail)
        XCTAssertEqual(outcome.backend, "opener")
        let argv = try String(contentsOfFile: dir.appendingPathComponent("argv").path, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(argv.count, 1, "the URL is one argument: \(argv)")
        let url = String(argv[0])
        XCTAssertTrue(url.hasPrefix("https://www.google.com/search?q=pizza%20%22recipes%22%20%24%28touch"), url)
        XCTAssertFalse(url.contains(" ") || url.contains("$(") || url.contains(";") || url.contains("`"), url)
        XCTAssertEqual(URLComponents(string: url)?.queryItems?.first?.value, query, "decodes back to the spoken words")
        XCTAssertFalse(FileManager.default.fileExists(atPath: canary), "spoken text must never be executed")
    }

    func testFailedHelperBecomesAFailedOutcomeWithItsStderr() throws {
        let (script, dir) = try makeScript("echo 'cannot open display' >&2\nexit 3\n")
        defer { try? FileManager.default.removeItem(at: dir) }
        var settings = ActionSettings()
        settings.custom["thing"] = .run([script, "x"])
        let outcome = DesktopCommandProcessor(planner: ActionPlanner(settings: settings), backend: XdotoolBackend())
            .perform(intent("thing", [:]))
        XCTAssertEqual(outcome.status, "failed")
        XCTAssertTrue(outcome.detail.contains("exited with status 3"), outcome.detail)
        XCTAssertTrue(outcome.detail.contains("cannot open display"), outcome.detail)
    }

    func testMissingHelperIsAClearFailure() {
        let processor = DesktopCommandProcessor(backend: XdotoolBackend(), opener: ["/nonexistent/opener"])
        let outcome = processor.perform(intent("navigate", ["target": .string("url"), "url": .string("https://github.com/")]))
        XCTAssertEqual(outcome.status, "failed")
        XCTAssertTrue(outcome.detail.contains("not found"), outcome.detail)
        let r = HelperRunner().run(["no-such-program-jarvis"])
        guard case .notStarted(let why) = r.status else { return XCTFail("\(r.status)") }
        XCTAssertTrue(why.contains("no-such-program-jarvis"), why)
    }

    func testHangingHelperIsKilledAtTheTimeLimit() {
        let start = Date()
        let r = HelperRunner().run(["sleep", "30"], timeout: 0.3)
        XCTAssertEqual(r.status, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        let left = HelperRunner().run(["sleep", "1"], timeout: 0.2, onTimeout: .leaveRunning)
        XCTAssertEqual(left.status, .stillRunning)
        XCTAssertEqual(HelperRunner().run(["true"]).status, .exited(0))
        XCTAssertEqual(HelperRunner().run(["false"]).status, .exited(1))
    }

    func testDryRunExecutesNothing() throws {
        let (script, dir) = try makeScript("touch \"$(dirname \"$0\")/ran\"\n")
        defer { try? FileManager.default.removeItem(at: dir) }
        var settings = ActionSettings()
        settings.custom["thing"] = .run([script])
        let processor = DesktopCommandProcessor.dryRun(planner: ActionPlanner(settings: settings))
        let outcome = processor.perform(intent("thing", [:]))
        XCTAssertEqual(outcome.status, "dry-run")
        XCTAssertEqual(outcome.detail, "run \(script)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("ran").path))
    }
}
