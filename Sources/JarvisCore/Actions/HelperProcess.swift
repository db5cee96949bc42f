import Foundation

/// The outcome of running a helper program.
public struct HelperResult: Equatable, Sendable {
    public enum Status: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
        /// Still running when the wait ended and left running (an opener that became the browser).
        case stillRunning
        /// Killed after the time limit.
        case timedOut
        /// Could not be started; the message says why.
        case notStarted(String)
    }
    public let status: Status
    /// The start of what it wrote to stderr, trimmed (at most 500 characters).
    public let stderr: String
    /// What it wrote to stdout (at most 64 KiB), when `run` was asked to keep it; else empty.
    public var stdout = ""
}

/// Starts helper programs from an argv array (posix_spawn through Foundation's `Process`), never through
/// a shell: spoken text in an argument stays one argument, whatever characters it holds.
public struct HelperRunner: Sendable {
    /// What to do when the helper outlives the time limit.
    public enum OnTimeout: Sendable { case kill, leaveRunning }

    public init() {}

    /// Finds `program` on PATH (or checks it, when it contains a slash).
    public static func resolve(_ program: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        let fm = FileManager.default
        if program.contains("/") { return fm.isExecutableFile(atPath: program) ? program : nil }
        for dir in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/\(program)"
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: candidate, isDirectory: &isDir), !isDir.boolValue,
               fm.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }

    /// Runs `argv` with stdin on /dev/null, stdout on /dev/null unless `keepingOutput`, and waits at most
    /// `timeout` seconds.
    public func run(_ argv: [String], timeout: Double = 5, onTimeout: OnTimeout = .kill,
                    keepingOutput: Bool = false) -> HelperResult {
        guard let program = argv.first, !program.isEmpty else {
            return HelperResult(status: .notStarted("the command is empty"), stderr: "")
        }
        guard let executable = Self.resolve(program) else {
            return HelperResult(status: .notStarted("'\(program)' was not found on PATH; install it or configure another program"),
                                stderr: "")
        }
        // stderr goes to a file, not a pipe: a browser started by an opener inherits it and would keep a
        // pipe open for hours.
        let tempBase = NSTemporaryDirectory() + "/jarvis-helper-\(getpid())-\(UUID().uuidString)"
        let errPath = tempBase + ".err"
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errPath) }
        guard let errHandle = FileHandle(forWritingAtPath: errPath) else {
            return HelperResult(status: .notStarted("cannot create a temporary file for its error output"), stderr: "")
        }
        defer { try? errHandle.close() }
        // stdout, when kept, goes to a file for the same reason (and a pipe would fill and block the helper).
        let outPath = tempBase + ".out"
        var outHandle: FileHandle?
        if keepingOutput {
            _ = FileManager.default.createFile(atPath: outPath, contents: nil)
            outHandle = FileHandle(forWritingAtPath: outPath)
            guard outHandle != nil else {
                return HelperResult(status: .notStarted("cannot create a temporary file for its output"), stderr: "")
            }
        }
        defer {
            try? outHandle?.close()
            if keepingOutput { try? FileManager.default.removeItem(atPath: outPath) }
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(argv.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle ?? FileHandle.nullDevice
        process.standardError = errHandle
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        do {
            try process.run()
        } catch {
            return HelperResult(status: .notStarted("'\(program)' could not be started (\(error.localizedDescription))"),
                                stderr: "")
        }
        var status: HelperResult.Status
        if done.wait(timeout: .now() + timeout) == .timedOut {
            switch onTimeout {
            case .leaveRunning:
                status = .stillRunning
            case .kill:
                process.terminate()
                if done.wait(timeout: .now() + 1) == .timedOut {
                    kill(process.processIdentifier, SIGKILL)
                    _ = done.wait(timeout: .now() + 1)
                }
                status = .timedOut
            }
        } else {
            status = process.terminationReason == .exit ? .exited(process.terminationStatus)
                                                         : .signalled(process.terminationStatus)
        }
        let data = (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data()
        var text = String(decoding: data.prefix(4096), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count > 500 { text = String(text.prefix(500)) + "…" }
        var result = HelperResult(status: status, stderr: text)
        if keepingOutput, let out = try? Data(contentsOf: URL(fileURLWithPath: outPath)) {
            result.stdout = String(decoding: out.prefix(1 << 16), as: UTF8.self)
        }
        return result
    }
}
