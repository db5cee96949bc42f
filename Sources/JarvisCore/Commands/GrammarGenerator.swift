/// Writes the recogniser's JSGF grammars from a `CommandSet`: the wake phrase, then one command or free speech.
///
/// Free text (search queries) and out-of-grammar speech are modelled by a loop of one-phone words
/// (`ph_aa`, `ph_b`, …): the loop absorbs any speech, so a search's prefix is located exactly and speech that
/// is no command ends on the loop (and is rejected) instead of being forced onto the nearest command.
public struct GrammarGenerator: Sendable {
    /// CMU phones of the en-us model (without SIL).
    public static let phones = ["AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G",
                                "HH", "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH",
                                "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH"]

    public let commands: CommandSet
    /// Relative JSGF weight of the garbage (out-of-grammar) branch against the command branch.
    public var garbageWeight: Double

    public init(commands: CommandSet, garbageWeight: Double = 0.05) {
        self.commands = commands
        self.garbageWeight = garbageWeight
    }

    /// Dictionary entries for the phone words: (word, phones).
    public static var phoneWords: [(String, String)] {
        phones.map { (CommandSet.phoneWordPrefix + $0.lowercased(), $0) }
    }

    public static func isPhoneWord(_ w: String) -> Bool { w.hasPrefix(CommandSet.phoneWordPrefix) }

    /// The grammar of one utterance while listening for the wake phrase: either the wake phrase (after any
    /// speech) and then a command, free speech or nothing; or speech without the wake phrase at all.
    /// `noWakeWeight` is the prior of the no-wake branch: the spotter's threshold.
    public func wakeGrammar(wakeWords: [String], noWakeWeight: Double) -> String {
        header(public: "public <utterance> = /1/ [<phone_lead>+] \(wakeWords.joined(separator: " ")) [<tail>] | /\(format(noWakeWeight))/ <phone_nowake>+;",
               extraPhoneRules: ["lead", "nowake"])
    }

    /// The grammar of an utterance in the follow-up window after a wake: a command or free speech.
    public func followUpGrammar() -> String {
        header(public: "public <utterance> = <tail>;", extraPhoneRules: [])
    }

    /// A free phone loop: the competitor that verifies a wake phrase acoustically.
    public func phoneLoopGrammar() -> String {
        "#JSGF V1.0;\ngrammar phones;\npublic <utterance> = <phone_any>+;\n<phone_any> = \(phoneAlternatives);\n"
    }

    func format(_ w: Double) -> String { String(format: "%.6g", w) }

    func header(public rule: String, extraPhoneRules: [String]) -> String {
        var rules: [String] = []
        var commandAlternatives: [String] = []
        for (ci, command) in commands.commands.enumerated() {
            let name = "cmd\(ci)"
            let body = command.patterns.map { render($0.elements) }.joined(separator: " | ")
            rules.append("<\(name)> = \(body);")
            commandAlternatives.append("<\(name)>")
        }
        for (name, kind) in commands.slots.sorted(by: { $0.key < $1.key }) {
            switch kind {
            case .list(let values):
                rules.append("<slot_\(name)> = \(values.keys.sorted().joined(separator: " | "));")
            case .freeText:
                rules.append("<slot_\(name)> = <phone_\(name)>+;")
                rules.append("<phone_\(name)> = \(phoneAlternatives);")
            }
        }
        // One phone rule per use: sphinxbase builds one loop per rule, and a loop shared by several places
        // would connect them.
        for use in extraPhoneRules + ["garbage"] {
            rules.append("<phone_\(use)> = \(phoneAlternatives);")
        }
        rules.append("<command> = \(commandAlternatives.joined(separator: " | "));")
        rules.append("<tail> = /1/ <command> | /\(format(garbageWeight))/ <phone_garbage>+;")
        return "#JSGF V1.0;\ngrammar jarvis;\n\(rule)\n" + rules.joined(separator: "\n") + "\n"
    }

    var phoneAlternatives: String { Self.phoneWords.map(\.0).joined(separator: " | ") }

    func render(_ elements: [PatternElement]) -> String {
        elements.map { e -> String in
            switch e {
            case .word(let w): return w
            case .optional(let inner): return "[" + render(inner) + "]"
            case .choice(let alts): return "(" + alts.map { render($0) }.joined(separator: " | ") + ")"
            case .slot(let n): return "<slot_\(n)>"
            }
        }.joined(separator: " ")
    }
}
