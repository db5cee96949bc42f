import CPocketSphinx
import Foundation

/// The recognition stage: PocketSphinx with grammars generated from the command set. Streams one VAD
/// segment at a time; the wake grammar spots the wake phrase (against a phone loop, so speech without it
/// ends there) and recognises a command in the same pass.
public final class UtteranceRecognizer {
    public enum Mode: Sendable { case wake, followUp }

    /// The commands the grammar holds (`CommandSet.grammarCommands` of those it was made with).
    public let commands: CommandSet
    public let wakeWords: [String]
    /// Every word the grammar can hear: the commands' and the wake phrase's.
    private let spokenWords: Set<String>
    /// The command set's words, sorted: the substitutes `commandTwin(of:)` tries.
    private lazy var twinVocabulary: [String] = commands.vocabulary.sorted()
    /// The commands `commandTwin(of:)` looks for twins among: `commands`, and with
    /// `RecognizerSettings.languageModelOnlyTwins` the language-model-only ones too.
    private let twinCommands: CommandSet
    /// `CommandSet.slotWords` of `commands`, made once.
    private lazy var slotWords: Set<String> = commands.slotWords
    public let settings: RecognizerSettings
    private let decoder: PocketSphinxDecoder
    /// The commands-only and forced-alignment grammars' generator (its default costs; the joined words when
    /// `RecognizerSettings.joinedConsonants`).
    private let plainGenerator: GrammarGenerator
    /// Whether the grammar decoder holds the general language model's search ("lm"; search text, rejections),
    /// added on first use and removed when released.
    private var hasLanguageModelSearch = false
    /// What each model of the language-model search expects, in `PocketSphinxDecoder.mixLanguageModel` order.
    private var expectedModels: [Expectation] = [.nothing]
    /// Which model of the language-model search holds the word pairs of search queries (`QueryBigramModel`), in
    /// `PocketSphinxDecoder.mixLanguageModel` order; nil when none does.
    private var queryModelIndex: Int?
    /// The acoustic model's transform for segments under babble (`RecognizerSettings.babbleAdaptation`); nil when
    /// off or when the model is not the one it was trained for.
    let babbleAdaptation: AcousticAdaptation?
    /// The general language model's words (`RecognizerSettings.languageModelWords`) once the grammar decoder's
    /// dictionary holds them (read and added once, kept); nil before.
    private var languageModelVocabulary: Set<String>?
    private var warnedAboutWholeLanguageModel = false
    private var warnedAboutQueryModel = false
    private var mode: Mode = .wake
    private var utteranceStart = 0
    private var fed: [Int16] = []
    /// `fed` as the second pass decodes it (with `noiseFloor` when it holds digital silence), made when the
    /// utterance is decoded.
    private var commandAudio: [Int16] = []
    private let noiseFloor: NoiseFloor?
    /// The spectrum `settings.highBandFill` measures bands with (made on first use).
    private lazy var bandSpectrum = PowerSpectrum(frameSamples: 512)
    /// For `OnsetDip` (25 ms frames).
    private lazy var onsetSpectrum = PowerSpectrum(frameSamples: OnsetDip.frameSamples)
    /// Frame 0 of the decode being interpreted lies this many samples into `fed`.
    private var frameOffset = 0
    // Streaming wake state.
    private let live: PocketSphinxDecoder?
    private let meanTracker: CepstralMeanTracker?
    private var priorMean: [Float]?
    private var liveStarted = false
    /// Whether the live decoder hears the noise floor (the segment held digital silence so far).
    private var liveFloored = false
    /// Sample of `fed` at which the live decoder's frame 0 lies (moves when it starts over).
    private var liveOffset = 0
    private var samplesSinceCheck = 0
    private var liveDone = false
    /// Samples of `fed` from the start of the first live wake candidate (verify score ≥ `gateScore`) to the
    /// end of the last one; nil when there was none.
    private var candidateSpan: Range<Int>?
    private var sawWakeCandidate: Bool { candidateSpan != nil }
    /// The same for candidates under `gateScore` (kept under steady noise, `weakCandidateHalvesMargin`).
    private var weakCandidateSpan: Range<Int>?
    /// The cepstral mean of a segment's reduced-noise audio (`proposeCandidates`), made on first use.
    private var reducedNoiseMean: CepstralMeanTracker?
    /// The searches `decodeWithRetry` has added ("wake-wide", "followup-wide").
    private var wideSearches: Set<String> = []
    /// The second pass's grammars by search name ("wake", "followup"), for `decodeWithRetry`'s wide copies.
    private let plainSecondPassGraphs: [String: GrammarGraph]
    /// The generator of the same grammars with the open-vowel words (`offersOpenVowels`); nil without them.
    private let openGenerator: GrammarGenerator?
    /// Those grammars, made when first needed.
    private var openSecondPassGraphs: [String: GrammarGraph] = [:]
    /// Whether the searches "wake" and "followup" hold `openSecondPassGraphs` now. One pair is held at a time: both
    /// pairs side by side took 3 MB more; a change takes about 20 ms of CPU, once per change of room.
    private var secondPassOffersOpenVowels = false
    /// The two halves of the name's (first) pronunciation, as dictionary words of the grammar decoder
    /// (`nameHalvesMargin`); nil for a name of fewer than 4 phones.
    private var nameHalfWords: (first: String, second: String)?
    /// The name's first phone and the rest of its phones as two words (`RecognizerSettings.minimumNameOnsetFrames`).
    private var nameOnsetWords: (onset: String, rest: String)?
    /// The grammar decoder's searches over the name's rivals (`onsetRivalMargin`), for a clean segment and for
    /// any other: "syllable-rivals" (with the first-syllable rivals, `firstSyllableRivals`) or "rivals" (the
    /// onset rivals); nil when the name has none.
    private var rivalSearches: (clean: String, other: String)?
    /// Samples at the start of the utterance that a restart fed again.
    private var replayedSamples = 0
    /// The live candidates verified in this segment, in order: the name's frames of `fed` and its margin
    /// (`liveNameMarginPenalty`).
    private var checkedCandidates: [(frames: ClosedRange<Int>, margin: Double)] = []
    /// Live candidates verified in the current (or last) segment; each costs two full-rate decodes of its span.
    var liveCandidatesVerified: Int { checkedCandidates.count }
    /// Whether the current `finish()` keeps the commands after names under the bar (`commandsAfterNamesUnderBar`).
    private var keepsCommandsAfterNamesUnderBar = false
    /// Under babble, the commands after the last `finish()`'s wake phrases whose name verified under the bar,
    /// their wake spans as heard; empty unless that `finish` was asked to keep them.
    private(set) var commandsAfterNamesUnderBar: [UtteranceResult] = []
    private var earlyWake: UtteranceResult.WakeSpan?
    private var denoiser: SpectralDenoiser?
    /// The commands-only searches the grammar decoder holds (`commandCovering`; each added on first use).
    private var commandsSearches: Set<String> = []
    static let samplesPerFrame = AudioFormat.sampleRate / PocketSphinxDecoder.framesPerSecond
    /// The live decoder; with `graph`, over the part of the acoustic model that graph's words can use
    /// (`AcousticModelSubset`), or the whole model when that part cannot be made or loaded.
    private static func liveDecoder(model: ModelPaths, arguments: [(String, String)], subsetFor graph: GrammarGraph?,
                                    dictionary: GrammarDictionary, fast: Bool) throws(DecoderError) -> PocketSphinxDecoder {
        guard let graph else { return try PocketSphinxDecoder(model: model, extraArguments: arguments, fastGaussians: fast) }
        let words = Set(graph.transitions.compactMap(\.word))
        // The open-vowel words are the second pass's only (`RecognizerSettings.openVowelWords`).
        let pronunciations = dictionary.entries
            .filter { !$0.word.contains(GrammarGraph.openVowelSuffix) && words.contains(PocketSphinxDecoder.baseWord($0.word)) }
            .map { $0.phones.split(separator: " ").map(String.init) }
        do {
            if let folder = try AcousticModelSubset.cachedFolder(modelFolder: model.acousticModel,
                                                                 pronunciations: pronunciations) {
                return try PocketSphinxDecoder(model: model, extraArguments: arguments + [
                    ("-mdef", folder + "/mdef"), ("-sendump", folder + "/sendump"),
                ], fastGaussians: fast)
            }
            let subset = try AcousticModelSubset.shared(modelFolder: model.acousticModel, pronunciations: pronunciations)
            let folder = try subset.writeTemporary()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            return try PocketSphinxDecoder(model: model, extraArguments: arguments + [
                ("-mdef", folder + "/mdef"), ("-sendump", folder + "/sendump"),
            ], fastGaussians: fast)
        } catch {
            if tracing { FileHandle.standardError.write(Data("live decoder: whole acoustic model (\(error))\n".utf8)) }
            return try PocketSphinxDecoder(model: model, extraArguments: arguments, fastGaussians: fast)
        }
    }

    /// `JARVIS_TRACE=1` prints each decoded utterance and verification score to stderr (for tuning).
    static let tracing = ProcessInfo.processInfo.environment["JARVIS_TRACE"] == "1"

    /// Where the CPU of this recogniser's stages goes (`jarvis bench`); nil (the default) measures nothing.
    public var stageClock: StageClock?

    private func timed<T>(_ stage: StageClock.Stage, _ body: () throws(DecoderError) -> T) throws(DecoderError) -> T {
        try StageClock.measure(stageClock, stage, body)
    }

    /// The recogniser hears `commands`' `grammarCommands` (and, with `RecognizerSettings.languageModelOnlyTwins`,
    /// weighs the others as twins of what it heard); the pipeline parses the language model's words with all.
    public init(commands: CommandSet, wakePhrase: String, settings: RecognizerSettings) throws(DecoderError) {
        twinCommands = settings.languageModelOnlyTwins ? commands : commands.grammarCommands
        let commands = commands.grammarCommands
        self.commands = commands
        self.settings = settings
        babbleAdaptation = settings.babbleAdaptation ? AcousticAdaptation.noisySpeech(forModelIn: settings.model.acousticModel) : nil
        noiseFloor = settings.noiseFloorDB.map { NoiseFloor(levelDB: $0) }
        wakeWords = CommandSet.normalizeWords(wakePhrase)
        spokenWords = commands.vocabulary.union(wakeWords)
        var dictionary = try GrammarDictionary(vocabulary: spokenWords, from: settings.model.dictionary,
                                               accentVariants: settings.accentVariants,
                                               extra: settings.extraPronunciations)
        if !dictionary.missing.isEmpty {
            throw DecoderError(operation: "dictionary", status: -1,
                               detail: "no pronunciation for: \(dictionary.missing.sorted().joined(separator: ", "))")
        }
        let generator = GrammarGenerator(commands: commands, settings: settings, dictionary: dictionary)
        dictionary.add(generator.joinedEntries)
        dictionary.add(generator.openVowelEntries)
        var plainGenerator = GrammarGenerator(commands: commands)
        plainGenerator.joinPronunciations = generator.joinPronunciations
        plainGenerator.openVowels = generator.openVowels
        plainGenerator.requestCost = generator.requestCost
        self.plainGenerator = plainGenerator
        let dictPath = try dictionary.writeTemporary()
        defer { try? FileManager.default.removeItem(atPath: dictPath) }
        var grammarModel = settings.model
        grammarModel.dictionary = dictPath
        decoder = try PocketSphinxDecoder(model: grammarModel, extraArguments: [
            ("-cmn", "batch"),
            ("-wip", String(settings.wordInsertionPenalty)),
        ] + settings.warpArguments, fastGaussians: settings.fastGaussianScoring)
        let wakeGraph = generator.wakeGraph(wakeWords: wakeWords), followUpGraph = generator.followUpGraph()
        plainSecondPassGraphs = ["wake": wakeGraph, "followup": followUpGraph]
        // The same grammars with the open-vowel words, for clean segments without hum (`holdSecondPass`).
        var openGenerator = generator
        openGenerator.offerOpenVowels = true
        self.openGenerator = generator.openVowels.isEmpty ? nil : openGenerator
        try decoder.addGraph(name: "wake", wakeGraph, wordBeam: settings.secondPassWordBeam)
        try decoder.addGraph(name: "followup", followUpGraph, wordBeam: settings.secondPassWordBeam)
        try decoder.addGraph(name: "phones", generator.phoneLoopGraph())
        if settings.streamingWake {
            let liveArgs: [(String, String)] = [
                ("-cmn", "live"),
                ("-wip", String(settings.wordInsertionPenalty)),
                ("-ds", String(settings.liveFrameSkip)),
                ("-wbeam", String(settings.liveWordBeam)),
            ] + settings.warpArguments
            var liveGenerator = generator
            liveGenerator.loopPhones = settings.liveLoopPhones
            liveGenerator.firstWordsOfCommands = settings.liveCommandFirstWords
            liveGenerator.firstWordsLeftOut = settings.liveFirstWordsLeftOut
            let liveGraph = liveGenerator.wakeGraph(wakeWords: wakeWords)
            let liveDecoder = try Self.liveDecoder(model: grammarModel, arguments: liveArgs,
                                                   subsetFor: settings.liveModelSubset ? liveGraph : nil,
                                                   dictionary: dictionary, fast: settings.fastGaussianScoring)
            try liveDecoder.addGraph(name: "wake", liveGraph)
            try liveDecoder.useSearch("wake")
            live = liveDecoder
            meanTracker = CepstralMeanTracker(decoder: liveDecoder)
        } else {
            live = nil
            meanTracker = nil
        }
        // The words made from the name's pronunciation go into the dictionary now, before any language model's
        // search exists (PocketSphinx adds a word added later to that model as a unigram too).
        if let name = wakeWords.last {
            // The halves: a name of 4 phones or more, split in the middle; the onset: its first phone and the rest.
            nameHalfWords = try Self.addNameParts(of: name, to: decoder, names: ("part1", "part2"), minimumPhones: 4) {
                ($0 + 1) / 2
            }
            nameOnsetWords = try Self.addNameParts(of: name, to: decoder, names: ("onset", "rest"), minimumPhones: 3) { _ in 1 }
            if let rivals = try Self.addOnsetRivals(of: name, firstSyllables: settings.firstSyllableRivals, to: decoder) {
                try decoder.addGraph(name: "rivals", Self.anyOne(of: rivals.onset))
                rivalSearches = ("rivals", "rivals")
                if !rivals.firstSyllable.isEmpty {
                    try decoder.addGraph(name: "syllable-rivals", Self.anyOne(of: rivals.onset + rivals.firstSyllable))
                    rivalSearches = ("syllable-rivals", "rivals")
                }
            }
        }
    }

