import Foundation
import XCTest
@testable import JarvisCore

/// `PitchTracker` on synthetic signals: voiced tones, silence, noise, and a voice that starts later.
final class PitchTrackerTests: XCTestCase {
    /// A voice-like tone: `f0` and its next four harmonics (falling amplitudes), Int16, 16 kHz.
    func voiced(_ f0: Double, seconds: Double, amplitude: Double = 8000) -> [Int16] {
        (0..<Int(seconds * 16000)).map { i in
            let t = Double(i) / 16000
            let s = (1...5).reduce(0.0) { $0 + sin(2 * .pi * f0 * Double($1) * t) / Double($1) }
            return Int16(max(-32768, min(32767, amplitude * s / 2)))
        }
    }

    /// Feeds `samples` to `tracker` as the pipeline does, in 20 ms frames.
    func tracked(_ samples: [Int16], by tracker: PitchTracker = PitchTracker()) -> PitchTracker {
        var tracker = tracker
        var i = 0
        while i + 320 <= samples.count {
            tracker.add(samples[i..<(i + 320)])
            i += 320
        }
        return tracker
    }

    func testALowAndAHighVoiceAreTold() throws {
        let low = try XCTUnwrap(tracked(voiced(110, seconds: 1)).estimate)
        XCTAssertEqual(low, 110, accuracy: 2)
        let high = try XCTUnwrap(tracked(voiced(220, seconds: 1)).estimate)
        XCTAssertEqual(high, 220, accuracy: 4)
    }

    func testTheEstimateWaitsForEnoughVoicedFrames() {
        // 0.3 s of voice is 15 frames (the first has no frame before it): fewer than 20.
        XCTAssertNil(tracked(voiced(150, seconds: 0.3)).estimate)
        XCTAssertNotNil(tracked(voiced(150, seconds: 0.5)).estimate)
    }

    func testSilenceAndNoiseAreNotVoiced() {
        XCTAssertNil(tracked([Int16](repeating: 0, count: 16000)).estimate)
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<16000).map { _ in Int16.random(in: -3000...3000, using: &generator) }
        XCTAssertNil(tracked(noise).estimate)
    }

    /// Brown noise (a fan's rumble, a noise bed) correlates best at the shortest lag and falls from there: no
    /// peak, no pitch (it read as 400 Hz before only peaks counted).
    func testRumbleHasNoPitch() {
        var generator = SystemRandomNumberGenerator()
        var level = 0.0
        let brown = (0..<32000).map { _ -> Int16 in
            level = 0.995 * level + Double.random(in: -300...300, using: &generator)
            return Int16(max(-32768, min(32767, level)))
        }
        XCTAssertNil(tracked(brown).estimate)
    }

    /// Quiet frames more than 20 dB under the loudest are not the talker: a faint 300 Hz hum (28 dB under it)
    /// before a 120 Hz voice does not decide.
    func testOnlyFramesNearTheLoudestCount() throws {
        let hum = voiced(300, seconds: 0.3, amplitude: 300)
        let estimate = try XCTUnwrap(tracked(hum + voiced(120, seconds: 0.6)).estimate)
        XCTAssertEqual(estimate, 120, accuracy: 3)
    }

    func testResetForgetsTheSegment() throws {
        var tracker = tracked(voiced(220, seconds: 1))
        XCTAssertNotNil(tracker.estimate)
        tracker.reset()
        XCTAssertNil(tracker.estimate)
        XCTAssertEqual(try XCTUnwrap(tracked(voiced(100, seconds: 1), by: tracker).estimate), 100, accuracy: 2)
    }
}
