import CGaussianScoring
import CLanguageModel
import CPocketSphinx
import Foundation

/// A PocketSphinx failure, from a C status code or a NULL return.
public struct DecoderError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let status: Int32
    public let detail: String
    public var description: String {
        "PocketSphinx \(operation) failed (status \(status))\(detail.isEmpty ? "" : ": \(detail)")."
    }
}

/// One recognised word with its span in the decoded audio, in 10 ms frames from the utterance start.
public struct RecognizedWord: Equatable, Sendable {
    public let word: String
    public let startFrame: Int
    public let endFrame: Int
    public var isFiller: Bool {
        word.isEmpty || word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("+") || word == "(NULL)"
    }
}

/// The best path of one decoded utterance.
public struct Hypothesis: Equatable, Sendable {
    public let text: String
    public let score: Int32
    public let words: [RecognizedWord]
    /// Sum of the segments' acoustic scores, in PocketSphinx's log base (compare two paths over the same audio
    /// with `PocketSphinxDecoder.naturalLog`).
    public var acousticScore: Int32 = 0

    /// The words of the path without fillers and the sentence start and end.
    public var spokenWords: [RecognizedWord] {
        words.filter { !$0.isFiller && $0.word != "<s>" && $0.word != "</s>" }
    }
}

/// Owns one `ps_decoder_t`. Feed 16 kHz Int16 audio; switch between named searches (grammar, LM, keyphrase).
public final class PocketSphinxDecoder {
    private let ps: OpaquePointer
    /// 10 ms feature frames per second.
    public static let framesPerSecond = 100

    /// Whole 10 ms frames in `seconds` (rounded down).
    public static func frames(_ seconds: Double) -> Int { Int(seconds * Double(framesPerSecond)) }
    /// Whole 10 ms frames that `seconds` needs, rounded up (less a hair, so 0.08 s is 8 frames whatever the
    /// floating-point error): a duration a span must reach.
    public static func framesRoundedUp(_ seconds: Double) -> Int {
        Int((seconds * Double(framesPerSecond) - 1e-6).rounded(.up))
    }
    private var inUtterance = false
    /// Language-model sets made by `addMixedLanguageModel` (one reference each, freed in deinit), each with the
    /// weight its interpolated model gets.
    private var mixedModels: [String: (set: OpaquePointer, weight: Float)] = [:]
    /// Paged language models of searches (one reference each, freed in deinit), to report their memory.
    private var pagedModels: [String: OpaquePointer] = [:]

    /// Serialises `ps_init` and `makeFrontEnd` (see the frequency warp in `init`).
    private static let initLock = NSLock()

    /// The options that warp a decoder's frequencies by `factor` (`-warp_type inverse_linear`: a frequency f is
    /// read as f / factor); 1: none.
    static func warpArguments(factor: Double) -> [(String, String)] {
        [("-warp_type", "inverse_linear"), ("-warp_params", String(factor))]
    }

    /// Whether the acoustic model's Gaussians are scored by `jarvis_fast_gaussians_install`'s SIMD scorer (the
    /// same senone scores to the bit as PocketSphinx's own, in less time) rather than by PocketSphinx.
    public let fastGaussians: Bool
    /// The acoustic model's folder (its means and variances are read again when the adaptation changes).
    private let modelFolder: String

