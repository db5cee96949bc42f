import Foundation

/// The pronunciation dictionary of the grammar search: the grammar's words (with their alternative
/// pronunciations) taken from the model's dictionary, plus the one-phone words of the phone loop.
/// Small, so the grammar decoder loads fast, and generated, so it always matches the command set.
public struct GrammarDictionary: Sendable {
    /// Lines "word PH ONES", in dictionary order.
    public private(set) var entries: [(word: String, phones: String)]
    /// Grammar words the model's dictionary does not know.
    public let missing: Set<String>

    /// - Parameters:
    ///   - accentVariants: add `accentPronunciations`.
    ///   - extra: more pronunciations (word → phone strings) of the vocabulary's words, each after the
    ///     dictionary's own ones ("netflix", a word it lacks, then has one; "gif(2)" follows its "gif").
    public init(vocabulary: Set<String>, from dictionaryPath: String, accentVariants: Bool = true,
                extra: [String: [String]] = [:]) throws(DecoderError) {
        guard let data = FileManager.default.contents(atPath: dictionaryPath) else {
            throw DecoderError(operation: "dictionary", status: -1, detail: "cannot read \(dictionaryPath)")
        }
        // Scanned as bytes: the model's dictionary has 135,000 lines and only the vocabulary's become strings
        // (splitting it as a Swift String took 0.13 s, at every start and every language-model load). A line's
        // word is hashed in place (FNV-1a) and made a string only when a vocabulary word's hash has the same low
        // 20 bits, one bit of `hashBits` each: most lines are passed over on one bit test (making every line's
        // word a string, or looking every hash up in a Set, took 49 and 9 ms of a 0.24 s language-model load).
        let isBlank = { (b: UInt8) in b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") }
        var hashBits = [UInt64](repeating: 0, count: 1 << 14)
        for word in vocabulary {
            let h = Int(truncatingIfNeeded: fnv1a(word.utf8) & 0xF_FFFF)
            hashBits[h >> 6] |= 1 << UInt64(h & 63)
        }
        var found: [(String, String)] = []
        var seen = Set<String>()
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            func text(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            var lineStart = 0
            while lineStart < bytes.count {
                let lineEnd = Self.lineEnd(in: bytes, from: lineStart)
                defer { lineStart = lineEnd + 1 }
                var wordEnd = lineStart
                while wordEnd < lineEnd, !isBlank(bytes[wordEnd]) { wordEnd += 1 }
                guard wordEnd > lineStart, wordEnd < lineEnd else { continue }
                var baseEnd = lineStart
                while baseEnd < wordEnd, bytes[baseEnd] != UInt8(ascii: "(") { baseEnd += 1 }
                let h = Int(truncatingIfNeeded: fnv1a(UnsafeBufferPointer(rebasing: bytes[lineStart..<baseEnd])) & 0xF_FFFF)
                guard hashBits[h >> 6] & (1 << UInt64(h & 63)) != 0 else { continue }
                let base = text(lineStart..<baseEnd)
                guard vocabulary.contains(base) else { continue }
                var phonesStart = wordEnd
                while phonesStart < lineEnd, isBlank(bytes[phonesStart]) { phonesStart += 1 }
                var phonesEnd = lineEnd
                while phonesEnd > phonesStart, isBlank(bytes[phonesEnd - 1]) { phonesEnd -= 1 }
                found.append((text(lineStart..<wordEnd), text(phonesStart..<phonesEnd)))
                seen.insert(base)
            }
        }
        var own = accentVariants ? Self.withAccentVariants(found) : found
        for word in vocabulary.intersection(extra.keys).sorted() {
            let known = own.filter { $0.0 == word || $0.0.hasPrefix(word + "(") }.map(\.1)
            var added = 0
            for phones in extra[word] ?? [] where !known.contains(phones) {
                let n = known.count + added
                own.append((n == 0 ? word : "\(word)(\(n + 1))", phones))
                added += 1
            }
            if added > 0 { seen.insert(word) }  // a word with pronunciations of its own is seen already
        }
        entries = own + GrammarGenerator.phoneWords
        missing = vocabulary.subtracting(seen)
    }

    /// The index of the first newline in `bytes` at or after `start` (`start` < `bytes.count`), or `bytes.count`.
    private static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress,
              let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else { return bytes.count }
        return base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
    }

    /// Pronunciations the model's dictionary (American English) lacks, each added where the dictionary has the
    /// one it is derived from: the search lead as a non-rhotic accent (British, Australian, …) says it, "search"
    /// without the r-colouring of its vowel and "for" without its r. Measured on the voice set (four TTS voices
    /// the dev set does not use): intents 69.6 → 71.7 %, wakes 94.6 → 97.8 % (espeak-ng en-gb's and en-us+f3's
    /// "search for dogs"); the dev, non-command, name, variant, other-voice and real-recording tables the same; the
    /// noise set's 500 noisy negatives 0 → 1 false wake, no false intent ("the printer on the second floor…" under
    /// white noise, whose "hey jarvis" verified either way, now followed by "search the web for" rather than by a
    /// command inside a sentence). The general rule (every r after a vowel dropped, every "er" as "ah": 12 words)
    /// heard "scroll left" under white noise as "forward" (f ao w ah d) and lost a clean paraphrase.
    static let accentPronunciations: [(word: String, from: String, to: String)] = [
        ("search", "S ER CH", "S AH CH"),
        ("for", "F AO R", "F AO"),
    ]

    /// `found` with each `accentPronunciations` entry after its word's own pronunciations, numbered after them.
    static func withAccentVariants(_ found: [(String, String)]) -> [(String, String)] {
        var result = found
        for variant in accentPronunciations {
            let isVariant = { (entry: (String, String)) in entry.0 == variant.word || entry.0.hasPrefix(variant.word + "(") }
            let own = found.filter(isVariant)
            guard own.contains(where: { $0.1 == variant.from }), !own.contains(where: { $0.1 == variant.to }),
                  let last = result.lastIndex(where: isVariant) else { continue }
            result.insert(("\(variant.word)(\(own.count + 1))", variant.to), at: last + 1)
        }
        return result
    }

    /// Each word's pronunciations (phones), alternatives ("for(2)") under their word; the phone words left out.
    public var pronunciations: [String: [[String]]] {
        var result: [String: [[String]]] = [:]
        for (word, phones) in entries where !GrammarGenerator.isPhoneWord(word) {
            result[PocketSphinxDecoder.baseWord(word), default: []].append(phones.split(separator: " ").map(String.init))
        }
        return result
    }

    /// Adds entries (word, phones) after the others.
    public mutating func add(_ more: [(String, String)]) {
        entries += more.map { (word: $0.0, phones: $0.1) }
    }

    public var text: String {
        entries.map { "\($0.word) \($0.phones)" }.joined(separator: "\n") + "\n"
    }

    /// Writes the dictionary to a new temporary file and returns its path.
    public func writeTemporary() throws(DecoderError) -> String {
        try writeTemporaryModelFile(text, kind: "dictionary", suffix: "dict")
    }
}

/// Writes a generated model file (dictionary, language model) that PocketSphinx reads from a path to a new
/// temporary file, and returns its path; the caller removes it once the model is loaded.
func writeTemporaryModelFile(_ text: String, kind: String, suffix: String) throws(DecoderError) -> String {
    let path = NSTemporaryDirectory() + "/jarvis-\(kind)-\(getpid())-\(UUID().uuidString).\(suffix)"
    guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
        throw DecoderError(operation: kind, status: -1, detail: "cannot write \(path)")
    }
    return path
}
