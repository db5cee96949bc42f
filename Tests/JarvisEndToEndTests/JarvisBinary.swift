import Foundation
import XCTest

/// Runs the built `jarvis` executable to completion, as a user or a script would.
struct JarvisBinary {
    /// What one run printed and how it ended; `events` are the JSON lines of stdout.
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        var events: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        func events(_ type: String) -> [[String: Any]] { events.filter { $0["type"] as? String == type } }
    }

    /// The executable next to the test bundle in the build products folder.
    static func url(for testClass: AnyClass) -> URL {
        var dir = Bundle(for: testClass).bundleURL
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("jarvis").path), dir.path != "/" {
            dir.deleteLastPathComponent()
        }
        return dir.appendingPathComponent("jarvis")
    }

    /// Runs `jarvis ARGS` with the process environment plus `environment`, stdin on /dev/null or, given `input`,
    /// a pipe that delivers it.
    static func run(_ binary: URL, _ args: [String], environment: [String: String] = [:], input: Data? = nil) throws -> Result {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let stdin = input.map { _ in Pipe() }
        p.standardInput = stdin ?? FileHandle.nullDevice
        try p.run()
        if let stdin, let input {
            Thread { stdin.fileHandleForWriting.write(input); try? stdin.fileHandleForWriting.close() }.start()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                      stderr: String(decoding: e, as: UTF8.self))
    }
}

extension XCTestCase {
    /// A copy of Debian's model folder (links to its files) with some files replaced, for damaged-model tests.
    func modelCopy(replacing files: [String: Data]) throws -> String {
        let source = "/usr/share/pocketsphinx/model/en-us"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: source + "/en-us/mdef"), "pocketsphinx-en-us is not installed")
        let fm = FileManager.default
        let folder = fm.temporaryDirectory.appendingPathComponent("jarvis-model-\(UUID().uuidString)").path
        addTeardownBlock { try? fm.removeItem(atPath: folder) }
        for sub in ["", "/en-us"] {
            try fm.createDirectory(atPath: folder + sub, withIntermediateDirectories: true)
            for name in try fm.contentsOfDirectory(atPath: source + sub) where name != "en-us" || !sub.isEmpty {
                let path = sub + "/" + name
                if let data = files[String(path.dropFirst())] {
                    try data.write(to: URL(fileURLWithPath: folder + path))
                } else {
                    try fm.createSymbolicLink(atPath: folder + path, withDestinationPath: source + path)
                }
            }
        }
        return folder
    }

    func debianModelFile(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us/" + path))
    }
}