    /// - Parameters:
    ///   - model: the acoustic model folder (holds `en-us/` or is the model itself, plus a dictionary).
    ///   - extraArguments: PocketSphinx options as name/value pairs ("-kws_threshold", "1e-20").
    ///   - fastGaussians: score a tied-mixture model's Gaussians with the SIMD scorer when it takes the model
    ///     (`CGaussianScoring`); PocketSphinx's own scoring otherwise.
    public init(model: ModelPaths, extraArguments: [(String, String)] = [],
                fastGaussians: Bool = true) throws(DecoderError) {
        SphinxLog.install()
        // PocketSphinx reads a binary model definition without bounds checks: a damaged one would crash the process.
        if let damage = ModelCheck.acousticModelProblem(folder: model.acousticModel) {
            throw DecoderError(operation: "ps_init", status: -1, detail: String(damage.dropLast()))
        }
        var args: [(String, String)] = [
            ("-hmm", model.acousticModel), ("-dict", model.dictionary),
            // Our own VAD segments the audio; PocketSphinx's would drop frames inside an utterance.
            ("-remove_silence", "no"),
        ]
        args += extraArguments
        // sphinxbase keeps the frequency warp's parameters in process-wide variables, read while a decoder's
        // filter bank is built: a decoder made without `-warp_params` sets them neutral but keeps the last
        // parameter string, and the next decoder given that same string is then built unwarped. So every
        // decoder states its warp (1.0: none; x / 1.0 is x), and decoders are built one at a time
        // (`initLock`: `jarvis eval` workers build theirs at once).
        if !args.contains(where: { $0.0 == "-warp_params" }) { args += Self.warpArguments(factor: 1) }
        let flat = args.flatMap { [$0.0, $0.1] }
        let config = withArrayOfCStrings(flat) { jarvis_ps_config(Int32(flat.count), $0) }
        guard let config else {
            throw DecoderError(operation: "configuration", status: -1, detail: flat.joined(separator: " "))
        }
        defer { cmd_ln_free_r(config) }
        _ = SphinxLog.takeError()
        guard let decoder = Self.initLock.withLock({ ps_init(config) }) else {
            throw DecoderError(operation: "ps_init", status: -1,
                               detail: "cannot load the model at \(model.acousticModel)"
                                   + (SphinxLog.takeError().map { " (\($0))" } ?? ""))
        }
        ps = decoder
        modelFolder = model.acousticModel
        self.fastGaussians = fastGaussians && jarvis_fast_gaussians_install(decoder) == 1
    }

    // MARK: adaptation

    /// The transform of the acoustic model (`AcousticAdaptation`) the next utterances are decoded with; nil: the
    /// model as installed. Takes effect at the next `startUtterance`, and costs only when it changes: PocketSphinx
    /// reads the model's means and variances again (1.7 MB for en-us) and transforms them.
    public var adaptation: AcousticAdaptation?
    /// The transform in use (nil: none yet, or the identity).
    private var appliedAdaptation: AcousticAdaptation?
    /// The identity, made when a transform is first replaced by none.
    private var identityAdaptation: AcousticAdaptation?

    private func applyAdaptation() throws(DecoderError) {
        let target: AcousticAdaptation
        if let adaptation {
            target = adaptation
        } else if let identity = identityAdaptation {
            target = identity
        } else {
            guard let applied = appliedAdaptation else { return }
            target = try AcousticAdaptation.identity(streamLengths: applied.streamLengths)
            identityAdaptation = target
        }
        // PocketSphinx ends the process when it cannot read them again: say so instead.
        for file in ["means", "variances"] where !FileManager.default.isReadableFile(atPath: modelFolder + "/" + file) {
            throw DecoderError(operation: "adapt the acoustic model", status: -1,
                               detail: "cannot read \(modelFolder)/\(file)")
        }
        ps_mllr_retain(target.mllr)   // the decoder keeps a reference of its own
        ps_update_mllr(ps, target.mllr)
        appliedAdaptation = adaptation
    }

    deinit {
        if inUtterance { ps_end_utt(ps) }
        ps_free(ps)
        for mixed in mixedModels.values { ngram_model_free(mixed.set) }
        for model in pagedModels.values { ngram_model_free(model) }
    }

    private func check(_ status: Int32, _ operation: String, _ detail: String = "") throws(DecoderError) {
        if status < 0 { throw DecoderError(operation: operation, status: status, detail: detail) }
    }

    // MARK: searches

