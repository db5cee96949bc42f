import ArgumentParser
import Foundation
import JarvisCore

/// Exit codes of DESIGN.md.
enum ExitStatus {
    static let ok: Int32 = 0
    static let usage: Int32 = 2
    static let audioInput: Int32 = 3
    /// The recogniser could not start (model missing or broken).
    static let recogniser: Int32 = 4
}

struct CommonOptions: ParsableArguments {
    @Flag(name: .long, help: "Print events as JSON lines (NDJSON) instead of readable text.")
    var json = false

    @Option(name: .long, help: "The wake phrase (\"hey jarvis\"; \"jarvis\" alone works too).")
    var wakePhrase = "hey jarvis"

    @Option(name: .long, help: "PocketSphinx model folder (Debian layout: en-us/, cmudict-en-us.dict, en-us.lm.bin).")
    var model = "/usr/share/pocketsphinx/model/en-us"

    @Option(name: .long, help: ArgumentHelp("Voice activity detection: on, or off to decode every frame.", visibility: .hidden))
    var vad = "on"

    @Option(name: .long, help: ArgumentHelp("Restart a decoder after this many seconds of continuous decoding.", visibility: .hidden))
    var maxUtterance = 55.0

    @Option(name: .long, help: ArgumentHelp("Cost in nats of each phone of free speech (higher: more wakes, fewer rejections).", visibility: .hidden))
    var phoneCost: Double?

    @Option(name: .long, help: ArgumentHelp("Cost in nats of speech without the wake phrase (lower: fewer wakes).", visibility: .hidden))
    var noWakeCost: Double?

    @Option(name: .long, help: ArgumentHelp("Cost in nats of free speech after the wake phrase (higher: fewer rejections).", visibility: .hidden))
    var garbageCost: Double?

    @Option(name: .long, help: ArgumentHelp("PocketSphinx word insertion penalty of the grammar search.", visibility: .hidden))
    var wordInsertionPenalty: Double?

    @Option(name: .long, help: ArgumentHelp("Wake verification threshold: nats per frame of the wake phrase over a free phone loop.", visibility: .hidden))
    var wakeThreshold: Double?

    @Option(name: .long, help: ArgumentHelp("Command verification threshold: nats per frame of the command over a free phone loop.", visibility: .hidden))
    var commandThreshold: Double?

    @Option(name: .long, help: ArgumentHelp("Wake score (0-1) that is reported even when the command after it is unsure.", visibility: .hidden))
    var confidentWake: Double?

    func settings() throws -> PipelineSettings {
        var s = PipelineSettings()
        let words = CommandSet.normalizeWords(wakePhrase)
        guard !words.isEmpty else { throw ValidationError("--wake-phrase must contain at least one word.") }
        s.wakePhrase = words.joined(separator: " ")
        guard vad == "on" || vad == "off" else { throw ValidationError("--vad must be on or off.") }
        s.vadEnabled = vad == "on"
        guard maxUtterance >= 5 else { throw ValidationError("--max-utterance must be at least 5 seconds.") }
        s.maxUtterance = maxUtterance
        var r = RecognizerSettings()
        if let wordInsertionPenalty, !(wordInsertionPenalty > 0 && wordInsertionPenalty <= 1) {
            throw ValidationError("--word-insertion-penalty must be in (0, 1].")
        }
        if let phoneCost, !(phoneCost >= 0) { throw ValidationError("--phone-cost must be zero or more.") }
        r.phoneCost = phoneCost ?? r.phoneCost
        r.noWakeCost = noWakeCost ?? r.noWakeCost
        if let garbageCost, !(garbageCost >= 0) { throw ValidationError("--garbage-cost must be zero or more.") }
        r.garbageCost = garbageCost ?? r.garbageCost
        r.wordInsertionPenalty = wordInsertionPenalty ?? r.wordInsertionPenalty
        r.wakeThreshold = wakeThreshold ?? r.wakeThreshold
        r.commandThreshold = commandThreshold ?? r.commandThreshold
        if let confidentWake { s.confidentWake = confidentWake }
        r.model = ModelPaths(root: model)
        s.recognizer = r
        return s
    }
}

