import ArgumentParser
import Foundation
import JarvisCore

extension Jarvis {
    struct Ctl: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Control a running 'jarvis listen' through its socket.",
            discussion: """
            status: print the listener's state as JSON. mute: stop acting on the wake phrase (speech is not \
            decoded) until unmute. inject TEXT: run TEXT as a command, as if it had been said after the wake phrase.
            The answer is one JSON line. Exit codes: 0 ok; 2 usage; 5 no listener answers on the socket.
            """)

        @Argument(help: "status, mute, unmute or inject.")
        var request: String

        @Argument(parsing: .remaining, help: "The command text for inject.")
        var text: [String] = []

        @Option(name: .long, help: "The listener's control socket (default: $XDG_RUNTIME_DIR/jarvis.sock).")
        var socket: String?

        func parsed() throws -> ControlRequest {
            let line = ([request] + text).joined(separator: " ")
            guard let r = ControlRequest(line: line) else {
                throw ValidationError("Use one of: status, mute, unmute, inject TEXT.")
            }
            return r
        }

        func validate() throws { _ = try parsed() }

        func run() throws {
            let path = socket ?? ControlServer.defaultPath()
            do {
                print(try ControlClient.send(try parsed(), to: path))
            } catch let error as ControlError {
                FileHandle.standardError.write(Data(("jarvis: " + error.message + "\n").utf8))
                throw ExitCode(ExitStatus.noListener)
            }
        }
    }
}
