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
        guard let data = FileManager.default.contents(atPath: dictionaryPath),
              let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw DecoderError(operation: "dictionary", status: -1, detail: "cannot read \(dictionaryPath)")
        }
        var found: [(String, String)] = []
        var seen = Set<String>()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else { continue }
            let word = line[..<space]
            let base = word.firstIndex(of: "(").map { word[..<$0] } ?? word
            guard vocabulary.contains(String(base)) else { continue }
            found.append((String(word), line[space...].trimmingCharacters(in: .whitespaces)))
            seen.insert(String(base))
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
