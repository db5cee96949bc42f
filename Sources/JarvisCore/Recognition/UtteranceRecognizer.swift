import Foundation

/// Settings of the recogniser (named, openWakeWord-style; defaults tuned on the dev set).
public struct RecognizerSettings: Sendable, Equatable {
    /// Prior weight of the "no wake phrase" branch against the wake branch (1). Higher = fewer wakes.
    public var noWakeWeight = 1.0
    /// Prior weight of "free speech after the wake phrase" against a command (1). Higher = more rejections.
    public var garbageWeight = 0.05
    /// PocketSphinx word insertion penalty; every phone of the phone loop is a word, so this sets how much
    /// free speech costs against grammar words.
    public var wordInsertionPenalty = 1e-4
    /// The wake phrase's acoustic score per frame may fall at most this far (natural log) below a free
    /// phone loop over the same audio; the score reported in `wake` is 0.5 at this margin.
    public var wakeVerifyMargin = 1.2
    /// Model paths.
    public var model = ModelPaths.debianDefault

    public init() {}
}

/// What one utterance held. Times are absolute samples of the stream (16 kHz).
public struct UtteranceResult: Equatable, Sendable {
    public struct WakeSpan: Equatable, Sendable {
        public let startSample: Int
        public let endSample: Int
        /// Confidence 0…1 (acoustic verification against a free phone loop).
        public let score: Double
    }
    public var wake: WakeSpan?
    /// The words after the wake phrase (or the whole utterance in the follow-up window), fillers removed;
    /// phone-loop words stand for free speech.
    public var words: [String]
    /// Absolute sample where the first phone-loop word after the last command word starts (free text).
    public var freeSpeechStart: Int?
    /// Absolute samples of the command words.
    public var commandStart: Int?
    public var commandEnd: Int?
    /// Posterior-like confidence of the command words, 0…1.
    public var confidence: Double
}

/// The recognition stage: PocketSphinx with grammars generated from the command set. Streams one VAD
/// segment at a time; the wake grammar spots the wake phrase (against a phone loop, so speech without it
/// ends there) and recognises a command in the same pass.
public final class UtteranceRecognizer {
    public enum Mode: Sendable { case wake, followUp }

    public let commands: CommandSet
    public let wakeWords: [String]
    public let settings: RecognizerSettings
    private let decoder: PocketSphinxDecoder
    /// The general language model over the full dictionary, loaded on first use (search text, rejections).
    private var textDecoder: PocketSphinxDecoder?
    private var mode: Mode = .wake
    private var utteranceStart = 0
    private var fed: [Int16] = []
    static let samplesPerFrame = AudioFormat.sampleRate / PocketSphinxDecoder.framesPerSecond

    public init(commands: CommandSet, wakePhrase: String, settings: RecognizerSettings) throws(DecoderError) {
        self.commands = commands
        self.settings = settings
        wakeWords = CommandSet.normalizeWords(wakePhrase)
        let vocabulary = commands.vocabulary.union(wakeWords)
        let dictionary = try GrammarDictionary(vocabulary: vocabulary, from: settings.model.dictionary)
        if !dictionary.missing.isEmpty {
            throw DecoderError(operation: "dictionary", status: -1,
                               detail: "no pronunciation for: \(dictionary.missing.sorted().joined(separator: ", "))")
        }
        let dictPath = try dictionary.writeTemporary()
        defer { try? FileManager.default.removeItem(atPath: dictPath) }
        var grammarModel = settings.model
        grammarModel.dictionary = dictPath
        decoder = try PocketSphinxDecoder(model: grammarModel, extraArguments: [
            ("-cmn", "live"), ("-wip", String(settings.wordInsertionPenalty)),
        ])
        let generator = GrammarGenerator(commands: commands, garbageWeight: settings.garbageWeight)
        try decoder.addGrammar(name: "wake", jsgf: generator.wakeGrammar(wakeWords: wakeWords,
                                                                         noWakeWeight: settings.noWakeWeight))
        try decoder.addGrammar(name: "followup", jsgf: generator.followUpGrammar())
        try decoder.addGrammar(name: "phones", jsgf: generator.phoneLoopGrammar())
    }

    /// Absolute sample where the current utterance began, nil when none is open.
    public private(set) var utteranceStartSample: Int?

    /// Seconds of audio in the open utterance.
    public var utteranceSeconds: Double { AudioFormat.seconds(fed.count) }

    public func begin(atSample start: Int, mode: Mode) throws(DecoderError) {
        self.mode = mode
        try decoder.useSearch(mode == .wake ? "wake" : "followup")
        try decoder.startUtterance()
        utteranceStartSample = start
        utteranceStart = start
        fed.removeAll(keepingCapacity: true)
    }

