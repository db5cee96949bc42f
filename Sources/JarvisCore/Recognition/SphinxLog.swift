import CSphinxLog
import Foundation
import Synchronization

/// sphinxbase's log as jarvis uses it: nothing on stderr, but the first error line of each thread is kept, so a
/// failed call can say why ("cannot load the model at …: Failed to read 50000 bytes …"), and a fatal one (sphinxbase
/// ends the process with `exit(1)` right after it) goes to a handler that reports it the way jarvis reports any
/// recogniser failure.
public enum SphinxLog {
    private static let installed: Void = jarvis_sphinx_log_install()
    private static let fatalHandler = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Routes sphinxbase's log through jarvis (once per process; every decoder calls it before loading).
    public static func install() { _ = installed }

    /// The calling thread's first error line from sphinxbase since the last call (the cause), if any.
    public static func takeError() -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        let count = jarvis_sphinx_take_error(&buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `handler` gets the text of a fatal line before sphinxbase exits; it should report it and end the process
    /// itself (with the status it chooses). When it returns, sphinxbase exits with status 1.
    public static func onFatal(_ handler: @escaping @Sendable (String) -> Void) {
        install()
        fatalHandler.withLock { $0 = handler }
        jarvis_sphinx_set_fatal_handler { message in
            let text = message.map { String(cString: $0) } ?? "unknown error"
            if let handler = SphinxLog.fatalHandler.withLock({ $0 }) { handler(text) }
        }
    }
}
