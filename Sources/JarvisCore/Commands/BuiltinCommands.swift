extension CommandSet {
    /// Spoken numbers one…twenty.
    static let numbers: [String: SlotValue] = {
        let names = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                     "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
                     "twenty"]
        var d: [String: SlotValue] = [:]
        for (i, n) in names.enumerated() { d[n] = .int(i + 1) }
        return d
    }()

    /// Sites "open <site>" knows, spoken name → URL.
    public static let defaultSites: [String: String] = [
        "youtube": "https://www.youtube.com/",
        "github": "https://github.com/",
        "google": "https://www.google.com/",
        "wikipedia": "https://en.wikipedia.org/",
        "reddit": "https://www.reddit.com/",
        "gmail": "https://mail.google.com/",
        "amazon": "https://www.amazon.com/",
        "twitter": "https://twitter.com/",
        "facebook": "https://www.facebook.com/",
        "google maps": "https://maps.google.com/",
    ]

    /// The words that, followed by "you", open any built-in command as a request ("can you scroll down").
    public static let requestOpeners = ["can", "could"]

    /// The built-in commands of DESIGN.md's intent table.
    public static func builtin(sites: [String: String] = defaultSites) -> CommandSet {
        let s = SlotValue.string
        let slots: [String: SlotKind] = [
            "direction": .list(["up": s("up"), "down": s("down"), "left": s("left"), "right": s("right")]),
            "number": .list(numbers),
            "page_direction": .list(["up": s("up"), "down": s("down")]),
            "button": .list(["left": s("left"), "right": s("right"), "middle": s("middle")]),
            "multiple": .list(["double": .int(2), "triple": .int(3)]),
            "repeat": .list(["twice": .int(2), "three times": .int(3)]),
            "site": .list(sites.mapValues { s($0) }),
            "query": .freeText,
        ]
        let polite = "[please | " + requestOpeners.map { "\($0) you [please]" }.joined(separator: " | ") + "]"
        // "next tab please": a command may end politely too (not a search: its query runs to the end).
        let politeEnd = "[please]"
        // Everyday words the grammar would otherwise fit to its nearest words, for a wrong action: "by three"
        // was "nine", "again" "ten", "some more" "seven", "single click" a double click, "open google dot com"
        // a search for "dot com", "a lot" "eleven", "click twice" one click, "scroll all the way down" up twenty;
        // "scroll down twice" four times. Not "scroll a bit down" (up), "go down" or "move down" (back, another tab):
        // babble's "scroll up" became "scroll a little left", "go home" "go down", "new tab" "move left"
        // (docs/accuracy.md, stop 69).
        // `try!`: these literals are part of the program; a typo is a programming error caught by every test.
        let commands: [CommandDefinition] = try! [
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) scroll [the page] <direction> [[by] <number> [times]] \(politeEnd)",
                "\(polite) scroll <direction> [the page | a bit | a little | [a little | some] more | again] \(politeEnd)",
                "\(polite) scroll to the <direction> \(politeEnd)",
            ], defaults: ["amount": .int(1)], renames: ["number": "amount"]),
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) scroll [the page] <direction> twice \(politeEnd)",
            ], fixed: ["amount": .int(2)]),
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) scroll [the page] <direction> a lot \(politeEnd)",
            ], fixed: ["amount": .int(5)]),
            // "All the way" is as far as a spoken amount goes (twenty). Not "scroll way down": the example config
            // (docs/config.example.yaml) makes that a command of its own.
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) scroll all the way <direction> \(politeEnd)",
                "\(polite) scroll <direction> all the way \(politeEnd)",
            ], fixed: ["amount": .int(20)]),
            // The page's ends: as far as a spoken amount goes, as "all the way".
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) scroll [up] to the top [of the page] \(politeEnd)",
            ], fixed: ["direction": s("up"), "amount": .int(20)]),
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) scroll [down] to the bottom [of the page] \(politeEnd)",
            ], fixed: ["direction": s("down"), "amount": .int(20)]),
            // "go to the top", "jump to the bottom of the page": taken only when the language model heard the whole
            // command; in the grammar flite awb's "open youtube" under babble became "go to the bottom please".
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) (go | jump) to the top [of the page] \(politeEnd)",
            ], fixed: ["direction": s("up"), "amount": .int(20)], languageModelOnly: true),
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) (go | jump) to the bottom [of the page] \(politeEnd)",
            ], fixed: ["direction": s("down"), "amount": .int(20)], languageModelOnly: true),
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) page <page_direction> \(politeEnd)",
                "\(polite) scroll <page_direction> (a page | one page) \(politeEnd)",
            ], fixed: ["unit": s("page")], defaults: ["amount": .int(1)], renames: ["page_direction": "direction"]),
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) page <page_direction> twice \(politeEnd)",
            ], fixed: ["unit": s("page"), "amount": .int(2)], renames: ["page_direction": "direction"]),
            // "go down", "go up (a page)": not in the grammar ("go home" became "go down" there, stop 69); the
            // language model's words, or the twin test against the "go back" the grammar heard, take them
            // (`RecognizerSettings.languageModelOnlyTwins`).
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) go <page_direction> \(politeEnd)",
            ], defaults: ["amount": .int(1)], renames: ["page_direction": "direction"], languageModelOnly: true),
            CommandDefinition(intent: "scroll", patterns: [
                "\(polite) go <page_direction> (a page | one page) \(politeEnd)",
            ], fixed: ["unit": s("page"), "amount": .int(1)], renames: ["page_direction": "direction"],
               languageModelOnly: true),
            CommandDefinition(intent: "click", patterns: [
                "\(polite) [mouse | single] click [the mouse] \(politeEnd)",
                "\(polite) <button> click [the mouse] \(politeEnd)",
                "\(polite) <multiple> click [the mouse] \(politeEnd)",
                "\(polite) <button> <multiple> click [the mouse] \(politeEnd)",
            ], defaults: ["button": s("left"), "count": .int(1)], renames: ["multiple": "count"]),
            CommandDefinition(intent: "click", patterns: [
                "\(polite) [<button>] click [the mouse] <repeat> \(politeEnd)",
            ], defaults: ["button": s("left")], renames: ["repeat": "count"]),
            // "click on it", "click here": taken only when the language model heard the whole command
            // (`CommandDefinition.languageModelOnly`); in the grammar "click here" fitted other speech
            // ("make the text bigger please" → "middle triple click here please").
            CommandDefinition(intent: "click", patterns: [
                "\(polite) click (on (it | this | that) | here) \(politeEnd)",
            ], fixed: ["button": s("left"), "count": .int(1)], languageModelOnly: true),
            CommandDefinition(intent: "navigate", patterns: [
                "\(polite) go back [a page | one page] \(politeEnd)", "\(polite) back \(politeEnd)",
                "\(polite) take me back \(politeEnd)", "\(polite) [go to the] previous page \(politeEnd)",
            ], fixed: ["target": s("back")]),
            CommandDefinition(intent: "navigate", patterns: [
                "\(polite) go forward [a page | one page] \(politeEnd)", "\(polite) forward \(politeEnd)",
            ], fixed: ["target": s("forward")]),
            CommandDefinition(intent: "navigate", patterns: [
                "\(polite) (go | take me) home \(politeEnd)", "\(polite) [go to [the]] home page \(politeEnd)",
            ], fixed: ["target": s("home")]),
            CommandDefinition(intent: "navigate", patterns: [
                "\(polite) (refresh | reload) [the page | this page] \(politeEnd)",
            ], fixed: ["target": s("reload")]),
            CommandDefinition(intent: "navigate", patterns: [
                "\(polite) [open [a]] new tab \(politeEnd)",
            ], fixed: ["target": s("new_tab")]),
            CommandDefinition(intent: "navigate", patterns: [
                "\(polite) close [the | this | [the] current] tab \(politeEnd)",
            ], fixed: ["target": s("close_tab")]),
            CommandDefinition(intent: "navigate", patterns: [
                "\(polite) [go to the | switch to the] next tab \(politeEnd)",
            ], fixed: ["target": s("next_tab")]),
            CommandDefinition(intent: "navigate", patterns: [
                "\(polite) [go to the | switch to the] (previous | last) tab \(politeEnd)",
            ], fixed: ["target": s("previous_tab")]),
            CommandDefinition(intent: "navigate", patterns: [
                "\(polite) (open [up] | go to | show me | take me to | navigate to | visit) <site> [dot com] \(politeEnd)",
            ], fixed: ["target": s("url")], renames: ["site": "url"]),
            CommandDefinition(intent: "search", patterns: [
                "\(polite) (search for | look up | look for | google for | google) <query>",
                "\(polite) search (the web | the internet | google) for <query>",
            ]),
            // "search pizza recipes", "find cheap hotels in paris", "find me a recipe for pancakes": taken only when
            // the language model heard the lead (`CommandDefinition.languageModelOnly`).
            CommandDefinition(intent: "search", patterns: [
                "\(polite) (search | find [me]) <query>",
            ], languageModelOnly: true),
        ]
        return CommandSet(slots: slots, commands: commands)
    }
}