    /// The noise under the current speech segment (`SegmentSNR`), nil when unknown (taken as clean).
    public var segmentNoise: SegmentSNR.Estimate?

    /// Whether the audio holds mains hum, notched out or not yet (`HumRemover.hearsHum`; the pipeline says so
    /// before `finish`).
    public var hearsHum = false

    /// Whether the second pass offers the open-vowel words (`RecognizerSettings.openVowelWords`): in a clean
    /// segment without hum. The VAD's band hardly hears hum, so its segments count as clean, but under hum
    /// "please" was heard as "back" said with AA.
    var offersOpenVowels: Bool { segmentIsClean && !hearsHum }

    /// How much steady noise the segment holds: 0 at `cleanSNR` or above (or unknown, or a floor that is not
    /// steady), 1 at `noisySNR` or below with a floor spread up to `steadySpread` (none 1 dB above it).
    var noisiness: Double {
        guard let noise = segmentNoise, settings.cleanSNR > settings.noisySNR else { return 0 }
        let level = (settings.cleanSNR - noise.snrDB) / (settings.cleanSNR - settings.noisySNR)
        let steady = settings.steadySpread + 1 - noise.floorSpreadDB
        return min(1, max(0, level)) * min(1, max(0, steady))
    }

    /// Whether the segment's noise changes (babble): under `cleanSNR`, its floor spread more than 1 dB over
    /// `steadySpread`, where `noisiness` has faded to nothing.
    public var segmentNoiseChanges: Bool {
        guard let noise = segmentNoise else { return false }
        return noise.snrDB < settings.cleanSNR && noise.floorSpreadDB > settings.steadySpread + 1
    }

    /// Whether the segment is clean: its SNR at or above `cleanSNR`, or unknown (VAD off).
    public var segmentIsClean: Bool {
        guard let noise = segmentNoise else { return true }
        return noise.snrDB >= settings.cleanSNR
    }

    private var noiseDescription: String {
        segmentNoise.map { String(format: "SNR %.1f dB, floor spread %.1f dB", $0.snrDB, $0.floorSpreadDB) } ?? "SNR unknown"
    }

    var wakeThreshold: Double {
        settings.wakeThreshold + (settings.noisyWakeThreshold - settings.wakeThreshold) * noisiness
    }

    /// `gateScore`, lowered under steady noise.
    var gateScore: Double {
        settings.gateScore + (settings.noisyGateScore - settings.gateScore) * noisiness
    }

    var commandThreshold: Double {
        settings.commandThreshold + (settings.noisyCommandThreshold - settings.commandThreshold) * noisiness
    }

    /// The audio just before the open utterance (`begin`'s `before`).
    private var audioBefore: [Int16] = []

    /// Absolute sample where the current utterance began, nil when none is open.
    public private(set) var utteranceStartSample: Int?

    /// Seconds of audio in the open utterance.
    public var utteranceSeconds: Double { AudioFormat.seconds(fed.count) }

    /// - Parameter replayed: samples at the start that a restart feeds again (its overlap), 0 otherwise.
    /// - Parameter before: the audio just before `start` (up to `WordLevel.roomSpan`), for the level of the
    ///   talk before a wake phrase near the utterance's start (`WordLevel.roomLevel`).
    public func begin(atSample start: Int, mode: Mode, replayed: Int = 0, before: [Int16] = []) throws(DecoderError) {
        self.mode = mode
        decoder.adaptation = nil   // the live wake check's verification hears the model as installed
        audioBefore = before
        replayedSamples = replayed
        try decoder.useSearch(mode == .wake ? "wake" : "followup")
        try decoder.startUtterance()
        utteranceStartSample = start
        utteranceStart = start
        commandAudio.removeAll()  // first: it may share `fed`'s buffer, which is kept
        fed.removeAll(keepingCapacity: true)
        frameOffset = 0
        liveStarted = false
        liveSamplesThisUtterance = 0
        liveFloored = false
        segmentPeak = nil
        liveOffset = 0
        samplesSinceCheck = 0
        liveDone = mode != .wake || live == nil
        candidateSpan = nil
        weakCandidateSpan = nil
        checkedCandidates.removeAll()
        earlyWake = nil
        meanTracker?.reset()
    }

    /// Drops the open utterance without decoding it (the pipeline hands the segment to the recogniser for its
    /// talker's voice, `RecognizerSettings.highVoiceWarp`); the cepstral mean of earlier segments is kept.
    public func abandon() {
        holdsLive = false
        liveSamplesAbandoned += liveSamplesThisUtterance
        decoder.endUtterance()
        live?.endUtterance()
        utteranceStartSample = nil
        commandAudio.removeAll()
        fed.removeAll(keepingCapacity: true)
    }

    /// Forgets the stream: no open utterance, no cepstral mean carried over from earlier segments.
    public func reset() {
        holdsLive = false
        decoder.endUtterance()
        live?.endUtterance()
        utteranceStartSample = nil
        priorMean = nil
        meanTracker?.restartStream()
        fed.removeAll()
        commandAudio.removeAll()
        audioBefore.removeAll()
    }

    /// Collects the utterance; it is decoded when it ends, in one pass with cepstral mean normalisation over
    /// the whole utterance (measured: far more accurate than live CMN on short noisy commands). In wake mode
    /// the live decoder follows it meanwhile: returns a wake phrase as soon as it is sure of one (at most
    /// one per utterance; `finish()` then returns it again, with the command after it).
    @discardableResult
    public func process(_ samples: ArraySlice<Int16>) throws(DecoderError) -> UtteranceResult.WakeSpan? {
        guard utteranceStartSample != nil else { return nil }
        let chunkStart = fed.count
        fed.append(contentsOf: samples)
        guard !liveDone, let live, let meanTracker else { return nil }
        let chunk = liveAudio(from: chunkStart)
        try timed(.liveDecoder) { meanTracker.add(chunk) }
        if !liveStarted {
            guard !holdsLive, fed.count >= AudioFormat.samples(settings.liveStartDelay) else { return nil }
            try live.startUtterance()
            live.setLiveMean(liveMean())
            liveStarted = true
            liveOffset = 0
            try decodeLive(liveAudio(from: 0))
        } else if fed.count - samples.count - liveOffset >= AudioFormat.samples(settings.liveWindow) {
            // Start over on the last `liveOverlap` (frame-aligned), so a wake phrase across the seam is whole.
            live.endUtterance()
            let back = AudioFormat.samples(settings.liveOverlap) / Self.samplesPerFrame * Self.samplesPerFrame
            liveOffset = max(liveOffset, fed.count - back)
            try live.startUtterance()
            live.setLiveMean(liveMean())
            try decodeLive(liveAudio(from: liveOffset))
        } else {
            live.setLiveMean(liveMean())
            try decodeLive(chunk)
        }
        // The best path is traced back at most every `liveCheckInterval` of audio (a backtrace per 20 ms
        // frame cost about a tenth of the decoding).
        samplesSinceCheck += samples.count
        guard samplesSinceCheck >= AudioFormat.samples(settings.liveCheckInterval) else { return nil }
        samplesSinceCheck = 0
        return try timed(.wakeCandidates) { () throws(DecoderError) in try checkLiveWake() }
    }

    /// Whether the live decoder waits (the segment's audio is collected and its cepstral mean followed): the
    /// pipeline holds it while the talker's voice, and so the recogniser, is not known yet
    /// (`RecognizerSettings.highVoiceWarp`). `releaseLive()` lets it start.
    public private(set) var holdsLive = false

    /// Holds the live decoder (`holdsLive`) until `releaseLive()`, `abandon()` or `reset()`.
    public func holdLive() { holdsLive = true }

    /// Lets the live decoder start: on all the open utterance's audio so far when it is long enough.
    @discardableResult
    public func releaseLive() throws(DecoderError) -> UtteranceResult.WakeSpan? {
        guard holdsLive else { return nil }
        holdsLive = false
        try process([])  // starts it on the audio held (a held decoder counted no samples towards a check)
        guard liveStarted, !liveDone else { return nil }
        samplesSinceCheck = 0
        // The live decoder's best path over all the audio held, right away.
        return try timed(.wakeCandidates) { () throws(DecoderError) in try checkLiveWake() }
    }

    private func decodeLive(_ samples: ArraySlice<Int16>) throws(DecoderError) {
        try timed(.liveDecoder) { () throws(DecoderError) in try live?.process(samples) }
        liveSamplesThisUtterance += samples.count
    }

    /// Samples the live decoder has decoded in the open utterance.
    private var liveSamplesThisUtterance = 0
    /// Samples the live decoder had decoded in utterances dropped undecoded (`abandon()`): work lost.
    private(set) var liveSamplesAbandoned = 0

    /// `fed` from `offset` on as the live decoder hears it: with `noiseFloor` under it from the first chunk of
    /// the segment that holds digital silence on (`floorLiveAudio`).
    private func liveAudio(from offset: Int) -> ArraySlice<Int16> {
        let raw = fed[offset...]
        guard settings.floorLiveAudio, let noiseFloor else { return raw }
        if !liveFloored { liveFloored = NoiseFloor.holdsDigitalSilence(raw) }
        return liveFloored ? noiseFloor.apply(raw, start: utteranceStart + offset)[...] : raw
    }

    /// `samples` (from absolute sample `start`) as the second pass and the language model hear them: with
    /// `noiseFloor` when `original` (the same audio before noise reduction) holds digital silence, and with
    /// `settings.highBandFill` when it is band-limited. `segment`: `original` is the whole segment (its second
    /// pass), whose peak the language model's audio, a part of it, takes for its floor (`floorFollowingPeak`).
    private func asHeard(_ samples: [Int16], start: Int, original: ArraySlice<Int16>,
                         segment: Bool = false) -> [Int16] {
        var floored = samples
        if let noiseFloor, NoiseFloor.holdsDigitalSilence(original) {
            if segment { segmentPeak = (start..<(start + original.count), Self.peak(of: original)) }
            floored = floorFollowingPeak(noiseFloor, of: original, start: start).apply(samples[...], start: start)
        }
        guard let fill = settings.highBandFill, let rms = fill.level(for: original, spectrum: bandSpectrum) else {
            return floored
        }
        if Self.tracing {
            FileHandle.standardError.write(Data("band-limited audio: a high-band fill at \(rms) RMS\n".utf8))
        }
        return fill.apply(floored[...], start: start, rms: rms)
    }

