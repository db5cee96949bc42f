import Foundation

/// One clip of an evaluation manifest (the format of `../shared/eval/`: one JSON object per line).
public struct ManifestEntry: Sendable {
    public struct ExpectedIntent: Sendable {
        public var name: String
        /// Slot values: "k": v must equal (strings compared lower-cased); "k~": v must be a substring.
        public var slots: [String: SlotValue]
        /// For streams: the audio time (s) the command was spoken at; a hit lies within 8 s of it.
        public var t: Double?
    }

    public var file: String
    /// command | paraphrase | negative | confusable | stream | rejection | wake-jarvis | negative-real/… .
    public var kind: String
    public var condition: String
    public var expectWake: Bool
    public var expectIntents: [ExpectedIntent]
    /// What is said in the clip ("text"; realset.py gives the recordings' transcripts), when the manifest says.
    public var text: String?
    /// Who says it ("voice": devset.py's "flite_slt", "espeak_us" …), when the manifest says.
    public var voice: String? = nil

    /// The table row the clip counts in: commands by condition ("command/white15"), others by kind.
    public var slice: String { kind == "command" ? "command/\(condition)" : kind }

    /// Parses a manifest; relative file paths are taken from the manifest's folder.
    public static func load(_ path: String) throws -> [ManifestEntry] {
        let lines = try jsonLines(path, unreadable: "The manifest '\(path)' cannot be read; check the path (a JSON-lines file, as ../shared/eval/devset.py writes).")
        let folder = (path as NSString).deletingLastPathComponent
        var entries: [ManifestEntry] = []
        for (n, object) in lines {
            guard let object, var file = object["file"] as? String, let kind = object["kind"] as? String,
                  let expect = object["expect"] as? [String: Any], let wake = expect["wake"] as? Bool
            else { throw EvaluationError("\(path):\(n + 1): not a manifest line (it needs file, kind and expect.wake).") }
            if !file.hasPrefix("/") { file = (folder as NSString).appendingPathComponent(file) }
            var intents: [ExpectedIntent] = []
            for item in expect["intents"] as? [[String: Any]] ?? [] {
                guard let name = item["name"] as? String else {
                    throw EvaluationError("\(path):\(n + 1): an expected intent has no name.")
                }
                var slots: [String: SlotValue] = [:]
                for (k, v) in item["slots"] as? [String: Any] ?? [:] {
                    if let s = v as? String { slots[k] = .string(s) }
                    else if let i = v as? Int { slots[k] = .int(i) }
                }
                intents.append(ExpectedIntent(name: name, slots: slots, t: item["t"] as? Double))
            }
            entries.append(ManifestEntry(file: file, kind: kind, condition: object["cond"] as? String ?? "",
                                         expectWake: wake, expectIntents: intents, text: object["text"] as? String,
                                         voice: object["voice"] as? String))
        }
        if entries.isEmpty { throw EvaluationError("The manifest '\(path)' lists no clips.") }
        return entries
    }
}

public struct EvaluationError: Error, CustomStringConvertible {
    public let description: String
    init(_ d: String) { description = d }
}

/// What the pipeline did on one clip.
public struct ClipOutcome: Sendable {
    public struct HeardIntent: Sendable {
        public var intent: Intent
        /// Audio time of the `intent` event (s).
        public var t: Double
    }
    /// A `rejected` event: what was heard and why it was not taken (DESIGN.md's reasons).
    public struct Rejection: Sendable {
        public var reason: String
        public var text: String
        public init(reason: String, text: String) { self.reason = reason; self.text = text }
    }
    public var wakes = 0
    public var intents: [HeardIntent] = []
    public var rejections: [Rejection] = []
    /// The file could not be read (an `error` event), like score.py's rc != 0.
    public var failed = false
    public var audioSeconds = 0.0
    /// CPU time (s) the clip's replay took on its worker's thread (the models were loaded before).
    public var cpuSeconds = 0.0
    /// What the language model heard in the whole clip (`Pipeline.transcribe`), when transcripts were asked for
    /// and the manifest gives the clip's text.
    public var transcript: [String]?
}

