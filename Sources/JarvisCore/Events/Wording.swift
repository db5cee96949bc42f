/// Two rules of the messages people read, kept in one place: a count's noun agrees with it, and another library's
/// sentence quoted inside one of ours loses its own full stop.
public enum Wording {
    /// "1 wake", "3 wakes", "0 problems": `n` and `noun`, plural unless `n` is 1.
    public static func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// `reason` ("Format not recognised.") without the full stops it ends with, to be quoted in parentheses inside
    /// a sentence of ours.
    public static func quoted(_ reason: String) -> String {
        var reason = reason
        while reason.hasSuffix(".") { reason.removeLast() }
        return reason
    }
}