    /// `floor` moved with the peak of the audio `audio` (from absolute sample `start`) is part of
    /// (`RecognizerSettings.noiseFloorPeakDB`): the segment's (`segmentPeak`) when `audio` lies in it, as the
    /// language model's audio does, else `audio`'s own.
    private func floorFollowingPeak(_ floor: NoiseFloor, of audio: ArraySlice<Int16>, start: Int) -> NoiseFloor {
        guard let reference = settings.noiseFloorPeakDB else { return floor }
        let peak: Int
        if let segment = segmentPeak, segment.samples.contains(start),
           start + audio.count <= segment.samples.upperBound {
            peak = segment.peak
        } else {
            peak = Self.peak(of: audio)
        }
        // In whole dB: clips normalised to the reference peak (the dev set's, to 0.1 dB) keep the floor they were
        // measured with, sample for sample.
        return floor.following(peakDB: (20 * log10(Double(max(peak, 1)) / 32768)).rounded(), reference: reference)
    }
    /// The segment's peak (Int16 steps, before noise reduction) and its samples (absolute), measured by its second
    /// pass when it holds digital silence (`asHeard`).
    private var segmentPeak: (samples: Range<Int>, peak: Int)?
    static func peak(of audio: ArraySlice<Int16>) -> Int { audio.reduce(0) { max($0, abs(Int($1))) } }

    /// The mean the live decoder subtracts: the segment's so far, warm-started by the previous segments'.
    private func liveMean() -> [Float] {
        let n = Double(meanTracker?.count ?? 0)
        guard let current = meanTracker?.mean else { return priorMean ?? [Float](repeating: 0, count: live!.cepstralLength) }
        guard let prior = priorMean else { return current }
        let w = settings.priorMeanFrames
        return zip(current, prior).map { Float((Double($0) * n + Double($1) * w) / (n + w)) }
    }

    /// A wake phrase on the live decoder's best path, far enough behind its last frame and verified.
    private func checkLiveWake(final: Bool = false) throws(DecoderError) -> UtteranceResult.WakeSpan? {
        guard let live, let name = wakeWords.last, live.hypothesisContains(name), let hyp = live.hypothesis()
        else { return nil }
        // Frames counted from the start of `fed` (the live decoder counts from its last start).
        let base = liveOffset / Self.samplesPerFrame
        let words = hyp.spokenWords
            .map { RecognizedWord(word: $0.word, startFrame: $0.startFrame + base, endFrame: $0.endFrame + base) }
        let lastFrame = fed.count / Self.samplesPerFrame
        let settle = final ? 0 : PocketSphinxDecoder.frames(settings.wakeSettle)
        for wakeEnd in wakeEndIndices(in: words) {
            let nameWord = words[wakeEnd]
            guard nameWord.endFrame + settle <= lastFrame else { continue }
            let tolerance = settings.candidateEndTolerance
            guard !checkedCandidates.contains(where: {
                $0.frames.lowerBound == nameWord.startFrame && abs($0.frames.upperBound - nameWord.endFrame) <= tolerance
            }) else { continue }
            let margin = try verify([nameWord.word], fromFrame: nameWord.startFrame, toFrame: nameWord.endFrame)
            checkedCandidates.append((nameWord.startFrame...nameWord.endFrame, margin))
            let (score, quietScore) = wakeScores(margin)
            if Self.tracing {
                FileHandle.standardError.write(Data("live wake at frames \(nameWord.startFrame)-\(nameWord.endFrame) (decoded \(lastFrame)): score \(score)\n".utf8))
            }
            let wakeFirst = wakeEnd - wakeWords.count + 1
            noteCandidate(score: score, from: words[wakeFirst], to: nameWord)
            guard !final, quietScore >= settings.earlyWakeScore,
                  try leadLastsLongEnough(words[wakeFirst...wakeEnd]),
                  try nameOnsetHolds(nameWord),
                  nameOnsetDips(words[wakeFirst...wakeEnd]),
                  try wakeSearchConfirms(startFrame: words[wakeFirst].startFrame, endFrame: nameWord.endFrame),
                  // Under steady noise the halves are left to the second pass.
                  try noisiness > 0 ? true : nameHalvesHold(nameWord)
            else { continue }
            let span = UtteranceResult.WakeSpan(startSample: sample(words[wakeFirst].startFrame),
                                                endSample: sample(nameWord.endFrame + 1), score: score,
                                                quietScore: quietScore)
            earlyWake = span
            liveDone = true
            live.endUtterance()
            return span
        }
        return nil
    }

    /// Records a wake candidate from `first`'s start to `name`'s end (frames of `fed`) by its verification score
    /// on the raw audio: it opens the second pass at `gateScore`, or, under steady noise, as a weak candidate at
    /// `weakCandidateScore` (`RecognizerSettings.weakCandidateHalvesMargin`).
    private func noteCandidate(score: Double, from first: RecognizedWord, to name: RecognizedWord) {
        let span = first.startFrame * Self.samplesPerFrame..<(name.endFrame + 1) * Self.samplesPerFrame
        if score >= gateScore {
            candidateSpan = Self.union(candidateSpan, span)
        } else if settings.weakCandidateHalvesMargin != nil, noisiness > 0, score >= settings.weakCandidateScore {
            weakCandidateSpan = Self.union(weakCandidateSpan, span)
        }
    }

    private static func union(_ a: Range<Int>?, _ b: Range<Int>) -> Range<Int> {
        guard let a else { return b }
        return min(a.lowerBound, b.lowerBound)..<max(a.upperBound, b.upperBound)
    }

    /// Whether the wake search (the whole grammar, every phone in its loop) over the audio from
    /// `earlyConfirmLead` before a live candidate to just after it hears the wake phrase's last word end there
    /// too (within `earlyConfirmSlack`). The live decoder's coarser loop proposes candidates that the whole
    /// grammar would not; a wake reported before the end of the utterance needs both. A candidate it does not
    /// confirm is left to the whole-utterance decode.
    private func wakeSearchConfirms(startFrame: Int, endFrame: Int) throws(DecoderError) -> Bool {
        guard settings.earlyConfirmLead > 0 else { return true }
        guard let name = wakeWords.last else { return false }
        let fromFrame = max(0, startFrame - PocketSphinxDecoder.frames(settings.earlyConfirmLead))
        let from = fromFrame * Self.samplesPerFrame
        let to = min(fed.count, (endFrame + 1) * Self.samplesPerFrame + AudioFormat.samples(settings.wakeSettle))
        guard to - from >= Self.samplesPerFrame * 10,
              let hyp = try decoder.decodeUtterance(fed[from..<to], search: "wake") else { return false }
        let slack = PocketSphinxDecoder.frames(settings.earlyConfirmSlack)
        let confirmed = hyp.spokenWords.contains { $0.word == name && abs($0.endFrame + fromFrame - endFrame) <= slack }
        if Self.tracing {
            FileHandle.standardError.write(Data("early wake check +\(from): \(hyp.text) -> \(confirmed)\n".utf8))
        }
        return confirmed
    }

    /// Ends the utterance and interprets its best path: one result per wake phrase in it (in wake mode), or
    /// one result for the whole utterance (follow-up mode); empty when there is nothing.
    /// `keepingCommandsAfterNamesUnderBar`: under babble, also interpret the words after each wake phrase whose
    /// name verified under the bar, for `commandsAfterNamesUnderBar` (the pipeline asks when it may hear the
    /// segment again with its babble floored).
    public func finish(keepingCommandsAfterNamesUnderBar keep: Bool = false) throws(DecoderError) -> [UtteranceResult] {
        keepsCommandsAfterNamesUnderBar = keep
        commandsAfterNamesUnderBar = []
        defer { keepsCommandsAfterNamesUnderBar = false }
        return try timed(.secondPass) { () throws(DecoderError) in try decodeAtEnd() }
    }

    /// `finish()`'s work.
    private func decodeAtEnd() throws(DecoderError) -> [UtteranceResult] {
        guard utteranceStartSample != nil else { return [] }
        // The whole utterance, and what is asked of the language model about it, under babble: with the model
        // adapted to speech in noise.
        decoder.adaptation = segmentNoiseChanges ? babbleAdaptation : nil
        let adapted = decoder.adaptation != nil
        if Self.tracing && adapted { FileHandle.standardError.write(Data("heard with the model adapted to speech in noise\n".utf8)) }
        let results = try decodeWhole().map { var r = $0; r.heardAdapted = adapted; return r }
        if let m = meanTracker?.mean {
            priorMean = priorMean.map { zip($0, m).map { ($0 + $1) / 2 } } ?? m
        }
        guard let early = earlyWake else { return results }
        // The wake phrase was reported already: the whole-utterance decode gives the command after it.
        var out: [UtteranceResult] = []
        var matched = false
        for var r in results {
            if !matched, let w = r.wake, w.startSample < early.endSample, w.endSample > early.startSample {
                r.wake = early
                r.roomLevel = roomLevel(before: early)
                matched = true
            }
            out.append(r)
        }
        if !matched {
            // The whole-utterance decode does not confirm it: the command is what follows it.
            out.append(try decodeFollowing(early))
            out.sort { ($0.wake?.endSample ?? 0) < ($1.wake?.endSample ?? 0) }
        }
        return out
    }

    /// The command after a wake phrase reported early, decoded on its own (follow-up grammar, batch CMN).
    private func decodeFollowing(_ wake: UtteranceResult.WakeSpan) throws(DecoderError) -> UtteranceResult {
        let from = max(0, wake.endSample - utteranceStart - AudioFormat.samples(0.05))
        var result = UtteranceResult(wake: wake, words: [], confidence: 0)
        result.roomLevel = roomLevel(before: wake)
        result.spanEnd = utteranceStart + fed.count
        guard fed.count - from >= Self.samplesPerFrame * 10 else { return result }
        // The whole-utterance decode made it already, unless it was gated before its second pass.
        if commandAudio.count != fed.count {
            commandAudio = asHeard(fed, start: utteranceStart, original: fed[...], segment: true)
        }
        try holdSecondPass(openVowels: offersOpenVowels)
        guard let hyp = try decodeWithRetry(commandAudio[from...], search: "followup") else { return result }
        if Self.tracing {
            FileHandle.standardError.write(Data("after live wake +\(from): \(hyp.text)\n".utf8))
        }
        frameOffset = from
        defer { frameOffset = 0 }
        let words = hyp.spokenWords
        result = try interpret(words[...], wake: wake)
        result.spanEnd = utteranceStart + fed.count
        return result
    }

