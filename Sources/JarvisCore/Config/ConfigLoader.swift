import Foundation
import Yams

/// Reads a YAML config file into a `JarvisConfig`, collecting every problem with its line
/// (unknown keys with the closest known one, bad values, bad phrase patterns, unknown slots).
public struct ConfigLoader {
    public let file: String
    public private(set) var diagnostics: [ConfigDiagnostic] = []

    static let topKeys = ["wake_phrase", "wake_threshold", "follow_up_window", "actions", "opener", "search_url", "scroll_notches",
                          "sites", "words", "keys", "slots", "commands"]
    static let commandKeys = ["say", "name", "run", "keys", "intent", "with"]
    static let builtinIntents = ["scroll", "click", "navigate", "search"]

    /// The largest config file read (bytes).
    static let maxBytes = 4 << 20

    /// Loads `path`. Returns the config (defaults where the file had problems) and the problems.
    public static func load(path: String) -> (JarvisConfig, [ConfigDiagnostic]) {
        var loader = ConfigLoader(file: path)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else {
            loader.report(0, "the config file does not exist (check the path given to --config)")
            return (JarvisConfig(), loader.diagnostics)
        }
        // Read through a handle, not `contents(atPath:)`, which gives nothing for a device: `--config /dev/null`
        // is the usual way to run without one's own config (the defaults).
        guard let handle = FileHandle(forReadingAtPath: path) else {
            loader.report(0, "the config file cannot be read (check its permissions)")
            return (JarvisConfig(), loader.diagnostics)
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
        guard data.count <= maxBytes else {
            loader.report(0, "the config file is larger than \(maxBytes >> 20) MB; a config is a few lines of YAML")
            return (JarvisConfig(), loader.diagnostics)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            loader.report(0, "the config file is not UTF-8 text")
            return (JarvisConfig(), loader.diagnostics)
        }
        let config = loader.parse(text)
        return (config, loader.diagnostics)
    }

    /// Parses YAML text (`file` names it in diagnostics).
    public static func parse(_ text: String, file: String) -> (JarvisConfig, [ConfigDiagnostic]) {
        var loader = ConfigLoader(file: file)
        let config = loader.parse(text)
        return (config, loader.diagnostics)
    }

    init(file: String) { self.file = file }

    mutating func report(_ line: Int, _ message: String) {
        diagnostics.append(ConfigDiagnostic(file: file, line: line, message: message))
    }

    mutating func report(_ node: Node, _ message: String) {
        report(node.mark?.line ?? 0, message)
    }

    mutating func parse(_ text: String) -> JarvisConfig {
        var config = JarvisConfig()
        config.path = file
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else { return config }   // empty file: defaults
            root = node
        } catch let error as YamlError {
            report(Self.line(of: error), "this is not valid YAML: \(Self.problem(of: error))")
            return config
        } catch {
            report(0, "this is not valid YAML: \(error)")
            return config
        }
        guard let top = root.mapping else {
            report(root, "the config must be a mapping of settings (key: value)")
            return config
        }
        var commandsNode: Node?
        var slotsNode: Node?
        for (keyNode, value) in top {
            guard let key = keyNode.string else { report(keyNode, "keys must be plain words"); continue }
            switch key {
            case "wake_phrase":
                if let s = string(value, key) {
                    let words = CommandSet.normalizeWords(s)
                    if words.isEmpty { report(value, "wake_phrase must contain at least one word") }
                    else { config.wakePhrase = words.joined(separator: " ") }
                }
            case "wake_threshold":
                if let d = number(value, key, in: RecognizerSettings.wakeThresholdRange, unit: nil) { config.wakeThreshold = d }
            case "follow_up_window":
                if let d = number(value, key, in: 0.5...60) { config.followUpWindow = d }
            case "actions":
                if let s = string(value, key) {
                    if let c = ActionBackendChoice(rawValue: s) { config.actions = c }
                    else { report(value, "actions must be one of \(ActionBackendChoice.allCases.map(\.rawValue).joined(separator: ", ")), not '\(s)'") }
                }
            case "opener":
                if let argv = argv(value, key) { config.opener = argv }
            case "search_url":
                if let s = string(value, key) {
                    if !s.contains("{query}") { report(value, "search_url must contain {query}, where the search words go") }
                    else if !ActionPlanner.isWebURL(s.replacingOccurrences(of: "{query}", with: "q")) {
                        report(value, "search_url must be an http:// or https:// URL")
                    } else { config.action.searchURL = s }
                }
            case "scroll_notches":
                if let n = integer(value, key, in: 1...50) { config.action.scrollNotches = n }
            case "sites":
                parseSites(value, into: &config)
            case "words":
                parseWords(value, into: &config)
            case "keys":
                parseKeys(value, into: &config)
            case "slots":
                slotsNode = value
            case "commands":
                commandsNode = value
            default:
                report(keyNode, "unknown setting '\(key)'" + Self.suggestion(key, among: Self.topKeys))
            }
        }
        if let slotsNode { parseSlots(slotsNode, into: &config) }
        if let commandsNode { parseCommands(commandsNode, into: &config) }
        return config
    }