/// Scores outcomes exactly as `../shared/eval/score.py` does, plus the share of non-commands rejected.
public struct EvaluationTable: Sendable {
    public struct Row: Sendable {
        public var n = 0, positives = 0, wakeHits = 0, intentOK = 0
        public var falseWakes = 0, falseIntents = 0, failed = 0
        public var streamHits = 0, streamWanted = 0, streamExtra = 0
        /// Clips of kind "rejection" (the wake phrase, then speech that is no command): how many gave no intent.
        public var nonCommands = 0, nonCommandsRejected = 0
        /// Clips that say one command (not streams), and how many of them gave an intent that is not it (a wrong
        /// action, or one too many): worse than a miss, which `intentOK` does not tell apart. `wrongQueries`: those
        /// of them that said a search and gave one search, for other words (the milder kind).
        public var commands = 0, wrongActions = 0, wrongQueries = 0
        /// Those clips that gave no intent at all, by why (`EvaluationTable.why`): "no wake", a rejection's
        /// reason ("not-a-command", "speech-continues", …), or "woken, no verdict".
        public var didNothing: [String: Int] = [:]
    }
    /// Transcription of the clips of one slice that have a text (`--transcripts`).
    public struct TranscriptRow: Sendable, Equatable {
        public var clips = 0, clipsRight = 0
        /// Words in the texts, and substitutions + deletions + insertions against them.
        public var words = 0, wordErrors = 0
        public var wordErrorRate: Double { words > 0 ? Double(wordErrors) / Double(words) : 0 }
    }
    public private(set) var rows: [String: Row] = [:]
    public private(set) var transcriptRows: [String: TranscriptRow] = [:]
    /// Misses, for `--failures` (file, what was said, what came out).
    public private(set) var failures: [(file: String, got: String)] = []
    /// Every clip's result, in the order added (`--outcomes`, `--against`).
    public private(set) var results: [ClipResult] = []
    /// Transcripts with word errors, for `--failures` with `--transcripts` (file, the text's words, what was heard).
    public private(set) var misheard: [(file: String, said: [String], heard: [String])] = []
    /// Audio (s) of all the clips added, and the whole run's CPU (s; `Evaluation.run` sets it).
    public var audioSeconds = 0.0
    public var cpuSeconds = 0.0
    /// Audio (s) of the clips of `longClipSeconds` or more, and their replays' CPU (s): score.py's
    /// cpu_per_audio_s is measured on those when there are any (start-up amortised).
    public private(set) var longClipAudioSeconds = 0.0, longClipCPUSeconds = 0.0
    public static let longClipSeconds = 30.0
    /// One row per slice and voice ("command/clean flite_slt"; "-" for a clip whose manifest line names no
    /// voice), not per slice: which talkers a change helps (`jarvis eval --by-voice`).
    public let byVoice: Bool

    public init(byVoice: Bool = false) { self.byVoice = byVoice }

    /// The row `entry` counts in: its slice, and with `byVoice` its voice.
    func rowKey(_ entry: ManifestEntry) -> String {
        byVoice ? entry.slice + " " + (entry.voice ?? "-") : entry.slice
    }