    public func process(_ samples: ArraySlice<Int16>) throws(DecoderError) {
        guard utteranceStartSample != nil else { return }
        try decoder.process(samples)
        fed.append(contentsOf: samples)
    }

    /// Ends the utterance and interprets its best path.
    public func finish() throws(DecoderError) -> UtteranceResult {
        guard utteranceStartSample != nil else { return UtteranceResult(words: [], confidence: 0) }
        decoder.endUtterance()
        utteranceStartSample = nil
        let empty = UtteranceResult(words: [], confidence: 0)
        guard let hyp = decoder.hypothesis() else { return empty }
        let words = hyp.words.filter { !$0.isFiller && $0.word != "<s>" && $0.word != "</s>" }
        let sample = { (frame: Int) in self.utteranceStart + frame * Self.samplesPerFrame }
        var result = empty
        var rest = words[...]
        if mode == .wake {
            guard let wakeEnd = lastIndexOfWake(in: words) else { return empty }
            let wakeFirst = wakeEnd - wakeWords.count + 1
            let sf = words[wakeFirst].startFrame, ef = words[wakeEnd].endFrame
            let score = try verifyWake(fromFrame: sf, toFrame: ef, wakeScore: words[wakeFirst...wakeEnd].reduce(0) {
                $0 + decoder.naturalLog($1.acousticScore)
            })
            result.wake = .init(startSample: sample(sf), endSample: sample(ef + 1), score: score)
            rest = words[(wakeEnd + 1)...]
        }
        // Phones before the first command word are a hesitation ("hey jarvis, um, scroll down").
        if let first = rest.firstIndex(where: { !GrammarGenerator.isPhoneWord($0.word) }) {
            rest = rest[first...]
        }
        result.words = rest.map(\.word)
        if let first = rest.first, let last = rest.last {
            result.commandStart = sample(first.startFrame)
            result.commandEnd = sample(last.endFrame + 1)
        }
        if let lastLiteral = rest.lastIndex(where: { !GrammarGenerator.isPhoneWord($0.word) }) {
            if lastLiteral + 1 < rest.endIndex { result.freeSpeechStart = sample(rest[lastLiteral + 1].startFrame) }
        } else if let first = rest.first {
            result.freeSpeechStart = sample(first.startFrame)
        }
        result.confidence = result.wake?.score ?? 1
        return result
    }

    /// Rescores the wake span with a free phone loop: a real wake phrase scores close to the loop, a
    /// sound-alike ("hey davis") far below it. Returns 0…1, 0.5 at `wakeVerifyMargin` nats per frame.
    func verifyWake(fromFrame sf: Int, toFrame ef: Int, wakeScore: Double) throws(DecoderError) -> Double {
        let from = max(0, sf * Self.samplesPerFrame), to = min(fed.count, (ef + 1) * Self.samplesPerFrame)
        guard to - from >= Self.samplesPerFrame * 10 else { return 0 }
        try decoder.useSearch("phones")
        try decoder.startUtterance()
        try decoder.process(fed[from..<to], wholeUtterance: false)
        decoder.endUtterance()
        let loop = decoder.hypothesis()?.words.reduce(0.0) { $0 + decoder.naturalLog($1.acousticScore) } ?? wakeScore
        let frames = Double(ef - sf + 1)
        let perFrame = (wakeScore - loop) / frames      // ≤ 0 mostly: the loop is unconstrained
        let x = (perFrame + settings.wakeVerifyMargin) * 4
        return 1 / (1 + exp(-x))
    }

    /// Index of the last word of the last complete wake phrase in `words`.
    func lastIndexOfWake(in words: [RecognizedWord]) -> Int? {
        guard !wakeWords.isEmpty, words.count >= wakeWords.count else { return nil }
        for i in stride(from: words.count - wakeWords.count, through: 0, by: -1)
        where zip(words[i..<(i + wakeWords.count)], wakeWords).allSatisfy({ $0.word == $1 }) {
            return i + wakeWords.count - 1
        }
        return nil
    }

    /// Language-model decode of `audio` (16 kHz); lower-case words, fillers removed.
    public func transcribeFreeText(_ audio: [Int16]) throws(DecoderError) -> String {
        guard audio.count >= AudioFormat.sampleRate / 10 else { return "" }
        if textDecoder == nil {
            let d = try PocketSphinxDecoder(model: settings.model, extraArguments: [("-cmn", "batch")])
            try d.addLanguageModel(name: "lm", path: settings.model.languageModel)
            try d.useSearch("lm")
            textDecoder = d
        }
        let d = textDecoder!
        try d.startUtterance()
        try d.process(audio[...], wholeUtterance: true)
        d.endUtterance()
        guard let hyp = d.hypothesis() else { return "" }
        return hyp.words.filter { !$0.isFiller && $0.word != "<s>" && $0.word != "</s>" }
            .map(\.word).joined(separator: " ").lowercased()
    }
}