    // MARK: sections

    mutating func parseSites(_ node: Node, into config: inout JarvisConfig) {
        guard let map = node.mapping else { return report(node, "sites must map spoken names to URLs") }
        for (k, v) in map {
            guard let name = k.string else { report(k, "site names must be text"); continue }
            let words = CommandSet.normalizeWords(name).joined(separator: " ")
            if words.isEmpty { report(k, "site name '\(name)' has no words"); continue }
            if v.null != nil, case .scalar = v {   // `twitter: ~` removes a built-in site
                config.sites[words] = nil
                continue
            }
            guard let url = string(v, "site '\(name)'") else { continue }
            if !ActionPlanner.isWebURL(url) { report(v, "site '\(name)' must be an http:// or https:// URL, not '\(url)'"); continue }
            config.sites[words] = url
        }
    }

    /// `words: {netflix: "N EH T F L IH K S", gif: ["G IH F", "JH IH F"]}`: one word each, said as one or more
    /// strings of the acoustic model's phones (CMU, `GrammarGenerator.phones`; any case).
    mutating func parseWords(_ node: Node, into config: inout JarvisConfig) {
        guard let map = node.mapping else { return report(node, "words must map a word to its phones (\"N EH T F L IH K S\")") }
        for (k, v) in map {
            guard let name = k.string else { report(k, "words must be text"); continue }
            let words = CommandSet.normalizeWords(name)
            guard words.count == 1, let word = words.first else {
                report(k, "'\(name)' must be one word (give each word of a phrase its own entry)"); continue
            }
            let given: [Node]
            if case .sequence(let list) = v { given = Array(list) } else { given = [v] }
            var pronunciations: [String] = []
            for node in given {
                guard let text = string(node, "the phones of '\(word)'") else { continue }
                let phones = text.split(whereSeparator: \.isWhitespace).map { $0.uppercased() }
                if phones.isEmpty { report(node, "the phones of '\(word)' are empty"); continue }
                if let unknown = phones.first(where: { !GrammarGenerator.phones.contains($0) }) {
                    report(node, "'\(unknown)' in the phones of '\(word)' is not a phone of the model (\(GrammarGenerator.phones.joined(separator: " ")))")
                    continue
                }
                pronunciations.append(phones.joined(separator: " "))
            }
            if !pronunciations.isEmpty { config.pronunciations[word, default: []] += pronunciations }
        }
    }

