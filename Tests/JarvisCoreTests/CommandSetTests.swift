import XCTest
@testable import JarvisCore

final class CommandSetTests: XCTestCase {
    let set = CommandSet.builtin()

    func intent(_ text: String) -> Intent? { set.parse(text: text) }

    func testScrollPhrases() {
        XCTAssertEqual(intent("scroll down")?.slots, ["direction": .string("down"), "amount": .int(1)])
        XCTAssertEqual(intent("scroll up five")?.slots, ["direction": .string("up"), "amount": .int(5)])
        XCTAssertEqual(intent("please scroll left three times")?.slots["amount"], .int(3))
        XCTAssertEqual(intent("page down")?.slots["direction"], .string("down"))
        XCTAssertEqual(intent("page down")?.name, "scroll")
    }

    func testClickPhrases() {
        XCTAssertEqual(intent("click")?.slots, ["button": .string("left"), "count": .int(1)])
        XCTAssertEqual(intent("double click")?.slots, ["button": .string("left"), "count": .int(2)])
        XCTAssertEqual(intent("right click")?.slots, ["button": .string("right"), "count": .int(1)])
        XCTAssertEqual(intent("click the mouse")?.slots["count"], .int(1))
        XCTAssertEqual(intent("triple click")?.slots["count"], .int(3))
    }

    func testNavigatePhrases() {
        let targets = ["go back": "back", "go forward": "forward", "go home": "home", "refresh": "reload",
                       "refresh the page": "reload", "new tab": "new_tab", "close tab": "close_tab",
                       "next tab": "next_tab", "go to the next tab": "next_tab", "previous tab": "previous_tab"]
        for (text, target) in targets {
            XCTAssertEqual(intent(text)?.name, "navigate", text)
            XCTAssertEqual(intent(text)?.slots["target"], .string(target), text)
        }
        let open = intent("open youtube")
        XCTAssertEqual(open?.slots["target"], .string("url"))
        XCTAssertEqual(open?.slots["url"], .string("https://www.youtube.com/"))
    }

    func testSearchTakesTheRestAsQuery() {
        XCTAssertEqual(intent("search for pizza recipes")?.slots["query"], .string("pizza recipes"))
        XCTAssertEqual(intent("look up tomato soup")?.slots["query"], .string("tomato soup"))
        XCTAssertEqual(intent("search for")?.name, nil, "a search needs words to search for")
    }

    func testNonCommandsDoNotParse() {
        for text in ["what a lovely day", "scroll", "click click", "open the door", "scroll down the stairs"] {
            XCTAssertNil(intent(text), text)
        }
    }

    func testPatternSyntaxErrors() {
        XCTAssertThrowsError(try PhrasePattern("scroll [down"))
        XCTAssertThrowsError(try PhrasePattern("scroll down]"))
        XCTAssertThrowsError(try PhrasePattern("open <bad name>"))
        XCTAssertThrowsError(try PhrasePattern(""))
        XCTAssertThrowsError(try PhrasePattern("go $(rm)"))
    }

    func testGrammarHasEveryCommandWordAndPhoneLoop() {
        let jsgf = GrammarGenerator(commands: set).wakeGrammar(wakeWords: ["hey", "jarvis"], noWakeWeight: 1)
        XCTAssertTrue(jsgf.hasPrefix("#JSGF V1.0;"))
        XCTAssertTrue(jsgf.contains("public <utterance> = /1/ [<phone_lead>+] hey jarvis [<tail>] | /1/ <phone_nowake>+;"))
        for word in set.vocabulary { XCTAssertTrue(jsgf.contains(word), word) }
        XCTAssertTrue(jsgf.contains("ph_jh"))
        XCTAssertTrue(jsgf.contains("<slot_query> = <phone_query>+;"))
    }

    func testEveryGrammarWordHasAPronunciation() throws {
        let dict = ModelPaths.debianDefault.dictionary
        try XCTSkipUnless(FileManager.default.fileExists(atPath: dict), "pocketsphinx-en-us is not installed")
        let d = try GrammarDictionary(vocabulary: set.vocabulary.union(["hey", "jarvis"]), from: dict)
        XCTAssertEqual(d.missing, [])
        XCTAssertTrue(d.text.contains("jarvis JH AA R V AH S"))
        XCTAssertTrue(d.text.contains("ph_aa AA"))
    }
}
