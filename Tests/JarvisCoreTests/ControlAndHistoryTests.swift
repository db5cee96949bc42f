import Foundation
import XCTest
@testable import JarvisCore

final class ControlAndHistoryTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        // Short: a Unix socket path must fit in 108 bytes.
        scratch = URL(fileURLWithPath: "/tmp/jv-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    // MARK: control socket

    func testRequestParsing() {
        XCTAssertEqual(ControlRequest(line: "status\n"), .status)
        XCTAssertEqual(ControlRequest(line: " mute "), .mute)
        XCTAssertEqual(ControlRequest(line: "unmute"), .unmute)
        XCTAssertEqual(ControlRequest(line: "inject scroll down  three"), .inject("scroll down  three"))
        XCTAssertNil(ControlRequest(line: "inject"))
        XCTAssertNil(ControlRequest(line: "mute now"))
        XCTAssertNil(ControlRequest(line: "reboot"))
        XCTAssertEqual(ControlRequest.inject("a\nb").line, "inject a b")
    }

    func testServerAnswersThroughTheMailboxOnAnotherThread() throws {
        let path = scratch.appendingPathComponent("c.sock").path
        let mailbox = ControlMailbox()
        let server = try ControlServer(path: path) { mailbox.ask($0) }
        server.start()
        defer { server.stop() }
        // The socket is private to this user.
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        XCTAssertEqual(mode.map { $0 & 0o777 }, 0o600)

        // The "pipeline thread": answers between chunks.
        let stop = DispatchSemaphore(value: 0)
        let seen = LockedList()
        let owner = Thread {
            while stop.wait(timeout: .now() + 0.02) == .timedOut {
                mailbox.drain { request in
                    seen.append(request.line)
                    return .object([("ok", .bool(true)), ("echo", .string(request.line))])
                }
            }
        }
        owner.start()
        defer { stop.signal() }

        XCTAssertEqual(try ControlClient.send(.status, to: path), #"{"ok":true,"echo":"status"}"#)
        XCTAssertEqual(try ControlClient.send(.inject("search for \"x\"; rm -rf ~"), to: path),
                       #"{"ok":true,"echo":"inject search for \"x\"; rm -rf ~"}"#)
        XCTAssertEqual(seen.items, ["status", "inject search for \"x\"; rm -rf ~"])

        // A second listener on the same socket is refused while the first one answers.
        XCTAssertThrowsError(try ControlServer(path: path) { _ in .null }) { error in
            XCTAssertTrue("\(error)".contains("Another jarvis listener"), "\(error)")
        }
        // A request that is not one of the four gets an error answer, not a hang.
        let raw = try rawExchange(path, "launch missiles\n")
        XCTAssertTrue(raw.contains(#""ok":false"#), raw)

        server.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "stop removes the socket file")
        XCTAssertThrowsError(try ControlClient.send(.status, to: path)) { error in
            XCTAssertTrue("\(error)".contains("No jarvis listener is running"), "\(error)")
        }
    }

    func testStaleSocketFileIsReplaced() throws {
        let path = scratch.appendingPathComponent("stale.sock").path
        // What a crashed listener leaves behind: a file at the path that nobody answers on.
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let server = try ControlServer(path: path) { _ in .object([("ok", .bool(true))]) }
        server.start()
        defer { server.stop() }
        XCTAssertEqual(try ControlClient.send(.status, to: path), #"{"ok":true}"#)
    }

    func testMailboxTimesOutWhenNobodyDrains() {
        let mailbox = ControlMailbox()
        let reply = mailbox.ask(.status, timeout: 0.1).serialized()
        XCTAssertTrue(reply.contains("did not answer"), reply)
    }

    func rawExchange(_ path: String, _ text: String) throws -> String {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        var address = try ControlClient.address(path)
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(ok, 0)
        ControlClient.writeAll(s, text)
        return ControlClient.readLine(s, limit: 4096) ?? ""
    }

    // MARK: history

    func testHistoryKeepsCommandEventsAsJSONLinesWithTime() throws {
        let path = scratch.appendingPathComponent("state/jarvis/history.jsonl").path
        let log = try HistoryLog(path: path)
        let intent = Intent(name: "scroll", slots: ["direction": .string("down")], text: "scroll down")
        log.record(Event(t: 1.5, .speechStart))
        log.record(Event(t: 2, .wake(phrase: "hey jarvis", score: 0.9)))
        log.record(Event(t: 3, .intent(intent, confidence: 0.8)))
        log.record(Event(t: 3, .action(name: "scroll", status: "failed", backend: "xdotool", detail: "no display")))
        log.record(Event(t: 4, .control(command: "mute", detail: "")))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 4, "speech_start is not history")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(objects.map { $0["type"] as? String }, ["wake", "intent", "action", "control"])
        XCTAssertTrue(lines[0].hasPrefix(#"{"time":""#), String(lines[0]))
        XCTAssertEqual(objects[2]["status"] as? String, "failed")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        XCTAssertEqual(mode.map { $0 & 0o777 }, 0o600)
    }

    func testHistoryRotatesAtItsSizeCap() throws {
        let path = scratch.appendingPathComponent("h.jsonl").path
        let log = try HistoryLog(path: path, maxBytes: 2000, keep: 2)
        for i in 0..<100 {
            log.record(Event(t: Double(i), .rejected(text: "entry \(i) " + String(repeating: "x", count: 50), reason: "not-a-command")))
        }
        let fm = FileManager.default
        XCTAssertTrue(fm.fileExists(atPath: path + ".1"))
        XCTAssertTrue(fm.fileExists(atPath: path + ".2"))
        XCTAssertFalse(fm.fileExists(atPath: path + ".3"), "only `keep` old files")
        for p in [path, path + ".1", path + ".2"] {
            let size = (try fm.attributesOfItem(atPath: p)[.size] as? Int) ?? 0
            XCTAssertLessThanOrEqual(size, 2000, p)
        }
        let last = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").last ?? ""
        XCTAssertTrue(last.contains("entry 99 "), "the newest entry is in the current file")
    }

    func testHistoryPathFollowsXDGStateHome() {
        XCTAssertEqual(HistoryLog.defaultPath(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]), "/s/jarvis/history.jsonl")
        XCTAssertEqual(HistoryLog.defaultPath(environment: ["HOME": "/h"]), "/h/.local/state/jarvis/history.jsonl")
        XCTAssertEqual(ControlServer.defaultPath(environment: ["XDG_RUNTIME_DIR": "/run/user/7"]), "/run/user/7/jarvis.sock")
    }
}

/// A list appended to from another thread.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ s: String) { lock.lock(); storage.append(s); lock.unlock() }
    var items: [String] { lock.lock(); defer { lock.unlock() }; return storage }
}
