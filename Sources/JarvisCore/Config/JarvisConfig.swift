import Foundation

/// The user's configuration (`$XDG_CONFIG_HOME/jarvis/config.yaml` or `--config FILE`). Every field has a
/// default, so an empty file is a valid config. Command-line options win over the file.
public struct JarvisConfig: Sendable {
    /// The file it was read from (nil: defaults only).
    public var path: String?
    public var wakePhrase: String?
    /// Seconds after a lone wake phrase during which a command is accepted.
    public var followUpWindow: Double?
    /// `wake_threshold`: the wake phrase's verification bar in quiet (nats per 10 ms frame of the name over free
    /// speech; `RecognizerSettings.setWakeThreshold`). nil: the default (0.8).
    public var wakeThreshold: Double?
    public var actions: ActionBackendChoice?
    /// URL opener argv (the URL is appended).
    public var opener: [String]?
    public var action = ActionSettings()
    /// "open <site>": spoken name → http(s) URL.
    public var sites: [String: String] = CommandSet.defaultSites
    /// `words`: pronunciations (CMU phones) of words the model's dictionary lacks, or other ways to say one.
    public var pronunciations: [String: [String]] = [:]
    public var customSlots: [String: [String: SlotValue]] = [:]
    public var customCommands: [CustomCommand] = []

    public init() {}

    /// The command set: built-in commands (with the configured sites) followed by the custom ones.
    public func commandSet() -> CommandSet {
        var set = CommandSet.builtin(sites: sites)
        for (name, values) in customSlots { set.slots[name] = .list(values) }
        for c in customCommands { set.commands.append(c.definition) }
        return set
    }

    /// The default config file: `$XDG_CONFIG_HOME/jarvis/config.yaml` (or `config.yml`), if it exists.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let base: String
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], !home.isEmpty {
            base = home + "/.config"
        } else {
            return nil
        }
        for name in ["config.yaml", "config.yml"] {
            let path = "\(base)/jarvis/\(name)"
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        return nil
    }
}

/// A custom command from the config file.
public struct CustomCommand: Sendable {
    /// The intent name it produces (a built-in one when it maps onto a built-in action).
    public let name: String
    public let definition: CommandDefinition
    /// Line of the command in the config file (1-based).
    public let line: Int
}

/// A problem found in a config file, with where it is.
public struct ConfigDiagnostic: Error, Equatable, Sendable, CustomStringConvertible {
    public let file: String
    /// 1-based line; 0 when the problem concerns the whole file.
    public let line: Int
    public let message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `config.yaml:12: message` (the form compilers use, so editors can jump to it).
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}
