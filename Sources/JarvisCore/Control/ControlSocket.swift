import Foundation

/// A request on the control socket: one line of text, answered with one line of JSON.
public enum ControlRequest: Equatable, Sendable {
    case status
    case mute
    case unmute
    /// Run this text as a command, as if it had been said after the wake phrase.
    case inject(String)

    /// Parses `status`, `mute`, `unmute` or `inject TEXT`.
    public init?(line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        let verb = trimmed.prefix { !$0.isWhitespace }
        let rest = trimmed.dropFirst(verb.count).trimmingCharacters(in: .whitespaces)
        switch verb {
        case "status" where rest.isEmpty: self = .status
        case "mute" where rest.isEmpty: self = .mute
        case "unmute" where rest.isEmpty: self = .unmute
        case "inject" where !rest.isEmpty: self = .inject(rest)
        default: return nil
        }
    }

    public var line: String {
        switch self {
        case .status: return "status"
        case .mute: return "mute"
        case .unmute: return "unmute"
        case .inject(let text): return "inject " + text.replacingOccurrences(of: "\n", with: " ")
        }
    }
}

public struct ControlError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// The control socket of a running listener: a Unix stream socket (mode 0600) served by its own thread.
/// Each connection sends one request line and gets one JSON line back. The handler runs on the server
/// thread; it hands the request to the pipeline's thread (see `ControlMailbox`) and waits for the answer.
public final class ControlServer: @unchecked Sendable {
    // @unchecked: `fd` and `thread` are set in init/start and only read afterwards; `stopped` is guarded by `lock`.
    public let path: String
    private let fd: Int32
    private let handler: @Sendable (ControlRequest) -> JSONValue
    private let lock = NSLock()
    private var stopped = false

    /// `$XDG_RUNTIME_DIR/jarvis.sock` (or `/tmp/jarvis-UID.sock` without a runtime dir).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["XDG_RUNTIME_DIR"], dir.hasPrefix("/") { return dir + "/jarvis.sock" }
        return "/tmp/jarvis-\(getuid()).sock"
    }

    /// Binds the socket. Fails when another listener answers on `path`; a stale socket file is replaced.
    public init(path: String, handler: @escaping @Sendable (ControlRequest) -> JSONValue) throws(ControlError) {
        self.path = path
        self.handler = handler
        if FileManager.default.fileExists(atPath: path) {
            if (try? ControlClient.send(.status, to: path, timeout: 1)) != nil {
                throw ControlError(message: "Another jarvis listener already uses the control socket \(path); stop it first.")
            }
            unlink(path)
        }
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw ControlError(message: "Cannot create the control socket (\(String(cString: strerror(errno)))).") }
        var address = try ControlClient.address(path)
        let old = umask(0o177)   // the socket is created 0600: only this user may control the listener
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(old)
        guard bound == 0, listen(s, 8) == 0 else {
            let why = String(cString: strerror(errno))
            close(s)
            throw ControlError(message: "Cannot listen on the control socket \(path) (\(why)).")
        }
        fd = s
    }

    deinit { stop() }

    public func start() {
        let thread = Thread { [self] in serve() }
        thread.name = "jarvis-control"
        thread.start()
    }

    /// Stops accepting and removes the socket file.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        unlink(path)
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func serve() {
        while !isStopped {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return   // closed by stop()
            }
            answer(client)
            close(client)
        }
    }

    private func answer(_ client: Int32) {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let line = ControlClient.readLine(client, limit: 4096) else { return }
        let reply: JSONValue
        if let request = ControlRequest(line: line) {
            reply = handler(request)
        } else {
            reply = .object([("ok", .bool(false)),
                             ("error", .string("unknown request; use status, mute, unmute or inject TEXT"))])
        }
        ControlClient.writeAll(client, reply.serialized() + "\n")
    }
}

/// Hands control requests from the socket's thread to the thread that owns the pipeline, which answers them
/// between audio chunks (`drain`). The socket thread waits at most `timeout` seconds for the answer.
public final class ControlMailbox: @unchecked Sendable {
    // @unchecked: `pending` is only touched with `lock` held.
    private let lock = NSLock()
    private var pending: [(ControlRequest, (JSONValue) -> Void)] = []

    public init() {}

    /// Called on the socket thread: queues the request and waits for the pipeline thread's answer.
    public func ask(_ request: ControlRequest, timeout: Double = 5) -> JSONValue {
        let done = DispatchSemaphore(value: 0)
        let box = ReplyBox()
        lock.lock()
        pending.append((request, { box.set($0); done.signal() }))
        lock.unlock()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            return .object([("ok", .bool(false)), ("error", .string("the listener did not answer in time"))])
        }
        return box.get() ?? .object([("ok", .bool(false))])
    }

    /// Called on the pipeline thread: answers every queued request with `answer`.
    public func drain(_ answer: (ControlRequest) -> JSONValue) {
        lock.lock()
        let requests = pending
        pending.removeAll()
        lock.unlock()
        for (request, reply) in requests { reply(answer(request)) }
    }

    private final class ReplyBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: JSONValue?
        func set(_ v: JSONValue) { lock.lock(); value = v; lock.unlock() }
        func get() -> JSONValue? { lock.lock(); defer { lock.unlock() }; return value }
    }
}

/// `jarvis ctl`: sends one request to a running listener.
public enum ControlClient {
    public static func send(_ request: ControlRequest, to path: String, timeout: Double = 6) throws(ControlError) -> String {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw ControlError(message: "Cannot create a socket (\(String(cString: strerror(errno)))).") }
        defer { close(s) }
        var address = try address(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            throw ControlError(message: "No jarvis listener is running on \(path) (start one with 'jarvis listen').")
        }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        writeAll(s, request.line + "\n")
        guard let reply = readLine(s, limit: 1 << 16) else {
            throw ControlError(message: "The jarvis listener on \(path) did not answer.")
        }
        return reply
    }

    static func address(_ path: String) throws(ControlError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw ControlError(message: "The control socket path \(path) is longer than \(capacity - 1) bytes.")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    static func readLine(_ fd: Int32, limit: Int) -> String? {
        var data = [UInt8]()
        var byte: UInt8 = 0
        while data.count < limit {
            let n = read(fd, &byte, 1)
            if n <= 0 { break }
            if byte == UInt8(ascii: "\n") { return String(decoding: data, as: UTF8.self) }
            data.append(byte)
        }
        return data.isEmpty ? nil : String(decoding: data, as: UTF8.self)
    }

    static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }
}
