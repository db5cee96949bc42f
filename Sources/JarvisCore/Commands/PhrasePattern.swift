/// A spoken-phrase pattern: words, `[optional words]`, `(one | another)` and `<slot>` references.
///
/// Example: `[please] scroll <direction> [<number> [times]]`. The same pattern generates the recogniser's
/// grammar (JSGF) and parses recognised words back into slot values, so the two never disagree.
public indirect enum PatternElement: Equatable, Sendable {
    case word(String)
    case optional([PatternElement])
    case choice([[PatternElement]])
    case slot(String)
}

public struct PatternSyntaxError: Error, Equatable, CustomStringConvertible, Sendable {
    public let pattern: String
    public let reason: String
    public var description: String { "Bad phrase pattern '\(pattern)': \(reason)." }
}

public struct PhrasePattern: Equatable, Sendable, CustomStringConvertible {
    public let source: String
    public let elements: [PatternElement]

    public var description: String { source }

    public init(_ source: String) throws(PatternSyntaxError) {
        self.source = source
        var parser = Parser(tokens: Self.tokenize(source), pattern: source)
        elements = try parser.parseSequence(until: [])
        if parser.position < parser.tokens.count {
            throw PatternSyntaxError(pattern: source, reason: "unexpected '\(parser.tokens[parser.position])'")
        }
        if elements.isEmpty { throw PatternSyntaxError(pattern: source, reason: "it is empty") }
    }

    static func tokenize(_ s: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var inSlot = false
        for ch in s {
            if inSlot {
                current.append(ch)
                if ch == ">" { tokens.append(current); current = ""; inSlot = false }
                continue
            }
            switch ch {
            case "[", "]", "(", ")", "|":
                if !current.isEmpty { tokens.append(current); current = "" }
                tokens.append(String(ch))
            case "<":
                if !current.isEmpty { tokens.append(current); current = "" }
                current = "<"; inSlot = true
            case " ", "\t", "\n", ",":
                if !current.isEmpty { tokens.append(current); current = "" }
            default:
                current.append(ch)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    struct Parser {
        let tokens: [String]
        let pattern: String
        var position = 0

        mutating func parseSequence(until terminators: Set<String>) throws(PatternSyntaxError) -> [PatternElement] {
            var out: [PatternElement] = []
            while position < tokens.count, !terminators.contains(tokens[position]) {
                let t = tokens[position]
                position += 1
                switch t {
                case "[":
                    let inner = try parseAlternatives(closing: "]")
                    out.append(.optional(inner.count == 1 ? inner[0] : [.choice(inner)]))
                case "(":
                    let inner = try parseAlternatives(closing: ")")
                    out.append(.choice(inner))
                case "]", ")", "|":
                    throw PatternSyntaxError(pattern: pattern, reason: "unbalanced '\(t)'")
                default:
                    if t.hasPrefix("<") {
                        let name = String(t.dropFirst().dropLast())
                        guard t.hasSuffix(">"), !name.isEmpty,
                              name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                            throw PatternSyntaxError(pattern: pattern, reason: "bad slot name '\(t)'")
                        }
                        out.append(.slot(name))
                    } else {
                        guard t.allSatisfy({ $0.isLetter || $0 == "'" || $0 == "-" }) else {
                            throw PatternSyntaxError(pattern: pattern, reason: "'\(t)' is not a word")
                        }
                        out.append(.word(t.lowercased()))
                    }
                }
            }
            return out
        }

        mutating func parseAlternatives(closing: String) throws(PatternSyntaxError) -> [[PatternElement]] {
            var alternatives: [[PatternElement]] = []
            while true {
                let seq = try parseSequence(until: ["|", closing])
                if seq.isEmpty { throw PatternSyntaxError(pattern: pattern, reason: "empty group") }
                alternatives.append(seq)
                guard position < tokens.count else {
                    throw PatternSyntaxError(pattern: pattern, reason: "missing '\(closing)'")
                }
                let t = tokens[position]
                position += 1
                if t == closing { return alternatives }
            }
        }
    }
}

/// The words matched by a pattern, with the words each slot captured.
public struct PatternMatch: Equatable, Sendable {
    public var captures: [String: [String]] = [:]
}

extension PhrasePattern {
    /// Matches the whole of `words`; `slotMatcher(name, words, start)` returns the possible lengths a slot can
    /// take at `start`. Returns the first full match (patterns are small, so backtracking is cheap).
    public func match(_ words: [String], slotLengths: (String, [String], Int) -> [Int]) -> PatternMatch? {
        Self.match(elements[...], words, 0, PatternMatch(), slotLengths).first { $0.1 == words.count }?.0
    }

    private static func match(_ elements: ArraySlice<PatternElement>, _ words: [String], _ at: Int, _ acc: PatternMatch,
                              _ slotLengths: (String, [String], Int) -> [Int]) -> [(PatternMatch, Int)] {
        guard let first = elements.first else { return [(acc, at)] }
        let rest = elements.dropFirst()
        var results: [(PatternMatch, Int)] = []
        switch first {
        case .word(let w):
            if at < words.count, words[at] == w { results += match(rest, words, at + 1, acc, slotLengths) }
        case .optional(let inner):
            for (m, next) in match(inner[...], words, at, acc, slotLengths) {
                results += match(rest, words, next, m, slotLengths)
            }
            results += match(rest, words, at, acc, slotLengths)
        case .choice(let alternatives):
            for alt in alternatives {
                for (m, next) in match(alt[...], words, at, acc, slotLengths) {
                    results += match(rest, words, next, m, slotLengths)
                }
            }
        case .slot(let name):
            for length in slotLengths(name, words, at) where length > 0 && at + length <= words.count {
                var m = acc
                m.captures[name] = Array(words[at..<(at + length)])
                results += match(rest, words, at + length, m, slotLengths)
            }
        }
        return results
    }

    /// Calls `visit` on every element, depth first.
    func forEachElement(_ visit: (PatternElement) -> Void) {
        func walk(_ elements: [PatternElement]) {
            for e in elements {
                visit(e)
                switch e {
                case .optional(let inner): walk(inner)
                case .choice(let alternatives): alternatives.forEach(walk)
                case .word, .slot: break
                }
            }
        }
        walk(elements)
    }

    /// Every word the pattern can produce, slots excluded.
    public var literalWords: Set<String> {
        var words = Set<String>()
        forEachElement { if case .word(let w) = $0 { words.insert(w) } }
        return words
    }
}

extension PhrasePattern {
    /// Names of the slots the pattern uses.
    public var slotNames: Set<String> {
        var names = Set<String>()
        forEachElement { if case .slot(let s) = $0 { names.insert(s) } }
        return names
    }

    /// Every word sequence the pattern says, slots left as `<name>` tokens; nil when there are more than `limit`.
    public func expansions(limit: Int = 20_000) -> [[String]]? {
        func expand(_ elements: ArraySlice<PatternElement>) -> [[String]]? {
            guard let first = elements.first else { return [[]] }
            let heads: [[String]]
            switch first {
            case .word(let w): heads = [[w]]
            case .slot(let s): heads = [["<\(s)>"]]
            case .optional(let inner):
                guard let e = expand(inner[...]) else { return nil }
                heads = [[]] + e
            case .choice(let alternatives):
                var all: [[String]] = []
                for a in alternatives {
                    guard let e = expand(a[...]) else { return nil }
                    all += e
                }
                heads = all
            }
            guard let tails = expand(elements.dropFirst()), heads.count * tails.count <= limit else { return nil }
            return heads.flatMap { h in tails.map { h + $0 } }
        }
        return expand(elements[...])
    }
}