    public mutating func add(_ entry: ManifestEntry, _ outcome: ClipOutcome) {
        let key = rowKey(entry)
        var row = rows[key] ?? Row()
        row.n += 1
        audioSeconds += outcome.audioSeconds
        if outcome.audioSeconds >= Self.longClipSeconds {
            longClipAudioSeconds += outcome.audioSeconds
            longClipCPUSeconds += outcome.cpuSeconds
        }
        if outcome.failed { row.failed += 1 }
        if entry.expectWake {
            row.positives += 1
            if outcome.wakes > 0 { row.wakeHits += 1 }
            if entry.kind.hasPrefix("rejection") {
                row.nonCommands += 1
                if outcome.intents.isEmpty { row.nonCommandsRejected += 1 }
            }
        } else {
            if outcome.wakes > 0 { row.falseWakes += 1 }
            if !outcome.intents.isEmpty { row.falseIntents += 1 }
        }
        let got = outcome.intents.map { "\($0.intent.name)\(Self.describe($0.intent.slots))" }.joined(separator: ", ")
        let outcomeText = got.isEmpty ? Self.nothingDone(outcome) : got
        // What `--failures` lists for the clip when it is scored wrong (a stream is not listed there).
        var failure: String?
        var streamMissed = false
        if entry.kind == "stream" {
            for want in entry.expectIntents {
                let hit = outcome.intents.contains {
                    Self.matches($0.intent, want) && abs($0.t - (want.t ?? -999)) < 8
                }
                if hit { row.streamHits += 1 } else { streamMissed = true }
                row.streamWanted += 1
            }
            let extra = max(0, outcome.intents.count - entry.expectIntents.count)
            row.streamExtra += extra
            if extra > 0 { streamMissed = true }
        } else if let want = entry.expectIntents.first {
            let heard = outcome.intents.map(\.intent)
            let ok = heard.count == 1 && Self.matches(heard[0], want)
            row.commands += 1
            if !ok, let first = heard.first {
                row.wrongActions += 1
                // "search": DESIGN.md's intent with free text (its query).
                if heard.count == 1, want.name == "search", first.name == "search" { row.wrongQueries += 1 }
            }
            if heard.isEmpty { row.didNothing[Self.why(outcome), default: 0] += 1 }
            if ok { row.intentOK += 1 } else { failure = outcomeText }
        } else if !outcome.intents.isEmpty {
            failure = got
        } else if !entry.expectWake && outcome.wakes > 0 {
            failure = "(false wake)"
        } else if entry.expectWake && outcome.wakes == 0 {
            failure = "(no wake)"
        }
        if let failure { failures.append((file: entry.file, got: failure)) }
        rows[key] = row
        results.append(ClipResult(file: entry.file, slice: entry.slice, ok: failure == nil && !streamMissed,
                                  outcome: outcomeText))
        if let heard = outcome.transcript, let text = entry.text {
            let said = Self.spokenWords(text)
            if !said.isEmpty {
                var t = transcriptRows[key] ?? TranscriptRow()
                let errors = Self.wordErrors(said, heard)
                t.clips += 1
                t.words += said.count
                t.wordErrors += errors
                if errors == 0 {
                    t.clipsRight += 1
                } else {
                    misheard.append((file: entry.file, said: said, heard: heard))
                }
                transcriptRows[key] = t
            }
        }
    }

    /// Why a clip that should have given an intent gave none: "no wake"; woken, the last rejection's reason (the
    /// command's, when speech before it was rejected too); or "woken, no verdict" (a wake with nothing after it).
    static func why(_ outcome: ClipOutcome) -> String {
        if outcome.wakes == 0 { return "no wake" }
        return outcome.rejections.last?.reason ?? "woken, no verdict"
    }

    /// A `--failures` line's "what came out" for a clip without an intent: "(nothing)", "(wake only)", or
    /// "(wake only; <reason>: <what was heard>)".
    static func nothingDone(_ outcome: ClipOutcome) -> String {
        guard outcome.wakes > 0 else { return "(nothing)" }
        return outcome.rejections.last.map { "(wake only; \($0.reason): \($0.text))" } ?? "(wake only)"
    }

    /// A text's words as the language model writes them: lower case, without punctuation, digits as words.
    public static func spokenWords(_ text: String) -> [String] {
        let digits = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
        return CommandSet.normalizeWords(text).map { word in
            Int(word).flatMap { (0...10).contains($0) ? digits[$0] : nil } ?? word
        }
    }

