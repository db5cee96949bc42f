import Foundation

/// What the command stage made of the audio after a wake.
public enum CommandOutcome: Equatable, Sendable {
    case intent(Intent, transcript: Transcript)
    /// Speech that is not a command (or too unsure); `reason` is a short machine-readable word.
    case rejected(text: String, reason: String, transcript: Transcript?)
}

/// A recognised utterance; times are absolute seconds of the stream.
public struct Transcript: Equatable, Sendable {
    public var text: String
    public var confidence: Double
    public var start: Double
    public var end: Double
    public var alternatives: [String]
}

/// The command stage: decodes the audio from the wake phrase to the end of speech.
public protocol CommandRecognizer: AnyObject {
    /// `audio` starts at absolute sample `startSample`, shortly before the wake phrase.
    func recognize(_ audio: [Int16], startSample: Int) throws(DecoderError) -> CommandOutcome
}

/// PocketSphinx with the grammar generated from the command set (wake phrase + command, or a phone loop for
/// speech that is no command), and the general language model for the free text of searches.
public final class GrammarCommandRecognizer: CommandRecognizer {
    public let commands: CommandSet
    public let wakeWords: [String]
    /// Grammar search over a small dictionary generated for the grammar (its words and the phone words).
    private let decoder: PocketSphinxDecoder
    /// Language-model search over the full dictionary, for free text.
    private let textDecoder: PocketSphinxDecoder
    private static let grammarSearch = "commands"
    private static let languageModelSearch = "lm"

    public init(commands: CommandSet, wakePhrase: String, model: ModelPaths,
                garbageWeight: Double = 0.05, wordInsertionPenalty: Double = 1e-4) throws(DecoderError) {
        self.commands = commands
        wakeWords = CommandSet.normalizeWords(wakePhrase)
        let vocabulary = commands.vocabulary.union(wakeWords)
        let dictionary = try GrammarDictionary(vocabulary: vocabulary, from: model.dictionary)
        if !dictionary.missing.isEmpty {
            throw DecoderError(operation: "dictionary", status: -1,
                               detail: "no pronunciation for: \(dictionary.missing.sorted().joined(separator: ", "))")
        }
        let dictPath = try dictionary.writeTemporary()
        defer { try? FileManager.default.removeItem(atPath: dictPath) }
        var grammarModel = model
        grammarModel.dictionary = dictPath
        // The word insertion penalty is what keeps the phone loop from winning everywhere: each phone is a word,
        // so a strong penalty makes free speech (or the garbage branch) cost more than a few command words.
        decoder = try PocketSphinxDecoder(model: grammarModel, extraArguments: [
            ("-cmn", "batch"), ("-wip", String(wordInsertionPenalty)),
        ])
        let jsgf = GrammarGenerator(commands: commands, garbageWeight: garbageWeight).jsgf(wakeWords: wakeWords)
        try decoder.addGrammar(name: Self.grammarSearch, jsgf: jsgf)
        try decoder.useSearch(Self.grammarSearch)
        textDecoder = try PocketSphinxDecoder(model: model, extraArguments: [("-cmn", "batch")])
        try textDecoder.addLanguageModel(name: Self.languageModelSearch, path: model.languageModel)
        try textDecoder.useSearch(Self.languageModelSearch)
    }

    static let samplesPerFrame = AudioFormat.sampleRate / PocketSphinxDecoder.framesPerSecond

