import Foundation

/// `--actions`: how pointer and key events reach the desktop.
public enum ActionBackendChoice: String, Sendable, CaseIterable {
    case dryRun = "dry-run", xdotool, ydotool, auto
}

/// Turns pointer, wheel and key steps into a helper program's argv.
public protocol InputBackend: Sendable {
    var name: String { get }
    /// The argv for a click, scroll or key step; nil for steps that are not input events.
    func argv(for step: ActionStep) -> [String]?
}

/// X11, through xdotool (XTEST): acts on the window under the pointer / with the keyboard focus.
public struct XdotoolBackend: InputBackend {
    public let name = "xdotool"
    public init() {}

    public func argv(for step: ActionStep) -> [String]? {
        switch step {
        case .click(let button, let count):
            // 80 ms between clicks: well inside any double-click interval.
            return ["xdotool", "click", "--repeat", String(count), "--delay", "80", String(button.xButton)]
        case .scroll(let direction, let notches):
            return ["xdotool", "click", "--repeat", String(notches), "--delay", "15", String(direction.xButton)]
        case .keys(let chord, let times):
            return ["xdotool", "key", "--clearmodifiers", "--repeat", String(times), "--delay", "40", chord.description]
        case .open, .run:
            return nil
        }
    }
}

/// Wayland (and X11), through ydotool 1.x and its ydotoold daemon (uinput): Linux key codes, not keysyms.
public struct YdotoolBackend: InputBackend {
    public let name = "ydotool"
    public init() {}

    public func argv(for step: ActionStep) -> [String]? {
        switch step {
        case .click(let button, let count):
            // 0xC0 = press and release of button 0 (left); 1 right, 2 middle.
            let code: String
            switch button {
            case .left: code = "0xC0"
            case .right: code = "0xC1"
            case .middle: code = "0xC2"
            }
            return ["ydotool", "click", "--repeat", String(count), "--next-delay", "80", code]
        case .scroll(let direction, let notches):
            // Wheel mode: y > 0 scrolls up (REL_WHEEL), x > 0 scrolls right (REL_HWHEEL).
            let (x, y): (Int, Int)
            switch direction {
            case .up: (x, y) = (0, notches)
            case .down: (x, y) = (0, -notches)
            case .left: (x, y) = (-notches, 0)
            case .right: (x, y) = (notches, 0)
            }
            return ["ydotool", "mousemove", "--wheel", "-x", String(x), "-y", String(y)]
        case .keys(let chord, let times):
            let events = Array(repeating: chord.ydotoolKeyEvents, count: times).flatMap { $0 }
            return ["ydotool", "key", "--key-delay", "20"] + events
        case .open, .run:
            return nil
        }
    }
}

/// What happened to one intent's action (the `action` event's fields).
public struct ActionOutcome: Equatable, Sendable {
    public var name: String
    /// `dry-run`, `ok` or `failed`.
    public var status: String
    public var backend: String
    public var detail: String
}

/// Carries out intents. The pipeline calls it once per intent; it never throws: a failed action is an
/// outcome, and the listener goes on.
public protocol CommandProcessor: AnyObject {
    func perform(_ intent: Intent) -> ActionOutcome
}

/// The default processor: plans the step, then runs xdotool/ydotool, the URL opener or a configured
/// program, or only reports what it would do (dry-run).
public final class DesktopCommandProcessor: CommandProcessor {
    public let planner: ActionPlanner
    /// nil: dry-run, nothing is executed.
    public let backend: InputBackend?
    /// The URL opener's argv; the URL is appended as one more argument.
    public let opener: [String]
    let runner = HelperRunner()
    /// Seconds a helper may take (xdotool, ydotool, a configured program) before it is killed.
    public var helperTimeout = 5.0
    /// Seconds to wait for the opener; an opener still running then (it became the browser) is left alone.
    public var openerWait = 3.0