    /// Word-level edit distance (substitutions, deletions and insertions) of `heard` against `said`.
    public static func wordErrors(_ said: [String], _ heard: [String]) -> Int {
        var previous = Array(0...heard.count)
        for (i, s) in said.enumerated() {
            var current = [i + 1]
            for (j, h) in heard.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (s == h ? 0 : 1)))
            }
            previous = current
        }
        return previous[heard.count]
    }

    static func describe(_ slots: [String: SlotValue]) -> String {
        slots.isEmpty ? "" : " {" + slots.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }

    /// score.py's slot_match: strings equal after lower-casing, "k~" a substring, numbers equal.
    public static func matches(_ intent: Intent, _ want: ManifestEntry.ExpectedIntent) -> Bool {
        guard intent.name == want.name else { return false }
        for (key, value) in want.slots {
            if key.hasSuffix("~") {
                let got = intent.slots[String(key.dropLast())]?.description.lowercased() ?? ""
                if !got.contains(value.description.lowercased()) { return false }
            } else if case .string(let s) = value {
                if intent.slots[key]?.description.lowercased().trimmingCharacters(in: .whitespaces) != s.lowercased() {
                    return false
                }
            } else if intent.slots[key] != value {
                return false
            }
        }
        return true
    }

    /// The table of score.py (same columns and rows), then the rejection share when there were non-commands, how
    /// many command clips gave a wrong intent (score.py's intent column counts them with the misses), and, per
    /// slice, why those that gave none did nothing (`why`).
    public func render() -> String {
        func pad(_ s: String, _ w: Int, left: Bool = false) -> String {
            let p = String(repeating: " ", count: max(0, w - s.count))
            return left ? s + p : p + s
        }
        let width = max(24, rows.keys.map(\.count).max() ?? 0)
        var out = pad("slice", width, left: true) + " " + pad("n", 4) + " " + pad("wake%", 6) + " " + pad("intent%", 8)
            + " " + pad("falseWake", 9) + " " + pad("falseIntent", 11) + " " + pad("rc!=0", 5) + "\n"
        for key in rows.keys.sorted() {
            let r = rows[key]!
            let wake = r.positives > 0 ? String(format: "%.1f", 100 * Double(r.wakeHits) / Double(r.positives)) : "-"
            var intent = key.hasPrefix("command") || key.hasPrefix("paraphrase")
                ? String(format: "%.1f", 100 * Double(r.intentOK) / Double(r.n)) : "-"
            if key == "stream" || key.hasPrefix("stream ") {
                intent = "\(r.streamHits)/\(r.streamWanted) +\(r.streamExtra)"
            }
            out += pad(key, width, left: true) + " " + pad(String(r.n), 4) + " " + pad(wake, 6) + " " + pad(intent, 8)
                + " " + pad(String(r.falseWakes), 9) + " " + pad(String(r.falseIntents), 11) + " " + pad(String(r.failed), 5) + "\n"
        }
        let nonCommands = rows.values.reduce(0) { $0 + $1.nonCommands }
        if nonCommands > 0 {
            let rejected = rows.values.reduce(0) { $0 + $1.nonCommandsRejected }
            out += String(format: "non-commands after a wake rejected: %d/%d (%.1f %%)\n", rejected, nonCommands,
                          100 * Double(rejected) / Double(nonCommands))
        }
        let commandSlices = rows.filter { $0.value.commands > 0 }.sorted { $0.key < $1.key }
        if !commandSlices.isEmpty {
            let wrong = commandSlices.reduce(0) { $0 + $1.value.wrongActions }
            let clips = commandSlices.reduce(0) { $0 + $1.value.commands }
            let queries = commandSlices.reduce(0) { $0 + $1.value.wrongQueries }
            out += String(format: "commands acted on wrongly: %d/%d (%.1f %%; %d of them a search for other words): ",
                          wrong, clips, 100 * Double(wrong) / Double(clips), queries)
                + commandSlices.map { "\($0.key) \($0.value.wrongActions)" }.joined(separator: ", ") + "\n"
            // Per slice: how many did nothing, and why, the commonest first (ties by name).
            var idle = 0, lines = ""
            for (slice, row) in commandSlices where !row.didNothing.isEmpty {
                let count = row.didNothing.values.reduce(0, +)
                let reasons = row.didNothing.sorted { a, b in a.value != b.value ? a.value > b.value : a.key < b.key }
                idle += count
                lines += "  \(slice) \(count): " + reasons.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
            }
            if idle > 0 {
                out += String(format: "commands that did nothing: %d/%d (%.1f %%), why:\n", idle, clips,
                              100 * Double(idle) / Double(clips)) + lines
            }
        }
        if !transcriptRows.isEmpty {
            let w = max(24, transcriptRows.keys.map(\.count).max() ?? 0)
            out += pad("transcripts", w, left: true) + " " + pad("n", 4) + " " + pad("words", 6) + " "
                + pad("WER%", 8) + " " + pad("clipsRight%", 11) + "\n"
            for key in transcriptRows.keys.sorted() + ["all"] {
                let t = key == "all" ? transcriptTotal : transcriptRows[key]!
                out += pad(key, w, left: true) + " " + pad(String(t.clips), 4) + " " + pad(String(t.words), 6) + " "
                    + pad(String(format: "%.1f", 100 * t.wordErrorRate), 8) + " "
                    + pad(String(format: "%.1f", 100 * Double(t.clipsRight) / Double(max(1, t.clips))), 11) + "\n"
            }
        }
        out += "summary " + summary.serialized() + "\n"
        return out
    }

    /// All the transcript rows together.
    public var transcriptTotal: TranscriptRow {
        transcriptRows.values.reduce(into: TranscriptRow()) {
            $0.clips += $1.clips; $0.clipsRight += $1.clipsRight; $0.words += $1.words; $0.wordErrors += $1.wordErrors
        }
    }

    /// score.py's summary line (with the word error rate when transcripts were measured). cpu_per_audio_s is
    /// score.py's too: the CPU of the clips of 30 s or more over their audio when there are any (each clip's
    /// replay, on its worker's thread), else the whole run's CPU (models loaded included) over all the audio.
    public var summary: JSONValue {
        let commandRows = rows.filter { $0.key.hasPrefix("command") }.map(\.value)
        let commandClips = commandRows.reduce(0) { $0 + $1.n }
        let accuracy = commandClips > 0 ? Double(commandRows.reduce(0) { $0 + $1.intentOK }) / Double(commandClips) : 0
        let negatives = rows.filter { $0.key.hasPrefix("negative") || $0.key.hasPrefix("confusable") }.map(\.value)
        let positives = rows.values.reduce(0) { $0 + $1.positives }
        let wakeRate = positives > 0 ? Double(rows.values.reduce(0) { $0 + $1.wakeHits }) / Double(positives) : 0
        func round4(_ x: Double) -> Double { (x * 10_000).rounded() / 10_000 }
        return .object([
            ("command_intent_acc", .number(round4(accuracy))), ("wake_rate", .number(round4(wakeRate))),
            ("false_wakes", .int(negatives.reduce(0) { $0 + $1.falseWakes })),
            ("false_intents", .int(negatives.reduce(0) { $0 + $1.falseIntents })),
            ("cpu_per_audio_s", .number(round4(longClipAudioSeconds > 0 ? longClipCPUSeconds / longClipAudioSeconds
                                               : audioSeconds > 0 ? cpuSeconds / audioSeconds : 0))),
            ("audio_s", .number((audioSeconds * 10).rounded() / 10)),
        ] + (transcriptRows.isEmpty ? [] : [("transcript_wer", .number(round4(transcriptTotal.wordErrorRate)))]))
    }
}

