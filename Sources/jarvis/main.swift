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
    /// `jarvis ctl`: no listener answers on the control socket.
    static let noListener: Int32 = 5
}

struct CommonOptions: ParsableArguments {
    @Flag(name: .long, help: "Print events as JSON lines (NDJSON) instead of readable text.")
    var json = false

    @Option(name: .long, help: "The wake phrase (default \"hey jarvis\", or the config's wake_phrase; \"jarvis\" alone works too).")
    var wakePhrase: String?

    @Option(name: .long, help: "Config file (YAML). Default: $XDG_CONFIG_HOME/jarvis/config.yaml when it exists.")
    var config: String?

    @Option(name: .long, help: "PocketSphinx model folder (Debian layout: en-us/, cmudict-en-us.dict, en-us.lm.bin).")
    var model = "/usr/share/pocketsphinx/model/en-us"

    @Option(name: .long, help: ArgumentHelp("Voice activity detection: on, or off to decode every frame.", visibility: .hidden))
    var vad = "on"

    @Option(name: .long, help: ArgumentHelp("Milliseconds of quiet that end a speech segment (VAD hangover).", visibility: .hidden))
    var hangoverMs: Int?

    @Option(name: .long, help: ArgumentHelp("Streaming wake: on (the wake phrase is reported as soon as it is heard), or off (after the utterance).", visibility: .hidden))
    var streamingWake = "on"

    @Option(name: .long, help: ArgumentHelp("Who scores the acoustic model's Gaussians: fast (SIMD, the same scores) or pocketsphinx (its own code; for comparison).", visibility: .hidden))
    var gaussians = "fast"

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

    @Option(name: .long, help: ArgumentHelp("Wake verification threshold in quiet (the config's wake_threshold; default 0.8): nats per frame of the name over a free phone loop; the threshold under steady noise moves with it.", visibility: .hidden))
    var wakeThreshold: Double?

    @Option(name: .long, help: ArgumentHelp("Command verification threshold: nats per frame of the command over a free phone loop.", visibility: .hidden))
    var commandThreshold: Double?

    @Option(name: .long, help: ArgumentHelp("Wake score (0-1) that is reported even when the command after it is unsure.", visibility: .hidden))
    var confidentWake: Double?