    /// Adds a grammar built in Swift (states and weighted transitions) as search `name`; with `wordBeam`, that
    /// search prunes word exits with this beam (PocketSphinx `-wbeam`, a probability ratio) instead of the
    /// decoder's.
    public func addGraph(name: String, _ graph: GrammarGraph, wordBeam: Double? = nil) throws(DecoderError) {
        let defaultBeam = wordBeam.map { jarvis_ps_swap_float_option(ps, "-wbeam", $0) }
        defer { if let defaultBeam { _ = jarvis_ps_swap_float_option(ps, "-wbeam", defaultBeam) } }
        let ts = graph.transitions
        let words = ts.map { $0.word.map { strdup($0) } ?? nil }
        defer { words.forEach { free($0) } }
        let from = ts.map { Int32($0.from) }, to = ts.map { Int32($0.to) }, logp = ts.map(\.logProbability)
        let status = words.withUnsafeBufferPointer { w in
            w.withMemoryRebound(to: UnsafePointer<CChar>?.self) { w in
                jarvis_ps_set_graph(ps, name, Int32(graph.stateCount), Int32(graph.start), Int32(graph.final),
                                    Int32(ts.count), from, to, logp, w.baseAddress)
            }
        }
        try check(status, "grammar '\(name)'")
    }

    /// Adds search `name` over the language model at `path`.
    public func addLanguageModel(name: String, path: String,
                                 loading: LanguageModelLoading = .paged) throws(DecoderError) {
        let model = try readLanguageModel(path, loading: loading)
        defer { ngram_model_free(model) }  // the search holds its own reference
        try check(ps_set_lm(ps, name, model), "language model '\(name)'", path)
        keepIfPaged(model, for: name)
    }

    /// Adds search `name` over the language model at `path` and one to three more (`extraPaths`), at first on the
    /// model at `path` alone; `mixLanguageModel` interpolates it with one of the others, which then gets
    /// `weight`, 0–1, of the probability.
    public func addMixedLanguageModel(name: String, path: String, extraPaths: [String], weight: Float,
                                      loading: LanguageModelLoading = .paged) throws(DecoderError) {
        let model = try readLanguageModel(path, loading: loading)
        defer { ngram_model_free(model) }  // the set holds its own reference
        let set = withArrayOfCStrings(extraPaths) { jarvis_ps_set_mixed_lm(ps, name, model, $0, Int32(extraPaths.count)) }
        guard let set else {
            throw DecoderError(operation: "mixed language model '\(name)'", status: -1,
                               detail: ([path] + extraPaths).joined(separator: " + "))
        }
        if let old = mixedModels[name] { ngram_model_free(old.set) }
        mixedModels[name] = (set, weight)
        keepIfPaged(model, for: name)
    }

    /// How a language model file is held in memory.
    public enum LanguageModelLoading: Sendable {
        /// Read whole at load (sphinxbase's reader).
        case whole
        /// A trie model's n-gram arrays read from the file when a lookup first needs them
        /// (`jarvis_paged_lm_read`); other models, or where that reader declines, whole.
        case paged
    }

    /// Bytes of search `name`'s paged language model read into memory so far; nil when the search has no paged
    /// model (read whole, or no such search).
    public func languageModelResidentBytes(_ name: String) -> Int? {
        pagedModels[name].map { Int(jarvis_paged_lm_resident_bytes($0)) }
    }

    private func readLanguageModel(_ path: String, loading: LanguageModelLoading) throws(DecoderError) -> OpaquePointer {
        if loading == .paged, let model = jarvis_paged_lm_read(path, ps_get_logmath(ps)) {
            jarvis_lm_apply_config_weights(ps, model)
            return model
        }
        guard let model = ngram_model_read(ps_get_config(ps), path, NGRAM_AUTO, ps_get_logmath(ps)) else {
            throw DecoderError(operation: "language model", status: -1,
                               detail: "cannot read \(path)" + (SphinxLog.takeError().map { " (\($0))" } ?? ""))
        }
        return model
    }

    /// Keeps a reference to a paged model (its search holds another) to report its memory.
    private func keepIfPaged(_ model: OpaquePointer, for name: String) {
        if let old = pagedModels.removeValue(forKey: name) { ngram_model_free(old) }
        if jarvis_paged_lm_is_paged(model) != 0 { pagedModels[name] = ngram_model_retain(model) }
    }

    /// Removes search `name` and frees it (with its language model, when no other search holds it).
    public func removeSearch(_ name: String) {
        if inUtterance { endUtterance() }
        _ = ps_unset_search(ps, name)
        if let mixed = mixedModels.removeValue(forKey: name) { ngram_model_free(mixed.set) }
        if let model = pagedModels.removeValue(forKey: name) { ngram_model_free(model) }
    }

