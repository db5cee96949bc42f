import Foundation

/// One thing to do on the desktop; backends turn it into a helper program's argv.
public enum ActionStep: Equatable, Sendable {
    /// Mouse button at the pointer, `count` times (2 = double click).
    case click(button: MouseButton, count: Int)
    /// Mouse wheel: `notches` wheel steps.
    case scroll(direction: ScrollDirection, notches: Int)
    /// A key chord pressed `times` times.
    case keys(KeyChord, times: Int)
    /// An http(s) URL handed to the opener.
    case open(url: String)
    /// A user-configured program, argv[0] looked up on PATH; never through a shell.
    case run(argv: [String])
}

public enum MouseButton: String, Sendable, CaseIterable {
    case left, middle, right
    /// X button number (1 left, 2 middle, 3 right).
    public var xButton: Int {
        switch self {
        case .left: return 1
        case .middle: return 2
        case .right: return 3
        }
    }
}

public enum ScrollDirection: String, Sendable, CaseIterable {
    case up, down, left, right
    /// X button number of one wheel notch (4 up, 5 down, 6 left, 7 right).
    public var xButton: Int {
        switch self {
        case .up: return 4
        case .down: return 5
        case .left: return 6
        case .right: return 7
        }
    }
}

/// What a custom command from the config does.
public enum CustomAction: Equatable, Sendable {
    /// Run a program: argv elements may hold `{slot}` placeholders, replaced by the slot's value inside that
    /// one element (never split, never given to a shell).
    case run([String])
    case keys(KeyChord)
}

/// Settings that decide how intents become steps (from the config file, with these defaults).
public struct ActionSettings: Sendable, Equatable {
    /// Wheel notches per spoken scroll step ("scroll down" = 1 step, "scroll down three" = 3).
    public var scrollNotches = 3
    /// `{query}` is replaced by the percent-encoded query.
    public var searchURL = "https://www.google.com/search?q={query}"
    /// Key chords of the navigate targets, plus `page_up` / `page_down` for "page up/down".
    public var keys: [String: KeyChord] = ActionSettings.defaultKeys
    /// Intent name → what it does, for custom commands.
    public var custom: [String: CustomAction] = [:]

    public init() {}

    /// Standard browser chords (Firefox, Chromium).
    public static let defaultKeys: [String: KeyChord] = {
        let table = [
            "back": "alt+Left", "forward": "alt+Right", "home": "alt+Home", "reload": "ctrl+r",
            "new_tab": "ctrl+t", "close_tab": "ctrl+w", "next_tab": "ctrl+Tab", "previous_tab": "ctrl+shift+Tab",
            "page_up": "Prior", "page_down": "Next",
        ]
        return table.mapValues { try! KeyChord(parsing: $0) }
    }()

    public static let keyNames = ["back", "forward", "home", "reload", "new_tab", "close_tab", "next_tab",
                                  "previous_tab", "page_up", "page_down"]
}

public struct ActionPlanError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Intent → the step that carries it out. Pure: no programs run here.
public struct ActionPlanner: Sendable {
    public var settings: ActionSettings

    public init(settings: ActionSettings = ActionSettings()) {
        self.settings = settings
    }

    public func plan(_ intent: Intent) throws(ActionPlanError) -> ActionStep {
        let slots = intent.slots
        func string(_ name: String) -> String? {
            if case .string(let s)? = slots[name] { return s }
            return nil
        }
        func int(_ name: String, default value: Int) -> Int {
            switch slots[name] {
            case .int(let i)?: return i
            case .string(let s)?: return Int(s) ?? value
            case nil: return value
            }
        }
        if let custom = settings.custom[intent.name] {
            switch custom {
            case .keys(let chord):
                return .keys(chord, times: 1)
            case .run(let argv):
                return .run(argv: argv.map { Self.substitute(slots, in: $0) })
            }
        }
        switch intent.name {
        case "scroll":
            guard let direction = ScrollDirection(rawValue: string("direction") ?? "down") else {
                throw ActionPlanError(message: "scroll direction '\(string("direction") ?? "")' is not up, down, left or right")
            }
            let amount = min(max(int("amount", default: 1), 1), 100)
            if string("unit") == "page" {
                let name = direction == .up ? "page_up" : "page_down"
                return .keys(settings.keys[name]!, times: amount)
            }
            return .scroll(direction: direction, notches: amount * settings.scrollNotches)
        case "click":
            guard let button = MouseButton(rawValue: string("button") ?? "left") else {
                throw ActionPlanError(message: "mouse button '\(string("button") ?? "")' is not left, right or middle")
            }
            return .click(button: button, count: min(max(int("count", default: 1), 1), 3))
        case "navigate":
            let target = string("target") ?? ""
            if target == "url" {
                let url = string("url") ?? ""
                guard Self.isWebURL(url) else { throw ActionPlanError(message: "'\(url)' is not an http(s) URL") }
                return .open(url: url)
            }
            guard let chord = settings.keys[target] else {
                throw ActionPlanError(message: "no key chord is configured for navigate target '\(target)'")
            }
            return .keys(chord, times: 1)
        case "search":
            let query = string("query") ?? ""
            let url = settings.searchURL.replacingOccurrences(of: "{query}", with: Self.percentEncode(query))
            guard Self.isWebURL(url) else { throw ActionPlanError(message: "the search URL '\(url)' is not http(s)") }
            return .open(url: url)
        default:
            throw ActionPlanError(message: "no action is defined for intent '\(intent.name)'")
        }
    }

    /// Replaces every `{slot}` in one argv element by the slot's value.
    static func substitute(_ slots: [String: SlotValue], in element: String) -> String {
        var out = element
        for (name, value) in slots {
            out = out.replacingOccurrences(of: "{\(name)}", with: value.description)
        }
        return out
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters (so spaces, quotes, `$`, `;`, `&`,
    /// `#`, control characters and non-ASCII bytes can never change the URL's structure).
    public static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// An absolute http or https URL with a host and no whitespace or control characters.
    public static func isWebURL(_ text: String) -> Bool {
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
              let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else { return false }
        return true
    }
}
