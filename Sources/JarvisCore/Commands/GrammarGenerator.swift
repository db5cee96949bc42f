import Foundation

/// A finite-state grammar as PocketSphinx searches it: states, and transitions that emit a word (or none)
/// with a log-probability (natural log, before the language weight).
public struct GrammarGraph: Sendable, Equatable {
    public struct Transition: Sendable, Equatable {
        public let from: Int
        public let to: Int
        /// nil: a null (epsilon) transition.
        public let word: String?
        public let logProbability: Double
    }
    public private(set) var stateCount = 0
    public private(set) var transitions: [Transition] = []
    public var start = 0
    public var final = 0

    public init() {}

    public mutating func newState() -> Int {
        stateCount += 1
        return stateCount - 1
    }

    public mutating func add(_ from: Int, _ to: Int, _ word: String?, _ logProbability: Double = 0) {
        transitions.append(Transition(from: from, to: to, word: word, logProbability: logProbability))
    }

    /// Lowers the log-probability of each transition that emits one of `words` by `cost` (nats).
    public mutating func charge(_ cost: Double, forEach words: Set<String>) {
        transitions = transitions.map { t in
            guard let word = t.word, words.contains(word) else { return t }
            return Transition(from: t.from, to: t.to, word: word, logProbability: t.logProbability - cost)
        }
    }

    /// Every word the graph can emit.
    public var words: Set<String> { Set(transitions.compactMap(\.word)) }

    /// The words that can come first: those on a transition reached from `start` through wordless ones.
    public var firstWords: Set<String> {
        let reached = Set(Self.closure([start], through: nullTransitions()))
        return Set(transitions.filter { reached.contains($0.from) }.compactMap(\.word))
    }

    /// The graph's word pairs: for each word, the words that can follow it; "<s>" before the first words and
    /// "</s>" after the last (a bigram model's histories and words).
    public var wordSuccessors: [String: Set<String>] {
        let nulls = nullTransitions()
        var leaving = [[Transition]](repeating: [], count: stateCount)
        for t in transitions where t.word != nil { leaving[t.from].append(t) }
        func next(after state: Int) -> Set<String> {
            var words = Set<String>()
            for s in Self.closure([state], through: nulls) {
                if s == final { words.insert("</s>") }
                for t in leaving[s] { words.insert(t.word!) }
            }
            return words
        }
        var successors = ["<s>": next(after: start)]
        for t in transitions { if let word = t.word { successors[word, default: []].formUnion(next(after: t.to)) } }
        return successors
    }

    /// For each state, where its wordless transitions lead.
    private func nullTransitions() -> [[Int]] {
        var nulls = [[Int]](repeating: [], count: stateCount)
        for t in transitions where t.word == nil { nulls[t.from].append(t.to) }
        return nulls
    }

    /// `states` and every state their wordless transitions (`nulls`, from `nullTransitions()`) reach, sorted.
    private static func closure(_ states: [Int], through nulls: [[Int]]) -> [Int] {
        var seen = Set(states), stack = states
        while let s = stack.popLast() {
            for n in nulls[s] where seen.insert(n).inserted { stack.append(n) }
        }
        return seen.sorted()
    }