/// The non-blank lines of a JSON-lines file, numbered from 0, each as an object (nil: not a JSON object);
/// `unreadable` is the error when the file cannot be read.
func jsonLines(_ path: String, unreadable: String) throws -> [(number: Int, object: [String: Any]?)] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw EvaluationError(unreadable) }
    return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { n, line in
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        return (n, try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any])
    }
}

/// One clip's result as `jarvis eval --outcomes` writes it (a JSON line) and `--against` reads it back.
public struct ClipResult: Sendable, Equatable {
    public var file: String
    /// The table row it counted in (`ManifestEntry.slice`).
    public var slice: String
    /// Scored right: not one of the table's failures (a stream: every command heard in time, none more).
    public var ok: Bool
    /// What came out: the intents ("scroll {amount: 1, direction: down}"), else "(nothing)" or "(wake only; …)".
    public var outcome: String

    public init(file: String, slice: String, ok: Bool, outcome: String) {
        self.file = file; self.slice = slice; self.ok = ok; self.outcome = outcome
    }

    public func serialized() -> String {
        JSONValue.object([("file", .string(file)), ("slice", .string(slice)), ("ok", .bool(ok)),
                          ("outcome", .string(outcome))]).serialized()
    }

    /// Reads a file of `serialized()` lines.
    public static func load(_ path: String) throws -> [ClipResult] {
        let lines = try jsonLines(path, unreadable: "The outcomes file '\(path)' cannot be read; give one that `jarvis eval --outcomes` wrote.")
        var results: [ClipResult] = []
        for (n, object) in lines {
            guard let object, let file = object["file"] as? String, let slice = object["slice"] as? String,
                  let ok = object["ok"] as? Bool, let outcome = object["outcome"] as? String
            else { throw EvaluationError("\(path):\(n + 1): not an outcome line (it needs file, slice, ok and outcome).") }
            results.append(ClipResult(file: file, slice: slice, ok: ok, outcome: outcome))
        }
        if results.isEmpty { throw EvaluationError("The outcomes file '\(path)' lists no clips.") }
        return results
    }
}

