import CPocketSphinx

/// A language model loaded by sphinxbase (ARPA or binary), to score word sequences with.
public final class NGramModel {
    private let logmath: OpaquePointer
    private let model: OpaquePointer

    public init(path: String) throws(DecoderError) {
        guard let logmath = logmath_init(1.0001, 0, 0) else {
            throw DecoderError(operation: "language model", status: -1, detail: "logmath_init failed")
        }
        guard let model = ngram_model_read(nil, path, NGRAM_AUTO, logmath) else {
            logmath_free(logmath)
            throw DecoderError(operation: "language model", status: -1, detail: "cannot read \(path)")
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