    mutating func parseKeys(_ node: Node, into config: inout JarvisConfig) {
        guard let map = node.mapping else { return report(node, "keys must map actions (back, new_tab, …) to key chords") }
        for (k, v) in map {
            guard let name = k.string else { continue }
            guard ActionSettings.keyNames.contains(name) else {
                report(k, "unknown key action '\(name)'" + Self.suggestion(name, among: ActionSettings.keyNames)
                       + " (known: \(ActionSettings.keyNames.joined(separator: ", ")))")
                continue
            }
            if let chord = chord(v, "keys.\(name)") { config.action.keys[name] = chord }
        }
    }

    mutating func parseSlots(_ node: Node, into config: inout JarvisConfig) {
        guard let map = node.mapping else { return report(node, "slots must map slot names to word lists") }
        let builtin = CommandSet.builtin().slots
        for (k, v) in map {
            guard let name = k.string else { continue }
            if !Self.isIdentifier(name) { report(k, "slot name '\(name)' must be lower-case letters, digits and _"); continue }
            if builtin[name] != nil { report(k, "slot '\(name)' is built in; choose another name"); continue }
            var values: [String: SlotValue] = [:]
            if let list = v.sequence {
                for item in list {
                    guard let s = string(item, "a value of slot '\(name)'") else { continue }
                    let words = CommandSet.normalizeWords(s).joined(separator: " ")
                    if words.isEmpty { report(item, "an empty phrase in slot '\(name)'") } else { values[words] = .string(words) }
                }
            } else if let m = v.mapping {
                for (sk, sv) in m {
                    guard let s = sk.string else { continue }
                    let words = CommandSet.normalizeWords(s).joined(separator: " ")
                    if words.isEmpty { report(sk, "an empty phrase in slot '\(name)'"); continue }
                    if let i = sv.int, case .scalar(let sc) = sv, sc.style == .plain { values[words] = .int(i) }
                    else if let str = sv.string { values[words] = .string(str) }
                    else { report(sv, "the value of '\(s)' in slot '\(name)' must be text or a number") }
                }
            } else {
                report(v, "slot '\(name)' must be a list of phrases or a mapping of phrase to value")
                continue
            }
            if values.isEmpty { report(v, "slot '\(name)' has no phrases") } else { config.customSlots[name] = values }
        }
    }

