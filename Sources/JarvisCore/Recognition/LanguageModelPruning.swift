import Foundation

/// How to make a small n-gram model from a large one: keep the most probable words, and among the n-grams
/// over them all, or those that matter most.
///
/// An n-gram is worth keeping by how much the model would change without it (Stolcke's weighted difference,
/// without recomputing backoff weights): P(history, word) × |log P(word | history) − log P̃(word | history)|,
/// where P̃ is what backing off to the shorter history would give. An n-gram that is kept keeps its parent
/// (the same n-gram without its oldest word) and its history, so the result is a well-formed model.
public struct LanguageModelPruning: Sendable, Hashable {
    /// The most probable words (by unigram probability) that the model keeps, besides `keeping`.
    public var vocabularySize: Int
    /// How many n-grams of each order above one to keep (index 0: bigrams); more are kept when longer kept
    /// n-grams need them. An order missing from the list keeps none. nil: every n-gram among the kept words
    /// (their scores are those of the source model).
    public var maxNGrams: [Int]?
    /// Words kept whatever their probability (those the model knows): the commands' words.
    public var keeping: Set<String>

    public init(vocabularySize: Int, maxNGrams: [Int]? = nil, keeping: Set<String> = []) {
        self.vocabularySize = vocabularySize
        self.maxNGrams = maxNGrams
        self.keeping = keeping
    }

    /// Which entries of each level of `model` to keep.
    public func keptEntries(of model: TrieLanguageModel) -> [[Bool]] {
        let unigrams = model.levels[0]
        var vocabulary = [Bool](repeating: false, count: unigrams.count)
        let byProbability = unigrams.log10Probability.indices.sorted {
            unigrams.log10Probability[$0] > unigrams.log10Probability[$1]
        }
        for id in byProbability.prefix(vocabularySize) { vocabulary[id] = true }
        for word in keeping.union(["<s>", "</s>"]) {
            if let id = model.id(of: word) { vocabulary[Int(id)] = true }
        }
        var eligible = [vocabulary]
        for level in model.levels.dropFirst() {
            let below = eligible[eligible.count - 1]
            eligible.append(level.word.indices.map { vocabulary[Int(level.word[$0])] && below[Int(level.parent[$0])] })
        }

        // Every n-gram among the words: a kept one's parent and history are among them too.
        guard let maxNGrams else { return eligible }
        var kept = eligible.map { [Bool](repeating: false, count: $0.count) }
        kept[0] = vocabulary
        for l in stride(from: model.order - 1, through: 1, by: -1) {
            let level = model.levels[l]
            let cap = l - 1 < maxNGrams.count ? maxNGrams[l - 1] : 0
            let forced = kept[l].lazy.filter { $0 }.count
            var candidates: [(entry: Int, weight: Double)] = []
            for e in 0..<level.count where eligible[l][e] && !kept[l][e] {
                candidates.append((e, weight(of: e, level: l, in: model)))
            }
            candidates.sort { $0.weight > $1.weight }
            for c in candidates.prefix(max(0, cap - forced)) { kept[l][c.entry] = true }
            guard l >= 2 else { continue }
            for e in 0..<level.count where kept[l][e] {
                kept[l - 1][Int(level.parent[e])] = true
                if let history = model.find(model.words(level: l, entry: e).dropLast()) {
                    kept[l - 1][history] = true
                }
            }
        }
        return kept
    }

    /// P(history, word) × |log P(word | history) − log P̃(word | history)| for entry `e` of level `l` (≥ 1).
    func weight(of e: Int, level l: Int, in model: TrieLanguageModel) -> Double {
        let level = model.levels[l]
        let words = model.words(level: l, entry: e)
        let history = Array(words.dropLast())
        let below = model.levels[l - 1]
        let backoff = model.find(history).map { below.log10Backoff.isEmpty ? 0 : below.log10Backoff[$0] } ?? 0
        let backedOff = backoff + below.log10Probability[Int(level.parent[e])]
        var log10Joint = level.log10Probability[e]
        for i in history.indices {
            log10Joint += model.log10Probability(of: history[i], after: Array(history[..<i]))
        }
        let difference = abs(level.log10Probability[e] - backedOff)
        return pow(10, Double(log10Joint)) * Double(difference)
    }
}

/// Pruned models made from an installed one, cached on disk by what they were made from.
public enum PrunedLanguageModel {
    /// The path of `source` pruned by `pruning`, in sphinxbase's binary format: from the cache
    /// (`$XDG_CACHE_HOME/jarvis`, else `~/.cache/jarvis`, else the temporary folder), made there first when
    /// missing. Making it reads the whole source model (for Debian's en-us model about 1 s, once).
    public static func path(source: String, pruning: LanguageModelPruning,
                            cacheDirectory: String? = nil) throws(DecoderError) -> String {
        let key = "v1|\(source)|\(fileStamp(source))|\(pruning.vocabularySize)|\(pruning.maxNGrams ?? [])|"
            + pruning.keeping.sorted().joined(separator: " ")
        let name = "lm-\(String(fnv1a(key.utf8), radix: 16)).lm.bin"
        let directories = cacheDirectory.map { [$0] } ?? defaultCacheDirectories()
        let made = try cachedModel(named: name, in: directories) { (target) throws(DecoderError) in
            try make(source: source, pruning: pruning, at: target)
            return true
        }
        guard let made else {
            throw DecoderError(operation: "language model", status: -1,
                               detail: "no writable cache folder for the pruned model (tried \(directories.joined(separator: ", ")))")
        }
        return made
    }