/// Two runs' results clip by clip (`jarvis eval --against`): which clips a change won, lost, or moved from one
/// wrong outcome to another. Clips are matched by file name and slice (a dev set rebuilt in another folder
/// matches), the n-th clip of a name with the n-th.
public struct EvaluationComparison: Sendable {
    public struct Change: Sendable, Equatable {
        public var file: String, before: String, now: String
    }
    /// Wrong before, right now; right before, wrong now; wrong in both runs, with another outcome.
    public private(set) var gained: [Change] = [], lost: [Change] = [], changed: [Change] = []
    /// Clips scored by both runs with the same verdict (and, when wrong, the same outcome).
    public private(set) var same = 0
    /// Clips of this run the other one did not score.
    public private(set) var unmatched = 0

    public init(before: [ClipResult], now: [ClipResult]) {
        func keys(_ results: [ClipResult]) -> [String] {
            var seen: [String: Int] = [:]
            return results.map { r in
                let key = (r.file as NSString).lastPathComponent + "\u{1}" + r.slice
                seen[key, default: 0] += 1
                return key + "\u{1}\(seen[key]!)"
            }
        }
        let earlier = Dictionary(zip(keys(before), before), uniquingKeysWith: { first, _ in first })
        for (key, r) in zip(keys(now), now) {
            guard let b = earlier[key] else { unmatched += 1; continue }
            let change = Change(file: (r.file as NSString).lastPathComponent, before: b.outcome, now: r.outcome)
            switch (b.ok, r.ok) {
            case (false, true): gained.append(change)
            case (true, false): lost.append(change)
            case (false, false) where b.outcome != r.outcome: changed.append(change)
            default: same += 1
            }
        }
    }

    /// A summary line, then a line per clip that moved ("gained", "lost", "changed": before → now).
    public func render(against name: String) -> String {
        var out = "against \(name): \(gained.count) gained, \(lost.count) lost, \(changed.count) changed "
            + "(wrong before and after), \(same) the same"
            + (unmatched > 0 ? "; \(unmatched) not scored there" : "") + "\n"
        for (word, list) in [("gained", gained), ("lost", lost), ("changed", changed)] {
            for c in list { out += "\(word) \(c.file): \(c.before) → \(c.now)\n" }
        }
        return out
    }
}

