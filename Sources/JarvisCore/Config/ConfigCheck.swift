import Foundation

/// Checks of a loaded config that need the command set or the pronunciation dictionary:
/// words the recogniser cannot say, and commands that say the same words.
public enum ConfigCheck {
    /// Custom-command, site and wake-phrase words missing from the pronunciation dictionary at `dictionaryPath`
    /// and from the config's `words`, each with the phones `suggest` gives for it (espeak-ng's, when installed:
    /// `PhoneSuggestion`) and up to three close dictionary words. `wakePhraseOption`: the phrase given on the
    /// command line (reported as `--wake-phrase`), which takes the place of the config's.
    public static func missingWords(_ config: JarvisConfig, dictionaryPath: String, wakePhraseOption: String? = nil,
                                    suggest: (String) -> String? = { PhoneSuggestion.suggest(for: $0) })
        -> [ConfigDiagnostic] {
        guard let data = FileManager.default.contents(atPath: dictionaryPath) else {
            return [ConfigDiagnostic(file: config.path ?? "config", line: 0,
                                     message: "the pronunciation dictionary \(dictionaryPath) cannot be read")]
        }
        let text = String(decoding: data, as: UTF8.self)
        var known = Set<String>()
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else { continue }
            let word = line[..<space]
            known.insert(String(word.firstIndex(of: "(").map { word[..<$0] } ?? word))
        }
        known.formUnion(config.pronunciations.keys)
        let set = config.commandSet()
        let vocabulary = set.vocabulary
        var out: [ConfigDiagnostic] = []
        var reported = Set<String>()
        // Report each missing word once, at the first custom command (or the whole file, for sites) using it.
        let file = config.path ?? "config"
        var owners: [(words: Set<String>, file: String, line: Int)] = config.customCommands.map { c in
            var words = Set<String>()
            for p in c.definition.patterns {
                words.formUnion(p.literalWords)
                for slot in p.slotNames {
                    if case .list(let values)? = set.slots[slot] {
                        for phrase in values.keys { words.formUnion(phrase.split(separator: " ").map(String.init)) }
                    }
                }
            }
            return (words, file, c.line)
        }
        owners.append((vocabulary, file, 0))
        if let phrase = wakePhraseOption ?? config.wakePhrase {
            owners.insert((Set(CommandSet.normalizeWords(phrase)), wakePhraseOption == nil ? file : "--wake-phrase", 0), at: 0)
        }
        for (words, owner, line) in owners {
            for w in words.sorted() where !known.contains(w) && !reported.contains(w) {
                reported.insert(w)
                var hints: [String] = []
                if let phones = suggest(w) { hints.append("espeak-ng says \(w): \(phones)") }
                let close = closest(w, in: known, count: 3)
                if !close.isEmpty { hints.append("closest: \(close.joined(separator: ", "))") }
                out.append(ConfigDiagnostic(file: owner, line: line,
                                            message: "'\(w)' is not in the pronunciation dictionary, so it cannot be recognised until the config's words give its phones"
                                                + (hints.isEmpty ? "" : " (\(hints.joined(separator: "; ")))")))
            }
        }
        return out
    }

    /// Pairs of commands (at least one custom) that say exactly the same words.
    public static func duplicates(_ config: JarvisConfig) -> [ConfigDiagnostic] {
        let set = config.commandSet()
        let builtinCount = set.commands.count - config.customCommands.count
        var firstOwner: [String: Int] = [:]
        var out: [ConfigDiagnostic] = []
        var reportedPairs = Set<[Int]>()
        for (index, command) in set.commands.enumerated() {
            guard let phrases = expansions(of: command, slots: set.slots) else { continue }
            for phrase in phrases {
                if let other = firstOwner[phrase], other != index {
                    guard index >= builtinCount, !reportedPairs.contains([other, index]) else { continue }
                    reportedPairs.insert([other, index])
                    let custom = config.customCommands[index - builtinCount]
                    let otherName = other >= builtinCount
                        ? "the command on line \(config.customCommands[other - builtinCount].line)"
                        : "the built-in \(set.commands[other].intent) command"
                    out.append(ConfigDiagnostic(file: config.path ?? "config", line: custom.line,
                                                message: "\"\(phrase)\" is said by both this command and \(otherName); only the first would ever run"))
                } else if firstOwner[phrase] == nil {
                    firstOwner[phrase] = index
                }
            }
        }
        return out
    }

    /// Every phrase a command says, list slots expanded to their phrases, free text as `<name>`;
    /// nil when there are too many to list.
    static func expansions(of command: CommandDefinition, slots: [String: SlotKind], limit: Int = 50_000) -> Set<String>? {
        var out = Set<String>()
        for pattern in command.patterns {
            guard let sequences = pattern.expansions(limit: limit) else { return nil }
            for seq in sequences {
                var partial: [[String]] = [[]]
                for token in seq {
                    if token.hasPrefix("<"), case .list(let values)? = slots[String(token.dropFirst().dropLast())] {
                        partial = partial.flatMap { p in values.keys.map { p + [$0] } }
                        if partial.count > limit { return nil }
                    } else {
                        partial = partial.map { $0 + [token] }
                    }
                }
                for p in partial { out.insert(p.joined(separator: " ")) }
                if out.count > limit { return nil }
            }
        }
        return out
    }

    static func closest(_ word: String, in known: Set<String>, count: Int) -> [String] {
        var best: [(String, Int)] = []
        let maxDistance = max(2, word.count / 3)
        for candidate in known where abs(candidate.count - word.count) <= maxDistance {
            let d = ConfigLoader.editDistance(word, candidate)
            if d <= maxDistance { best.append((candidate, d)) }
        }
        return best.sorted { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }.prefix(count).map(\.0)
    }
}
