import XCTest
@testable import JarvisCore

/// The pronunciations that compete with the wake name over its frames (`UtteranceRecognizer.onsetRivals`).
final class OnsetRivalTests: XCTestCase {
    let jarvis = ["JH", "AA", "R", "V", "AH", "S"]

    func testOnsetRivalsReplaceOrDropTheFirstConsonantButNotWithItsKin() throws {
        let rivals = try XCTUnwrap(UtteranceRecognizer.onsetRivals(of: jarvis)).onset
        let spelt = Set(rivals.map { $0.joined(separator: " ") })
        XCTAssertTrue(spelt.contains("N AA R V AH S"))   // "nervous" said like "jarvis"
        XCTAssertTrue(spelt.contains("AA R V AH S"))
        for kin in ["JH", "CH", "D"] { XCTAssertFalse(spelt.contains("\(kin) AA R V AH S"), kin) }
        XCTAssertEqual(rivals.count, 1 + UtteranceRecognizer.consonants.count - 3)
        XCTAssertFalse(spelt.contains("S ER V AH S"), "the vowel stays")
    }

    func testFirstSyllableRivalsReplaceTheOnsetAndTheVowelTogether() throws {
        let rivals = try XCTUnwrap(UtteranceRecognizer.onsetRivals(of: jarvis))
        let spelt = rivals.firstSyllable.map { $0.joined(separator: " ") }
        XCTAssertEqual(Set(spelt).count, spelt.count, "each rival once")
        XCTAssertTrue(Set(rivals.onset).isDisjoint(with: rivals.firstSyllable), "none that the onset rivals hold")
        // "service", "travis", "nervous", "davis"-like with another onset: names that share the end of "jarvis".
        for name in ["S ER V AH S", "T R AE V AH S", "N ER V AH S", "M EY V AH S", "EY V AH S", "S T AA V AH S"] {
            XCTAssertTrue(spelt.contains(name), name)
        }
        // The name said another way is no rival: its own onset, or its kin, with any vowel.
        for own in ["JH AH R V AH S", "JH AO V AH S", "CH AA R V AH S", "D R AH R V AH S", "D AE V AH S"] {
            XCTAssertFalse(spelt.contains(own), own)
        }
        XCTAssertFalse(spelt.contains("JH AA R V AH S"))
    }

    func testANameThatStartsWithAVowelHasNoRivals() {
        XCTAssertNil(UtteranceRecognizer.onsetRivals(of: ["AA", "L", "EH", "K", "S", "AH"]))
        XCTAssertNil(UtteranceRecognizer.onsetRivals(of: ["JH", "OW"]))
    }
}