    mutating func parseCommands(_ node: Node, into config: inout JarvisConfig) {
        guard let list = node.sequence else { return report(node, "commands must be a list (each item starting with '- say:')") }
        let builtinSlots = CommandSet.builtin(sites: config.sites).slots
        var names = Set<String>()
        for item in list {
            guard let map = item.mapping else { report(item, "each command must be a mapping with 'say' and one of run, keys or intent"); continue }
            let line = item.mark?.line ?? 0
            var fields: [String: Node] = [:]
            for (k, v) in map {
                guard let key = k.string else { continue }
                if !Self.commandKeys.contains(key) {
                    report(k, "unknown command field '\(key)'" + Self.suggestion(key, among: Self.commandKeys)); continue
                }
                fields[key] = v
            }
            // Phrases.
            guard let sayNode = fields["say"] else { report(item, "this command has no 'say' phrase"); continue }
            var sources: [String] = []
            if let s = sayNode.string, sayNode.scalar != nil { sources = [s] }
            else if let seq = sayNode.sequence { sources = seq.compactMap { string($0, "say") } }
            else { report(sayNode, "'say' must be a phrase or a list of phrases"); continue }
            var patterns: [String] = []
            var slotNames = Set<String>()
            var ok = true
            for s in sources {
                let lowered = s.lowercased()
                do {
                    let p = try PhrasePattern(lowered)
                    for w in p.literalWords where !w.allSatisfy({ $0.isLetter || $0 == "'" }) {
                        report(sayNode, "'\(w)' in \"\(s)\" is not a word (spell numbers out: \"five\", not \"5\")"); ok = false
                    }
                    for slot in p.slotNames where builtinSlots[slot] == nil && config.customSlots[slot] == nil {
                        report(sayNode, "slot <\(slot)> in \"\(s)\" is not defined under 'slots'"
                               + Self.suggestion(slot, among: Array(builtinSlots.keys) + Array(config.customSlots.keys)))
                        ok = false
                    }
                    slotNames.formUnion(p.slotNames)
                    patterns.append(lowered)
                } catch {
                    report(sayNode, "\(error.pattern.isEmpty ? "an empty phrase" : "\"\(s)\""): \(error.reason)"); ok = false
                }
            }
            if patterns.isEmpty || !ok { continue }
            // What it does.
            let actionKeys = ["run", "keys", "intent"].filter { fields[$0] != nil }
            if actionKeys.count != 1 {
                report(item, actionKeys.isEmpty ? "this command says nothing to do: give one of run, keys or intent"
                                                : "give only one of run, keys or intent (this command has \(actionKeys.joined(separator: " and ")))")
                continue
            }
            var name = fields["name"].flatMap { string($0, "name") }
            if let n = name, !Self.isIdentifier(n) { report(fields["name"]!, "name '\(n)' must be lower-case letters, digits and _"); continue }
            let definition: CommandDefinition
            do {
                if let intentNode = fields["intent"] {
                    guard let intent = string(intentNode, "intent") else { continue }
                    guard Self.builtinIntents.contains(intent) else {
                        report(intentNode, "intent must be one of \(Self.builtinIntents.joined(separator: ", ")), not '\(intent)'"); continue
                    }
                    if name != nil && name != intent { report(fields["name"]!, "a command with 'intent' takes that intent's name; drop 'name'"); continue }
                    name = intent
                    var fixed: [String: SlotValue] = [:]
                    var renames: [String: String] = [:]
                    if let with = fields["with"] {
                        guard let m = with.mapping else { report(with, "'with' must map intent slots to values"); continue }
                        for (k, v) in m {
                            guard let slot = k.string, let text = v.string else { continue }
                            if text.hasPrefix("{") && text.hasSuffix("}") {
                                let from = String(text.dropFirst().dropLast())
                                if !slotNames.contains(from) { report(v, "{\(from)} is not a slot of this command's phrase"); ok = false }
                                renames[from] = slot
                            } else if let i = v.int, case .scalar(let sc) = v, sc.style == .plain {
                                fixed[slot] = .int(i)
                            } else {
                                fixed[slot] = .string(text)
                            }
                        }
                    }
                    if !ok { continue }
                    if intent == "navigate", let url = fixed["url"], !ActionPlanner.isWebURL(url.description) {
                        report(item, "navigate url must be an http:// or https:// URL, not '\(url)'"); continue
                    }
                    definition = try CommandDefinition(intent: intent, patterns: patterns, fixed: fixed, renames: renames)
                } else {
                    if fields["with"] != nil { report(fields["with"]!, "'with' goes with 'intent' only"); continue }
                    let commandName = name ?? Self.defaultName(patterns[0])
                    if Self.builtinIntents.contains(commandName) {
                        report(fields["name"] ?? item, "'\(commandName)' is a built-in intent; choose another name"); continue
                    }
                    if names.contains(commandName) {
                        report(fields["name"] ?? item, "another command is already named '\(commandName)'; give this one a 'name'"); continue
                    }
                    name = commandName
                    if let runNode = fields["run"] {
                        guard let argv = argv(runNode, "run") else { continue }
                        for element in argv {
                            for placeholder in Self.placeholders(in: element) where !slotNames.contains(placeholder) {
                                report(runNode, "{\(placeholder)} in run is not a slot of this command's phrase"); ok = false
                            }
                        }
                        if !ok { continue }
                        config.action.custom[commandName] = .run(argv)
                    } else if let keysNode = fields["keys"] {
                        guard let c = chord(keysNode, "keys") else { continue }
                        config.action.custom[commandName] = .keys(c)
                    }
                    definition = try CommandDefinition(intent: commandName, patterns: patterns)
                }
            } catch {
                report(sayNode, "\(error.reason)"); continue
            }
            names.insert(name!)
            config.customCommands.append(CustomCommand(name: name!, definition: definition, line: line))
        }
    }

