import ArgumentParser
import Foundation
import JarvisCore

extension Jarvis {
    struct Listen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Listen to an ALSA capture device and run the pipeline on it, always on.",
            discussion: """
            Events go to stdout as in replay; t is seconds of audio captured. Besides replay's events, listen \
            reports state (idle, listening, wake, processing, success, error), device (lost, unavailable, \
            available), overrun (alsa: the kernel buffer overran and was recovered; ring: the pipeline fell \
            behind and the oldest audio was dropped: a gap that stays on the clock and ends speech in progress) and reload (SIGHUP: the config is read again and the \
            pipeline rebuilt at the next pause between utterances, 10 s of audio at most). SIGINT/SIGTERM stop \
            cleanly: the pipeline finishes, end is printed, the saved audio is closed, exit status 0. A device that \
            disappears while listening is reopened with backoff (0.5 s doubling to 8 s). On a terminal, \
            readable mode shows a live level meter on stderr.
            """)

        @Option(name: .long, help: "ALSA capture PCM (see 'jarvis devices').")
        var device = "default"

        @OptionGroup var common: CommonOptions

        @OptionGroup var actionOptions: ActionOptions

        @Flag(name: .long, help: "Never execute actions; report them as dry-run events.")
        var dryRun = false

        @Option(name: .long, help: "Command history file (JSON lines; default $XDG_STATE_HOME/jarvis/history.jsonl); 'off' for none.")
        var history: String?

        @Option(name: .long, help: "Control socket for 'jarvis ctl' (default $XDG_RUNTIME_DIR/jarvis.sock); 'off' for none.")
        var controlSocket: String?

        @Option(name: .long, help: "Stop after this many seconds of captured audio.")
        var duration: Double?

        @Option(name: .long, help: "Record what was heard to this WAV file (16 kHz mono 16-bit), for replay.")
        var saveAudio: String?

        @Flag(name: .long, help: "If the device cannot be opened at start, keep retrying with backoff instead of exiting with status 3.")
        var retry = false

        @Option(name: .long, help: ArgumentHelp("Pace capture at this multiple of real time (0: as fast as the device delivers).", visibility: .hidden))
        var pace = 0.0

        @Option(name: .long, help: "When the pipeline falls behind: drop (the oldest audio; live devices) or block (the capture waits; file PCMs).")
        var overrun = "drop"

        @Option(name: .long, help: ArgumentHelp("Seconds of audio the capture ring holds.", visibility: .hidden))
        var ringSeconds = 4.0

        func validate() throws {
            if let duration, !(duration > 0) { throw ValidationError("--duration must be more than 0 seconds.") }
            if device.isEmpty { throw ValidationError("--device must name an ALSA PCM.") }
            if !(pace >= 0) { throw ValidationError("--pace must be 0 or more.") }
            if SampleRing.OverrunPolicy(rawValue: overrun) == nil { throw ValidationError("--overrun must be drop or block.") }
            if !(ringSeconds >= 0.5 && ringSeconds <= 60) { throw ValidationError("--ring-seconds must be between 0.5 and 60.") }
        }

        func run() throws {
            // Signals first, so a SIGTERM during start-up is handled too: dispatch sources, no handler code.
            let control = SignalRelay()
            control.install()
            let printer = EventPrinter(json: common.json)
            let setup = try RunSetup.load(common)
            var pcm: ALSACapturePCM?
            do {
                pcm = try ALSACapturePCM(name: device)
            } catch {
                if !retry {
                    let message = CaptureThread.describe(error, device: device, orRetry: true)
                    RunSetup.fail(message, code: AudioInputError.Code.device.rawValue, status: ExitStatus.audioInput, printer: printer)
                }
            }
            var wav: WAVWriter?
            if let saveAudio {
                do {
                    wav = try WAVWriter(path: saveAudio)
                } catch {
                    RunSetup.fail(error.message, code: "save-audio", status: ExitStatus.usage, printer: printer)
                }
            }
            var options = LiveListener.Options()
            options.device = device
            let execute = !dryRun
            var warnings: [Event] = []
            let actionOptions = self.actionOptions
            options.setup = LiveListener.Setup(settings: setup.settings, commands: setup.commands,
                                               processor: setup.processor(actionOptions, execute: execute) { warnings.append($0) })
            options.duration = duration
            options.pace = pace
            options.overrunPolicy = SampleRing.OverrunPolicy(rawValue: overrun) ?? .dropOldest
            options.ringSeconds = ringSeconds

            // The history is written before the event is printed: a failed action is on disk first.
            var historyLog: HistoryLog?
            if history != "off" {
                do {
                    historyLog = try HistoryLog(path: history ?? HistoryLog.defaultPath())
                } catch {
                    warnings.append(Event(t: 0, .warning(code: "history", message: error.message + " Listening without a history.")))
                }
            }
            var server: ControlServer?
            if controlSocket != "off" {
                let mailbox = ControlMailbox()
                do {
                    server = try ControlServer(path: controlSocket ?? ControlServer.defaultPath()) { mailbox.ask($0) }
                    options.mailbox = mailbox
                } catch {
                    warnings.append(Event(t: 0, .warning(code: "control-socket", message: error.message + " Listening without a control socket.")))
                }
            }
            options.warnings = warnings
            let meter = !common.json && isatty(STDERR_FILENO) == 1 ? LevelMeter() : nil
            let common = self.common
            let listener = LiveListener(options: options, pcm: pcm, saveAudio: wav, meter: meter, reload: {
                switch try RunSetup.make(common) {
                case .success(let s):
                    return LiveListener.Setup(settings: s.settings, commands: s.commands,
                                              processor: s.processor(actionOptions, execute: execute) { _ in })
                case .failure(let problem):
                    throw problem
                }
            }) { event in
                historyLog?.record(event)
                // Readable mode: the state is the meter's job (on a terminal); JSON carries every change.
                if !common.json, case .state = event.kind { return }
                printer.print(event)
                if case .error(_, let message) = event.kind {
                    FileHandle.standardError.write(Data(("jarvis: " + message + "\n").utf8))
                }
            }
            server?.start()
            defer { server?.stop() }
            pcm = nil   // the listener's capture thread owns it now
            control.target = listener.control
            // sphinxbase can end the process from inside a decode, on the pipeline's thread: the history first.
            nonisolated(unsafe) let fatalHistory = historyLog, fatalListener = listener
            let json = common.json
            SphinxLog.onFatal { message in
                Self.failRecognising(RunSetup.fatalMessage(message), history: fatalHistory, at: fatalListener.seconds,
                                     printer: EventPrinter(json: json))
            }
            do {
                try listener.run()
            } catch {
                Self.failRecognising("The recogniser failed: \(error.description)", history: historyLog,
                                     at: listener.seconds, printer: printer)
            }
        }

        /// A recogniser failure while listening: recorded in the history first (on disk, as every event: the
        /// history says why listening stopped), then reported at audio time `t` (seconds), and the process exits.
        static func failRecognising(_ message: String, history: HistoryLog?, at t: Double, printer: EventPrinter) -> Never {
            history?.record(Event(t: t, .error(code: "recogniser", message: message)))
            RunSetup.fail(message, code: "recogniser", status: ExitStatus.recogniser, printer: printer, t: t)
        }
    }
}

/// SIGINT/SIGTERM → stop, SIGHUP → reload, through dispatch sources on a private queue (nothing runs in a
/// signal handler). A stop before the listener exists exits at once with status 0.
/// `@unchecked Sendable`: `target` and `pendingStop` are guarded by `lock`.
final class SignalRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var _target: LiveControl?
    private var pendingReload = false
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "jarvis.signals")

    var target: LiveControl? {
        get { lock.lock(); defer { lock.unlock() }; return _target }
        set {
            lock.lock()
            _target = newValue
            let reload = pendingReload
            pendingReload = false
            lock.unlock()
            if reload { newValue?.requestReload() }
        }
    }

    func install() {
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { [self] in handle(sig) }
            source.resume()
            sources.append(source)
        }
    }

    private func handle(_ sig: Int32) {
        guard let target else {
            if sig == SIGHUP {
                lock.lock(); pendingReload = true; lock.unlock()
                return
            }
            Foundation.exit(ExitStatus.ok)   // still starting: nothing to finish or flush
        }
        if sig == SIGHUP { target.requestReload() } else { target.requestStop() }
    }
}
