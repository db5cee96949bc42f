import Foundation

/// The command history: every wake, intent, action, rejection and error appended as one JSON line to
/// `$XDG_STATE_HOME/jarvis/history.jsonl`, with the wall-clock time. Size-capped: past `maxBytes` the file is
/// rotated to `history.jsonl.1` (… up to `keep` old files) and a new one started.
/// Each entry is written (one `write(2)` with O_APPEND) before the event is printed, so an action that
/// failed is on disk before anyone is told.
public final class HistoryLog {
    public let path: String
    /// Bytes after which the file is rotated.
    public let maxBytes: Int
    /// Rotated files kept (`.1` newest).
    public let keep: Int
    private var fd: Int32 = -1
    private var size = 0

    /// Event types that go into the history.
    public static let recordedTypes: Set<String> = ["wake", "intent", "action", "rejected", "error", "restart", "control"]

    public init(path: String, maxBytes: Int = 1 << 20, keep: Int = 3) throws(HistoryError) {
        self.path = path
        self.maxBytes = max(maxBytes, 1024)
        self.keep = max(keep, 1)
        let dir = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw HistoryError(message: "Cannot create the history folder \(dir) (\(error.localizedDescription)).")
        }
        try open()
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// `$XDG_STATE_HOME/jarvis/history.jsonl`, or `~/.local/state/jarvis/history.jsonl`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/jarvis/history.jsonl" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/jarvis/history.jsonl"
    }

    private func open() throws(HistoryError) {
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw HistoryError(message: "Cannot open the history file \(path) (\(String(cString: strerror(errno)))).")
        }
        var st = stat()
        size = fstat(fd, &st) == 0 ? Int(st.st_size) : 0
    }

    /// Appends `event` when its type is one the history keeps. Returns false when the write failed (disk full):
    /// the caller goes on, the history is best effort.
    @discardableResult
    public func record(_ event: Event, now: Date = Date()) -> Bool {
        guard Self.recordedTypes.contains(event.type) else { return true }
        guard case .object(var pairs) = event.json else { return true }
        pairs.insert(("time", .string(Self.timestamp(now))), at: 0)
        return append(JSONValue.object(pairs).serialized())
    }

    private func append(_ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        if size + bytes.count > maxBytes && size > 0 { rotate() }
        guard fd >= 0 else { return false }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { return false }
        size += written
        return true
    }

    private func rotate() {
        close(fd)
        fd = -1
        let fm = FileManager.default
        try? fm.removeItem(atPath: "\(path).\(keep)")
        if keep > 1 {
            for i in stride(from: keep - 1, through: 1, by: -1) where fm.fileExists(atPath: "\(path).\(i)") {
                try? fm.moveItem(atPath: "\(path).\(i)", toPath: "\(path).\(i + 1)")
            }
        }
        try? fm.moveItem(atPath: path, toPath: "\(path).1")
        try? open()
    }

    static func timestamp(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }
}

public struct HistoryError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
