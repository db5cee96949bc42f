import XCTest
@testable import JarvisCore

/// `OnsetDip` on synthetic signals: a 300 Hz tone stands for the voiced word before the name ("hey"), then
/// comes the name's first sound, then its vowel. Frames are the recogniser's 10 ms hops.
final class OnsetDipTests: XCTestCase {
    let spectrum = PowerSpectrum(frameSamples: OnsetDip.frameSamples)
    /// The lead's frames: whole 25 ms frames within its 0.3 s.
    let lead = 0...25
    /// The name starts at 0.3 s, frame 30.
    let nameStart = 30

    func dip(_ onset: [Int16]) -> Double? {
        let audio = tone(hz: 300, seconds: 0.3) + onset + tone(hz: 300, seconds: 0.3)
        return OnsetDip.dip(in: audio[...], lead: lead, nameStart: nameStart, spectrum: spectrum)
    }

    func testAClosureSilencesTheLowBand() throws {
        let closure = noise(seconds: 0.06, amplitude: 0.001)
        XCTAssertGreaterThan(try XCTUnwrap(dip(closure)), 40)
    }

    func testANasalMurmurSixDecibelsDownDipsBySix() throws {
        let murmur = tone(hz: 300, seconds: 0.1, amplitude: 0.5 * pow(10, -6.0 / 20))
        XCTAssertEqual(try XCTUnwrap(dip(murmur)), 6, accuracy: 0.5)
    }

    func testFricationAboveTheLowBandDoesNotFillTheClosure() throws {
        // A 4 kHz hiss where the closure is: the low band is still silent.
        let frication = tone(hz: 4000, seconds: 0.06, amplitude: 0.5)
        XCTAssertGreaterThan(try XCTUnwrap(dip(frication)), 40)
        // The same hiss at 500 Hz is in the band: no dip.
        XCTAssertLessThan(try XCTUnwrap(dip(tone(hz: 500, seconds: 0.06, amplitude: 0.5))), 3)
    }

    func testTheClosureIsLookedForAroundTheNamesFirstFrameOnly() throws {
        // 60 ms of silence that the aligner put in the word before (ending at frame 30) is found …
        let silence = [Int16](repeating: 0, count: 960)
        let audio = tone(hz: 300, seconds: 0.24) + silence + tone(hz: 300, seconds: 0.6)
        let before = try XCTUnwrap(OnsetDip.dip(in: audio[...], lead: 0...18, nameStart: nameStart, spectrum: spectrum))
        XCTAssertGreaterThan(before, 40)
        // … silence 0.2 s into the name is not its onset.
        let late = tone(hz: 300, seconds: 0.5) + silence + tone(hz: 300, seconds: 0.3)
        let inside = try XCTUnwrap(OnsetDip.dip(in: late[...], lead: lead, nameStart: nameStart, spectrum: spectrum))
        XCTAssertLessThan(inside, 1)
    }

    func testSpansOutsideTheAudioGiveNothing() {
        let audio = tone(hz: 300, seconds: 0.2)
        XCTAssertNil(OnsetDip.dip(in: audio[...], lead: 40...50, nameStart: 5, spectrum: spectrum))
        XCTAssertNil(OnsetDip.dip(in: audio[...], lead: 0...5, nameStart: 60, spectrum: spectrum))
    }
}