    public func recognize(_ audio: [Int16], startSample: Int) throws(DecoderError) -> CommandOutcome {
        try decoder.startUtterance()
        try decoder.process(audio[...], wholeUtterance: true)
        decoder.endUtterance()
        let t0 = AudioFormat.seconds(startSample)
        let hyp = decoder.hypothesis(withPosterior: true)
        guard let hyp else {
            return .rejected(text: "", reason: "no-command", transcript: nil)
        }
        let words = hyp.words.filter { !$0.isFiller && $0.word != "<s>" && $0.word != "</s>" }
        // Drop everything up to the end of the wake phrase.
        var commandWords = words[...]
        if let wakeEnd = lastIndexOfWake(in: words) { commandWords = words[(wakeEnd + 1)...] }
        // Phones between the wake phrase and a command word are a hesitation ("hey jarvis, um, scroll down").
        if let firstLiteral = commandWords.firstIndex(where: { !GrammarGenerator.isPhoneWord($0.word) }) {
            commandWords = commandWords[firstLiteral...]
        }
        let spoken = commandWords.map(\.word)
        let span = (start: t0 + Double(commandWords.first?.startFrame ?? 0) / 100,
                    end: t0 + Double((commandWords.last?.endFrame ?? decoder.frameCount) + 1) / 100)
        let confidence = min(1, max(0, hyp.posterior))
        if spoken.isEmpty {
            return .rejected(text: "", reason: "no-command", transcript: nil)
        }
        if spoken.allSatisfy(GrammarGenerator.isPhoneWord) {
            // Speech, but no command: say what the language model heard, for the user's benefit.
            let firstFrame = commandWords.first!.startFrame
            let heard = try decodeFreeText(audio, fromFrame: firstFrame)
            let transcript = Transcript(text: heard, confidence: confidence, start: span.start, end: span.end,
                                        alternatives: [])
            return .rejected(text: heard, reason: "not-a-command", transcript: transcript)
        }
        if ProcessInfo.processInfo.environment["JARVIS_DEBUG"] != nil { FileHandle.standardError.write(Data("hyp \(hyp.text) | \(hyp.words.map(\.word)) post \(hyp.posterior)\n".utf8)) }
        guard var intent = commands.parse(collapsePhoneWords(spoken)) else {
            let text = cleanText(spoken.joined(separator: " "))
            return .rejected(text: text, reason: "not-a-command", transcript: nil)
        }
        // Free text: decode the audio after the last command word with the language model.
        if let freeSlot = commands.freeTextSlots.first(where: { intent.slots[$0] != nil }) {
            guard let lastLiteral = commandWords.lastIndex(where: { !GrammarGenerator.isPhoneWord($0.word) }) else {
                return .rejected(text: "", reason: "no-command", transcript: nil)
            }
            let fromFrame = commandWords[lastLiteral].endFrame + 1
            let query = try decodeFreeText(audio, fromFrame: fromFrame)
            let prefix = commandWords[...lastLiteral].map(\.word).joined(separator: " ")
            if query.isEmpty {
                return .rejected(text: prefix, reason: "empty-query", transcript: nil)
            }
            intent.slots[freeSlot] = .string(query)
            intent.text = prefix + " " + query
        }
        let transcript = Transcript(text: intent.text, confidence: confidence, start: span.start, end: span.end,
                                    alternatives: [])   // n-best over the phone loop's lattice costs seconds
        return .intent(intent, transcript: transcript)
    }

    /// Index of the last word of the first complete wake phrase in `words`.
    func lastIndexOfWake(in words: [RecognizedWord]) -> Int? {
        guard !wakeWords.isEmpty, words.count >= wakeWords.count else { return nil }
        for i in 0...(words.count - wakeWords.count)
        where zip(words[i..<(i + wakeWords.count)], wakeWords).allSatisfy({ $0.word == $1 }) {
            return i + wakeWords.count - 1
        }
        return nil
    }

    /// Phone words stand for free text: one placeholder word per run, so patterns can match them.
    func collapsePhoneWords(_ words: [String]) -> [String] {
        var out: [String] = []
        for w in words {
            if GrammarGenerator.isPhoneWord(w) {
                if out.last != "\u{1}" { out.append("\u{1}") }
            } else {
                out.append(w)
            }
        }
        return out
    }

    /// Text without phone words, fillers or the wake phrase, for transcripts and alternatives.
    func cleanText(_ text: String) -> String {
        var words = text.split(separator: " ").map(String.init).filter {
            !GrammarGenerator.isPhoneWord($0) && !$0.hasPrefix("<") && !$0.hasPrefix("[")
        }
        if words.count >= wakeWords.count, Array(words.prefix(wakeWords.count)) == wakeWords {
            words.removeFirst(wakeWords.count)
        }
        return words.joined(separator: " ")
    }

    /// Language-model decode of `audio` from 10 ms frame `fromFrame` to the end; lower-case words.
    func decodeFreeText(_ audio: [Int16], fromFrame: Int) throws(DecoderError) -> String {
        let from = min(audio.count, max(0, fromFrame * Self.samplesPerFrame - 800))
        guard audio.count - from >= AudioFormat.sampleRate / 10 else { return "" }
        try textDecoder.startUtterance()
        try textDecoder.process(audio[from...], wholeUtterance: true)
        textDecoder.endUtterance()
        guard let hyp = textDecoder.hypothesis() else { return "" }
        return hyp.words.filter { !$0.isFiller && $0.word != "<s>" && $0.word != "</s>" }
            .map(\.word).joined(separator: " ").lowercased()
    }
}
