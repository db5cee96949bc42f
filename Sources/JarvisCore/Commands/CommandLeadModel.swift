import Foundation

/// A small bigram language model (ARPA text) of the words that lead into free text: "search for", "look
/// up", "please google", optionally after the wake phrase's name. Interpolated with the general language
/// model it makes the decoder expect "search for" at the start of a search, so the general model's words
/// are spent on the query instead of on a misheard lead ("sartre", "so it or"). Generated from the command
/// set, like the grammar: one source of truth.
public struct CommandLeadModel: Equatable, Sendable {
    /// The word sequences that lead into a free-text slot, without sentence marks.
    public let leads: [[String]]

    /// `wakeWords` ("hey", "jarvis") may come before a lead, whole or only the name: the audio given to the
    /// language model starts a little before the command.
    public init(commands: CommandSet, wakeWords: [String] = []) {
        let free = commands.freeTextSlots
        var leads = Set<[String]>()
        for command in commands.grammarCommands.commands {
            for pattern in command.patterns {
                for expansion in pattern.expansions() ?? [] {
                    guard let slot = expansion.firstIndex(where: { token in
                        free.contains { "<\($0)>" == token }
                    }), slot > 0, !expansion[..<slot].contains(where: { $0.hasPrefix("<") }) else { continue }
                    let lead = Array(expansion[..<slot])
                    leads.insert(lead)
                    if let name = wakeWords.last { leads.insert([name] + lead) }
                    if wakeWords.count > 1 { leads.insert(wakeWords + lead) }
                }
            }
        }
        self.leads = leads.sorted { $0.joined(separator: " ") < $1.joined(separator: " ") }
    }

    /// Whether there is any lead (a command set without free text has none).
    public var isEmpty: Bool { leads.isEmpty }

    /// The model in ARPA format. Its probability lies in the bigrams from the sentence start through each lead
    /// (maximum likelihood); every other word gets `floor` (log10), so within and after the query, where a
    /// history is unknown here, the general model alone speaks: a high unigram for "jarvis" or "for" would
    /// put them into queries ("search for jarvis").
    public func arpa(floor: Double = -7) -> String {
        var words = Set(["</s>"])
        var bigram: [String: [String: Int]] = [:]
        for lead in leads {
            words.formUnion(lead)
            let sentence = ["<s>"] + lead
            for (a, b) in zip(sentence, sentence.dropFirst()) { bigram[a, default: [:]][b, default: 0] += 1 }
        }
        return bigramARPA(unigrams: words.sorted().map { ($0, "\(floor)") }, bigrams: bigram.mapValues { next in
            let n = Double(next.values.reduce(0, +))
            return next.mapValues { log10(Double($0) / n) }
        })
    }
}

/// A bigram model as ARPA text: "<s>" (which only starts sentences), `unigrams` (each word with its log10
/// probability as written, in that order) and `bigrams` (history → word → log10 probability, written with 4
/// decimals, sorted); a word that is a history gets a backoff weight of 0.
func bigramARPA(unigrams: [(word: String, logProbability: String)], bigrams: [String: [String: Double]]) -> String {
    var lines = ["\\data\\", "ngram 1=\(unigrams.count + 1)", "ngram 2=\(bigrams.values.reduce(0) { $0 + $1.count })", "",
                 "\\1-grams:", "-99 <s> 0"]
    for (w, p) in unigrams { lines.append("\(p) \(w)" + (bigrams[w] != nil ? " 0" : "")) }
    lines += ["", "\\2-grams:"]
    for history in bigrams.keys.sorted() {
        let next = bigrams[history]!
        for w in next.keys.sorted() { lines.append(String(format: "%.4f", next[w]!) + " \(history) \(w)") }
    }
    lines += ["", "\\end\\", ""]
    return lines.joined(separator: "\n")
}

/// A small bigram language model (ARPA text) of the commands said without free text ("page down", "refresh the
/// page"), optionally after the wake phrase or its name, from the grammar's own word pairs
/// (`GrammarGraph.wordSuccessors`). Interpolated with the general language model it makes the decoder expect a
/// command: whether such a decoder hears the command's words on a path that sounds about as good as the
/// general model's tells a command the general model misheard ("can you been in a cab" for "can you open a new
/// tab") from speech the grammar forced onto a command.
public struct CommandPhraseModel: Equatable, Sendable {
    /// For each word ("<s>": the start), the words that may follow it ("</s>": the end).
    public let successors: [String: Set<String>]

    /// `graph`: the commands without free text, in words the language model knows (`GrammarGenerator`'s
    /// `commandsOnly(withFreeText: false)`: no joined or open-vowel words).
    public init(graph: GrammarGraph, wakeWords: [String] = []) {
        var successors = graph.wordSuccessors
        let first = successors["<s>"] ?? []
        if let name = wakeWords.last {
            successors["<s>", default: []].formUnion([wakeWords[0], name])
            for (word, next) in zip(wakeWords, wakeWords.dropFirst()) { successors[word, default: []].insert(next) }
            successors[name, default: []].formUnion(first)
        }
        self.successors = successors
    }

    /// Whether there is no command to expect.
    public var isEmpty: Bool { (successors["<s>"] ?? []).isEmpty }

    /// The model in ARPA format: each word's followers share its probability evenly (log10). Alone, a word that
    /// starts a command takes the start's share, so a command may also follow a word the wake phrase's end
    /// was heard as ("this page down"); every other word gets `floor`, so where the speech leaves the
    /// commands the general model speaks.
    public func arpa(floor: Double = -7) -> String {
        let words = Set(successors.keys).union(successors.values.joined()).subtracting(["<s>"])
        let first = successors["<s>"] ?? []
        let firstShare = String(format: "%.4f", log10(1 / Double(max(1, first.count))))
        return bigramARPA(unigrams: words.sorted().map { ($0, first.contains($0) ? firstShare : "\(floor)") },
                          bigrams: successors.mapValues { next in
                              Dictionary(uniqueKeysWithValues: next.map { ($0, log10(1 / Double(next.count))) })
                          })
    }
}
