/// A slot value in an intent: a string or an integer (JSON types of DESIGN.md's intent table).
public enum SlotValue: Equatable, Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case int(Int)

    public var description: String {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        }
    }
}

/// A recognised command: one of DESIGN.md's intent names with its slots.
public struct Intent: Equatable, Sendable {
    public var name: String
    public var slots: [String: SlotValue]
    /// The words it was recognised from (lower case, no wake phrase).
    public var text: String

    public init(name: String, slots: [String: SlotValue], text: String) {
        self.name = name
        self.slots = slots
        self.text = text
    }
}