struct Jarvis: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jarvis",
        abstract: "An always-on \"hey jarvis\" voice command pipeline (offline, PocketSphinx).",
        discussion: """
        Exit codes: 0 ok; 2 usage or config error; 3 audio input error; 4 the recogniser's model cannot be loaded.
        """,
        subcommands: [Replay.self, Commands.self, Listen.self, Devices.self])
}

extension Jarvis {
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the pipeline over audio files (WAV, FLAC; any rate, encoding and channel count).",
            discussion: "Actions are reported as dry-run events. With several files, each starts from a fresh state and every event carries \"source\".")

        @Argument(help: "Audio files to replay.")
        var files: [String]

        @OptionGroup var common: CommonOptions

        @Flag(name: .long, help: "Pace the audio at real time (as if it came from a microphone).")
        var realtime = false

        func validate() throws {
            if files.isEmpty { throw ValidationError("Give at least one audio file to replay.") }
        }

        func run() throws {
            let settings = try common.settings()
            if let problem = settings.recognizer.model.problem() {
                fail(problem, code: "model-missing", status: ExitStatus.recogniser)
            }
            let printer = EventPrinter(json: common.json)
            var failed = false
            for path in files {
                let ok: Bool
                do {
                    ok = try JarvisCore.Replay.run(path: path, settings: settings, tagSource: true,
                                                   realtime: realtime) { event in
                        printer.print(event)
                        if case .error(_, let message) = event.kind {
                            FileHandle.standardError.write(Data(("jarvis: " + message + "\n").utf8))
                        }
                    }
                } catch {
                    fail("The recogniser failed: \(error.description)", code: "recogniser", status: ExitStatus.recogniser,
                         printer: printer, source: path)
                }
                if !ok { failed = true }
            }
            if failed { throw ExitCode(ExitStatus.audioInput) }
        }

        func fail(_ message: String, code: String, status: Int32, printer: EventPrinter? = nil,
                  source: String? = nil) -> Never {
            (printer ?? EventPrinter(json: common.json)).print(Event(t: 0, .error(code: code, message: message), source: source))
            FileHandle.standardError.write(Data(("jarvis: " + message + "\n").utf8))
            Foundation.exit(status)
        }
    }

    struct Commands: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print what you can say (from the live grammar).")

        @Flag(name: .long, help: "Print the generated grammar (PocketSphinx FSG format) instead.")
        var grammar = false

        @Option(name: .long, help: "The wake phrase the grammar starts with.")
        var wakePhrase = "hey jarvis"

        func run() {
            let set = CommandSet.builtin()
            if grammar {
                let r = RecognizerSettings()
                let generator = GrammarGenerator(commands: set, phoneCost: r.phoneCost,
                                                 noWakeCost: r.noWakeCost, garbageCost: r.garbageCost)
                print(generator.wakeGraph(wakeWords: CommandSet.normalizeWords(wakePhrase)).fsgText, terminator: "")
            } else {
                print("Say \"\(wakePhrase)\", then one of:")
                print(set.describe())
            }
        }
    }
}

// Usage errors exit with 2 (DESIGN.md), not ArgumentParser's 64.
do {
    var command = try Jarvis.parseAsRoot()
    try command.run()
} catch {
    let code = Jarvis.exitCode(for: error)
    if code == .success {
        Jarvis.exit(withError: error)
    } else if let exit = error as? ExitCode {
        Foundation.exit(exit.rawValue)
    } else {
        FileHandle.standardError.write(Data((Jarvis.fullMessage(for: error) + "\n").utf8))
        Foundation.exit(ExitStatus.usage)
    }
}