    private func decodeWhole() throws(DecoderError) -> [UtteranceResult] {
        if liveStarted && !liveDone, let live {
            live.endUtterance()
            if Self.tracing, let hyp = live.hypothesis() {
                let path = hyp.words.map { "\($0.word)@\($0.startFrame)-\($0.endFrame)" }.joined(separator: " ")
                FileHandle.standardError.write(Data("live path: \(path)\n".utf8))
            }
            if !sawWakeCandidate { _ = try checkLiveWake(final: true) }
            liveDone = true
        }
        // When the live decoder followed the segment, the second pass covers its wake candidates and the
        // `commandWindow` after them, not all of a long stretch of speech (its search memory grows with it).
        // Audio re-fed after a restart is always decoded again: that is what the overlap is for.
        var decoded = 0..<fed.count
        // Under steady noise, a segment in which the live decoder proposed nothing is heard again by it with
        // the noise reduced; the candidates it finds there still face the gate on the raw audio.
        let liveAloneInNoise = settings.gateFinalDecode && liveStarted && replayedSamples == 0
            && candidateSpan == nil && noisiness > 0
        var reducedNoise: [Int16]?
        if liveAloneInNoise && settings.liveSearchOnReducedNoise && weakCandidateSpan == nil,
           let live, let denoiser = steadyNoiseDenoiser() {
            // The first seconds only (a long segment's wake phrase opens it, or the live decoder heard it).
            let span = min(fed.count, AudioFormat.samples(settings.reducedNoiseSearchSpan))
            let reduced = denoiser.denoise(fed[..<span])
            try proposeCandidates(live: live, reducedNoise: reduced)
            if span == fed.count { reducedNoise = reduced }
        }
        // Under steady noise, a segment with only weak candidates is decoded again, its wakes held to more.
        let weakOnly = liveAloneInNoise && weakCandidateSpan != nil
        if settings.gateFinalDecode && liveStarted {
            let window = AudioFormat.samples(settings.commandWindow)
            var lower = Int.max, upper = 0
            if let span = candidateSpan ?? (weakOnly ? weakCandidateSpan : nil) {
                let lead = AudioFormat.samples(settings.candidateLead) / Self.samplesPerFrame * Self.samplesPerFrame
                lower = max(0, span.lowerBound - lead)
                upper = span.upperBound + window
            }
            if replayedSamples > 0 {
                lower = 0
                upper = max(upper, replayedSamples + AudioFormat.samples(settings.afterReplayWindow))
            }
            guard lower < upper else {
                // The live decoder followed all of it and never heard the wake phrase: no second pass.
                if Self.tracing { FileHandle.standardError.write(Data("utterance \(utteranceStart) +\(fed.count): gated (\(noiseDescription))\n".utf8)) }
                utteranceStartSample = nil
                return []
            }
            decoded = lower..<min(fed.count, upper)
        }
        // Steady noise (hiss, fan) under the speech: the second pass and its verification hear it reduced.
        let heard = reducedNoise ?? steadyNoiseDenoiser()?.denoise(fed[...]) ?? fed
        commandAudio = asHeard(heard, start: utteranceStart, original: fed[...], segment: true)
        fed = heard
        frameOffset = decoded.lowerBound
        defer { frameOffset = 0 }
        try holdSecondPass(openVowels: offersOpenVowels)
        let search = mode == .wake ? "wake" : "followup"
        var best = try decodeWithRetry(commandAudio[decoded], search: search)
        // A window that ends less than `commandWindow` after a wake phrase in it is widened once.
        if decoded.upperBound < fed.count, let hyp = best, let name = wakeWords.last,
           let heard = hyp.words.last(where: { $0.word == name }) {
            let wanted = min(fed.count, decoded.lowerBound + (heard.endFrame + 1) * Self.samplesPerFrame
                             + AudioFormat.samples(settings.commandWindow))
            if wanted > decoded.upperBound {
                decoded = decoded.lowerBound..<wanted
                best = try decodeWithRetry(commandAudio[decoded], search: search)
            }
        }
        utteranceStartSample = nil
        guard let hyp = best else {
            if Self.tracing { FileHandle.standardError.write(Data("utterance \(utteranceStart) +\(fed.count): no path\n".utf8)) }
            return []
        }
        if Self.tracing {
            FileHandle.standardError.write(Data("utterance \(utteranceStart) +\(fed.count): \(hyp.text)\n".utf8))
            let levels = hyp.spokenWords.map { word in
                "\(word.word)=\(WordLevel.level(of: commandAudio[decoded], startFrame: word.startFrame, endFrame: word.endFrame).map { String(Int($0)) } ?? "?")"
            }
            FileHandle.standardError.write(Data("word levels (dB): \(levels.joined(separator: " "))\n".utf8))
        }
        let words = hyp.spokenWords
        if mode == .followUp {
            var result = try interpret(words[...], wake: nil)
            result.spanEnd = utteranceStart + fed.count
            return [result]
        }
        // The name carries the evidence ("hey" is shared with "hey davis"): its margin decides, then the whole
        // phrase must hold too (`leadLastsLongEnough`, `wholePhraseVerifies`). A wake phrase that fails
        // verification does not end the command before it: the grammar also fits "hey jarvis double click" to
        // the end of "search for train times to boston".
        var wakes: [(end: Int, span: UtteranceResult.WakeSpan, tentative: Bool)] = []
        var namesUnderBar: [(end: Int, span: UtteranceResult.WakeSpan)] = []
        // The wake phrase is verified by the model as installed, which its thresholds were set on (verified by the
        // adapted model, 3 more of 375 sentences and confusable names under babble woke and acted).
        let adaptation = decoder.adaptation
        decoder.adaptation = nil
        let wakeEnds = wakeEndIndices(in: words)
        for wakeEnd in wakeEnds {
            let name = words[wakeEnd]
            let wakeFirst = wakeEnd - wakeWords.count + 1
            var margin = try verify([name.word], fromFrame: name.startFrame, toFrame: name.endFrame)
            // Not under babble: there other talkers' speech gives the live decoder names of its own.
            if let penalty = settings.liveNameMarginPenalty, !segmentNoiseChanges {
                // The name's frames of `fed` (the decode started `frameOffset` samples into it).
                let base = frameOffset / Self.samplesPerFrame
                let best = Self.bestNameMargin(margin, frames: (name.startFrame + base)...(name.endFrame + base),
                                               live: checkedCandidates, penalty: penalty)
                if Self.tracing, best > margin {
                    FileHandle.standardError.write(Data("name margin \(best) from the live decoder's span of it, less the penalty (\(margin) over the second pass's)\n".utf8))
                }
                margin = best
            }
            let (score, quietScore) = wakeScores(margin)
            let tentative = score < 0.5
            var required = wakeThreshold
            if tentative {
                guard let slack = settings.tentativeWakeSlack else { continue }
                required = wakeThreshold - slack * noisiness
                guard margin >= required else {
                    if keepsCommandsAfterNamesUnderBar && segmentNoiseChanges {
                        namesUnderBar.append((wakeEnd, .init(startSample: sample(words[wakeFirst].startFrame),
                                                             endSample: sample(name.endFrame + 1), score: score)))
                    }
                    continue
                }
            }
            // A name this sure carries the phrase; a less sure one needs the whole phrase to verify too.
            let phrase = words[wakeFirst...wakeEnd]
            // A name the early wake reported has met its onset rivals already.
            let reportedEarly = earlyWake.map {
                $0.startSample < sample(name.endFrame + 1) && $0.endSample > sample(name.startFrame)
            } ?? false
            guard try leadLastsLongEnough(phrase) else { continue }
            if !reportedEarly {
                guard try nameOnsetHolds(name) else { continue }
            }
            // Asked again of a name reported early (on the raw audio then): its bound was set on this audio.
            guard nameOnsetDips(phrase) else { continue }
            if quietScore < settings.earlyWakeScore {
                guard try wholePhraseVerifies(phrase, nameThreshold: required) else { continue }
            }
            // Last, the costliest test; a wake reported early outside steady noise has met it already.
            if noisiness > 0 || !reportedEarly {
                guard try nameHalvesHold(name, weakOnly: weakOnly) else { continue }
            }
            wakes.append((wakeEnd, .init(startSample: sample(words[wakeFirst].startFrame),
                                         endSample: sample(words[wakeEnd].endFrame + 1), score: score,
                                         quietScore: quietScore), tentative))
        }
        decoder.adaptation = adaptation
        var results: [UtteranceResult] = []
        for (n, (wakeEnd, wake, tentative)) in wakes.enumerated() {
            let nextWake = n + 1 < wakes.count ? wakes[n + 1].end - wakeWords.count + 1 : words.count
            var result = try interpret(words[(wakeEnd + 1)..<nextWake], wake: wake)
            result.spanEnd = nextWake < words.count ? sample(words[nextWake].startFrame) : utteranceStart + fed.count
            if tentative {
                let sure = result.confidence >= settings.tentativeWakeCommandConfidence
                    && commands.parse(result.commandWords) != nil
                if Self.tracing {
                    FileHandle.standardError.write(Data("tentative wake \(wake.score) with \(result.words) at \(result.confidence): \(sure ? "taken" : "dropped")\n".utf8))
                }
                guard sure else { continue }
            }
            results.append(result)
        }
        // After the wakes' commands, which come out as they did before these were kept.
        for (wakeEnd, wake) in namesUnderBar {
            let next = wakeEnds.first { $0 > wakeEnd }.map { $0 - wakeWords.count + 1 } ?? words.count
            guard next > wakeEnd + 1 else { continue }
            var result = try interpret(words[(wakeEnd + 1)..<next], wake: wake)
            result.spanEnd = next < words.count ? sample(words[next].startFrame) : utteranceStart + fed.count
            result.heardAdapted = decoder.adaptation != nil
            if Self.tracing {
                FileHandle.standardError.write(Data("name under the bar (\(wake.score)) with \(result.words) at \(result.confidence)\n".utf8))
            }
            commandsAfterNamesUnderBar.append(result)
        }
        return results
    }

    /// `margin` (the name verified over the second pass's span of it, `frames`), or, when higher, the margin of
    /// the live decoder's last candidate of the same name less `penalty` (`RecognizerSettings.liveNameMarginPenalty`).
    /// A candidate is of the same name when the spans overlap by at least half of the longer one (frames,
    /// inclusive; overlap and lengths both counted as differences of the bounds). The last candidate is the live
    /// decoder's latest reading of the name: earlier ones, with other ends, are not a second chance each.
    static func bestNameMargin(_ margin: Double, frames: ClosedRange<Int>,
                               live: [(frames: ClosedRange<Int>, margin: Double)], penalty: Double) -> Double {
        let sameName = live.last { candidate in
            let overlap = min(frames.upperBound, candidate.frames.upperBound)
                - max(frames.lowerBound, candidate.frames.lowerBound)
            let longer = max(frames.upperBound - frames.lowerBound,
                             candidate.frames.upperBound - candidate.frames.lowerBound)
            return overlap * 2 >= longer
        }
        return max(margin, (sameName?.margin ?? -.infinity) - penalty)
    }

    /// The live decoder's wake search over the whole segment with its steady noise reduced
    /// (`RecognizerSettings.liveSearchOnReducedNoise`), its cepstral mean that audio's: each wake phrase on its
    /// best path becomes a candidate by its verification on the raw audio, as a live candidate does (the raw
    /// gate, `gateScore` or `weakCandidateScore`).
    private func proposeCandidates(live: PocketSphinxDecoder, reducedNoise audio: [Int16]) throws(DecoderError) {
        if reducedNoiseMean == nil { reducedNoiseMean = CepstralMeanTracker(decoder: live) }
        guard let tracker = reducedNoiseMean else { return }
        tracker.restartStream()
        tracker.add(audio[...])
        try live.startUtterance()
        if let mean = tracker.mean { live.setLiveMean(mean) }
        try live.process(audio[...], wholeUtterance: true)
        live.endUtterance()
        guard let hyp = live.hypothesis() else { return }
        let words = hyp.spokenWords
        if Self.tracing {
            let path = words.map { "\($0.word)@\($0.startFrame)-\($0.endFrame)" }.joined(separator: " ")
            FileHandle.standardError.write(Data("live path with the noise reduced: \(path)\n".utf8))
        }
        for wakeEnd in wakeEndIndices(in: words) {
            let name = words[wakeEnd]
            let (score, _) = wakeScores(try verify([name.word], fromFrame: name.startFrame, toFrame: name.endFrame))
            if Self.tracing {
                FileHandle.standardError.write(Data("candidate at frames \(name.startFrame)-\(name.endFrame) with the noise reduced: score \(score)\n".utf8))
            }
            noteCandidate(score: score, from: words[wakeEnd - wakeWords.count + 1], to: name)
        }
    }

    /// The best path of `search` ("wake" or "followup") over `audio`; when it has none, the best path of the same
    /// grammar with the wider word-exit beam `noPathWordBeam` (that search is added the first time).
    private func decodeWithRetry(_ audio: ArraySlice<Int16>, search: String) throws(DecoderError) -> Hypothesis? {
        if let hyp = try decoder.decodeUtterance(audio, search: search) { return hyp }
        guard let beam = settings.noPathWordBeam,
              let graph = secondPassGraphs(offeringOpenVowels: secondPassOffersOpenVowels)[search] else { return nil }
        let wide = search + "-wide"
        if !wideSearches.contains(wide) {
            try decoder.addGraph(name: wide, graph, wordBeam: beam)
            wideSearches.insert(wide)
        }
        let hyp = try decoder.decodeUtterance(audio, search: wide)
        if Self.tracing {
            FileHandle.standardError.write(Data("no path for \(search); word-exit beam \(beam): \(hyp?.text ?? "no path")\n".utf8))
        }
        return hyp
    }

    /// The denoiser when the segment holds steady noise (`steadySpread`) below `cleanSNR`; nil otherwise.
    private func steadyNoiseDenoiser() -> SpectralDenoiser? {
        guard settings.denoiseSteadyNoise, !segmentIsClean, let noise = segmentNoise,
              noise.floorSpreadDB <= settings.steadySpread else { return nil }
        if denoiser == nil { denoiser = SpectralDenoiser() }
        return denoiser
    }

