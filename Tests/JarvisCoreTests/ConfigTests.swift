import Foundation
import XCTest
@testable import JarvisCore

final class ConfigTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let dictionary = ModelPaths.debianDefault.dictionary

    func parse(_ yaml: String) -> (JarvisConfig, [ConfigDiagnostic]) {
        ConfigLoader.parse(yaml, file: "test.yaml")
    }

    /// The problems as "line: message" for compact assertions.
    func problems(_ yaml: String) -> [String] {
        parse(yaml).1.map { "\($0.line): \($0.message)" }
    }

    func testExampleConfigInTheRepoIsValid() throws {
        let path = Self.root.appendingPathComponent("docs/config.example.yaml").path
        let (config, diagnostics) = ConfigLoader.load(path: path)
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(ConfigCheck.missingWords(config, dictionaryPath: dictionary), [])
        XCTAssertEqual(ConfigCheck.duplicates(config), [])
        XCTAssertEqual(config.actions, .auto)
        XCTAssertEqual(config.wakeThreshold, 0.8)
        XCTAssertEqual(config.action.searchURL, "https://duckduckgo.com/?q={query}")
        XCTAssertEqual(config.sites["hacker news"], "https://news.ycombinator.com/")
        XCTAssertNil(config.sites["twitter"], "a site set to ~ is removed")
        XCTAssertEqual(config.action.keys["next_tab"]?.description, "ctrl+Next")
        XCTAssertEqual(config.customCommands.map(\.name), ["launch", "volume", "set_volume", "save", "scroll", "scroll"])
        XCTAssertEqual(config.pronunciations, ["netflix": ["N EH T F L IH K S"], "gif": ["G IH F", "JH IH F"]])
    }

    /// `wake_threshold` is the wake phrase's bar in quiet; the bar under steady noise moves with it (keeping its
    /// fall), and a value outside 0.3–1.5 or not a number is a problem with its line.
    func testWakeThresholdMovesBothBars() throws {
        let (config, diagnostics) = parse("wake_threshold: 0.6\n")
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(config.wakeThreshold, 0.6)
        var settings = RecognizerSettings()
        let fall = settings.wakeThreshold - settings.noisyWakeThreshold
        settings.setWakeThreshold(try XCTUnwrap(config.wakeThreshold))
        XCTAssertEqual(settings.wakeThreshold, 0.6)
        XCTAssertEqual(settings.noisyWakeThreshold, 0.6 - fall, accuracy: 1e-12)
        XCTAssertEqual(problems("wake_threshold: 0.1\n"), ["1: wake_threshold must be between 0.3 and 1.5"])
        XCTAssertEqual(problems("wake_threshold: low\n"), ["1: wake_threshold must be a number"])
        XCTAssertEqual(problems("wake_treshold: 0.6\n"), ["1: unknown setting 'wake_treshold' (did you mean 'wake_threshold'?)"])
    }

    /// espeak-ng's IPA as the model's phones: digraphs before their letters, stress and length marks dropped, a
    /// flap or glottal stop as "T", a syllabic consonant after an "AH"; nothing for a symbol it does not know.
    func testIPABecomesTheModelsPhones() {
        let cases: [(String, String?)] = [
            ("nˈɛtflɪks", "N EH T F L IH K S"), ("dʒˈɑːɹvɪs", "JH AA R V IH S"), ("tʃˈɜːtʃ", "CH ER CH"),
            ("wˈɔːɾɚ", "W AO T ER"), ("bˈʌʔn̩", "B AH T AH N"), ("lɪŋkt ˈɪn", "L IH NG K T IH N"),
            ("ɐbˈaʊt", "AH B AW T"), ("bˈɔɪ", "B OY"), ("stˈækoʊvɚflˌoʊ", "S T AE K OW V ER F L OW"),
            ("θˈɪŋk", "TH IH NG K"), ("mˈɛʒɚ", "M EH ZH ER"), ("jˈuːtuːb", "Y UW T UW B"),
            ("kˈʌx", nil), ("", nil), ("ˈ ", nil), ("n̩", "AH N"), ("̩n", nil),
        ]
        for (ipa, phones) in cases {
            XCTAssertEqual(PhoneSuggestion.phones(fromIPA: ipa)?.joined(separator: " "), phones, ipa)
        }
    }

    /// A word missing from the dictionary comes with espeak-ng's phones for it (a test dependency), which
    /// `words` takes as they are; without espeak-ng, or when it fails, no suggestion. The helper gets 30 s here,
    /// not check-config's 3: on a loaded machine (a CI run, 2026-12-02) the first call outlived 3 s and gave none.
    func testAMissingWordComesWithEspeaksPhones() throws {
        XCTAssertEqual(PhoneSuggestion.suggest(for: "netflix", timeout: 30), "N EH T F L IH K S")
        XCTAssertEqual(PhoneSuggestion.suggest(for: "tiktok", timeout: 30), "T IH K T AA K")
        XCTAssertNil(PhoneSuggestion.suggest(for: "netflix", espeak: nil))
        XCTAssertNil(PhoneSuggestion.suggest(for: "netflix", espeak: "/bin/false"))
        let (config, _) = parse("sites: {tiktok: \"https://www.tiktok.com/\"}")
        let missing = ConfigCheck.missingWords(config, dictionaryPath: dictionary)
        XCTAssertEqual(missing.count, 1)
        XCTAssertTrue(missing.first?.message.contains("(espeak-ng says tiktok: T IH K T AA K; closest: ") == true,
                      missing.first?.message ?? "")
        let (fixed, problems) = parse("sites: {tiktok: \"https://www.tiktok.com/\"}\nwords: {tiktok: T IH K T AA K}")
        XCTAssertEqual(problems, [])
        XCTAssertEqual(ConfigCheck.missingWords(fixed, dictionaryPath: dictionary), [])
    }

    /// `words`: a word said as one or more strings of the model's phones (any case), each word on its own; a word
    /// the dictionary lacks is no longer missing once it has one.
    func testWordsGivePronunciations() throws {
        let (config, diagnostics) = parse("""
        sites: {netflix: "https://www.netflix.com/", tik tok: "https://www.tiktok.com/"}
        words:
          Netflix: n eh t f l ih k s
          gif: [G IH F, "JH  IH F"]
        """)
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(config.pronunciations, ["netflix": ["N EH T F L IH K S"], "gif": ["G IH F", "JH IH F"]])
        XCTAssertEqual(ConfigCheck.missingWords(config, dictionaryPath: dictionary, suggest: { _ in nil }).map(\.message),
                       ["'tik' is not in the pronunciation dictionary, so it cannot be recognised until the config's words give its phones (closest: nik, pik, tak)",
                        "'tok' is not in the pronunciation dictionary, so it cannot be recognised until the config's words give its phones (closest: bok, hok, kok)"])
        var without = config
        without.pronunciations = [:]
        XCTAssertEqual(ConfigCheck.missingWords(without, dictionaryPath: dictionary, suggest: { _ in nil }).map { String($0.message.prefix(9)) },
                       ["'netflix'", "'tik' is ", "'tok' is "])
        XCTAssertEqual(problems("""
        words:
          tik tok: T IH K T AA K
          netflix: N EH T F L IH X S
          gif: [G IH F, ""]
          meme: {a: b}
        """), ["2: 'tik tok' must be one word (give each word of a phrase its own entry)",
               "3: 'X' in the phones of 'netflix' is not a phone of the model (\(GrammarGenerator.phones.joined(separator: " ")))",
               "4: the phones of 'gif' are empty",
               "5: the phones of 'meme' must be text"])
        XCTAssertEqual(problems("words: netflix"), ["1: words must map a word to its phones (\"N EH T F L IH K S\")"])
    }

    func testEmptyFileIsTheDefaults() {
        let (config, diagnostics) = parse("")
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(config.sites, CommandSet.defaultSites)
        XCTAssertEqual(config.action, ActionSettings())
    }

    /// A custom command that starts like a search only the language model hears ("find <query>",
    /// `CommandDefinition.languageModelOnly`) stays the config's: those built-ins are parsed last.
    func testACustomCommandComesBeforeALeadOnlyTheLanguageModelHears() throws {
        let (config, diagnostics) = parse("""
        commands:
          - say: find my phone
            run: [kdeconnect-cli, --ring]
        """)
        XCTAssertEqual(diagnostics, [])
        let set = config.commandSet()
        XCTAssertEqual(set.parse(text: "find my phone")?.name, "find_my_phone")
        XCTAssertEqual(set.parse(text: "find my keys")?.slots["query"], .string("my keys"))
        XCTAssertTrue(set.grammarCommands.vocabulary.isSuperset(of: ["find", "phone"]),
                      "the config's words are the grammar's")
    }

    func testCustomCommandsExtendTheCommandSet() throws {
        let (config, diagnostics) = parse("""
        slots:
          app: {terminal: x-terminal-emulator, files: nautilus}
        commands:
          - name: launch
            say: "(launch | start) [the] <app>"
            run: ["{app}", --new-window]
          - say: save the file
            keys: ctrl+s
          - say: "scroll way <direction>"
            intent: scroll
            with: {direction: "{direction}", amount: 10}
        """)
        XCTAssertEqual(diagnostics, [])
        let set = config.commandSet()
        let launch = try XCTUnwrap(set.parse(text: "start the terminal"))
        XCTAssertEqual(launch.name, "launch")
        XCTAssertEqual(launch.slots["app"], .string("x-terminal-emulator"))
        XCTAssertEqual(try ActionPlanner(settings: config.action).plan(launch), .run(argv: ["x-terminal-emulator", "--new-window"]))
        let save = try XCTUnwrap(set.parse(text: "save the file"))
        XCTAssertEqual(save.name, "save_the_file", "the default name is the phrase's fixed words")
        XCTAssertEqual(try ActionPlanner(settings: config.action).plan(save), .keys(try KeyChord(parsing: "ctrl+s"), times: 1))
        let way = try XCTUnwrap(set.parse(text: "scroll way up"))
        XCTAssertEqual(way.name, "scroll")
        XCTAssertEqual(way.slots["amount"], .int(10))
        XCTAssertEqual(try ActionPlanner(settings: config.action).plan(way), .scroll(direction: .up, notches: 30))
        XCTAssertEqual(set.parse(text: "scroll down")?.slots["amount"], .int(1), "built-ins still work")
        // The grammar the recogniser is built from includes the new words.
        XCTAssertTrue(set.vocabulary.isSuperset(of: ["launch", "terminal", "save", "way"]))
    }

    func testEachProblemIsReportedWithItsLine() {
        let found = problems("""
        wake_phrse: jarvis
        actions: telepathy
        follow_up_window: 500
        search_url: "ftp://example.org/?q={query}"
        sites:
          evil: "javascript:alert(1)"
        keys:
          bak: alt+Left
          forward: alt+Nope
        commands:
          - say: "open <thing>"
            run: [echo]
          - say: "frob it"
          - say: "two actions"
            run: [echo]
            keys: ctrl+a
          - say: "shell string"
            run: "rm -rf /tmp/x"
          - say: "typo field"
            rum: [echo]
          - name: scroll
            say: "roll it"
            run: [echo]
          - say: "[unclosed"
            run: [echo]
          - say: "echo it"
            run: [echo, "{missing}"]
          - say: "volume 5"
            run: [echo]
        """)
        func has(_ line: Int, _ fragment: String, file: StaticString = #filePath, lineNumber: UInt = #line) {
            XCTAssertTrue(found.contains { $0.hasPrefix("\(line): ") && $0.contains(fragment) },
                          "expected line \(line) to mention \"\(fragment)\" in:\n\(found.joined(separator: "\n"))",
                          file: file, line: lineNumber)
        }
        has(1, "unknown setting 'wake_phrse' (did you mean 'wake_phrase'?)")
        has(2, "actions must be one of")
        has(3, "between")
        has(4, "http")
        has(6, "site 'evil'")
        has(8, "unknown key action 'bak' (did you mean 'back'?)")
        has(9, "'Nope' is not a key name")
        has(11, "slot <thing>")
        has(13, "says nothing to do")
        has(14, "only one of run, keys or intent")
        has(18, "list")
        has(20, "unknown command field 'rum' (did you mean 'run'?)")
        has(21, "built-in intent")
        has(24, "[unclosed")
        has(27, "{missing}")
        has(28, "not a word")
    }

    func testInvalidYAMLReportsItsLine() {
        let found = parse("sites:\n  a: https://a.org/\n  b: [unclosed\n").1
        XCTAssertEqual(found.count, 1)
        XCTAssertGreaterThanOrEqual(found.first?.line ?? 0, 3)
        XCTAssertTrue(found.first?.message.contains("not valid YAML") ?? false)
        XCTAssertEqual(parse("- just\n- a list\n").1.first?.message, "the config must be a mapping of settings (key: value)")
    }

    /// `--config /dev/null` runs with the defaults (a device reads as empty); an endless one is cut off.
    func testADeviceAsTheConfigFile() {
        let (config, found) = ConfigLoader.load(path: "/dev/null")
        XCTAssertEqual(found, [])
        XCTAssertEqual(config.sites, CommandSet.defaultSites)
        let (_, endless) = ConfigLoader.load(path: "/dev/zero")
        XCTAssertEqual(endless.map(\.message), ["the config file is larger than 4 MB; a config is a few lines of YAML"])
    }

    func testMissingFileIsOneClearProblem() {
        let (_, found) = ConfigLoader.load(path: "/nonexistent/jarvis.yaml")
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(found[0].description.hasPrefix("/nonexistent/jarvis.yaml: "), found[0].description)
    }

    func testWordsMissingFromTheDictionaryComeWithSuggestions() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: dictionary), "pocketsphinx-en-us is not installed")
        let (config, diagnostics) = parse("""
        commands:
          - say: "open the frobnicator"
            run: [echo]
          - say: "scrol down"
            run: [echo]
        """)
        XCTAssertEqual(diagnostics, [])
        let missing = ConfigCheck.missingWords(config, dictionaryPath: dictionary)
        XCTAssertEqual(missing.map(\.line), [2, 4])
        XCTAssertTrue(missing[0].message.contains("'frobnicator' is not in the pronunciation dictionary"), missing[0].message)
        XCTAssertTrue(missing[1].message.contains("'scrol'") && missing[1].message.contains("scroll"), missing[1].message)
    }

    /// A wake phrase with a word the dictionary lacks could never wake: reported against the config, or against
    /// `--wake-phrase` when the command line gives it.
    func testAWakePhraseWordMissingFromTheDictionaryIsReported() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: dictionary), "pocketsphinx-en-us is not installed")
        let (config, diagnostics) = parse("wake_phrase: hey jarvix\n")
        XCTAssertEqual(diagnostics, [])
        let fromConfig = ConfigCheck.missingWords(config, dictionaryPath: dictionary)
        XCTAssertEqual(fromConfig.count, 1)
        XCTAssertTrue(fromConfig[0].message.hasPrefix("'jarvix' is not in the pronunciation dictionary"), fromConfig[0].message)
        XCTAssertNotEqual(fromConfig[0].file, "--wake-phrase")
        let fromOption = ConfigCheck.missingWords(config, dictionaryPath: dictionary, wakePhraseOption: "hello computer")
        XCTAssertEqual(fromOption, [], "the option's phrase takes the config's place")
        let badOption = ConfigCheck.missingWords(JarvisConfig(), dictionaryPath: dictionary, wakePhraseOption: "hey zzyzxq")
        XCTAssertEqual(badOption.map(\.description).first?.hasPrefix("--wake-phrase: 'zzyzxq' is not in the pronunciation dictionary"), true,
                       badOption.map(\.description).joined())
    }

    func testCommandsThatSayTheSameWordsAreReported() {
        let (config, diagnostics) = parse("""
        commands:
          - say: "go back"
            keys: alt+Left
          - say: "(launch | start) the browser"
            run: [firefox]
          - say: "start the browser [now]"
            run: [chromium]
        """)
        XCTAssertEqual(diagnostics, [])
        let dups = ConfigCheck.duplicates(config)
        XCTAssertEqual(dups.map(\.line), [2, 6])
        XCTAssertTrue(dups[0].message.contains("\"go back\"") && dups[0].message.contains("built-in navigate"), dups[0].message)
        XCTAssertTrue(dups[1].message.contains("\"start the browser\"") && dups[1].message.contains("line 4"), dups[1].message)
    }

    func testPatternExpansions() throws {
        let p = try PhrasePattern("[please] (open | show) [the] <site>")
        XCTAssertEqual(p.expansions()?.count, 8)
        XCTAssertTrue(p.expansions()?.contains(["please", "show", "the", "<site>"]) ?? false)
        XCTAssertNil(try PhrasePattern("[a] [b] [c] [d] [e] [f]").expansions(limit: 10))
    }
}