    /// Adds dictionary entries ("read(2)" after "read") that the dictionary does not hold yet, without
    /// rebuilding any search (a search added afterwards sees them). Returns how many were added.
    @discardableResult
    public func addWords(_ entries: [(word: String, phones: String)]) throws(DecoderError) -> Int {
        if inUtterance { endUtterance() }
        var added = 0
        for (word, phones) in entries {
            if let known = ps_lookup_word(ps, word) {
                free(known)
                continue
            }
            try check(ps_add_word(ps, word, phones, 0), "add word '\(word)'")
            added += 1
        }
        return added
    }

    /// Which model search `name` (from `addMixedLanguageModel`) interpolates with its main model: 0 none (the
    /// main model alone), 1, 2 or 3 that one of its `extraPaths`, with `weight` (0–1) or the search's own.
    public func mixLanguageModel(_ name: String, with extra: Int, weight: Float? = nil) {
        if let mixed = mixedModels[name] { jarvis_lm_mix(mixed.set, Int32(extra), weight ?? mixed.weight) }
    }

    public func useSearch(_ name: String) throws(DecoderError) {
        if inUtterance { endUtterance() }
        try check(ps_set_search(ps, name), "select search '\(name)'")
    }

    // MARK: decoding

    public func startUtterance() throws(DecoderError) {
        if inUtterance { endUtterance() }
        if adaptation !== appliedAdaptation { try applyAdaptation() }
        // Segment frame numbers count from the start of the stream in this PocketSphinx: restart the
        // stream so they count from this utterance (CMN statistics are kept).
        try check(ps_start_stream(ps), "start stream")
        try check(ps_start_utt(ps), "start utterance")
        inUtterance = true
    }

    /// Feeds samples; `wholeUtterance` when `samples` is the entire utterance (batch CMN, better accuracy).
    public func process(_ samples: ArraySlice<Int16>, wholeUtterance: Bool = false) throws(DecoderError) {
        guard !samples.isEmpty else { return }
        let status = samples.withUnsafeBufferPointer {
            ps_process_raw(ps, $0.baseAddress, $0.count, 0, wholeUtterance ? 1 : 0)
        }
        try check(status, "process audio")
    }

    /// Decodes `samples` as one whole utterance (batch CMN), with search `search` when given; its best path.
    public func decodeUtterance(_ samples: ArraySlice<Int16>, search: String? = nil) throws(DecoderError) -> Hypothesis? {
        if let search { try useSearch(search) }
        try startUtterance()
        try process(samples, wholeUtterance: true)
        endUtterance()
        return hypothesis()
    }

    public func endUtterance() {
        if inUtterance { ps_end_utt(ps) }
        inUtterance = false
    }

    /// The current best hypothesis (during or after an utterance), nil when nothing was recognised.
    public func hypothesis() -> Hypothesis? {
        var score: Int32 = 0
        guard let cText = ps_get_hyp(ps, &score) else { return nil }
        let text = String(cString: cText)
        var words: [RecognizedWord] = []
        var seg = ps_seg_iter(ps)
        var acoustic: Int32 = 0
        while let s = seg {
            var sf: Int32 = 0, ef: Int32 = 0, ascr: Int32 = 0, lscr: Int32 = 0, lback: Int32 = 0
            ps_seg_frames(s, &sf, &ef)
            _ = ps_seg_prob(s, &ascr, &lscr, &lback)
            acoustic &+= ascr
            words.append(RecognizedWord(word: Self.baseWord(String(cString: ps_seg_word(s))), startFrame: Int(sf),
                                        endFrame: Int(ef)))
            seg = ps_seg_next(s)
        }
        return Hypothesis(text: text, score: score, words: words, acousticScore: acoustic)
    }