    private func sample(_ frame: Int) -> Int { utteranceStart + frameOffset + frame * Self.samplesPerFrame }

    /// The command part of a result: the words after a wake phrase (or of a follow-up utterance).
    private func interpret(_ span: ArraySlice<RecognizedWord>, wake: UtteranceResult.WakeSpan?) throws(DecoderError) -> UtteranceResult {
        var result = UtteranceResult(wake: wake, words: [], confidence: 0)
        result.roomLevel = wake.flatMap(roomLevel(before:))
        var rest = span
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
        var literal = rest.filter { !GrammarGenerator.isPhoneWord($0.word) }
        if let lastLiteral = rest.lastIndex(where: { !GrammarGenerator.isPhoneWord($0.word) }),
           let better = try commandCovering(rest[(lastLiteral + 1)...], after: literal) {
            literal = better
            rest = better[...]
            result.words = better.map(\.word)
            result.freeSpeechStart = nil
            result.rescored = true
        }
        var replaced: [RecognizedWord]?
        let best = result.rescored ? nil : try commandTwin(of: literal)
        result.closeTwin = best.map {
            UtteranceResult.WeighedTwin(words: $0.taken ? literal.map(\.word) : $0.twin.map(\.word), margin: $0.margin,
                                        taken: $0.taken)
        }
        if let twin = best.flatMap({ $0.taken ? $0.twin : nil }) {
            replaced = literal
            // The twin's word takes the place (and frames) of the word it replaces, in `rest` (with the phones) too.
            for (i, word) in literal.enumerated() where word.word != twin[i].word {
                if let at = rest.firstIndex(where: { $0.startFrame == word.startFrame && $0.word == word.word }) {
                    rest[at] = twin[i]
                }
            }
            literal = twin
            result.words = rest.map(\.word)
        }
        if let wake, let kept = commandWithoutQuietTail(literal, wake: wake, room: result.roomLevel) {
            let dropped = literal[kept.count...].map(\.startFrame)
            literal = kept
            result.words = rest.filter { !dropped.contains($0.startFrame) }.map(\.word)
        }
        if let first = literal.first, let last = literal.last {
            result.confidence = Self.score(try verify(literal.map(\.word), fromFrame: first.startFrame,
                                                      toFrame: last.endFrame), threshold: commandThreshold)
            // A twin says which command was said, not that one was: it is no surer than the words it replaced.
            if let replaced, let from = replaced.first, let to = replaced.last {
                result.confidence = min(result.confidence, Self.score(try verify(replaced.map(\.word),
                    fromFrame: from.startFrame, toFrame: to.endFrame), threshold: commandThreshold))
            }
            if Self.tracing {
                let trailing = span.reversed().prefix(while: { GrammarGenerator.isPhoneWord($0.word) })
                let frames = trailing.reduce(0) { $0 + $1.endFrame - $1.startFrame + 1 }
                FileHandle.standardError.write(Data("command \(literal.map(\.word)) confidence \(result.confidence), then \(trailing.count) phones over \(frames) frames\n".utf8))
            }
        }
        return result
    }

    /// `WordLevel.roomLevel` of the audio as it came (the pipeline's before the utterance, then the utterance's)
    /// in the `roomListening` seconds before `wake`.
    private func roomLevel(before wake: UtteranceResult.WakeSpan) -> Double? {
        let wakeFrom = min(fed.count, max(0, wake.startSample - utteranceStart))
        let span = WordLevel.roomSpan(settings)
        return WordLevel.roomLevel(before: (audioBefore.suffix(max(0, span - wakeFrom)) + fed[..<wakeFrom]).suffix(span))
    }

    /// The command without its last words when they lie `RecognizerSettings.quietTrailingCommandWordDrop` dB
    /// or more under the wake phrase and the command stands without them: quieter speech behind the talker
    /// (babble's "eight" after "scroll down"), or the release of "right" heard as "eight". nil: keep them all.
    /// Only a complete command without free text is shortened, to the same intent, and never to less than its
    /// first word; a pattern word just before the quiet words goes with them when the command needs it to.
    /// Only the grammar's commands (`commands`): a language-model-only twin ("go down a page") keeps its words.
    private func commandWithoutQuietTail(_ literal: [RecognizedWord], wake: UtteranceResult.WakeSpan,
                                         room: Double?) -> [RecognizedWord]? {
        guard let drop = settings.quietTrailingCommandWordDrop, literal.count > 1,
              let intent = commands.parse(literal.map(\.word)),
              commands.freeTextSlots.allSatisfy({ intent.slots[$0] == nil }) else { return nil }
        let talkerFrom = max(0, wake.startSample - utteranceStart)
        let talkerTo = min(commandAudio.count, wake.endSample - utteranceStart)
        guard talkerFrom < talkerTo, let talker = WordLevel.level(of: commandAudio[talkerFrom..<talkerTo]) else { return nil }
        let levels = literal.map { word -> Double? in
            let (from, to) = samples(fromFrame: word.startFrame, toFrame: word.endFrame)
            return from < to && to <= commandAudio.count ? WordLevel.level(of: commandAudio[from..<to]) : nil
        }
        let ceiling = WordLevel.othersCeiling(talker: talker, drop: drop, room: room, settings: settings)
        var quiet = WordLevel.quietTail(levels, reference: ceiling, drop: 0, keep: 1)
        // A word of the pattern that only leads into the quiet words goes with them ("by" of "scroll down by
        // seven"); a slot's word ("three" of "three times") does not.
        if quiet > 0, quiet + 1 < literal.count, commands.parse(literal.dropLast(quiet).map(\.word)) == nil,
           !slotWords.contains(literal[literal.count - quiet - 1].word),
           commands.parse(literal.dropLast(quiet + 1).map(\.word))?.name == intent.name {
            quiet += 1
        }
        while quiet > 0, commands.parse(literal.dropLast(quiet).map(\.word))?.name != intent.name { quiet -= 1 }
        guard quiet > 0 else { return nil }
        if Self.tracing {
            FileHandle.standardError.write(Data("quiet last command words \(literal.suffix(quiet).map(\.word)) at \(levels.suffix(quiet).map { Int($0 ?? 0) }) dB, talker \(Int(talker)), room \(room.map { "\(Int($0)) dB" } ?? "unknown"): dropped\n".utf8))
        }
        return Array(literal.dropLast(quiet))
    }

    /// A command followed by a few phones (espeak-ng's "scroll down" heard as "scroll up" + "aa uw") may be
    /// another command that covers them: the commands-only grammar over the command and its phones, taken
    /// when its words verify better over that span than the heard command's. A command with free text whose
    /// free text is a phone or two (`RecognizerSettings.shortFreeTextPhones`) is weighed the same way against the
    /// commands without free text, by `shortFreeTextMargin`. nil: keep what was heard.
    private func commandCovering(_ trailing: ArraySlice<RecognizedWord>,
                                 after literal: [RecognizedWord]) throws(DecoderError) -> [RecognizedWord]? {
        guard settings.rescoreTrailingPhones, let start = literal.first, let end = trailing.last,
              trailing.count <= settings.rescoreMaxPhones else { return nil }
        // A complete command without free text; or a command with free text whose free text is too short to be
        // any (`shortFreeTextPhones`: "search for" and one phone), weighed against the commands without free text.
        let words = literal.map(\.word)
        let shortFreeText = settings.shortFreeTextPhones.map { trailing.count <= $0 } ?? false
        guard let intent = commands.parse(words) ?? (shortFreeText ? commands.freeTextLead(words) : nil) else { return nil }
        let hasFreeText = commands.freeTextSlots.contains { intent.slots[$0] != nil }
        guard !hasFreeText || shortFreeText else { return nil }
        let sf = start.startFrame, ef = end.endFrame
        let (from, to) = samples(fromFrame: sf, toFrame: ef)
        guard to - from >= Self.samplesPerFrame * 10 else { return nil }
        // After free text too short to be any, the commands without free text.
        let search = hasFreeText ? "fixed-commands" : "commands"
        if !commandsSearches.contains(search) {
            try decoder.addGraph(name: search, plainGenerator.commandsGraph(withFreeText: !hasFreeText))
            commandsSearches.insert(search)
        }
        guard let hyp = try decoder.decodeUtterance(commandAudio[from..<to], search: search) else { return nil }
        let covering = hyp.spokenWords
            .map { RecognizedWord(word: $0.word, startFrame: $0.startFrame + sf, endFrame: $0.endFrame + sf) }
        guard !covering.isEmpty, !covering.contains(where: { GrammarGenerator.isPhoneWord($0.word) }),
              covering.map(\.word) != words else { return nil }
        let heard = try verify(words, fromFrame: sf, toFrame: ef)
        let other = try verify(covering.map(\.word), fromFrame: sf, toFrame: ef)
        if Self.tracing {
            FileHandle.standardError.write(Data("trailing phones: \(words) \(heard) against \(covering.map(\.word)) \(other) over the span\n".utf8))
        }
        return other > heard + (hasFreeText ? settings.shortFreeTextMargin : settings.rescoreMargin) ? covering : nil
    }

    /// The command one word away from `literal` ("next tab" for "new tab", "click" for "forward") that fits the
    /// audio best: `literal`'s words aligned over its span (`commandAudio`, as the second pass heard it), then the
    /// best of its twins (`CommandSet.twins(of:)`) over the same span in one decode; `margin` is how far (nats per
    /// 10 ms frame) the twin's path scores above `literal`'s, and it is `taken` at `RecognizerSettings.twinMargin`
    /// or more. Only for a complete command without free text. nil: no twin to weigh.
    private func commandTwin(of literal: [RecognizedWord]) throws(DecoderError)
        -> (twin: [RecognizedWord], margin: Double, taken: Bool)? {
        guard let margin = settings.twinMargin, let first = literal.first, let last = literal.last else { return nil }
        let words = literal.map(\.word)
        let twins = twinCommands.twins(of: words, vocabulary: twinVocabulary)
        let (from, to) = samples(fromFrame: first.startFrame, toFrame: last.endFrame)
        guard !twins.isEmpty, to <= commandAudio.count, to - from >= Self.samplesPerFrame * 10,
              let heard = try pathScore(of: words, in: commandAudio[from..<to]) else { return nil }
        try decoder.addGraph(name: "twins", phraseGenerator.phrasesGraph(twins))
        guard let hyp = try decoder.decodeUtterance(commandAudio[from..<to], search: "twins") else { return nil }
        let twin = hyp.spokenWords.map(\.word)
        let perFrame = (decoder.naturalLog(hyp.score) - heard) * 1024 / Double((to - from) / Self.samplesPerFrame)
        if Self.tracing {
            FileHandle.standardError.write(Data("twins of \(words): \(twins.count), best \(twin) \(perFrame)\n".utf8))
        }
        guard twins.contains(twin) else { return nil }
        return (zip(literal, twin).map { RecognizedWord(word: $1, startFrame: $0.startFrame, endFrame: $0.endFrame) },
                perFrame, perFrame >= margin)
    }

    /// Makes the searches "wake" and "followup" (and their wider retries, when next needed) offer the open-vowel
    /// words or not (`secondPassOffersOpenVowels`).
    private func holdSecondPass(openVowels: Bool) throws(DecoderError) {
        if Self.tracing, openGenerator != nil {
            FileHandle.standardError.write(Data("second pass: open-vowel words \(openVowels ? "offered" : "not offered") (hum: \(hearsHum))\n".utf8))
        }
        guard openVowels != secondPassOffersOpenVowels, let openGenerator else { return }
        if openVowels && openSecondPassGraphs.isEmpty {
            openSecondPassGraphs = ["wake": openGenerator.wakeGraph(wakeWords: wakeWords),
                                    "followup": openGenerator.followUpGraph()]
        }
        for (name, graph) in secondPassGraphs(offeringOpenVowels: openVowels).sorted(by: { $0.key < $1.key }) {
            decoder.removeSearch(name)
            try decoder.addGraph(name: name, graph, wordBeam: settings.secondPassWordBeam)
            if wideSearches.remove(name + "-wide") != nil { decoder.removeSearch(name + "-wide") }
        }
        secondPassOffersOpenVowels = openVowels
    }

    /// The second pass's grammars by search name, with the open-vowel words or without.
    private func secondPassGraphs(offeringOpenVowels openVowels: Bool) -> [String: GrammarGraph] {
        openVowels ? openSecondPassGraphs : plainSecondPassGraphs
    }

