import CPocketSphinx
import Foundation
import Synchronization

/// Checks of a model's files that PocketSphinx does not make itself, run before it loads them: it reads a binary
/// `mdef` (the acoustic model's definition: phones, triphones, senone sequences) without bounds checks, so a
/// truncated or damaged one crashes the process; for a bad `feat.params` line it prints its whole option list on
/// stderr; and it reads a truncated trie language model without complaint, whose searches then hear nothing. The
/// other files it checks itself (a truncated `means` fails the load with a reason).
public enum ModelCheck {
    /// What is wrong with the model's files, as one sentence, or nil.
    public static func problem(_ model: ModelPaths) -> String? {
        acousticModelProblem(folder: model.acousticModel) ?? languageModelProblem(path: model.languageModel)
    }

    /// What is wrong with the acoustic model in `folder`, as one sentence, or nil. Every decoder asks before
    /// PocketSphinx reads its model (`PocketSphinxDecoder.init`); a model that passed is not read again while its
    /// files keep their sizes and modification times.
    public static func acousticModelProblem(folder: String) -> String? {
        let key = fingerprint(folder)
        if let key, passed.withLock({ $0.contains(key) }) { return nil }
        let problem = readAcousticModelProblem(folder: folder)
        if problem == nil, let key { passed.withLock { _ = $0.insert(key) } }
        return problem
    }

    /// Acoustic model folders that passed, with their checked files' sizes and modification times.
    private static let passed = Mutex<Set<String>>([])

    private static func fingerprint(_ folder: String) -> String? {
        var key = folder
        for name in ["mdef", "feat.params"] {
            var info = stat()
            if stat(folder + "/" + name, &info) == 0 {
                key += "|\(info.st_size)|\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            } else if name == "mdef" {
                return nil
            }
        }
        return key
    }

    private static func readAcousticModelProblem(folder: String) -> String? {
        let mdefPath = folder + "/mdef"
        guard let mdef = FileManager.default.contents(atPath: mdefPath) else {
            return "The acoustic model's definition '\(mdefPath)' cannot be read."
        }
        if let problem = binaryDefinitionProblem(mdef) {
            return "The acoustic model's definition '\(mdefPath)' is damaged: \(problem)."
        }
        let paramsPath = folder + "/feat.params"
        if let params = FileManager.default.contents(atPath: paramsPath),
           let problem = featureParametersProblem(String(decoding: params, as: UTF8.self)) {
            return "The acoustic model's feature parameters '\(paramsPath)' are not usable: \(problem)."
        }
        return nil
    }