    /// The binary model file `name` ("<kind>-<hash>.lm.bin") in the first of `directories` that holds it whole
    /// (`TrieLanguageModel.isComplete`), marked used now; else made there by `make` in the first folder that exists
    /// or can be made and is writable (`make` writes the target whole, under a temporary name renamed into place,
    /// and returns false to try the next folder), and that folder's stale models of the same kind removed
    /// (`removeStaleEntries`: all but the `cachedModels` most recently used). nil when no folder would do.
    static func cachedModel(named name: String, in directories: [String],
                            make: (_ target: String) throws(DecoderError) -> Bool) throws(DecoderError) -> String? {
        let kind = String(name.prefix(while: { $0 != "-" })) + "-"
        for directory in directories {
            let target = directory + "/" + name
            if FileManager.default.fileExists(atPath: target) {
                if TrieLanguageModel.isComplete(path: target) {
                    utimes(target, nil)  // marks it used now, for the stale entries' removal
                    return target
                }
                try? FileManager.default.removeItem(atPath: target)  // damaged since: made again below
            }
            guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil,
                  FileManager.default.isWritableFile(atPath: directory), try make(target) else { continue }
            removeStaleEntries(in: directory, keeping: cachedModels, isEntry: { $0.hasPrefix(kind) && $0.hasSuffix(".lm.bin") },
                               isLeftover: { $0.hasPrefix(kind) && $0.hasSuffix(".tmp") })
            return target
        }
        return nil
    }

    /// Prunes `source` into `target`, in the same binary format and with the same quantiser, so the kept
    /// n-grams keep their exact scores (written to a temporary file and renamed: processes making the same
    /// model at once never see a partial file).
    public static func make(source: String, pruning: LanguageModelPruning, at target: String) throws(DecoderError) {
        let model: TrieLanguageModel
        do {
            model = try TrieLanguageModel(path: source)
        } catch {
            throw DecoderError(operation: "language model", status: -1,
                               detail: Wording.quoted(error.description))
        }
        let data = model.binary(keeping: pruning.keptEntries(of: model))
        let temporary = temporaryPath(beside: target)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        guard FileManager.default.createFile(atPath: temporary, contents: data), rename(temporary, target) == 0 else {
            throw DecoderError(operation: "language model", status: -1, detail: "cannot write the pruned model to \(target)")
        }
    }

    /// A file name next to `target` for writing it before it is renamed into place, unique to this process and
    /// call, ending in `suffix`: `cachedModel` removes the cache's leftover ".tmp" files of an interrupted run.
    static func temporaryPath(beside target: String, suffix: String = ".tmp") -> String {
        target + ".\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))" + suffix
    }

    /// How many pruned models the cache keeps (each command set and each installed model makes its own, about
    /// 22 MB for Debian's en-us model), and as many query pair models (`QueryBigramModel`, about 1.2 MB each).
    public static let cachedModels = 3

    /// Removes all but the `keeping` most recently used entries (`isEntry`, by modification time) in `directory`,
    /// and leftovers (`isLeftover`: an interrupted run's temporary files) older than 10 minutes.
    static func removeStaleEntries(in directory: String, keeping: Int, isEntry: (String) -> Bool,
                                   isLeftover: (String) -> Bool) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var entries: [(path: String, used: Date)] = []
        for name in names where isEntry(name) || isLeftover(name) {
            let path = directory + "/" + name
            guard let used = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            else { continue }
            if isEntry(name) {
                entries.append((path, used))
            } else if used.timeIntervalSinceNow < -600 {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        for stale in entries.sorted(by: { $0.used > $1.used }).dropFirst(keeping) {
            try? FileManager.default.removeItem(atPath: stale.path)
        }
    }

    /// "size|modification time" of the file at `path` (zeros when missing): part of a cache key, so that a
    /// reinstalled model makes a new entry.
    static func fileStamp(_ path: String) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(size)|\(modified)"
    }

    /// The cache folders to try, in order: `$XDG_CACHE_HOME/jarvis`, `~/.cache/jarvis`, the temporary folder.
    static func defaultCacheDirectories() -> [String] {
        let environment = ProcessInfo.processInfo.environment
        var result: [String] = []
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { result.append(xdg + "/jarvis") }
        if let home = environment["HOME"], !home.isEmpty { result.append(home + "/.cache/jarvis") }
        result.append(NSTemporaryDirectory() + "jarvis-cache-\(getuid())")
        return result
    }

}

/// 64-bit FNV-1a of `bytes` (stable across runs, unlike `Hasher`): the pruned language model's cache key, the
/// acoustic model a transform was trained for (`AcousticAdaptation.noisySpeech`), a dictionary word before it
/// becomes a string (`GrammarDictionary`).
func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    return hash
}