    /// PocketSphinx's text FSG format (for people and for `jarvis commands --grammar`).
    public var fsgText: String {
        var lines = ["FSG_BEGIN jarvis", "NUM_STATES \(stateCount)", "START_STATE \(start)", "FINAL_STATE \(final)"]
        for t in transitions {
            lines.append("TRANSITION \(t.from) \(t.to) \(String(format: "%.6f", exp(t.logProbability)))" + (t.word.map { " \($0)" } ?? ""))
        }
        lines.append("FSG_END")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension GrammarGraph {
    /// The same language with fewer states and transitions: words that leave a state are merged when they
    /// emit the same word at the same cost (so a prefix shared by many phrasings, such as "please", is one
    /// arc), and states whose futures are equal are merged (so a shared ending, such as the query's phone
    /// loop or "tab", is one). Null transitions must be free (log-probability 0); a graph with a costed one is
    /// returned unchanged. PocketSphinx searches one copy of each word where the graph branches, so the
    /// search's cost follows the branches, not the number of phrasings.
    public func minimized() -> GrammarGraph {
        guard !transitions.contains(where: { $0.word == nil && $0.logProbability != 0 }) else { return self }
        struct Label: Hashable, Comparable {
            let word: String
            let logProbability: Double
            static func < (a: Label, b: Label) -> Bool {
                (a.word, a.logProbability) < (b.word, b.logProbability)
            }
        }
        let nulls = nullTransitions()
        var arcs = [[(Label, Int)]](repeating: [], count: stateCount)
        for t in transitions {
            if let w = t.word { arcs[t.from].append((Label(word: w, logProbability: t.logProbability), t.to)) }
        }
        func closure(_ states: [Int]) -> [Int] { Self.closure(states, through: nulls) }
        // Subset construction: each deterministic state is the set of states the graph can be in.
        var subsets = [closure([start])]
        var index = [subsets[0]: 0]
        var moves: [[Label: Int]] = []
        var next = 0
        while next < subsets.count {
            var targets: [Label: Set<Int>] = [:]
            for s in subsets[next] { for (label, to) in arcs[s] { targets[label, default: []].insert(to) } }
            var row: [Label: Int] = [:]
            for label in targets.keys.sorted() {
                let subset = closure(Array(targets[label]!))
                if let i = index[subset] { row[label] = i } else {
                    index[subset] = subsets.count
                    row[label] = subsets.count
                    subsets.append(subset)
                }
            }
            moves.append(row)
            next += 1
        }
        let accepting = subsets.map { $0.contains(final) }
        // Moore's refinement: states are equal when both accept or not and each word leads to equal states.
        var classOf = accepting.map { $0 ? 1 : 0 }
        var classCount = Set(classOf).count
        while true {
            var signatures: [[String]: Int] = [:]
            var refined = [Int](repeating: 0, count: subsets.count)
            for d in subsets.indices {
                var signature = ["\(classOf[d])"]
                for label in moves[d].keys.sorted() {
                    signature.append("\(label.word) \(label.logProbability) \(classOf[moves[d][label]!])")
                }
                if let c = signatures[signature] { refined[d] = c } else {
                    refined[d] = signatures.count
                    signatures[signature] = signatures.count
                }
            }
            classOf = refined
            if signatures.count == classCount { break }
            classCount = signatures.count
        }
        var g = GrammarGraph()
        for _ in 0..<classCount { _ = g.newState() }
        g.start = classOf[0]
        g.final = g.newState()
        var written = Set<Int>()
        for d in subsets.indices where written.insert(classOf[d]).inserted {
            for label in moves[d].keys.sorted() {
                g.add(classOf[d], classOf[moves[d][label]!], label.word, label.logProbability)
            }
            if accepting[d] { g.add(classOf[d], g.final, nil) }
        }
        return g
    }

    /// Adds `other`'s states and transitions, entered from `from` and left to `to` by null transitions.
    public mutating func splice(_ other: GrammarGraph, from: Int, to: Int) {
        let offset = stateCount
        for _ in 0..<other.stateCount { _ = newState() }
        for t in other.transitions { add(t.from + offset, t.to + offset, t.word, t.logProbability) }
        add(from, other.start + offset, nil)
        add(other.final + offset, to, nil)
    }
}

extension GrammarGraph {
    /// Suffix of a grammar word said without its first consonant, which the word before it ended with
    /// (`joiningRepeatedConsonants`): "left_joined" is "left" after "scroll".
    public static let joinedSuffix = "_joined"

    /// The word said without the first consonant it shares with the word before it ("left" → "left_joined").
    public static func joinedWord(_ word: String) -> String { word + joinedSuffix }

    /// Suffix of a grammar word said with the open vowel of British English ("tab_open": T AA B, where American
    /// English says T AE B; `GrammarGenerator.openVowels`).
    public static let openVowelSuffix = "_open"

    /// The word said with an open vowel ("tab" → "tab_open").
    public static func openVowelWord(_ word: String) -> String { word + openVowelSuffix }

    /// The same language where each transition whose word has a variant in `variants` (word → variant word) is
    /// offered with the variant too: between the same states, at the same cost.
    public func offering(_ variants: [String: String]) -> GrammarGraph {
        guard !variants.isEmpty else { return self }
        var g = self
        for t in transitions {
            if let word = t.word, let variant = variants[word] { g.add(t.from, t.to, variant, t.logProbability) }
        }
        return g
    }

    /// CMU vowels; every other phone is a consonant.
    static let vowels: Set<String> = ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"]

    /// The joined word's pronunciations: `pronunciations` (phones) that start with a consonant and have another
    /// phone after it, without that consonant.
    public static func joinedPronunciations(_ pronunciations: [[String]]) -> [[String]] {
        pronunciations.filter { $0.count > 1 && !vowels.contains($0[0]) }.map { Array($0.dropFirst()) }
    }

    /// The same language, where a word that ends with a consonant is followed by a word that starts with it, with
    /// one more path: the second word without that consonant (`joinedWord`). Connected speech says the two as
    /// one ("scrol‿left", "las‿tab"), and the model's phones last 3 frames (30 ms) each, so a short joined
    /// consonant does not fit two of them and the grammar took a word without it ("scroll up"). Measured on the
    /// dev set: espeak-ng's "scroll left" heard, clean and under white noise; one babble10 command lost ("new tab"
    /// heard as "go to the last tab" and rejected); the non-command, noise, voice, variant and other-voice sets
    /// the same, clip by clip. Only after such a word: the state between the two is copied, and the words that
    /// end with the consonant lead to the copy, which also offers the joined words (those after wordless
    /// transitions too, with their cost). `pronunciations`: each word's phones; a word without any (the phone
    /// loop's) is left as it is. Apply it once to a graph: its joined words have no pronunciations of their own.
    public func joiningRepeatedConsonants(_ pronunciations: [String: [[String]]]) -> GrammarGraph {
        func lastConsonants(_ word: String) -> Set<String> {
            Set((pronunciations[word] ?? []).compactMap { $0.last }.filter { !Self.vowels.contains($0) })
        }
        func firstConsonants(_ word: String) -> Set<String> {
            Set((pronunciations[word] ?? []).filter { $0.count > 1 && !Self.vowels.contains($0[0]) }.map { $0[0] })
        }
        var outgoing = [[Transition]](repeating: [], count: stateCount)
        for t in transitions { outgoing[t.from].append(t) }
        /// The word transitions that leave `state` or a state its wordless transitions reach, each with the
        /// best cost of getting there.
        func wordsAfter(_ state: Int) -> [(Transition, Double)] {
            var best = [state: 0.0], stack = [state]
            while let s = stack.popLast() {
                for t in outgoing[s] where t.word == nil {
                    let cost = best[s]! + t.logProbability
                    if cost > best[t.to] ?? -.infinity { best[t.to] = cost; stack.append(t.to) }
                }
            }
            return best.keys.sorted().flatMap { s in outgoing[s].filter { $0.word != nil }.map { ($0, best[s]!) } }
        }
        var g = GrammarGraph()
        for _ in 0..<stateCount { _ = g.newState() }
        g.start = start
        g.final = final
        var copies: [[String]: Int] = [:]   // [state, consonant] → the state's copy for words ending with it
        var added: [Transition] = []
        for t in transitions {
            guard let word = t.word else { g.add(t.from, t.to, nil, t.logProbability); continue }
            let next = wordsAfter(t.to)
            let shared = lastConsonants(word).intersection(next.flatMap { firstConsonants($0.0.word!) }).sorted()
            if shared.isEmpty { g.add(t.from, t.to, word, t.logProbability); continue }
            for consonant in shared {
                let key = ["\(t.to)", consonant]
                if copies[key] == nil {
                    let copy = g.newState()
                    copies[key] = copy
                    for o in outgoing[t.to] { added.append(Transition(from: copy, to: o.to, word: o.word, logProbability: o.logProbability)) }
                    for (o, cost) in next where firstConsonants(o.word!).contains(consonant) {
                        added.append(Transition(from: copy, to: o.to, word: Self.joinedWord(o.word!),
                                                logProbability: o.logProbability + cost))
                    }
                }
                g.add(t.from, copies[key]!, word, t.logProbability)
            }
        }
        for t in added { g.add(t.from, t.to, t.word, t.logProbability) }
        return g
    }
}

/// Builds the recogniser's grammars from a `CommandSet`: the one source of truth, so the grammar and the
/// intent parser never disagree.
///
/// Free text (search queries) and out-of-grammar speech are modelled by a loop of one-phone words
/// (`ph_aa`, `ph_b`, …). The loop absorbs any speech, so a search's prefix is located exactly, speech that
/// is no command ends on the loop (and is rejected) instead of on the nearest command, and speech without
/// the wake phrase ends on the no-wake branch. Each phone of a loop costs `phoneCost`: that cost against
/// the acoustic match of real words is the spotter's and the rejecter's threshold.
public struct GrammarGenerator: Sendable {
    /// CMU phones of the en-us model (without SIL).
    public static let phones = ["AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G",
                                "HH", "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH",
                                "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH"]

    public let commands: CommandSet
    /// Cost (nats, ≥ 0) of each phone in a loop; higher = loops win less often.
    public var phoneCost: Double
    /// Cost (nats) of ending on speech without the wake phrase; lower = fewer wakes.
    public var noWakeCost: Double
    /// Cost (nats, ≥ 0) of free speech (instead of a command) after the wake phrase.
    public var garbageCost: Double
    /// Cost (nats, ≥ 0) of opening a command as a request (each word of `CommandSet.requestOpeners`): a request
    /// is the rarer way to say a command, and without a price the grammar heard "can you" in the start of
    /// other words and in other talkers' speech. A configured command of one's own with those words pays it too.
    public var requestCost = 0.0
    /// The phones of the loops (default: all of `phones`).
    public var loopPhones: [String] = GrammarGenerator.phones
    /// Whether the commands are searched as one minimal deterministic graph (`GrammarGraph.minimized`) rather
    /// than a branch per phrasing.
    public var minimize = true
    /// Whether a command after the wake phrase is only its first word (then the loop, or the end): enough to
    /// anchor the wake phrase's end for a decoder that only proposes wake candidates (the live one), with
    /// fewer words to keep active after each of its candidates.
    public var firstWordsOfCommands = false
    /// First words that `firstWordsOfCommands` leaves out (a request's "can" and "could": they open the
    /// built-in commands only as requests).
    public var firstWordsLeftOut: Set<String> = []
    /// Each grammar word's pronunciations (phones); when set, the commands and phrases offer a word said without the
    /// consonant that the word before it ended with (`GrammarGraph.joiningRepeatedConsonants`), and the
    /// dictionary needs `joinedEntries`.
    public var joinPronunciations: [String: [[String]]]? = nil
    /// Command words that may be said with an open vowel, each with those pronunciations ("tab": [T AA B]): the
    /// dictionary needs `openVowelEntries`. Graphs offer them (`GrammarGraph.openVowelWord`) only with
    /// `offerOpenVowels`.
    public var openVowels: [String: [[String]]] = [:]
    /// Whether the commands and phrases offer the words of `openVowels` said so.
    public var offerOpenVowels = false

    /// A coarser loop (`RecognizerSettings.liveLoopPhones`, cheaper but less precise there): two or three
    /// phones of each broad class (open, close, central and r-coloured vowels; fricatives; voiceless stops;
    /// nasals; liquids and glides). PocketSphinx scores a Gaussian codebook per base phone that any active
    /// state uses, so a loop over all 39 phones keeps every codebook busy in every frame of speech; this one
    /// keeps fewer than half of them.
    public static let broadPhones = ["AA", "IY", "UW", "AH", "ER", "S", "F", "SH", "HH", "T", "K", "P", "N", "M",
                                     "L", "R", "W"]

    /// `commands`' `grammarCommands` make the grammar.
    public init(commands: CommandSet, phoneCost: Double = 4, noWakeCost: Double = 0, garbageCost: Double = 0) {
        self.commands = commands.grammarCommands
        self.phoneCost = phoneCost
        self.noWakeCost = noWakeCost
        self.garbageCost = garbageCost
    }

    /// Dictionary entries for the phone words: (word, phones).
    public static var phoneWords: [(String, String)] {
        phones.map { (phoneWord($0), $0) }
    }

    /// The one-phone word of `phone` ("AA" → "ph_aa").
    static func phoneWord(_ phone: String) -> String { CommandSet.phoneWordPrefix + phone.lowercased() }

    public static func isPhoneWord(_ w: String) -> Bool { w.hasPrefix(CommandSet.phoneWordPrefix) }

    /// While listening for the wake phrase: [speech] wake-phrase [command | free speech], or speech with
    /// no wake phrase at all.
    public func wakeGraph(wakeWords: [String]) -> GrammarGraph {
        var g = GrammarGraph()
        g.start = g.newState()
        g.final = g.newState()
        // One phone loop serves both as the speech before the wake phrase and as speech without it: the
        // search carries one loop, not two, through every frame of speech.
        let speech = phoneLoop(&g, from: g.start)
        g.add(speech, g.final, nil, -noWakeCost)
        let wakeStart = g.newState()
        g.add(g.start, wakeStart, nil)
        g.add(speech, wakeStart, nil)
        var s = wakeStart
        for w in wakeWords {
            let next = g.newState()
            g.add(s, next, w)
            s = next
        }
        // The wake phrase alone ends the utterance (the command may follow in the next one). After a command
        // or free speech the utterance ends or goes on to another wake phrase: one long utterance can hold
        // several commands. (A wake phrase alone cannot go on: the cheap lead loop would then swallow the
        // command as speech before the next wake phrase.)
        g.add(s, g.final, nil)
        let done = g.newState()
        addTail(&g, from: s, to: done)
        g.add(done, g.final, nil)
        g.add(done, g.start, nil)
        return g
    }

    /// In the follow-up window after a wake: [speech] then a command or free speech.
    public func followUpGraph() -> GrammarGraph {
        var g = GrammarGraph()
        g.start = g.newState()
        g.final = g.newState()
        let lead = phoneLoop(&g, from: g.start)
        let tail = g.newState()
        g.add(g.start, tail, nil)
        g.add(lead, tail, nil)
        addTail(&g, from: tail, to: g.final)
        return g
    }

    /// Exactly one command, nothing else (no free speech around it): which command best explains a span.
    /// With `joinPronunciations`, the joined words within a command ("scroll left_joined"), not between the wake
    /// phrase and the command: "hey jarvis, scroll …" joined as "jarvi‿scroll" took 3 babble10 and 1 white15
    /// command of the dev set (a wake phrase that ended early) and gained none, even without the pause.
    public func commandsGraph(withFreeText: Bool = true) -> GrammarGraph {
        joined(withOpenVowels(commandsOnly(withFreeText: withFreeText)))
    }

    /// `commandsGraph` before the joined words.
    func commandsOnly(withFreeText: Bool = true) -> GrammarGraph {
        var g = GrammarGraph()
        g.start = g.newState()
        g.final = g.newState()
        let free = commands.freeTextSlots
        for c in commands.commands {
            for p in c.patterns where withFreeText || p.slotNames.isDisjoint(with: free) {
                g.add(emit(&g, p.elements, from: g.start), g.final, nil)
            }
        }
        if requestCost != 0 { g.charge(requestCost, forEach: Set(CommandSet.requestOpeners)) }
        return minimize ? g.minimized() : g
    }

    /// `graph` with the joined words of `joinPronunciations` (unchanged without them).
    func joined(_ graph: GrammarGraph) -> GrammarGraph {
        pronunciationsToJoin.map(graph.joiningRepeatedConsonants) ?? graph
    }

    /// `graph` offering the words of `openVowels` said with it, when `offerOpenVowels`.
    func withOpenVowels(_ graph: GrammarGraph) -> GrammarGraph {
        guard offerOpenVowels else { return graph }
        return graph.offering(Dictionary(uniqueKeysWithValues: openVowels.keys.map { ($0, GrammarGraph.openVowelWord($0)) }))
    }

    /// `joinPronunciations` with the open-vowel words' (nil without joining).
    var pronunciationsToJoin: [String: [[String]]]? {
        joinPronunciations.map { joining in
            joining.merging(openVowels.map { (GrammarGraph.openVowelWord($0.key), $0.value) }) { own, _ in own }
        }
    }

    /// Dictionary entries (word, phones) for the open-vowel words, alternatives numbered after the first.
    public var openVowelEntries: [(String, String)] {
        openVowels.sorted { $0.key < $1.key }.flatMap { base, pronunciations in
            Self.numberedEntries(GrammarGraph.openVowelWord(base), pronunciations)
        }
    }

    /// Dictionary entries (word, phones) for `word` said each of the ways of `pronunciations`: "word", then
    /// "word(2)", "word(3)" … as PocketSphinx numbers alternatives.
    static func numberedEntries(_ word: String, _ pronunciations: [[String]]) -> [(String, String)] {
        pronunciations.enumerated().map { i, phones in
            (i == 0 ? word : "\(word)(\(i + 1))", phones.joined(separator: " "))
        }
    }

    /// The pronunciations of each of `words` with its first AE said as AA (the open "a" of British "tab", "back",
    /// "last"), from `pronunciations` (each word's phones); words without an AE are left out.
    public static func openVowelPronunciations(of words: Set<String>,
                                               from pronunciations: [String: [[String]]]) -> [String: [[String]]] {
        var result: [String: [[String]]] = [:]
        for word in words {
            let opened = (pronunciations[word] ?? []).compactMap { phones -> [String]? in
                guard let i = phones.firstIndex(of: "AE") else { return nil }
                var open = phones
                open[i] = "AA"
                return open
            }
            if !opened.isEmpty { result[word] = opened }
        }
        return result
    }

    /// Dictionary entries (word, phones) for the joined word of each word of `joinPronunciations` that can have
    /// one (any phrase's graph may use it), alternatives numbered after the first.
    public var joinedEntries: [(String, String)] {
        (pronunciationsToJoin ?? [:]).sorted { $0.key < $1.key }.flatMap { base, pronunciations in
            Self.numberedEntries(GrammarGraph.joinedWord(base), GrammarGraph.joinedPronunciations(pronunciations))
        }
    }

    /// A free phone loop with no language cost: the competitor that verifies a wake phrase acoustically.
    public func phoneLoopGraph() -> GrammarGraph {
        var g = GrammarGraph()
        g.start = g.newState()
        g.final = phoneLoop(&g, from: g.start, logProbability: 0)
        return g
    }

    /// Exactly `words` (forced alignment of a phrase).
    public func phraseGraph(_ words: [String]) -> GrammarGraph {
        var g = GrammarGraph()
        g.start = g.newState()
        g.final = emit(&g, words.map { .word($0) }, from: g.start)
        return joined(withOpenVowels(g))
    }

    /// Any one of `phrases`, each word for word, none preferred (a forced alignment that picks the best of them).
    public func phrasesGraph(_ phrases: [[String]]) -> GrammarGraph {
        var g = GrammarGraph()
        g.start = g.newState()
        g.final = g.newState()
        for phrase in phrases {
            g.add(emit(&g, phrase.map { .word($0) }, from: g.start), g.final, nil)
        }
        return joined(withOpenVowels(g))
    }

    /// Command or free speech from `from` to `end`.
    func addTail(_ g: inout GrammarGraph, from: Int, to end: Int) {
        if firstWordsOfCommands {
            for word in commandsOnly().firstWords.subtracting(firstWordsLeftOut).sorted() {
                g.add(from, end, word)
            }
        } else {
            g.splice(commandsGraph(), from: from, to: end)
        }
        let garbage = g.newState()
        g.add(from, garbage, nil, -garbageCost)
        g.add(phoneLoop(&g, from: garbage), end, nil)
    }

    /// One or more phones from `from`; returns the loop's state.
    /// `logProbability` of each phone transition defaults to the costed choice among the phones.
    func phoneLoop(_ g: inout GrammarGraph, from: Int, logProbability: Double? = nil) -> Int {
        let loop = g.newState()
        let logp = logProbability ?? (-phoneCost - log(Double(loopPhones.count)))
        for word in loopPhones.map(Self.phoneWord) {
            g.add(from, loop, word, logp)
            g.add(loop, loop, word, logp)
        }
        return loop
    }

    /// Adds the pattern elements after `from`; returns the state where they end.
    func emit(_ g: inout GrammarGraph, _ elements: [PatternElement], from: Int) -> Int {
        var s = from
        for e in elements {
            switch e {
            case .word(let w):
                let next = g.newState()
                g.add(s, next, w)
                s = next
            case .optional(let inner):
                let end = emit(&g, inner, from: s)
                g.add(s, end, nil)
                s = end
            case .choice(let alternatives):
                let end = g.newState()
                for alt in alternatives { g.add(emit(&g, alt, from: s), end, nil) }
                s = end
            case .slot(let name):
                let end = g.newState()
                switch commands.slots[name] {
                case .list(let values):
                    for phrase in values.keys.sorted() {
                        let words = phrase.split(separator: " ").map { PatternElement.word(String($0)) }
                        g.add(emit(&g, words, from: s), end, nil)
                    }
                case .freeText:
                    g.add(phoneLoop(&g, from: s), end, nil)
                case nil:
                    break   // unknown slot: a dead end (CommandSet validation reports it)
                }
                s = end
            }
        }
        return s
    }
}
