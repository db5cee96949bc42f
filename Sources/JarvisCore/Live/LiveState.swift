/// What a live listener is doing, for the `state` event and the terminal meter.
public enum LiveState: String, Sendable, CaseIterable {
    case idle, listening, wake, processing, success, error
}

/// Derives the live state from the pipeline's (and the capture's) events; reports a state only when it
/// changes.
///
/// - `speech_start` → listening (while idle, after a success or an error; a wake in progress stays `wake`)
/// - `wake` → wake; `transcript` → processing; `intent` / `action` → success (a failed action → error)
/// - `rejected` → idle; `error` → error; device lost/unavailable → error, device available → idle
/// - `settle()` after each chunk: speech that ended without a wake (still `listening`) → idle.
public struct StateTracker: Sendable {
    public private(set) var state: LiveState = .idle
    private var inSpeech = false

    public init() {}

    /// The new state when `kind` changes it, else nil.
    public mutating func observe(_ kind: Event.Kind) -> LiveState? {
        switch kind {
        case .speechStart:
            inSpeech = true
            switch state {
            case .idle, .success, .error: return set(.listening)
            default: return nil
            }
        case .speechEnd:
            inSpeech = false
            return nil
        case .wake: return set(.wake)
        case .transcript: return set(.processing)
        case .intent: return set(.success)
        case .action(_, let status, _, _): return set(status == "failed" ? .error : .success)
        case .rejected: return set(.idle)
        case .error: return set(.error)
        case .device(_, let status, _, _): return set(status == "available" ? .idle : .error)
        default: return nil
        }
    }

    /// Called when the pipeline has handled a chunk: speech that ended and decoded to nothing → idle.
    public mutating func settle() -> LiveState? {
        if state == .listening && !inSpeech { return set(.idle) }
        return nil
    }

    private mutating func set(_ new: LiveState) -> LiveState? {
        guard new != state else { return nil }
        state = new
        return new
    }
}