    public init(planner: ActionPlanner = ActionPlanner(), backend: InputBackend?, opener: [String] = ["xdg-open"]) {
        self.planner = planner
        self.backend = backend
        self.opener = opener.isEmpty ? ["xdg-open"] : opener
    }

    /// A processor that executes nothing.
    public static func dryRun(planner: ActionPlanner = ActionPlanner()) -> DesktopCommandProcessor {
        DesktopCommandProcessor(planner: planner, backend: nil)
    }

    /// `auto`: a Wayland session → ydotool, X11 → xdotool, neither → nil and a warning to report.
    public static func backend(for choice: ActionBackendChoice,
                               environment: [String: String] = ProcessInfo.processInfo.environment)
        -> (backend: InputBackend?, warning: String?) {
        switch choice {
        case .dryRun: return (nil, nil)
        case .xdotool: return (XdotoolBackend(), nil)
        case .ydotool: return (YdotoolBackend(), nil)
        case .auto:
            if !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty || environment["XDG_SESSION_TYPE"] == "wayland" {
                return (YdotoolBackend(), nil)
            }
            if !(environment["DISPLAY"] ?? "").isEmpty { return (XdotoolBackend(), nil) }
            return (nil, "No X11 or Wayland display was found (DISPLAY and WAYLAND_DISPLAY are unset), so actions are only reported (dry-run).")
        }
    }

    public func perform(_ intent: Intent) -> ActionOutcome {
        var outcome = ActionOutcome(name: intent.name, status: "dry-run", backend: backend?.name ?? "dry-run",
                                    detail: ActionDescription.describe(intent))
        let step: ActionStep
        do {
            step = try planner.plan(intent)
        } catch {
            outcome.status = "failed"
            outcome.detail = error.message
            return outcome
        }
        guard let backend else {
            if case .run(let argv) = step { outcome.detail = "run " + Self.shellQuoted(argv) }
            if case .keys(let chord, _) = step, planner.settings.custom[intent.name] != nil {
                outcome.detail = "keys \(chord)"
            }
            return outcome
        }
        // URLs go to the opener and configured programs run as they are; the rest is the input backend's.
        let helperArgv: [String]?
        var isOpener = false
        switch step {
        case .open(let url):
            helperArgv = opener + [url]
            outcome.backend = "opener"
            isOpener = true
        case .run(let argv):
            helperArgv = argv
            outcome.backend = "program"
        default:
            helperArgv = backend.argv(for: step)
        }
        guard let argv = helperArgv else {
            outcome.status = "failed"
            outcome.detail = "\(backend.name) cannot perform this step"
            return outcome
        }
        let result = runner.run(argv, timeout: isOpener ? openerWait : helperTimeout,
                                onTimeout: isOpener ? .leaveRunning : .kill)
        let shown = Self.shellQuoted(argv)
        switch result.status {
        case .exited(0):
            outcome.status = "ok"
            outcome.detail = shown
        case .stillRunning:
            outcome.status = "ok"
            outcome.detail = shown + " (still running)"
        case .exited(let code):
            outcome.status = "failed"
            outcome.detail = "\(argv[0]) exited with status \(code)" + (result.stderr.isEmpty ? "" : ": \(result.stderr)")
        case .signalled(let signal):
            outcome.status = "failed"
            outcome.detail = "\(argv[0]) was killed by signal \(signal)"
        case .timedOut:
            outcome.status = "failed"
            outcome.detail = "\(argv[0]) did not finish within \(helperTimeout) s and was stopped"
        case .notStarted(let why):
            outcome.status = "failed"
            outcome.detail = why
        }
        return outcome
    }

    /// argv for display only (never executed as a string): elements with special characters in single quotes.
    public static func shellQuoted(_ argv: [String]) -> String {
        argv.map { arg in
            let plain = !arg.isEmpty && arg.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || "-_./:=@%+,".unicodeScalars.contains($0)
            }
            return plain ? arg : "'" + arg.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}
