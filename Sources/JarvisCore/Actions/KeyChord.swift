/// A key chord such as `ctrl+shift+Tab`: modifiers held while one key is pressed.
/// Written with `+` between parts, case-insensitive; stored with X keysym names (what xdotool takes)
/// and translatable to Linux input key codes (what ydotool 1.x takes).
public struct KeyChord: Equatable, Hashable, Sendable, CustomStringConvertible {
    public enum Modifier: String, CaseIterable, Sendable {
        case ctrl, alt, shift, `super`

        /// Linux input-event code of the left-hand key (linux/input-event-codes.h).
        var linuxCode: Int {
            switch self {
            case .ctrl: return 29
            case .alt: return 56
            case .shift: return 42
            case .super: return 125
            }
        }

        static func named(_ name: String) -> Modifier? {
            switch name.lowercased() {
            case "ctrl", "control": return .ctrl
            case "alt": return .alt
            case "shift": return .shift
            case "super", "meta", "win", "logo": return .super
            default: return nil
            }
        }
    }

    public let modifiers: [Modifier]
    /// X keysym name (`Left`, `Tab`, `t`, `Next`).
    public let key: String

    public init(parsing text: String) throws(KeyChordError) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let last = parts.last, !last.isEmpty, !parts.contains(where: \.isEmpty) else {
            throw KeyChordError(text: text, problem: "write it as modifiers and a key joined by +, e.g. ctrl+shift+Tab")
        }
        var mods: [Modifier] = []
        for name in parts.dropLast() {
            guard let m = Modifier.named(name) else {
                throw KeyChordError(text: text, problem: "'\(name)' is not a modifier (ctrl, alt, shift, super)")
            }
            if !mods.contains(m) { mods.append(m) }
        }
        guard let key = Self.canonicalKey(last) else {
            throw KeyChordError(text: text, problem: "'\(last)' is not a key name this program knows (e.g. a, F5, Tab, Left, Next, Return)")
        }
        modifiers = mods
        self.key = key
    }

    /// `ctrl+shift+Tab`: the form xdotool's `key` command takes.
    public var description: String {
        (modifiers.map(\.rawValue) + [key]).joined(separator: "+")
    }

    /// ydotool 1.x `key` arguments: every key pressed in order (`29:1`), then released in reverse (`29:0`).
    public var ydotoolKeyEvents: [String] {
        let codes = modifiers.map(\.linuxCode) + [Self.keys[key]!]
        return codes.map { "\($0):1" } + codes.reversed().map { "\($0):0" }
    }

    /// X keysym name → Linux input key code, for the keys chords may use.
    static let keys: [String: Int] = {
        var k: [String: Int] = [
            "Escape": 1, "Tab": 15, "Return": 28, "BackSpace": 14, "space": 57, "minus": 12, "equal": 13,
            "Left": 105, "Right": 106, "Up": 103, "Down": 108, "Home": 102, "End": 107,
            "Prior": 104, "Next": 109, "Delete": 111, "Insert": 110,
            "bracketleft": 26, "bracketright": 27, "semicolon": 39, "apostrophe": 40, "grave": 41,
            "backslash": 43, "comma": 51, "period": 52, "slash": 53,
            "XF86Back": 158, "XF86Forward": 159, "XF86Reload": 173, "XF86HomePage": 172,
            "XF86AudioMute": 113, "XF86AudioLowerVolume": 114, "XF86AudioRaiseVolume": 115,
            "XF86AudioPlay": 164, "XF86AudioNext": 163, "XF86AudioPrev": 165,
        ]
        let letters = "qwertyuiop" + "asdfghjkl" + "zxcvbnm"
        let letterCodes = Array(16...25) + Array(30...38) + Array(44...50)
        for (c, code) in zip(letters, letterCodes) { k[String(c)] = code }
        for d in 1...9 { k[String(d)] = d + 1 }
        k["0"] = 11
        for f in 1...10 { k["F\(f)"] = 58 + f }
        k["F11"] = 87
        k["F12"] = 88
        return k
    }()

    static let aliases: [String: String] = [
        "esc": "Escape", "enter": "Return", "backspace": "BackSpace", "del": "Delete",
        "pageup": "Prior", "page_up": "Prior", "pgup": "Prior",
        "pagedown": "Next", "page_down": "Next", "pgdn": "Next",
    ]

    static func canonicalKey(_ name: String) -> String? {
        if keys[name] != nil { return name }
        let lower = name.lowercased()
        if let alias = aliases[lower] { return alias }
        return keys.keys.first { $0.lowercased() == lower }
    }
}

public struct KeyChordError: Error, Equatable, CustomStringConvertible {
    public let text: String
    public let problem: String
    public var description: String { "key chord '\(text)': \(problem)" }
}
