import CLanguageModel
import CPocketSphinx

/// A language model loaded by sphinxbase (ARPA or binary), to score word sequences with.
public final class NGramModel {
    private let logmath: OpaquePointer
    private let model: OpaquePointer

    /// - Parameter loading: `.paged` reads a trie model's n-grams from the file as lookups need them
    ///   (`jarvis_paged_lm_read`; other files are read whole).
    public init(path: String, loading: PocketSphinxDecoder.LanguageModelLoading = .whole) throws(DecoderError) {
        SphinxLog.install()
        guard let logmath = logmath_init(1.0001, 0, 0) else {
            throw DecoderError(operation: "language model", status: -1, detail: "logmath_init failed")
        }
        let paged = loading == .paged ? jarvis_paged_lm_read(path, logmath) : nil
        guard let model = paged ?? ngram_model_read(nil, path, NGRAM_AUTO, logmath) else {
            logmath_free(logmath)
            throw DecoderError(operation: "language model", status: -1,
                               detail: "cannot read \(path)" + (SphinxLog.takeError().map { " (\($0))" } ?? ""))
        }
        self.logmath = logmath
        self.model = model
    }

    deinit {
        ngram_model_free(model)
        logmath_free(logmath)
    }

    /// log10 P(last word | the words before it), with backoff; words the model does not know score as
    /// sphinxbase scores them (its unknown word).
    public func log10Score(_ words: [String]) -> Double {
        guard let last = words.last else { return 0 }
        let word = ngram_wid(model, last)
        var history = words.dropLast().reversed().map { ngram_wid(model, $0) }
        var used: Int32 = 0
        let score = ngram_ng_score(model, word, &history, Int32(history.count), &used)
        return logmath_log_to_log10(logmath, score)
    }

    /// The model's score of `word` after `history` (most recent word first, as sphinxbase takes it), in
    /// sphinxbase's log units with the language weight and insertion penalty applied, and how many words of
    /// the n-gram the model had (1: the unigram).
    public func score(_ word: Int32, history: [Int32]) -> (score: Int32, used: Int32) {
        var history = history
        var used: Int32 = 0
        let score = ngram_ng_score(model, word, &history, Int32(history.count), &used)
        return (score, used)
    }

    /// The word's id; sphinxbase's unknown word (-1 without `<UNK>`) when the model does not know it.
    public func id(of word: String) -> Int32 {
        ngram_wid(model, word)
    }

    /// Sets the language weight and word insertion penalty the scores include.
    public func applyWeights(languageWeight: Float, insertionPenalty: Float) {
        ngram_model_apply_weights(model, languageWeight, insertionPenalty)
    }

    /// Adds `word` as a unigram of `weight` times the uniform probability (sphinxbase's `ngram_model_add_word`);
    /// returns its id.
    @discardableResult
    public func addWord(_ word: String, weight: Float = 1) -> Int32 {
        ngram_model_add_word(model, word, weight)
    }

    /// Whether the model reads its n-grams from the file on demand (`jarvis_paged_lm_read`).
    public var isPaged: Bool { jarvis_paged_lm_is_paged(model) != 0 }

    /// Bytes of the file a paged model has read into memory so far (0 when not paged).
    public var residentBytes: Int { Int(jarvis_paged_lm_resident_bytes(model)) }

    /// Whether a paged model failed to read its file (its lookups then backed off to shorter n-grams).
    public var pagedReadFailed: Bool { jarvis_paged_lm_read_failed(model) != 0 }

    /// Past `bytes` of copied n-grams a paged model drops its copies before its next lookup (default: half
    /// the file's size).
    public func setCopyBudget(_ bytes: Int) {
        jarvis_paged_lm_set_copy_budget(model, bytes)
    }

    /// How many times a paged model has dropped its copies.
    public var copyDrops: Int { Int(jarvis_paged_lm_copy_drops(model)) }

    /// Bytes of the file a paged model reads from (0 when not paged).
    public var fileBytes: Int { Int(jarvis_paged_lm_file_bytes(model)) }

    /// Whether the paged reader accepts the file at `path` (a trie model of order 2 or 3, whole, and a
    /// sphinxbase it was built for).
    public static func canPage(path: String) -> Bool {
        guard let logmath = logmath_init(1.0001, 0, 0) else { return false }
        defer { logmath_free(logmath) }
        guard let model = jarvis_paged_lm_read(path, logmath) else { return false }
        ngram_model_free(model)
        return true
    }

    /// The model's words (its unigrams), in its order.
    public var words: [String] {
        (0..<counts[0]).compactMap { id in ngram_word(model, Int32(id)).map { String(cString: $0) } }
    }

    /// How many n-grams of each order the model holds.
    public var counts: [Int] {
        let n = Int(ngram_model_get_size(model))
        let c = ngram_model_get_counts(model)!
        return (0..<n).map { Int(c[$0]) }
    }

    /// Writes the model to `target` in sphinxbase's binary trie format.
    public func writeBinary(to target: String) throws(DecoderError) {
        let status = ngram_model_write(model, target, NGRAM_BIN)
        guard status >= 0 else {
            throw DecoderError(operation: "language model write", status: status, detail: target)
        }
    }

    /// Reads the model at `path` (ARPA or binary) and writes it to `target` in sphinxbase's binary trie format.
    public static func convert(_ path: String, to target: String) throws(DecoderError) {
        try NGramModel(path: path).writeBinary(to: target)
    }
}