/// Runs a manifest through the pipeline in this process: `jobs` workers, each with one replay session (one
/// pipeline, reset between clips: a fresh state per file, without reloading the models).
public enum Evaluation {
    /// With `transcripts`, each clip whose manifest line gives its text is also transcribed whole by the language
    /// model (`Pipeline.transcribe`), for the table's word error rates. `byVoice`: `EvaluationTable.byVoice`.
    public static func run(_ entries: [ManifestEntry], settings: PipelineSettings, commands: CommandSet,
                           jobs: Int, transcripts: Bool = false, byVoice: Bool = false,
                           progress: (@Sendable (Int) -> Void)? = nil) throws -> EvaluationTable {
        let box = OutcomeBox(count: entries.count)
        let cpuStart = processCPUSeconds()
        DispatchQueue.concurrentPerform(iterations: max(1, jobs)) { _ in
            do {
                let collector = EventCollector()
                let session = Replay.Session(settings: settings, commands: commands)
                // Built one at a time: model loading touches process-wide C state.
                try box.serially { () throws(DecoderError) in try session.prepare() }
                while let index = box.next() {
                    let clipStart = threadCPUSeconds()
                    var outcome = try clip(entries[index].file, session: session, collector: collector)
                    outcome.cpuSeconds = threadCPUSeconds() - clipStart
                    if transcripts, !outcome.failed, !(entries[index].text ?? "").isEmpty {
                        outcome.transcript = try session.transcribe(path: entries[index].file)
                    }
                    box.store(outcome, at: index)
                    progress?(index)
                }
            } catch {
                box.fail(error)
            }
        }
        if let error = box.error { throw error }
        var table = EvaluationTable(byVoice: byVoice)
        for (entry, outcome) in zip(entries, box.outcomes) { table.add(entry, outcome!) }
        table.cpuSeconds = processCPUSeconds() - cpuStart
        return table
    }

    static func clip(_ path: String, session: Replay.Session, collector: EventCollector) throws(DecoderError) -> ClipOutcome {
        collector.outcome = ClipOutcome()
        if UtteranceRecognizer.tracing {  // with --jobs 1, each clip's trace follows its name
            FileHandle.standardError.write(Data("== \(path)\n".utf8))
        }
        try session.run(path: path, tagSource: false) { collector.add($0) }
        return collector.outcome
    }
}

/// Collects one clip's events into an outcome (one per worker).
final class EventCollector {
    var outcome = ClipOutcome()
    func add(_ event: Event) {
        switch event.kind {
        case .wake: outcome.wakes += 1
        case .intent(let intent, _): outcome.intents.append(.init(intent: intent, t: event.t))
        case .rejected(let text, let reason): outcome.rejections.append(.init(reason: reason, text: text))
        case .error: outcome.failed = true  // the file could not be read (whole or in part)
        case .end: outcome.audioSeconds = event.t
        default: break
        }
    }
}

/// The workers' shared work list and results, behind a lock.
private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var nextIndex = 0
    private(set) var outcomes: [ClipOutcome?]
    private(set) var error: Error?

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    func next() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard error == nil, nextIndex < outcomes.count else { return nil }
        defer { nextIndex += 1 }
        return nextIndex
    }

    func store(_ outcome: ClipOutcome, at index: Int) {
        lock.lock(); outcomes[index] = outcome; lock.unlock()
    }

    private let buildLock = NSLock()
    func serially<T>(_ body: () throws(DecoderError) -> T) throws(DecoderError) -> T {
        buildLock.lock(); defer { buildLock.unlock() }
        return try body()
    }

    func fail(_ e: Error) {
        lock.lock(); if error == nil { error = e }; lock.unlock()
    }
}