    // MARK: typed values

    mutating func string(_ node: Node, _ what: String) -> String? {
        guard case .scalar(let s) = node, node.null == nil || s.style != .plain else {
            report(node, "\(what) must be text"); return nil
        }
        return s.string
    }

    /// A number within `range`; `unit` names what it counts in the problem ("a number of seconds"), nil for none.
    mutating func number(_ node: Node, _ what: String, in range: ClosedRange<Double>, unit: String? = "seconds") -> Double? {
        guard let d = node.float ?? node.int.map(Double.init), node.scalar != nil else {
            report(node, "\(what) must be a number" + (unit.map { " of \($0)" } ?? "")); return nil
        }
        guard range.contains(d) else { report(node, "\(what) must be between \(range.lowerBound) and \(range.upperBound)"); return nil }
        return d
    }

    mutating func integer(_ node: Node, _ what: String, in range: ClosedRange<Int>) -> Int? {
        guard let i = node.int else { report(node, "\(what) must be a whole number"); return nil }
        guard range.contains(i) else { report(node, "\(what) must be between \(range.lowerBound) and \(range.upperBound)"); return nil }
        return i
    }

    /// A program and its arguments: a list of strings (or one program name without spaces).
    mutating func argv(_ node: Node, _ what: String) -> [String]? {
        if let seq = node.sequence {
            var out: [String] = []
            for item in seq { guard let s = string(item, "each element of \(what)") else { return nil }; out.append(s) }
            if out.isEmpty || out[0].isEmpty { report(node, "\(what) must name a program"); return nil }
            return out
        }
        guard let s = string(node, what) else { return nil }
        if s.isEmpty || s.contains(where: \.isWhitespace) {
            report(node, "write \(what) as a list, e.g. [program, arg1, arg2]: it is run directly, never by a shell")
            return nil
        }
        return [s]
    }

    mutating func chord(_ node: Node, _ what: String) -> KeyChord? {
        guard let s = string(node, what) else { return nil }
        do { return try KeyChord(parsing: s) } catch { report(node, "\(what): \(error.description)"); return nil }
    }

    // MARK: helpers

    static func isIdentifier(_ s: String) -> Bool {
        !s.isEmpty && s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// `open [a] terminal` → `open_terminal`: the literal words that are always said.
    static func defaultName(_ pattern: String) -> String {
        guard let p = try? PhrasePattern(pattern) else { return "custom" }
        let words = p.elements.compactMap { e -> String? in if case .word(let w) = e { return w } else { return nil } }
        let name = words.map { $0.replacingOccurrences(of: "'", with: "") }.joined(separator: "_")
        return name.isEmpty ? "custom" : name
    }

    static func placeholders(in s: String) -> [String] {
        var out: [String] = []
        var rest = s[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return out
    }

    /// " (did you mean 'x'?)" when a known name is within two edits.
    static func suggestion(_ word: String, among candidates: [String]) -> String {
        var best: (name: String, distance: Int)?
        for candidate in candidates.sorted() {
            let d = editDistance(word, candidate)
            if d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        guard let best, best.distance <= max(2, word.count / 3) else { return "" }
        return " (did you mean '\(best.name)'?)"
    }

    /// Levenshtein distance in characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    static func line(of error: YamlError) -> Int {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): return mark.line
        case .duplicatedKeysInMapping(_, let context): return context.mark.line
        default: return 0
        }
    }

    static func problem(of error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, _, _), .parser(let context, let problem, _, _),
             .composer(let context, let problem, _, _):
            return [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        case .duplicatedKeysInMapping(let duplicates, _):
            return "the key '\(duplicates.joined(separator: "', '"))' appears twice"
        default:
            return "\(error)"
        }
    }
}