    /// What is wrong with the language model at `path`, as one sentence, or nil: a file in none of the formats
    /// sphinxbase reads (ARPA text, plain or compressed, its trie or DMP binaries), or a trie model whose sections do not add up to its
    /// size. The rest of an ARPA or DMP model is left to sphinxbase, which says what it could not read at the
    /// first search.
    public static func languageModelProblem(path: String) -> String? {
        if TrieLanguageModel.isTrieModel(path: path) {
            guard TrieLanguageModel.isComplete(path: path) else {
                return "The language model '\(path)' is truncated or damaged: its sections do not add up to its size."
            }
            return nil
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return "The language model '\(path)' cannot be read."
        }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 4096)) ?? Data()
        let known = [Data("\\data\\".utf8), Data("Darpa Trigram LM".utf8)]
        // sphinxbase also opens a gzip or bzip2 file through the decompressor.
        let compressed = start.starts(with: [0x1f, 0x8b]) || start.starts(with: Array("BZh".utf8))
        guard compressed || known.contains(where: { start.range(of: $0) != nil }) else {
            return "The language model '\(path)' is not one sphinxbase reads (ARPA text, or its trie or DMP binary)."
        }
        return nil
    }

    /// What is wrong with a binary model definition (PocketSphinx's `bin_mdef` layout, native byte order: a header
    /// of counts, the base phone names, the context tree, the phones, the senone sequences), or nil. A text
    /// definition, or one in the other byte order, is left to PocketSphinx.
    public static func binaryDefinitionProblem(_ data: Data) -> String? {
        guard data.count >= 4 else { return "it is \(data.count) bytes long" }
        do {
            return try withBytes(of: data) { raw throws(AcousticModelSubset.Unsupported) -> String? in
                var reader = ByteReader(raw: raw)
                guard try reader.int32() == BinaryModelDefinition.magic else { return nil }
                return try binaryDefinitionProblem(after: &reader)
            }
        } catch {
            return "it ends too early (\(data.count) bytes)"  // ByteReader: "the file ends early"
        }
    }

    private static func binaryDefinitionProblem(after reader: inout ByteReader) throws(AcousticModelSubset.Unsupported)
        -> String? {
        let version = try reader.int32()
        guard version <= 1 else { return "its format version \(version) is newer than PocketSphinx's" }
        try reader.skip(Int(try reader.int32()))  // the format's description
        let counts = try (0..<10).map { _ throws(AcousticModelSubset.Unsupported) in Int(try reader.int32()) }
        let (baseCount, phoneCount, statesPerPhone) = (counts[0], counts[1], counts[2])
        let (senoneCount, matrixCount, sequenceCount, treeCount) = (counts[4], counts[5], counts[6], counts[8])
        // The tenth, the silence phone, is looked up again by name as the model loads.
        guard counts.prefix(9).allSatisfy({ (0..<50_000_000).contains($0) }), baseCount > 0, phoneCount >= baseCount,
              senoneCount > 0 else {
            return "its header's counts are out of range (\(counts.map(String.init).joined(separator: ", ")))"
        }
        // The base phone names, NUL-terminated, padded to 4 bytes from their start.
        let namesStart = reader.offset
        for _ in 0..<baseCount {
            while try reader.byte() != 0 {}
        }
        try reader.skip((4 - (reader.offset - namesStart) % 4) % 4)
        // The context tree: Int16 context, Int16 children, Int32 first child (at a leaf: the phone, or -1).
        for _ in 0..<treeCount {
            let node = try reader.bytes(8)
            let children = Int(Int16(node[2]) | Int16(node[3]) << 8)
            let target = Int(Int32(node[4]) | Int32(node[5]) << 8 | Int32(node[6]) << 16 | Int32(node[7]) << 24)
            let inRange = children == 0
                ? (-1..<phoneCount).contains(target)
                : children > 0 && target >= 0 && target + children <= treeCount
            guard inRange else { return "its context tree points outside itself" }
        }
        // The phones: Int32 senone sequence, Int32 transition matrix, 4 attribute bytes.
        for _ in 0..<phoneCount {
            let (sequence, matrix) = (Int(try reader.int32()), Int(try reader.int32()))
            try reader.skip(4)
            guard (0..<sequenceCount).contains(sequence), (0..<matrixCount).contains(matrix) else {
                return "a phone names a senone sequence or transition matrix it does not have"
            }
        }
        // The senone sequences: their total length, the senones (Int16), each sequence's length when they differ.
        let total = Int(try reader.int32())
        if statesPerPhone > 0, total != sequenceCount * statesPerPhone {
            return "its senone sequences hold \(total) senones, not \(sequenceCount) × \(statesPerPhone)"
        }
        guard total >= 0 else { return "its senone sequences' length is negative" }
        let senones = try reader.bytes(2 * total)
        for i in 0..<total where !(0..<senoneCount).contains(Int(Int16(senones[2 * i]) | Int16(senones[2 * i + 1]) << 8)) {
            return "a senone sequence names a senone it does not have"
        }
        if statesPerPhone == 0 {
            let lengths = try reader.bytes(sequenceCount)
            guard lengths.reduce(0, { $0 + Int(Int8(bitPattern: $1)) }) == total else {
                return "its senone sequence lengths do not add up"
            }
        }
        return nil
    }

    /// What is wrong with a `feat.params` text (PocketSphinx options, "-name value" pairs, `#` comments), or nil:
    /// an option without a value, or a value of the wrong type for an option PocketSphinx knows (it ignores the
    /// others).
    public static func featureParametersProblem(_ text: String) -> String? {
        let words = text.split(separator: "\n").flatMap { line -> [Substring] in
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        }.map(String.init)
        guard words.count % 2 == 0 else { return "option '\(words.last ?? "")' has no value" }
        let types = optionTypes
        for index in stride(from: 0, to: words.count, by: 2) {
            let (name, value) = (words[index], words[index + 1])
            guard let type = types[name] else { continue }
            // sphinxbase reads numbers as `sscanf` does: what a value starts with.
            if type & ARG_INTEGER != 0, !startsWithNumber(value, fraction: false) {
                return "option \(name) needs a whole number, not '\(value)'"
            }
            if type & ARG_FLOATING != 0, !startsWithNumber(value, fraction: true) {
                return "option \(name) needs a number, not '\(value)'"
            }
            if type & ARG_BOOLEAN != 0, !["yes", "no", "true", "false", "1", "0"].contains(value.lowercased()) {
                return "option \(name) needs yes or no, not '\(value)'"
            }
        }
        return nil
    }

    /// Whether `value` starts with a number: an optional sign, then a digit (or, with `fraction`, a point and a
    /// digit).
    static func startsWithNumber(_ value: String, fraction: Bool) -> Bool {
        var rest = Substring(value)
        if let first = rest.first, first == "+" || first == "-" { rest = rest.dropFirst() }
        if fraction, rest.first == "." { rest = rest.dropFirst() }
        return rest.first?.isASCII == true && rest.first?.isNumber == true
    }

    /// PocketSphinx's options and their types (`ps_args()`).
    static let optionTypes: [String: Int32] = {
        var types: [String: Int32] = [:]
        guard var option = ps_args() else { return types }
        while let name = option.pointee.name {
            types[String(cString: name)] = option.pointee.type
            option += 1
        }
        return types
    }()
}