    /// The generator of forced alignments: offering the open-vowel words where the second pass does.
    private var phraseGenerator: GrammarGenerator {
        var g = plainGenerator
        g.offerOpenVowels = offersOpenVowels
        return g
    }

    /// Indices into `fed` of the audio of frames `sf` through `ef` of the decode being interpreted (clamped).
    private func samples(fromFrame sf: Int, toFrame ef: Int) -> (from: Int, to: Int) {
        (max(0, frameOffset + sf * Self.samplesPerFrame), min(fed.count, frameOffset + (ef + 1) * Self.samplesPerFrame))
    }

    /// The best path's score (natural log, right-shifted as PocketSphinx keeps it) of search `search` over
    /// `fed[range]`; nil when it has no path.
    private func pathScore(search: String, _ range: Range<Int>) throws(DecoderError) -> Double? {
        try decoder.decodeUtterance(fed[range], search: search).map { decoder.naturalLog($0.score) }
    }

    /// The same for `words` alone (forced alignment, the "phrase" search).
    private func pathScore(of words: [String], _ range: Range<Int>) throws(DecoderError) -> Double? {
        try pathScore(of: words, in: fed[range])
    }

    /// The same over `audio` (the second pass's `commandAudio`, say).
    private func pathScore(of words: [String], in audio: ArraySlice<Int16>) throws(DecoderError) -> Double? {
        try alignment(of: words, in: audio).map { decoder.naturalLog($0.score) }
    }

    /// `words` alone forced over `audio` (the "phrase" search); nil when they have no path.
    private func alignment(of words: [String], in audio: ArraySlice<Int16>) throws(DecoderError) -> Hypothesis? {
        try decoder.addGraph(name: "phrase", phraseGenerator.phraseGraph(words))
        return try decoder.decodeUtterance(audio, search: "phrase")
    }

    /// Rescores a span of the utterance: `words` alone (forced alignment) against a free phone loop over the
    /// same audio. Real words score close to the loop, sound-alikes ("hey davis" for "hey jarvis") far
    /// below it. Returns the words' score minus the loop's, in nats per 10 ms frame (−∞ when it cannot tell).
    /// Spans shorter than `minimumFrames` cannot be told.
    func verify(_ words: [String], fromFrame sf: Int, toFrame ef: Int,
                minimumFrames: Int = 10) throws(DecoderError) -> Double {
        let (from, to) = samples(fromFrame: sf, toFrame: ef)
        guard to - from >= Self.samplesPerFrame * minimumFrames else { return -.infinity }
        guard let loop = try pathScore(search: "phones", from..<to),
              let phrase = try pathScore(of: words, from..<to) else { return -.infinity }
        // Path scores are kept right-shifted by SENSCR_SHIFT (10 bits) inside PocketSphinx.
        let perFrame = (phrase - loop) * 1024 / Double((to - from) / Self.samplesPerFrame)
        if Self.tracing {
            FileHandle.standardError.write(Data("verify \(words) per frame \(perFrame) (wake threshold \(wakeThreshold), \(noiseDescription))\n".utf8))
        }
        return perFrame
    }

    /// Whether both halves of the name's phones verify at least `margin` (nats per frame) over the phone loop on
    /// their own frames (`RecognizerSettings.nameHalvesMargin`): the halves are aligned over the name's frames,
    /// then each is verified alone. A name of fewer than 4 phones, or one without a pronunciation, passes.
    func nameHalvesVerify(_ name: RecognizedWord, margin: Double) throws(DecoderError) -> Bool {
        guard let (first, second) = nameHalfWords else { return true }
        let (from, to) = samples(fromFrame: name.startFrame, toFrame: name.endFrame)
        try decoder.addGraph(name: "phrase", phraseGenerator.phraseGraph([first, second]))
        guard let hyp = try decoder.decodeUtterance(fed[from..<to], search: "phrase"),
              case let halves = hyp.spokenWords, halves.count == 2 else { return false }
        var margins: [Double] = []
        for half in halves {
            // A half holds 2 phones or more, of 3 frames or more each.
            let m = try verify([half.word], fromFrame: name.startFrame + half.startFrame,
                               toFrame: name.startFrame + half.endFrame, minimumFrames: 6)
            margins.append(m)
            if margins.count == 1 && m < margin && !Self.tracing { return false }
        }
        let holds = Self.halvesHold(first: margins[0], second: margins[1], margin: margin, settings: settings)
        if Self.tracing {
            FileHandle.standardError.write(Data("name halves \(margins) (at least \(margin)): \(holds)\n".utf8))
        }
        return holds
    }

    /// The halves test on two margins (nats per frame over the phone loop): the first half must reach `margin`;
    /// the second must too, or reach `RecognizerSettings.weakSecondHalfMargin` after a first half of at least
    /// `strongFirstHalfMargin`.
    static func halvesHold(first: Double, second: Double, margin: Double,
                               settings: RecognizerSettings) -> Bool {
        guard first >= margin else { return false }
        if second >= margin { return true }
        guard let strong = settings.strongFirstHalfMargin else { return false }
        return first >= strong && second >= settings.weakSecondHalfMargin
    }

    /// Whether both halves of the name reach the margin that holds here (`RecognizerSettings.nameHalvesMargin(at:
    /// weakOnly:)` at the segment's `noisiness`); true when there is none.
    func nameHalvesHold(_ name: RecognizedWord, weakOnly: Bool = false) throws(DecoderError) -> Bool {
        guard let margin = settings.nameHalvesMargin(at: noisiness, weakOnly: weakOnly) else { return true }
        return try nameHalvesVerify(name, margin: margin)
    }

    /// Whether no onset rival of the name (`RecognizerSettings.onsetRivalMargin`) fits its frames better than
    /// the name by more than the margin (not tested under steady noise). The rivals' grammar picks the best
    /// one, which is then aligned alone: the scores of one search over many words are not comparable with a
    /// one-word search's.
    func nameBeatsOnsetRivals(_ name: RecognizedWord) throws(DecoderError) -> Bool {
        guard let margin = settings.onsetRivalMargin, noisiness == 0, let searches = rivalSearches else { return true }
        let (from, to) = samples(fromFrame: name.startFrame, toFrame: name.endFrame)
        // Other talkers' babble lets a thousand rivals fit where two dozen do not: the first syllable's only in a
        // clean segment.
        let search = segmentIsClean ? searches.clean : searches.other
        guard to - from >= Self.samplesPerFrame * 10,
              let best = try decoder.decodeUtterance(fed[from..<to], search: search),
              let rival = best.spokenWords.first?.word,
              let own = try pathScore(of: [name.word], from..<to),
              let other = try pathScore(of: [rival], from..<to) else { return true }
        let advantage = (other - own) * 1024 / Double((to - from) / Self.samplesPerFrame)
        if Self.tracing {
            FileHandle.standardError.write(Data("onset rival \(decoder.pronunciation(of: rival) ?? rival) \(advantage) over the name (at most \(margin))\n".utf8))
        }
        return advantage <= margin
    }

    /// Whether the name's first sound is its own: no onset rival fits better (`nameBeatsOnsetRivals`), and it lasts
    /// long enough (`nameOnsetLastsLongEnough`).
    func nameOnsetHolds(_ name: RecognizedWord) throws(DecoderError) -> Bool {
        guard try nameBeatsOnsetRivals(name) else { return false }
        return try nameOnsetLastsLongEnough(name)
    }

    /// Whether the name's first phone, aligned with the rest of its phones over the name's frames, lasts at least
    /// `RecognizerSettings.minimumNameOnsetFrames` frames (10 ms each) in a clean segment or under steady noise: a
    /// sound-alike without that sound ("hey harvest", its "h" in "hey") gets only the frames the phone cannot do
    /// without. Not tested under babble (a segment neither clean nor steady), where a real name's onset drowns
    /// and is squeezed too; true when there is no such test.
    func nameOnsetLastsLongEnough(_ name: RecognizedWord) throws(DecoderError) -> Bool {
        guard let minimum = settings.minimumNameOnsetFrames, segmentIsClean || noisiness > 0,
              let (onset, rest) = nameOnsetWords else { return true }
        let (from, to) = samples(fromFrame: name.startFrame, toFrame: name.endFrame)
        guard to - from >= Self.samplesPerFrame * 10,
              let parts = try alignment(of: [onset, rest], in: fed[from..<to])?.spokenWords,
              parts.count == 2 else { return true }
        let frames = parts[0].endFrame - parts[0].startFrame + 1
        if Self.tracing {
            FileHandle.standardError.write(Data("name onset \(frames) frames (at least \(minimum))\n".utf8))
        }
        return frames >= minimum
    }

    /// Adds the name's rivals (`onsetRivals`, from its first pronunciation; the first syllable's only with
    /// `firstSyllables`) to `decoder`'s dictionary and returns their words; nil when the name has none.
    private static func addOnsetRivals(of word: String, firstSyllables: Bool, to decoder: PocketSphinxDecoder)
        throws(DecoderError) -> (onset: [String], firstSyllable: [String])? {
        guard let phones = decoder.pronunciation(of: word)?.split(separator: " ").map(String.init),
              let rivals = onsetRivals(of: phones) else { return nil }
        let all = rivals.onset + (firstSyllables ? rivals.firstSyllable : [])
        let entries = all.enumerated().map { (i, p) in (word: "\(word)-rival\(i)", phones: p.joined(separator: " ")) }
        try decoder.addWords(entries)
        let words = entries.map(\.word)
        return (Array(words.prefix(rivals.onset.count)), Array(words.dropFirst(rivals.onset.count)))
    }

    /// A grammar of one word, any of `words`.
    private static func anyOne(of words: [String]) -> GrammarGraph {
        var g = GrammarGraph()
        g.start = g.newState()
        g.final = g.newState()
        for word in words { g.add(g.start, g.final, word) }
        return g
    }

    /// The pronunciations that compete with a name's (`phones`) over its frames (`RecognizerSettings
    /// .onsetRivalMargin`). Onset rivals: the name with its first consonant replaced by each other consonant,
    /// or dropped. First-syllable rivals (`RecognizerSettings.firstSyllableRivals`): its first syllable's onset
    /// and vowel replaced together, by an onset of none, one consonant or a cluster (`onsetClusters`), then any
    /// vowel, with or without an "r" after it, then the rest of the name ("s er v ah s", "t r ae v ah s" for "jh
    /// aa r v ah s"). An onset that starts with the name's own first consonant, its voiced or voiceless twin or
    /// an affricate's stop (`affricateStops`) makes no rival: "jh ah r v ah s" is the name said another way.
    /// Each pronunciation once; nil when the name starts with a vowel or has fewer than 3 phones.
    static func onsetRivals(of phones: [String]) -> (onset: [[String]], firstSyllable: [[String]])? {
        guard phones.count >= 3, let first = phones.first, consonants.contains(first) else { return nil }
        let kin = Set([first, voicingTwins[first], affricateStops[first]].compactMap { $0 })
        let onset = ([nil] + consonants.filter { !kin.contains($0) }).map { c in (c.map { [$0] } ?? []) + phones.dropFirst() }
        guard let v = phones.firstIndex(where: vowels.contains) else { return (onset, []) }
        let rest = phones[(v + (phones.dropFirst(v + 1).first == "R" ? 2 : 1))...]
        var seen = Set(onset), firstSyllable: [[String]] = []
        for newOnset in [[]] + consonants.map({ [$0] }) + onsetClusters where !(newOnset.first.map(kin.contains) ?? false) {
            for vowel in vowels {
                for rhotic in vowel == "ER" ? [false] : [false, true] {
                    let rival = newOnset + [vowel] + (rhotic ? ["R"] : []) + rest
                    if seen.insert(rival).inserted { firstSyllable.append(rival) }
                }
            }
        }
        return (onset, firstSyllable)
    }

