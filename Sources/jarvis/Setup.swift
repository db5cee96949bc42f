import ArgumentParser
import Foundation
import JarvisCore

/// How actions are carried out (replay with --execute, listen).
struct ActionOptions: ParsableArguments {
    @Option(name: .long, help: "How clicks, scrolls and key chords are sent: dry-run, xdotool (X11), ydotool (Wayland) or auto (default, or the config's 'actions').")
    var actions: String?

    @Option(name: .long, help: "Program that opens URLs (default xdg-open, or the config's 'opener'); the URL is its last argument.")
    var opener: String?

    func validate() throws {
        if let actions, ActionBackendChoice(rawValue: actions) == nil {
            throw ValidationError("--actions must be one of dry-run, xdotool, ydotool, auto.")
        }
        if let opener, opener.isEmpty { throw ValidationError("--opener must name a program.") }
    }
}

/// Everything a run needs, from the config file and the options (options win over the file).
struct RunSetup {
    let config: JarvisConfig
    let settings: PipelineSettings
    let commands: CommandSet

    /// Loads the config and checks the model; on a problem prints it (stderr and an `error` event) and exits
    /// (2 for the config, 4 for the model).
    static func load(_ common: CommonOptions) throws -> RunSetup {
        let printer = EventPrinter(json: common.json)
        // PocketSphinx ends the process on some broken models (exit 1, nothing said): report it as a recogniser
        // failure first.
        let json = common.json
        SphinxLog.onFatal { message in
            fail(fatalMessage(message), code: "recogniser", status: ExitStatus.recogniser, printer: EventPrinter(json: json))
        }
        switch try make(common) {
        case .success(let setup):
            return setup
        case .failure(.config(let problems)):
            failConfig(problems, printer: printer)
        case .failure(.model(let problem, let code)):
            fail(problem, code: code, status: ExitStatus.recogniser, printer: printer)
        }
    }

    enum Problem: Error, CustomStringConvertible {
        case config([ConfigDiagnostic])
        /// "model-missing" or "model-invalid" (a damaged file).
        case model(String, code: String)
        var description: String {
            switch self {
            case .config(let p): return p.map(\.description).joined(separator: "; ")
            case .model(let m, _): return m
            }
        }
    }

    /// The setup, or what is wrong with the config or the model (a reload keeps the old setup then).
    static func make(_ common: CommonOptions) throws -> Result<RunSetup, Problem> {
        var config = JarvisConfig()
        if let path = common.config ?? JarvisConfig.defaultPath() {
            let (loaded, problems) = ConfigLoader.load(path: path)
            if !problems.isEmpty { return .failure(.config(problems)) }
            config = loaded
        }
        let settings = try common.settings(config: config)
        if let problem = settings.recognizer.model.problem() { return .failure(.model(problem, code: "model-missing")) }
        if let damage = ModelCheck.problem(settings.recognizer.model) {
            return .failure(.model(damage, code: "model-invalid"))
        }
        // The built-in commands and wake phrases are known to be in Debian's dictionary; the check reads it whole.
        if !config.customCommands.isEmpty || config.sites != CommandSet.defaultSites
            || !["hey jarvis", "jarvis"].contains(settings.wakePhrase) {
            let missing = ConfigCheck.missingWords(config, dictionaryPath: settings.recognizer.model.dictionary,
                                                   wakePhraseOption: common.wakePhrase)
            if !missing.isEmpty { return .failure(.config(missing)) }
        }
        return .success(RunSetup(config: config, settings: settings, commands: config.commandSet()))
    }

    /// The command processor: dry-run unless `execute`; the backend from --actions, the config, or auto.
    func processor(_ options: ActionOptions, execute: Bool, warn: (Event) -> Void) -> CommandProcessor {
        let planner = ActionPlanner(settings: config.action)
        guard execute else { return DesktopCommandProcessor.dryRun(planner: planner) }
        let choice = options.actions.flatMap(ActionBackendChoice.init(rawValue:)) ?? config.actions ?? .auto
        let (backend, warning) = DesktopCommandProcessor.backend(for: choice)
        if let warning { warn(Event(t: 0, .warning(code: "no-display", message: warning))) }
        let opener = options.opener.map { [$0] } ?? config.opener ?? ["xdg-open"]
        return DesktopCommandProcessor(planner: planner, backend: backend, opener: opener)
    }

    static func failConfig(_ problems: [ConfigDiagnostic], printer: EventPrinter) -> Never {
        for p in problems {
            printer.print(Event(t: 0, .error(code: "config", message: p.description)))
            FileHandle.standardError.write(Data(("jarvis: " + p.description + "\n").utf8))
        }
        if problems.count > 1 || problems.first?.line != 0 {
            FileHandle.standardError.write(Data("jarvis: fix the config (jarvis check-config lists every problem).\n".utf8))
        }
        Foundation.exit(ExitStatus.usage)
    }

    /// The error for a fatal line of sphinxbase's (`SphinxLog.onFatal`).
    static func fatalMessage(_ message: String) -> String { "The recogniser failed: PocketSphinx stopped: \(message)." }

    /// Reports `message` (stderr and an `error` event at audio time `t`) and exits with `status`.
    static func fail(_ message: String, code: String, status: Int32, printer: EventPrinter, source: String? = nil,
                     t: Double = 0) -> Never {
        printer.print(Event(t: t, .error(code: code, message: message), source: source))
        FileHandle.standardError.write(Data(("jarvis: " + message + "\n").utf8))
        Foundation.exit(status)
    }
}

extension Jarvis {
    struct CheckConfig: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-config",
            abstract: "Validate a config file: unknown keys, bad values, words the recogniser does not know, duplicate phrases.",
            discussion: "Each problem is printed as FILE:LINE: message. Exit 0 when the file is valid, 2 when it is not.")

        @Argument(help: "The config file (default: $XDG_CONFIG_HOME/jarvis/config.yaml).")
        var file: String?

        @Option(name: .long, help: "PocketSphinx model folder whose dictionary the phrases are checked against.")
        var model = "/usr/share/pocketsphinx/model/en-us"

        func run() throws {
            guard let path = file ?? JarvisConfig.defaultPath() else {
                FileHandle.standardError.write(Data("jarvis: no config file was given and $XDG_CONFIG_HOME/jarvis/config.yaml does not exist.\n".utf8))
                throw ExitCode(ExitStatus.usage)
            }
            var (config, problems) = ConfigLoader.load(path: path)
            if problems.isEmpty || problems.allSatisfy({ $0.line > 0 }) {
                problems += ConfigCheck.missingWords(config, dictionaryPath: ModelPaths(root: model).dictionary)
                problems += ConfigCheck.duplicates(config)
            }
            if problems.isEmpty {
                print("\(path): OK (\(config.customCommands.count) custom commands, \(config.sites.count) sites, "
                      + "\(config.pronunciations.count) words)")
                return
            }
            for p in problems.sorted(by: { $0.line < $1.line }) { print(p.description) }
            FileHandle.standardError.write(Data("jarvis: \(path) has \(Wording.counted(problems.count, "problem")).\n".utf8))
            throw ExitCode(ExitStatus.usage)
        }
    }
}
