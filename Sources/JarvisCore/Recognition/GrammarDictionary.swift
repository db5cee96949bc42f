import Foundation

/// The pronunciation dictionary of the grammar search: the grammar's words (with their alternative
/// pronunciations) taken from the model's dictionary, plus the one-phone words of the phone loop.
/// Small, so the grammar decoder loads fast, and generated, so it always matches the command set.
public struct GrammarDictionary: Sendable {
    /// Lines "word PH ONES", in dictionary order.
    public let entries: [(word: String, phones: String)]
    /// Grammar words the model's dictionary does not know.
    public let missing: Set<String>

    public init(vocabulary: Set<String>, from dictionaryPath: String) throws(DecoderError) {
        guard let data = FileManager.default.contents(atPath: dictionaryPath) else {
            throw DecoderError(operation: "dictionary", status: -1, detail: "cannot read \(dictionaryPath)")
        }
        // Scanned as bytes: the model's dictionary has 135,000 lines and only the vocabulary's become strings
        // (splitting it as a Swift String took 0.13 s, at every start and every language-model load).
        let isBlank = { (b: UInt8) in b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") }
        var found: [(String, String)] = []
        var seen = Set<String>()
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            func text(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                defer { lineStart = lineEnd + 1 }
                var wordEnd = lineStart
                while wordEnd < lineEnd, !isBlank(bytes[wordEnd]) { wordEnd += 1 }
                guard wordEnd > lineStart, wordEnd < lineEnd else { continue }
                var baseEnd = lineStart
                while baseEnd < wordEnd, bytes[baseEnd] != UInt8(ascii: "(") { baseEnd += 1 }
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
        entries = found + GrammarGenerator.phoneWords
        missing = vocabulary.subtracting(seen)
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