    /// The vowels of the acoustic model's phone set (CMU), and the two-consonant onsets of English syllables
    /// that start a name's rivals (`onsetRivals`).
    static let vowels = ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"]
    static let onsetClusters = [["T", "R"], ["P", "R"], ["K", "R"], ["B", "R"], ["D", "R"], ["G", "R"], ["F", "R"],
                                ["S", "T"], ["S", "P"], ["S", "K"], ["S", "L"], ["P", "L"], ["K", "L"], ["B", "L"],
                                ["G", "L"], ["F", "L"], ["S", "M"], ["S", "N"], ["S", "W"], ["T", "W"], ["K", "W"]]
    /// The consonants of the acoustic model's phone set (CMU), and the pairs that differ in voicing only.
    static let consonants = ["B", "CH", "D", "DH", "F", "G", "HH", "JH", "K", "L", "M", "N", "NG", "P",
                              "R", "S", "SH", "T", "TH", "V", "W", "Y", "Z", "ZH"]
    static let voicingTwins: [String: String] = ["P": "B", "B": "P", "T": "D", "D": "T", "K": "G", "G": "K",
                                                  "F": "V", "V": "F", "TH": "DH", "DH": "TH", "S": "Z", "Z": "S",
                                                  "SH": "ZH", "ZH": "SH", "CH": "JH", "JH": "CH"]
    /// The stop each affricate begins with ("jh" is a "d" released into "zh"): a voice whose "j" has a
    /// strong closure and a weak release fits that stop as well as the affricate, so it is not the name's
    /// rival either. festival's ked voice: 11 of its 28 "hey jarvis" commands were dropped for "d aa r v ah s"
    /// (0.53–0.66 over a name that verified at 2.0–2.35); no clip without the name had "d" as its best rival.
    static let affricateStops: [String: String] = ["JH": "D", "CH": "T"]

    /// Adds `word`'s first pronunciation, split in two before phone `split(count)`, to `decoder`'s dictionary as
    /// the words "<word>-<names.0>" and "<word>-<names.1>" and returns them; nil when it has fewer than
    /// `minimumPhones` phones or no pronunciation.
    private static func addNameParts(of word: String, to decoder: PocketSphinxDecoder, names: (String, String),
                                     minimumPhones: Int, split: (Int) -> Int)
        throws(DecoderError) -> (String, String)? {
        guard let phones = decoder.pronunciation(of: word)?.split(separator: " ").map(String.init),
              phones.count >= minimumPhones else { return nil }
        let at = split(phones.count)
        let parts = ("\(word)-\(names.0)", "\(word)-\(names.1)")
        try decoder.addWords([(parts.0, phones[..<at].joined(separator: " ")),
                              (parts.1, phones[at...].joined(separator: " "))])
        return parts
    }

    /// Whether the words of a wake phrase before its name (`phrase`: its words as decoded, the name last) last
    /// at least `minimumLeadDuration` together, counting their own frames only, not a pause before the name
    /// (less under steady noise). A shorter lead, down to `shortLeadDuration`, counts when it sounds like the
    /// lead after a pause (`shortLeadMargin`). A one-word phrase has no lead to check.
    func leadLastsLongEnough(_ phrase: ArraySlice<RecognizedWord>) throws(DecoderError) -> Bool {
        guard wakeWords.count > 1 else { return true }
        guard let first = phrase.first, let lastLead = phrase.dropLast().last else { return false }
        let leadFrames = phrase.dropLast().reduce(0) { $0 + $1.endFrame - $1.startFrame + 1 }
        let minimum = settings.minimumLeadDuration
            + (settings.noisyMinimumLeadDuration - settings.minimumLeadDuration) * noisiness
        if leadFrames >= PocketSphinxDecoder.framesRoundedUp(minimum) { return true }
        if let short = settings.shortLeadDuration, leadFrames >= PocketSphinxDecoder.framesRoundedUp(short) {
            let context = PocketSphinxDecoder.frames(settings.shortLeadContext)
            let margin = try verify(Array(wakeWords.dropLast()), fromFrame: max(0, first.startFrame - context),
                                    toFrame: lastLead.endFrame)
            if Self.tracing {
                FileHandle.standardError.write(Data("short wake phrase lead of \(leadFrames) frames: \(margin) per frame with the \(context) frames before it (at least \(settings.shortLeadMargin))\n".utf8))
            }
            if margin >= settings.shortLeadMargin { return true }
        }
        if Self.tracing {
            FileHandle.standardError.write(Data("wake phrase lead of \(leadFrames) frames is too short\n".utf8))
        }
        return false
    }

    /// Whether the name's first sound silences the low band after the word before it (`OnsetDip`), by at least
    /// `RecognizerSettings.onsetDipMinimum` dB; under steady noise only, where the onset rivals are not asked.
    /// A one-word phrase passes.
    func nameOnsetDips(_ phrase: ArraySlice<RecognizedWord>) -> Bool {
        guard noisiness > 0, wakeWords.count > 1, let lead = phrase.dropLast().last, let name = phrase.last
        else { return true }
        let audio = fed[min(fed.count, frameOffset)...]
        guard let dip = OnsetDip.dip(in: audio, lead: lead.startFrame...lead.endFrame, nameStart: name.startFrame,
                                     spectrum: onsetSpectrum) else { return true }
        if Self.tracing {
            FileHandle.standardError.write(Data("onset dip \(dip) dB (at least \(settings.onsetDipMinimum.map { String($0) } ?? "-"), noisiness \(noisiness))\n".utf8))
        }
        guard let minimum = settings.onsetDipMinimum else { return true }
        return dip >= minimum
    }

    /// Whether all the words of a wake phrase (`phrase`, the name last) verify against the phone loop over its
    /// frames at most `wakePhraseAllowance` under `nameThreshold`, the threshold the name was held to (nats per
    /// frame). A one-word phrase, or no allowance, has nothing more to check.
    private func wholePhraseVerifies(_ phrase: ArraySlice<RecognizedWord>,
                                     nameThreshold: Double) throws(DecoderError) -> Bool {
        guard wakeWords.count > 1, let allowance = settings.wakePhraseAllowance,
              let first = phrase.first, let name = phrase.last else { return true }
        return try verify(wakeWords, fromFrame: first.startFrame, toFrame: name.endFrame) >= nameThreshold - allowance
    }

    /// A wake phrase's verification margin as its score against the threshold for the segment's noise, and
    /// against the quiet-room threshold (see `WakeSpan.quietScore`).
    private func wakeScores(_ margin: Double) -> (score: Double, quiet: Double) {
        (Self.score(margin, threshold: wakeThreshold), Self.score(margin, threshold: settings.wakeThreshold))
    }

    /// A verification margin as a confidence 0…1: 0.5 at `threshold` (nats per frame), 0.9 at 0.55 above it.
    static func score(_ margin: Double, threshold: Double) -> Double {
        1 / (1 + exp(-(margin - threshold) * 4))
    }

    /// Indices of the last word of each wake phrase in `words`, in order.
    func wakeEndIndices(in words: [RecognizedWord]) -> [Int] {
        guard !wakeWords.isEmpty, words.count >= wakeWords.count else { return [] }
        return (0...(words.count - wakeWords.count)).filter { i in
            zip(words[i..<(i + wakeWords.count)], wakeWords).allSatisfy { $0.word == $1 }
        }.map { $0 + wakeWords.count - 1 }
    }

    /// Whether the language model is loaded.
    public var languageModelLoaded: Bool { hasLanguageModelSearch }

    /// Bytes of the paged language model's file read into memory so far; nil when it is not loaded or was read
    /// whole (`RecognizerSettings.languageModelLoading`).
    public var languageModelResidentBytes: Int? {
        hasLanguageModelSearch ? decoder.languageModelResidentBytes("lm") : nil
    }

    /// How much of the language model's file is in memory, for traces.
    private var languageModelHeld: String {
        languageModelResidentBytes.map { "\($0 / 1024) KiB of the language model held" } ?? "language model read whole"
    }

    /// Frees the language model's search (most of the process's memory); the next search loads it again.
    /// Its words stay in the dictionary (about 2 MB), so loading it again does not add them again.
    public func releaseLanguageModel() {
        guard hasLanguageModelSearch else { return }
        if Self.tracing {
            FileHandle.standardError.write(Data("language model released (\(languageModelHeld))\n".utf8))
        }
        decoder.removeSearch("lm")
        hasLanguageModelSearch = false
        jarvis_release_free_memory()
    }

    /// Language-model decode of `audio` (16 kHz, starting at absolute sample `startSample`), split at absolute
    /// sample `fromSample` (lower case, fillers removed). Decoding the whole command (not only the free text)
    /// gives the cepstral mean normalisation enough audio, and says what the language model heard before it.
    /// With `expecting` `.lead`, the language model expects a command's lead ("search for") at the start
    /// (`CommandLeadModel`): for the query of speech already known to be a search; with `.command`, a whole
    /// command without free text (`CommandPhraseModel`). `forQuery`: the grammar heard a lead into free text, and
    /// the general model alone (`expecting` `.nothing`) is mixed with the word pairs of search queries
    /// (`RecognizerSettings.queryModelWeight`).
    public func transcribeFreeText(_ audio: [Int16], startSample: Int, fromSample: Int,
                                   expecting: Expectation = .nothing, talkerLevel: Double? = nil,
                                   roomLevel: Double? = nil, forQuery: Bool = false) throws(DecoderError) -> FreeText {
        try timed(.languageModel) { () throws(DecoderError) in
            try decodeFreeText(audio, startSample: startSample, fromSample: fromSample, expecting: expecting,
                               talkerLevel: talkerLevel, roomLevel: roomLevel, forQuery: forQuery)
        }
    }

    /// `transcribeFreeText`'s work. With `forQuery`, the audio is heard twice: as before, and with the word pairs
    /// of search queries mixed in, whose words after the same words before the query replace the free text only
    /// (every score and word the pipeline's checks use is the general model's: mixed, the model's own path fitted the
    /// audio worse, and a lead path within 0.5 nats per frame of it took flite awb's "go up" for "google up").
    private func decodeFreeText(_ audio: [Int16], startSample: Int, fromSample: Int, expecting: Expectation,
                                talkerLevel: Double?, roomLevel: Double?, forQuery: Bool) throws(DecoderError) -> FreeText {
        var result = try hearFreeText(audio, startSample: startSample, fromSample: fromSample, expecting: expecting,
                                      talkerLevel: talkerLevel, roomLevel: roomLevel, queryModel: nil)
        guard expecting == .nothing, forQuery, let index = queryModelIndex, let weight = settings.queryModelWeight
        else { return result }
        let mixed = try hearFreeText(audio, startSample: startSample, fromSample: fromSample, expecting: expecting,
                                     talkerLevel: talkerLevel, roomLevel: roomLevel, queryModel: (index, weight))
        if mixed.before == result.before, !mixed.text.isEmpty, !result.text.isEmpty { result.text = mixed.text }
        return result
    }

    /// One hearing of `decodeFreeText`: the general model mixed with the model `expecting` asks for, or with the
    /// word pairs of search queries (`queryModel`: their index in the mix and weight).
    private func hearFreeText(_ audio: [Int16], startSample: Int, fromSample: Int, expecting: Expectation,
                              talkerLevel: Double?, roomLevel: Double?,
                              queryModel: (index: Int, weight: Float)?) throws(DecoderError) -> FreeText {
        guard audio.count >= AudioFormat.sampleRate / 10 else { return FreeText(before: [], text: "") }
        let decoder = try languageModelDecoder()
        if let queryModel {
            decoder.mixLanguageModel("lm", with: queryModel.index, weight: queryModel.weight)
        } else {
            decoder.mixLanguageModel("lm", with: expectedModels.firstIndex(of: expecting) ?? 0)
        }
        let heard = languageModelHearing(audio, start: startSample)
        guard let hyp = try decoder.decodeUtterance(heard[...], search: "lm") else { return FreeText(before: [], text: "") }
        // A word counts when most of it lies after `fromSample` (10 ms frames; 50 ms tolerance).
        let fromFrame = (fromSample - startSample) / Self.samplesPerFrame - 5
        var words = hyp.spokenWords
        let isFree = { (w: RecognizedWord) in (w.startFrame + w.endFrame) / 2 >= fromFrame }
        // Quieter speech after the talker's last word (babble, a TV) is not part of the query.
        if let drop = settings.quietTrailingWordDrop {
            let levels = words.map { WordLevel.level(of: audio[...], startFrame: $0.startFrame, endFrame: $0.endFrame) }
            // Under the talker's level, or (a room already talking) no louder than the talk before the wake phrase.
            let ceiling = talkerLevel.map { WordLevel.othersCeiling(talker: $0, drop: drop, room: roomLevel, settings: settings) }
            let quiet = ceiling.map { WordLevel.quietTail(levels, reference: $0, drop: 0, keep: 1) }
                ?? WordLevel.quietTail(levels, drop: drop, keep: 1)
            if Self.tracing, quiet > 0 {
                FileHandle.standardError.write(Data("free text: quiet last words \(words.suffix(quiet).map(\.word)) at \(levels.suffix(quiet).map { Int($0 ?? 0) }) dB among \(levels.map { Int($0 ?? 0) }), talker \(talkerLevel.map { Int($0) } ?? -1), room \(roomLevel.map { Int($0) } ?? -1)\n".utf8))
            }
            words.removeLast(quiet)
        }
        // The other paths end where the kept words do (the quiet words after them are not the talker's).
        let end = words.last.map { $0.endFrame + 5 } ?? 0
        let alternatives = decoder.bestPaths(settings.freeTextAlternatives).map { path in
            CommandSet.normalizeWords(path.filter { $0.endFrame <= end }.map(\.word).joined(separator: " "))
        }
        let result = FreeText(before: words.filter { !isFree($0) }.map { $0.word.lowercased() },
                              text: words.filter(isFree).map(\.word).joined(separator: " ").lowercased(),
                              acousticScore: decoder.naturalLog(hyp.acousticScore),
                              frames: audio.count / Self.samplesPerFrame,
                              alternatives: alternatives,
                              timedWords: words.map {
                                  FreeText.TimedWord(word: $0.word.lowercased(),
                                                     middleSample: startSample + ($0.startFrame + $0.endFrame) / 2 * Self.samplesPerFrame)
                              })
        if Self.tracing {
            FileHandle.standardError.write(Data("free text\(expecting == .nothing ? "" : " (expecting a \(expecting))")\(queryModel == nil ? "" : " (with the query pairs)"): before \(result.before) text '\(result.text)' acoustic \(result.acousticScore / Double(max(1, result.frames))) per frame, \(languageModelHeld)\n".utf8))
        }
        return result
    }