    /// Settings from the config file and the options (options win).
    func settings(config: JarvisConfig) throws -> PipelineSettings {
        var s = PipelineSettings()
        if let wakePhrase {
            let words = CommandSet.normalizeWords(wakePhrase)
            guard !words.isEmpty else { throw ValidationError("--wake-phrase must contain at least one word.") }
            s.wakePhrase = words.joined(separator: " ")
        } else if let fromConfig = config.wakePhrase {
            s.wakePhrase = fromConfig
        }
        if let window = config.followUpWindow { s.followUpWindow = window }
        guard vad == "on" || vad == "off" else { throw ValidationError("--vad must be on or off.") }
        s.vadEnabled = vad == "on"
        if let hangoverMs {
            guard (100...2000).contains(hangoverMs) else { throw ValidationError("--hangover-ms must be between 100 and 2000.") }
            s.vad.hangoverFrames = hangoverMs * AudioFormat.sampleRate / 1000 / AudioFormat.frameSamples
        }
        guard maxUtterance >= 5 else { throw ValidationError("--max-utterance must be at least 5 seconds.") }
        s.maxUtterance = maxUtterance
        var r = RecognizerSettings()
        r.extraPronunciations = config.pronunciations
        if let wordInsertionPenalty, !(wordInsertionPenalty > 0 && wordInsertionPenalty <= 1) {
            throw ValidationError("--word-insertion-penalty must be in (0, 1].")
        }
        if let phoneCost, !(phoneCost >= 0) { throw ValidationError("--phone-cost must be zero or more.") }
        r.phoneCost = phoneCost ?? r.phoneCost
        r.noWakeCost = noWakeCost ?? r.noWakeCost
        if let garbageCost, !(garbageCost >= 0) { throw ValidationError("--garbage-cost must be zero or more.") }
        r.garbageCost = garbageCost ?? r.garbageCost
        r.wordInsertionPenalty = wordInsertionPenalty ?? r.wordInsertionPenalty
        if let threshold = wakeThreshold ?? config.wakeThreshold {
            let range = RecognizerSettings.wakeThresholdRange
            guard range.contains(threshold) else {
                throw ValidationError("--wake-threshold must be between \(range.lowerBound) and \(range.upperBound).")
            }
            r.setWakeThreshold(threshold)
        }
        r.commandThreshold = commandThreshold ?? r.commandThreshold
        if let confidentWake { s.confidentWake = confidentWake }
        guard streamingWake == "on" || streamingWake == "off" else { throw ValidationError("--streaming-wake must be on or off.") }
        r.streamingWake = streamingWake == "on"
        guard gaussians == "fast" || gaussians == "pocketsphinx" else { throw ValidationError("--gaussians must be fast or pocketsphinx.") }
        r.fastGaussianScoring = gaussians == "fast"
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
        Exit codes: 0 ok; 2 usage or config error; 3 audio input error; 4 the recogniser's model is missing or damaged, or cannot be loaded; 5 (ctl) no listener is running.
        """,
        subcommands: [Listen.self, Replay.self, Devices.self, Commands.self, CheckConfig.self, Ctl.self, Bench.self, Eval.self])
}

extension Jarvis {
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the pipeline over audio files (WAV, FLAC; any rate, encoding and channel count).",
            discussion: "Actions are reported as dry-run events. With several files, each starts from a fresh state and every event carries \"source\". A file named - is the audio piped into standard input (sox in.mp3 -t wav - | jarvis replay -).")

        @Argument(help: "Audio files to replay (- for standard input).")
        var files: [String]

        @OptionGroup var common: CommonOptions

        @OptionGroup var actionOptions: ActionOptions

        @Flag(name: .long, help: "Pace the audio at real time (as if it came from a microphone).")
        var realtime = false

        @Flag(name: .long, help: "Carry out the actions (clicks, keys, URLs, configured programs) instead of only reporting them.")
        var execute = false

        func validate() throws {
            if files.isEmpty { throw ValidationError("Give at least one audio file to replay.") }
            if files.filter({ $0 == AudioFileSource.standardInputPath }).count > 1 {
                throw ValidationError("Standard input (-) can be replayed once per call.")
            }
        }

        func run() throws {
            let setup = try RunSetup.load(common)
            let printer = EventPrinter(json: common.json)
            let processor = setup.processor(actionOptions, execute: execute) { printer.print($0) }
            var failed = false
            // One pipeline for all the files (the models load once); each file starts from a fresh state.
            let session = JarvisCore.Replay.Session(settings: setup.settings, commands: setup.commands,
                                                    processor: processor)
            for path in files {
                let ok: Bool
                do {
                    ok = try session.run(path: path, tagSource: true, realtime: realtime) { event in
                        printer.print(event)
                        if case .error(_, let message) = event.kind {
                            FileHandle.standardError.write(Data(("jarvis: " + message + "\n").utf8))
                        }
                    }
                } catch {
                    RunSetup.fail("The recogniser failed: \(error.description)", code: "recogniser",
                                  status: ExitStatus.recogniser, printer: printer, source: path, t: session.position)
                }
                if !ok { failed = true }
            }
            if failed { throw ExitCode(ExitStatus.audioInput) }
        }
    }

    struct Commands: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print what you can say (from the live grammar).")

        @Flag(name: .long, help: "Print the generated grammar (PocketSphinx FSG format) instead.")
        var grammar = false

        @Option(name: .long, help: "The wake phrase the grammar starts with (default: the config's, or \"hey jarvis\").")
        var wakePhrase: String?

        @Option(name: .long, help: "Config file whose sites and custom commands are included (default: $XDG_CONFIG_HOME/jarvis/config.yaml when it exists).")
        var config: String?

        func run() throws {
            var configuration = JarvisConfig()
            if let path = config ?? JarvisConfig.defaultPath() {
                let (loaded, problems) = ConfigLoader.load(path: path)
                if !problems.isEmpty { RunSetup.failConfig(problems, printer: EventPrinter(json: false, output: .standardError)) }
                configuration = loaded
            }
            let set = configuration.commandSet()
            let phrase = wakePhrase ?? configuration.wakePhrase ?? "hey jarvis"
            if grammar {
                var r = RecognizerSettings()
                r.extraPronunciations = configuration.pronunciations
                let wakeWords = CommandSet.normalizeWords(phrase)
                // The joined words need the model's pronunciations; without a model the grammar is printed without them.
                let dictionary = try? GrammarDictionary(vocabulary: set.grammarCommands.vocabulary.union(wakeWords),
                                                        from: r.model.dictionary,
                                                        accentVariants: r.accentVariants, extra: r.extraPronunciations)
                let generator = GrammarGenerator(commands: set, settings: r, dictionary: dictionary)
                print(generator.wakeGraph(wakeWords: wakeWords).fsgText, terminator: "")
            } else {
                print("Say \"\(phrase)\", then one of:")
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
