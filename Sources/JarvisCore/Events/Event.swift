/// One event of the pipeline (DESIGN.md's table). `t` is always seconds of audio since the stream began
/// (the audio clock), never wall-clock time.
public struct Event: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case listening(source: String, sampleRate: Int)
        case speechStart
        case speechEnd
        /// `score`: wake confidence 0…1.
        case wake(phrase: String, score: Double)
        case partial(text: String)
        /// `confidence` 0…1; `start`/`end` in seconds of audio.
        case transcript(text: String, confidence: Double, start: Double, end: Double, alternatives: [String])
        case intent(Intent, confidence: Double)
        case rejected(text: String, reason: String)
        case action(name: String, status: String, backend: String, detail: String)
        case restart(reason: String)
        case error(code: String, message: String)
        /// Something the user should know that does not stop the pipeline (e.g. no display for actions).
        case warning(code: String, message: String)
        case end(Stats)
        // Live capture (`jarvis listen`):
        /// The live state changed: idle, listening, wake, processing, success, error.
        case state(String)
        /// The capture device changed status: `lost`, `unavailable` (with `retryIn` s), `available`.
        case device(name: String, status: String, message: String, retryIn: Double?)
        /// Audio was lost: `origin` "alsa" (kernel buffer overrun or suspend, recovered; amount unknown) or
        /// "ring" (the pipeline fell behind; the oldest `droppedSamples` were dropped).
        case overrun(origin: String, droppedSamples: Int?)
        /// The pipeline was re-created from the settings (SIGHUP).
        case reload(reason: String)
        /// A control-socket request that changed something: `mute`, `unmute`, `inject` (with the text).
        case control(command: String, detail: String)
    }

    /// Seconds of audio since the stream started.
    public let t: Double
    public let kind: Kind
    /// The file an event came from (replay of several files); nil for live audio.
    public var source: String?

    public init(t: Double, _ kind: Kind, source: String? = nil) {
        self.t = t
        self.kind = kind
        self.source = source
    }

    public var type: String {
        switch kind {
        case .listening: return "listening"
        case .speechStart: return "speech_start"
        case .speechEnd: return "speech_end"
        case .wake: return "wake"
        case .partial: return "partial"
        case .transcript: return "transcript"
        case .intent: return "intent"
        case .rejected: return "rejected"
        case .action: return "action"
        case .restart: return "restart"
        case .error: return "error"
        case .warning: return "warning"
        case .end: return "end"
        case .state: return "state"
        case .device: return "device"
        case .overrun: return "overrun"
        case .reload: return "reload"
        case .control: return "control"
        }
    }

    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("type", .string(type)), ("t", .number(t))]
        switch kind {
        case .listening(let source, let rate):
            pairs += [("source", .string(source)), ("sample_rate", .int(rate))]
        case .speechStart, .speechEnd:
            break
        case .wake(let phrase, let score):
            pairs += [("phrase", .string(phrase)), ("score", .number(score))]
        case .partial(let text):
            pairs += [("text", .string(text))]
        case .transcript(let text, let confidence, let start, let end, let alternatives):
            pairs += [("text", .string(text)), ("confidence", .number(confidence)), ("t_start", .number(start)),
                      ("t_end", .number(end)), ("alternatives", .array(alternatives.map { .string($0) }))]
        case .intent(let intent, let confidence):
            let slots = intent.slots.sorted { $0.key < $1.key }.map { (k, v) -> (String, JSONValue) in
                switch v {
                case .string(let s): return (k, .string(s))
                case .int(let i): return (k, .int(i))
                }
            }
            pairs += [("name", .string(intent.name)), ("slots", .object(slots)), ("text", .string(intent.text)),
                      ("confidence", .number(confidence))]
        case .rejected(let text, let reason):
            pairs += [("text", .string(text)), ("reason", .string(reason))]
        case .action(let name, let status, let backend, let detail):
            pairs += [("name", .string(name)), ("status", .string(status)), ("backend", .string(backend)),
                      ("detail", .string(detail))]
        case .restart(let reason):
            pairs += [("reason", .string(reason))]
        case .error(let code, let message), .warning(let code, let message):
            pairs += [("code", .string(code)), ("message", .string(message))]
        case .end(let stats):
            pairs += [("stats", stats.json)]
        case .state(let state):
            pairs += [("state", .string(state))]
        case .device(let name, let status, let message, let retryIn):
            pairs += [("device", .string(name)), ("status", .string(status)), ("message", .string(message))]
            if let retryIn { pairs.append(("retry_in", .number(retryIn))) }
        case .overrun(let origin, let dropped):
            pairs += [("origin", .string(origin))]
            if let dropped { pairs.append(("dropped_samples", .int(dropped))) }
        case .control(let command, let detail):
            pairs += [("command", .string(command)), ("detail", .string(detail))]
        case .reload(let reason):
            pairs += [("reason", .string(reason))]
        }
        if let source { pairs.append(("source", .string(source))) }
        return .object(pairs)
    }

    /// One line for people reading a terminal.
    public var humanLine: String {
        let time = String(format: "%7.2fs", t)
        switch kind {
        case .listening(let source, let rate): return "\(time)  listening to \(source) (\(rate) Hz)"
        case .speechStart: return "\(time)  speech"
        case .speechEnd: return "\(time)  silence"
        case .wake(let phrase, let score): return "\(time)  wake: \"\(phrase)\" (score \(String(format: "%.2f", score)))"
        case .partial(let text): return "\(time)  … \(text)"
        case .transcript(let text, let c, _, _, _): return "\(time)  heard: \"\(text)\" (confidence \(String(format: "%.2f", c)))"
        case .intent(let intent, _):
            let slots = intent.slots.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(time)  intent: \(intent.name) \(slots)"
        case .rejected(let text, let reason): return "\(time)  rejected: \"\(text)\" (\(reason))"
        case .action(let name, let status, let backend, let detail):
            return "\(time)  action: \(name) [\(status), \(backend)] \(detail)"
        case .restart(let reason): return "\(time)  recogniser restarted (\(reason))"
        case .error(let code, let message): return "\(time)  error [\(code)]: \(message)"
        case .warning(let code, let message): return "\(time)  warning [\(code)]: \(message)"
        case .end(let s):
            return "\(time)  end: \(String(format: "%.1f", s.audioSeconds)) s audio, \(String(format: "%.2f", s.cpuSeconds)) s CPU, \(Wording.counted(s.wakes, "wake")), \(Wording.counted(s.intents, "intent")), \(s.rejections) rejected, \(Wording.counted(s.restarts, "restart"))"
        case .state(let state): return "\(time)  state: \(state)"
        case .device(let name, let status, let message, let retryIn):
            let retry = retryIn.map { String(format: " (retrying in %.1f s)", $0) } ?? ""
            return "\(time)  device \(name) \(status)\(retry)" + (message.isEmpty ? "" : ": \(message)")
        case .overrun(let origin, let dropped):
            return "\(time)  overrun (\(origin))" + (dropped.map { ": dropped \($0) samples" } ?? "")
        case .reload(let reason): return "\(time)  reloaded (\(reason))"
        case .control(let command, let detail): return "\(time)  control: \(command)" + (detail.isEmpty ? "" : " \"\(detail)\"")
        }
    }
}

/// Totals for the `end` event.
public struct Stats: Sendable, Equatable {
    public var audioSeconds = 0.0
    public var cpuSeconds = 0.0
    public var wakes = 0
    public var intents = 0
    public var rejections = 0
    public var restarts = 0
    public var errors = 0

    public init() {}

    public var json: JSONValue {
        .object([("audio_seconds", .number(audioSeconds)), ("cpu_seconds", .number(cpuSeconds)),
                 ("wakes", .int(wakes)), ("intents", .int(intents)), ("rejections", .int(rejections)),
                 ("restarts", .int(restarts)), ("errors", .int(errors))])
    }
}