    /// Acoustic scores (natural log, as PocketSphinx keeps them: right-shifted by SENSCR_SHIFT, 10 bits) of
    /// each of `phrases` forced over `audio` as the language model hears it (`transcribeFreeText`'s audio and
    /// decoder): how well each word sequence fits the same sound, comparable only with one another. nil for a
    /// phrase without a path, or for all when the audio is under 0.1 s.
    public func alignedAcousticScores(of phrases: [[String]], _ audio: [Int16],
                                      startSample: Int) throws(DecoderError) -> [Double?] {
        try timed(.languageModel) { () throws(DecoderError) -> [Double?] in
            guard audio.count >= AudioFormat.sampleRate / 10 else { return phrases.map { _ in nil } }
            let decoder = try languageModelDecoder()
            let heard = languageModelHearing(audio, start: startSample)
            var scores: [Double?] = []
            for words in phrases {
                guard !words.isEmpty else { scores.append(nil); continue }
                scores.append(try alignment(of: words, in: heard[...]).map { decoder.naturalLog($0.acousticScore) })
            }
            return scores
        }
    }

    /// `audio` (from absolute sample `start`) as the language model hears it: in steady noise reduced, as the
    /// second pass hears it (measured: white15 intents 33.0 → 34.8 %, steady white noise 33.9 → 39.1 %, pink
    /// 32.2 → 34.8 %), then `asHeard`.
    private func languageModelHearing(_ audio: [Int16], start: Int) -> [Int16] {
        let denoised = settings.denoiseFreeText ? steadyNoiseDenoiser()?.denoise(audio[...]) ?? audio : audio
        return asHeard(denoised, start: start, original: audio[...])
    }

    /// Whether the settings give the language model a model expecting `expectation` to mix in
    /// (`commandLeadWeight`, `commandPhraseModel`).
    public func canExpect(_ expectation: Expectation) -> Bool {
        switch expectation {
        case .nothing: return true
        case .lead: return settings.commandLeadWeight > 0
        case .command: return settings.commandLeadWeight > 0 && settings.commandPhraseModel
        }
    }

    /// What the language model is told to expect at the start of the audio, besides what its own words say.
    public enum Expectation: Hashable, Sendable {
        case nothing
        /// A lead into free text (`CommandLeadModel`).
        case lead
        /// A command without free text (`CommandPhraseModel`).
        case command
    }

    /// What the language model heard over a command with free text.
    public struct FreeText: Equatable, Sendable {
        /// The words before the free text (where the grammar heard "search for").
        public var before: [String]
        /// The free text.
        public var text: String
        /// Acoustic score of the whole decoded path (natural log), for comparing two decodes of the same audio.
        public var acousticScore: Double = 0
        /// Length of the decoded audio (10 ms frames).
        public var frames: Int = 0
        /// The language model's best paths over the decoded audio, best first, each as its words up to the end
        /// of the kept `text` (`RecognizerSettings.freeTextAlternatives`), normalised as `words`.
        public var alternatives: [[String]] = []

        /// Each kept word heard (lower-cased) and the absolute sample at its middle, in order.
        public var timedWords: [TimedWord] = []

        /// All the words heard, `before` and `text`'s (`CommandSet.normalizeWords`).
        public var words: [String] { before + CommandSet.normalizeWords(text) }

        /// The words heard (`CommandSet.normalizeWords`) whose middle lies before absolute sample `sample`,
        /// or (`before: false`) from it on, 50 ms of tolerance going to the words from it on: one split for any
        /// sample, where `before` and `text` split at `fromSample` only. `transcribeFreeText` counts the same
        /// 50 ms in whole 10 ms frames, so a word within a frame of the bound can fall on the other side here;
        /// `before` and `text` keep their own split (the pipeline's checks were measured on it).
        public func words(splitAt sample: Int, before: Bool) -> [String] {
            let from = sample - 5 * UtteranceRecognizer.samplesPerFrame
            return timedWords.filter { ($0.middleSample < from) == before }.flatMap { CommandSet.normalizeWords($0.word) }
        }

        /// A word the language model heard, with where (`timedWords`).
        public struct TimedWord: Equatable, Sendable {
            public var word: String
            /// Absolute sample at the middle of the word.
            public var middleSample: Int
        }
    }

    /// Whether the language model heard `word` (spelt so, or a word pronounced the same: "four" for "for")
    /// among `heard`.
    public func heard(_ word: String, in heard: [String]) throws(DecoderError) -> Bool {
        if heard.contains(word) { return true }
        let d = try languageModelDecoder()
        guard let sound = d.pronunciation(of: word) else { return false }
        return heard.contains { d.pronunciation(of: $0) == sound }
    }

    /// Whether the language model heard `word` as two or three words in a row on one of `paths`: spelt together
    /// ("you tube" for "youtube", "face book") or, each by its first pronunciation, said together ("red it" for
    /// "reddit"). Word by word, `heard` finds neither.
    public func heardInParts(_ word: String, on paths: [[String]]) throws(DecoderError) -> Bool {
        let d = try languageModelDecoder()
        let sound = d.pronunciation(of: word)
        for path in paths {
            for start in path.indices {
                for count in 2...3 where start + count <= path.count {
                    let parts = path[start..<(start + count)]
                    if parts.joined() == word { return true }
                    guard let sound else { continue }
                    let sounds = parts.compactMap { d.pronunciation(of: $0) }
                    if sounds.count == count, sounds.joined(separator: " ") == sound { return true }
                }
            }
        }
        return false
    }

    /// The model the language-model decoder loads: the installed one cut down to its words
    /// (`pruneLanguageModel`), or the installed one whole when it is not a trie model or pruning is off.
    /// When the pruned model cannot be made (no writable cache folder, an odd file), the whole one is used
    /// and stderr says why, once. Asked again at every load (a millisecond): another jarvis may have removed
    /// the cached file since (`PrunedLanguageModel.cachedModels`), and asking marks it used.
    private func languageModelPath() throws(DecoderError) -> String {
        let source = settings.model.languageModel
        if let damage = ModelCheck.languageModelProblem(path: source) {
            throw DecoderError(operation: "language model", status: -1, detail: String(damage.dropLast()))
        }
        guard let words = settings.languageModelWords, settings.pruneLanguageModel,
              TrieLanguageModel.isTrieModel(path: source) else { return source }
        do {
            return try PrunedLanguageModel.path(
                source: source, pruning: LanguageModelPruning(vocabularySize: words,
                                                              maxNGrams: settings.languageModelNGrams,
                                                              keeping: spokenWords))
        } catch {
            if !warnedAboutWholeLanguageModel {
                FileHandle.standardError.write(Data("jarvis: warning: using the whole language model: \(error)\n".utf8))
                warnedAboutWholeLanguageModel = true
            }
            return source
        }
    }

    /// Makes the language model the search decoder will load (pruning it the first time on this machine,
    /// about a second), so that the first search does not wait for it.
    public func prepareLanguageModel() {
        _ = try? languageModelPath()  // a damaged model fails the first search, which says why
    }

    /// The grammar decoder, holding the language model's search: one acoustic model and one dictionary serve
    /// both (a decoder of its own for the language model took 9 MB more: its copy of the acoustic model).
    private func languageModelDecoder() throws(DecoderError) -> PocketSphinxDecoder {
        if hasLanguageModelSearch { return decoder }
        try timed(.languageModelLoad) { () throws(DecoderError) in try loadLanguageModel() }
        return decoder
    }

    /// Adds the language model's words to the dictionary (the first time) and its search to the decoder.
    private func loadLanguageModel() throws(DecoderError) {
        let modelPath = try languageModelPath()
        if languageModelVocabulary == nil {
            // Only the words the language model knows: the other two thirds of the dictionary could never be
            // recognised, and loading them doubled the decoder's memory (measured: 105 → 61 MB with 20k words).
            let vocabulary = try PocketSphinxDecoder.languageModelVocabulary(
                path: modelPath, limit: settings.languageModelWords, keeping: spokenWords)
            try decoder.addWords(GrammarDictionary(vocabulary: vocabulary, from: settings.model.dictionary,
                                                   accentVariants: settings.accentVariants,
                                                   extra: settings.extraPronunciations).entries)
            languageModelVocabulary = vocabulary
        }
        // One search over the general model and the expecting ones, switched per decode: a second search would
        // build its own lexicon tree over the whole vocabulary (about a second of CPU per load).
        var extras: [(Expectation, String)] = []
        if canExpect(.lead) {
            let leads = CommandLeadModel(commands: commands, wakeWords: wakeWords)
            if !leads.isEmpty { extras.append((.lead, leads.arpa())) }
        }
        if canExpect(.command) {
            let phrases = CommandPhraseModel(graph: plainGenerator.commandsOnly(withFreeText: false), wakeWords: wakeWords)
            if !phrases.isEmpty { extras.append((.command, phrases.arpa())) }
        }
        // The word pairs of search queries, for a command set with free text (`queryModelWeight`): over every word of
        // the general model, so that none escapes the mix (sphinxbase gives a word that not all of a set's models
        // hold the probability of those that do). Without a cache to make it in, searches are heard without it.
        queryModelIndex = nil
        var queryModelPath: String?
        if let vocabulary = languageModelVocabulary, settings.queryModelWeight != nil, !commands.freeTextSlots.isEmpty {
            do {
                queryModelPath = try QueryBigramModel.cachedBinary(vocabulary: vocabulary)
            } catch {
                if !warnedAboutQueryModel {
                    FileHandle.standardError.write(Data(
                        "jarvis: warning: searches are heard without the word pairs of queries: \(error)\n".utf8))
                    warnedAboutQueryModel = true
                }
            }
        }
        if extras.isEmpty && queryModelPath == nil {
            try decoder.addLanguageModel(name: "lm", path: modelPath, loading: settings.languageModelLoading)
        } else {
            var paths: [String] = []
            defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }
            for (expectation, arpa) in extras {
                paths.append(try writeTemporaryModelFile(arpa, kind: "\(expectation)s", suffix: "arpa"))
            }
            let extraPaths = paths + (queryModelPath.map { [$0] } ?? [])
            try decoder.addMixedLanguageModel(name: "lm", path: modelPath, extraPaths: extraPaths,
                                              weight: settings.commandLeadWeight, loading: settings.languageModelLoading)
            if queryModelPath != nil { queryModelIndex = extraPaths.count }
        }
        expectedModels = [.nothing] + extras.map(\.0)
        hasLanguageModelSearch = true
        if Self.tracing, settings.languageModelLoading == .paged, decoder.languageModelResidentBytes("lm") == nil {
            FileHandle.standardError.write(Data("language model read whole: \(modelPath) cannot be paged\n".utf8))
        }
    }
}
