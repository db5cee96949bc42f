/// How a slot's spoken words become a value.
public enum SlotKind: Equatable, Sendable {
    /// A closed list: spoken phrase (one or more words) → value.
    case list([String: SlotValue])
    /// Free text (the words of a search), recognised with the open-vocabulary language model.
    case freeText
}

/// One command: patterns that say it, the intent it makes, and how slots fill.
public struct CommandDefinition: Sendable {
    public let intent: String
    public let patterns: [PhrasePattern]
    /// Slot values set whatever was said (e.g. `button: left`).
    public let fixedSlots: [String: SlotValue]
    /// Values for slots the user may leave out (e.g. `amount: 1`).
    public let defaults: [String: SlotValue]
    /// Maps a pattern slot name to the intent slot it fills, when they differ (`<number>` → `amount`).
    public let slotRenames: [String: String]
    /// Whether only the language model's words are parsed with these patterns: the grammar, and the model that
    /// expects a lead, leave them out (`CommandSet.grammarCommands`). For a one-word lead such as "find": in
    /// the grammar it fits the start of other speech, and expected by the model it is heard in "so the".
    public let languageModelOnly: Bool

    public init(intent: String, patterns: [String], fixed: [String: SlotValue] = [:],
                defaults: [String: SlotValue] = [:], renames: [String: String] = [:],
                languageModelOnly: Bool = false) throws(PatternSyntaxError) {
        self.intent = intent
        self.languageModelOnly = languageModelOnly
        var parsed: [PhrasePattern] = []
        for p in patterns { parsed.append(try PhrasePattern(p)) }
        self.patterns = parsed
        fixedSlots = fixed
        self.defaults = defaults
        slotRenames = renames
    }
}

/// The command set: the one source of truth for the grammar, the intent parser and `jarvis commands`.
public struct CommandSet: Sendable {
    public var slots: [String: SlotKind]
    public var commands: [CommandDefinition]
    /// Word used in the grammar for one phone of free speech (a phone loop absorbs search text and
    /// out-of-grammar speech); never a dictionary word.
    public static let phoneWordPrefix = "ph_"

    public init(slots: [String: SlotKind], commands: [CommandDefinition]) {
        self.slots = slots
        self.commands = commands
    }

    /// The commands the grammar holds (and the model that expects a lead): all but the `languageModelOnly` ones.
    public var grammarCommands: CommandSet {
        CommandSet(slots: slots, commands: commands.filter { !$0.languageModelOnly })
    }

    // MARK: parsing recognised words

    /// The intent for `words` (lower case, wake phrase removed), or nil when they are not a command.
    /// Free-text slots take all the words they cover. The `languageModelOnly` commands come last, after the
    /// config's own ("find my phone" before "find <query>").
    public func parse(_ words: [String]) -> Intent? {
        let text = words.joined(separator: " ")
        for languageModelOnly in [false, true] {
            for command in commands where command.languageModelOnly == languageModelOnly {
                for pattern in command.patterns {
                    guard let m = pattern.match(words, slotLengths: slotLengths) else { continue }
                    if let intent = makeIntent(command, m, text: text) { return intent }
                }
            }
        }
        return nil
    }

    /// Parses text typed or injected by a user (punctuation and case ignored).
    public func parse(text: String) -> Intent? {
        parse(Self.normalizeWords(text))
    }

    public static func normalizeWords(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
    }

    func slotLengths(_ name: String, _ words: [String], _ start: Int) -> [Int] {
        switch slots[name] {
        case .list(let values):
            return values.keys.compactMap { phrase in
                let p = phrase.split(separator: " ").map(String.init)
                return start + p.count <= words.count && Array(words[start..<(start + p.count)]) == p ? p.count : nil
            }.sorted(by: >)
        case .freeText:
            return Array((1...max(1, words.count - start)).reversed())
        case nil:
            return []
        }
    }

    func makeIntent(_ command: CommandDefinition, _ m: PatternMatch, text: String) -> Intent? {
        var slotValues = command.defaults
        for (name, spoken) in m.captures {
            let key = command.slotRenames[name] ?? name
            switch slots[name] {
            case .list(let values):
                guard let v = values[spoken.joined(separator: " ")] else { return nil }
                slotValues[key] = v
            case .freeText:
                slotValues[key] = .string(spoken.joined(separator: " "))
            case nil:
                return nil
            }
        }
        for (k, v) in command.fixedSlots { slotValues[k] = v }
        return Intent(name: command.intent, slots: slotValues, text: text)
    }

    /// Slot names of free-text kind.
    public var freeTextSlots: Set<String> {
        Set(slots.compactMap { $0.value == .freeText ? $0.key : nil })
    }

    /// The command with free text that `words` open ("search for", "look up"): `words` with a word of free
    /// text after them parsed; nil when they open none.
    public func freeTextLead(_ words: [String]) -> Intent? {
        guard !freeTextSlots.isEmpty, let intent = parse(words + ["something"]),
              freeTextSlots.contains(where: { intent.slots[$0] != nil }) else { return nil }
        return intent
    }

    /// The commands one word away from `words` that mean something else: `words` with one of them replaced by
    /// a word of `vocabulary` (by default `self.vocabulary`, sorted), each parsing to another intent or other
    /// slots ("next tab" and "close tab" for "new tab"). Free text is the language model's to hear: a command
    /// with free text has no twins, nor is one a twin ("google home" for "go home"). Empty when `words` is not a
    /// command.
    public func twins(of words: [String], vocabulary: [String]? = nil) -> [[String]] {
        let free = freeTextSlots
        guard let intent = parse(words), free.allSatisfy({ intent.slots[$0] == nil }) else { return [] }
        let substitutes = vocabulary ?? self.vocabulary.sorted()
        var twins: [[String]] = []
        for i in words.indices {
            for other in substitutes where other != words[i] {
                var twin = words
                twin[i] = other
                if let meant = parse(twin), meant.name != intent.name || meant.slots != intent.slots,
                   free.allSatisfy({ meant.slots[$0] == nil }) {
                    twins.append(twin)
                }
            }
        }
        return twins
    }

    /// Every literal word the grammar can produce (for dictionary checks).
    public var vocabulary: Set<String> {
        var words = slotWords
        for c in commands { for p in c.patterns { words.formUnion(p.literalWords) } }
        return words
    }

    /// The words of the listed slots' phrases ("three", "google", "maps", "left"): the words that say what a
    /// command does, where its patterns' words ("scroll", "click", "open") say only which command it is.
    public var slotWords: Set<String> {
        var words = Set<String>()
        for case .list(let values) in slots.values {
            for phrase in values.keys { words.formUnion(phrase.split(separator: " ").map(String.init)) }
        }
        return words
    }

    /// Human-readable "what can I say", one line per pattern, grouped by intent.
    public func describe() -> String {
        var lines: [String] = []
        var lastIntent: String?
        for c in commands {
            if c.intent != lastIntent { lines.append("\(c.intent):") }
            lastIntent = c.intent
            for p in c.patterns {
                lines.append("  \(p.source)" + (c.languageModelOnly ? "  (not in the grammar)" : ""))
            }
        }
        for name in slots.keys.sorted() {
            switch slots[name]! {
            case .list(let values):
                lines.append("<\(name)> = \(values.keys.sorted().joined(separator: " | "))")
            case .freeText:
                lines.append("<\(name)> = any words")
            }
        }
        return lines.joined(separator: "\n")
    }
}
