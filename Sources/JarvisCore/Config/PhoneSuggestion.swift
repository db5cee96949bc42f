import Foundation

/// A first guess at the phones of a word the pronunciation dictionary lacks, for the config's `words`: espeak-ng's
/// American English pronunciation (`espeak-ng -q --ipa -v en-us`), turned from IPA into the acoustic model's CMU
/// phones. Only a suggestion in `check-config`'s message; nothing is recognised with it until the user writes it.
public enum PhoneSuggestion {
    /// espeak-ng's IPA, symbol by symbol (longest first), as CMU phones. Stress and length marks, spaces and
    /// hyphens are dropped; a syllabic consonant ("n̩" in "button") gets the "AH" before it the dictionary gives
    /// ("B AH T AH N"); a flap or glottal stop ("ɾ" of "water", "ʔ" of "button") is the dictionary's "T".
    static let ipaPhones: [(ipa: String, phones: [String])] = [
        ("tʃ", ["CH"]), ("dʒ", ["JH"]), ("aɪ", ["AY"]), ("aʊ", ["AW"]), ("ɔɪ", ["OY"]), ("oʊ", ["OW"]), ("eɪ", ["EY"]),
        ("ɜː", ["ER"]), ("ɚ", ["ER"]), ("ɝ", ["ER"]), ("iː", ["IY"]), ("uː", ["UW"]), ("ɑː", ["AA"]), ("ɔː", ["AO"]),
        ("p", ["P"]), ("b", ["B"]), ("t", ["T"]), ("d", ["D"]), ("k", ["K"]), ("ɡ", ["G"]), ("g", ["G"]),
        ("f", ["F"]), ("v", ["V"]), ("θ", ["TH"]), ("ð", ["DH"]), ("s", ["S"]), ("z", ["Z"]), ("ʃ", ["SH"]),
        ("ʒ", ["ZH"]), ("h", ["HH"]), ("m", ["M"]), ("n", ["N"]), ("ŋ", ["NG"]), ("l", ["L"]), ("ɹ", ["R"]),
        ("r", ["R"]), ("w", ["W"]), ("j", ["Y"]), ("ɾ", ["T"]), ("ʔ", ["T"]),
        ("i", ["IY"]), ("ɪ", ["IH"]), ("ᵻ", ["IH"]), ("e", ["EH"]), ("ɛ", ["EH"]), ("æ", ["AE"]), ("a", ["AE"]),
        ("ɑ", ["AA"]), ("ɒ", ["AA"]), ("ɔ", ["AO"]), ("o", ["OW"]), ("ʊ", ["UH"]), ("u", ["UW"]), ("ʌ", ["AH"]),
        ("ə", ["AH"]), ("ɐ", ["AH"]),
    ]
    /// Marks that carry no phone of their own.
    static let ignored: Set<Character> = ["ˈ", "ˌ", "ː", " ", "-", "\n"]
    /// The combining mark of a syllabic consonant.
    static let syllabic: Unicode.Scalar = "\u{0329}"

    /// `ipa` as CMU phones; nil when it holds a symbol the table does not know, or no phone at all.
    public static func phones(fromIPA ipa: String) -> [String]? {
        var phones: [String] = []
        // Unicode scalars, not characters: "n̩" is one character of two scalars.
        var rest = Substring.UnicodeScalarView(ipa.unicodeScalars)
        while let first = rest.first {
            if ignored.contains(Character(first)) { rest.removeFirst(); continue }
            if first == syllabic {
                // "n̩" → "AH N": the vowel goes before the consonant just added.
                guard let last = phones.popLast() else { return nil }
                phones += ["AH", last]
                rest.removeFirst()
                continue
            }
            guard let match = ipaPhones.first(where: { rest.starts(with: $0.ipa.unicodeScalars) }) else { return nil }
            phones += match.phones
            rest.removeFirst(match.ipa.unicodeScalars.count)
        }
        return phones.isEmpty ? nil : phones
    }

    /// espeak-ng's phones for `word` ("N EH T F L IH K S" for "netflix"), run as a helper (`HelperRunner`: an
    /// argv array, killed after `timeout` seconds); nil without `espeak` (a program on PATH or a path), when it
    /// fails or times out, or when it says something `phones(fromIPA:)` cannot read.
    public static func suggest(for word: String, espeak: String? = "espeak-ng", timeout: Double = 3) -> String? {
        guard let espeak, !word.isEmpty else { return nil }
        let result = HelperRunner().run([espeak, "-q", "--ipa", "-v", "en-us", "--", word], timeout: timeout,
                                        keepingOutput: true)
        guard result.status == .exited(0),
              let phones = phones(fromIPA: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return phones.joined(separator: " ")
    }
}