    /// The best `count` paths through the last utterance's word lattice, best first, as their spoken words
    /// with frames (an n-gram search's; empty when it has none). About a millisecond for 20 over a few seconds.
    public func bestPaths(_ count: Int) -> [[RecognizedWord]] {
        var paths: [[RecognizedWord]] = []
        var next = count > 0 ? ps_nbest(ps) : nil
        while let current = next, paths.count < count {
            var words: [RecognizedWord] = []
            var seg = ps_nbest_seg(current)
            while let s = seg {
                var sf: Int32 = 0, ef: Int32 = 0
                ps_seg_frames(s, &sf, &ef)
                words.append(RecognizedWord(word: Self.baseWord(String(cString: ps_seg_word(s))),
                                            startFrame: Int(sf), endFrame: Int(ef)))
                seg = ps_seg_next(s)  // frees the segment iterator at its end
            }
            paths.append(words.filter { !$0.isFiller })  // fillers include <s> and </s>
            next = ps_nbest_next(current)  // frees the list iterator at its end
        }
        if let next { ps_nbest_free(next) }
        return paths
    }

    /// Whether the current best hypothesis holds `fragment` (cheap: no word segmentation).
    public func hypothesisContains(_ fragment: String) -> Bool {
        var score: Int32 = 0
        guard let cText = ps_get_hyp(ps, &score) else { return false }
        return strstr(cText, fragment) != nil
    }

    /// "for(2)" (an alternative pronunciation) → "for"; "left_joined" (`GrammarGraph.joinedWord`) → "left";
    /// "tab_open" (`GrammarGraph.openVowelWord`) and "tab_open_joined" → "tab".
    public static func baseWord(_ w: String) -> String {
        var w = w
        if w.count > 3, w.hasSuffix(")"), let paren = w.lastIndex(of: "("), paren > w.startIndex,
           w[w.index(after: paren)..<w.index(before: w.endIndex)].allSatisfy(\.isNumber) {
            w = String(w[..<paren])
        }
        if w.count > GrammarGraph.joinedSuffix.count, w.hasSuffix(GrammarGraph.joinedSuffix) {
            w.removeLast(GrammarGraph.joinedSuffix.count)
        }
        if w.count > GrammarGraph.openVowelSuffix.count, w.hasSuffix(GrammarGraph.openVowelSuffix) {
            w.removeLast(GrammarGraph.openVowelSuffix.count)
        }
        return w
    }

    /// The word's first pronunciation in this decoder's dictionary ("F AO R"), nil when it has none.
    public func pronunciation(of word: String) -> String? {
        guard let c = ps_lookup_word(ps, word) else { return nil }
        defer { free(c) }
        return String(cString: c)
    }

    /// Length of a cepstral vector (13 for en-us).
    public var cepstralLength: Int { Int(jarvis_ps_ceplen(ps)) }

    /// The current cepstral mean: after a whole-utterance (batch CMN) decode, that utterance's mean.
    public func cepstralMean() -> [Float] {
        var out = [Float](repeating: 0, count: cepstralLength)
        out.withUnsafeMutableBufferPointer { jarvis_ps_cmn_get(ps, $0.baseAddress) }
        return out
    }

    /// Sets the mean that live CMN (a decoder made with `-cmn live`) subtracts from the frames fed next.
    public func setLiveMean(_ mean: [Float]) {
        precondition(mean.count == cepstralLength)
        mean.withUnsafeBufferPointer { jarvis_ps_cmn_set(ps, $0.baseAddress) }
    }

    /// A front end with this decoder's settings (to measure cepstral means beside it). Built under `initLock`:
    /// its filter bank reads sphinxbase's process-wide warp parameters too.
    func makeFrontEnd() -> OpaquePointer? { Self.initLock.withLock { jarvis_fe_new(ps) } }

    /// Converts a PocketSphinx log score to natural log.
    public func naturalLog(_ score: Int32) -> Double {
        logmath_log_to_ln(ps_get_logmath(ps), score)
    }
}

/// Running cepstral mean of the audio fed since `reset()` (frames with non-negative c0, as batch CMN counts).
public final class CepstralMeanTracker {
    private let fe: OpaquePointer
    public let length: Int
    private var sum: [Double]
    public private(set) var count: Int32 = 0

    init?(decoder: PocketSphinxDecoder) {
        guard let fe = decoder.makeFrontEnd() else { return nil }
        self.fe = fe
        length = decoder.cepstralLength
        sum = [Double](repeating: 0, count: length)
    }

    deinit { fe_free(fe) }

    /// Forgets the stream too (the front end's noise estimate), as a new tracker.
    public func restartStream() {
        fe_start_stream(fe)
        reset()
    }

    public func reset() {
        fe_start_utt(fe)
        for i in sum.indices { sum[i] = 0 }
        count = 0
    }

    public func add(_ samples: ArraySlice<Int16>) {
        guard !samples.isEmpty else { return }
        samples.withUnsafeBufferPointer { s in
            sum.withUnsafeMutableBufferPointer { out in
                _ = jarvis_fe_accumulate(fe, s.baseAddress, s.count, out.baseAddress, &count)
            }
        }
    }

    /// The mean so far, nil before any frame.
    public var mean: [Float]? {
        count > 0 ? sum.map { Float($0 / Double(count)) } : nil
    }
}

/// Where the acoustic model, dictionary and language models live.
extension PocketSphinxDecoder {
    /// The words of an n-gram language model (its unigrams), read with sphinxbase; with `limit`, only that
    /// many of the most probable ones (by unigram probability), plus those of `keeping` it knows.
    /// `loading`: paged by default, reading only what the unigrams need (the same scores as the whole model's,
    /// `PagedLanguageModelTests`); reading the whole trie took 47 ms of a 0.24 s language-model load.
    public static func languageModelVocabulary(path: String, limit: Int? = nil, keeping: Set<String> = [],
                                               loading: LanguageModelLoading = .paged) throws(DecoderError) -> Set<String> {
        let model = try NGramModel(path: path, loading: loading)
        let words = model.words
        guard let limit, limit < words.count else { return Set(words) }
        let ranked = words.map { (word: $0, log10Probability: model.log10Score([$0])) }
            .sorted { $0.log10Probability > $1.log10Probability }
        return Set(ranked.prefix(limit).map(\.word)).union(ranked.dropFirst(limit).map(\.word).filter(keeping.contains))
    }
}

public struct ModelPaths: Sendable, Equatable {
    public var acousticModel: String
    public var dictionary: String
    public var languageModel: String

    /// Debian's pocketsphinx-en-us layout.
    public static let debianDefault = ModelPaths(root: "/usr/share/pocketsphinx/model/en-us")

    /// A model folder laid out like Debian's: `en-us/` (acoustic model), `cmudict-en-us.dict`, `en-us.lm.bin`,
    /// or an acoustic model folder itself with those files beside it.
    public init(root: String) {
        let url = URL(fileURLWithPath: root)
        let nested = url.appendingPathComponent("en-us").path
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: nested + "/mdef", isDirectory: &isDir) {
            acousticModel = nested
        } else {
            acousticModel = root
        }
        dictionary = Self.first(in: root, matching: ".dict") ?? url.appendingPathComponent("cmudict-en-us.dict").path
        languageModel = url.appendingPathComponent("en-us.lm.bin").path
    }

    public init(acousticModel: String, dictionary: String, languageModel: String) {
        self.acousticModel = acousticModel
        self.dictionary = dictionary
        self.languageModel = languageModel
    }

    private static func first(in dir: String, matching suffix: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.sorted().first { $0.hasSuffix(suffix) }.map { dir + "/" + $0 }
    }

    /// Why this model cannot be used, or nil when its files are there.
    public func problem() -> String? {
        for (what, path) in [("acoustic model", acousticModel + "/mdef"), ("dictionary", dictionary),
                             ("language model", languageModel)]
        where !FileManager.default.fileExists(atPath: path) {
            return "The \(what) is missing at '\(path)'; install pocketsphinx-en-us or pass --model DIR."
        }
        return nil
    }
}

/// Calls `body` with a C array (`char **`, NULL after the last) of copies of `strings`, valid only during the call.
private func withArrayOfCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var copies = strings.map { strdup($0) } + [nil]
    defer { copies.forEach { free($0) } }
    return copies.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}
