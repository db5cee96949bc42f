import Foundation
import XCTest
@testable import JarvisCore

/// `HumRemover` on synthetic signals: mains hum is found and notched, anything else passes to the sample.
final class HumRemoverTests: XCTestCase {
    let rate = 16000.0

    /// Mains hum: `fundamental` and its 2nd, 3rd and 5th harmonics at 1/k amplitude, `peak` Int16 steps for the
    /// fundamental, `count` samples at 16 kHz.
    static func hum(_ fundamental: Double, peak: Double, count: Int) -> [Double] {
        (0..<count).map { i in
            let t = Double(i) / 16000
            return [1.0, 2, 3, 5].map { peak / $0 * sin(2 * .pi * fundamental * $0 * t) }.reduce(0, +)
        }
    }

    func hum(_ fundamental: Double, peak: Double, seconds: Double) -> [Double] {
        Self.hum(fundamental, peak: peak, count: Int(seconds * rate))
    }

    func tone(_ frequency: Double, peak: Double, count: Int) -> [Double] {
        (0..<count).map { peak * sin(2 * .pi * frequency * Double($0) / rate) }
    }

    /// Uniform noise of the given peak, the same at every run.
    func noise(peak: Double, count: Int) -> [Double] {
        let floor = NoiseFloor(amplitude: Float(peak))
        return (0..<count).map { Double(floor.noise(at: $0)) }
    }

    func int16(_ parts: [Double]...) -> [Int16] {
        (0..<parts[0].count).map { i in Int16(max(-32768, min(32767, parts.map { $0[i] }.reduce(0, +).rounded()))) }
    }

    func run(_ samples: [Int16], chunk: Int, settings: HumSettings = HumSettings()) -> (output: [Int16], lines: [Double]) {
        var remover = HumRemover(settings: settings)
        var output: [Int16] = []
        var i = 0
        while i < samples.count {
            output += remover.process(samples[i..<min(samples.count, i + chunk)])
            i += chunk
        }
        return (output, remover.notchedLines)
    }

    /// Power (dB, arbitrary reference) of `samples` at `frequency`, Hann-windowed.
    func level(_ samples: ArraySlice<Int16>, at frequency: Double) -> Double {
        var re = 0.0, im = 0.0
        let n = Double(samples.count)
        for (j, s) in samples.enumerated() {
            let w = 0.5 - 0.5 * cos(2 * .pi * Double(j) / n)
            re += w * Double(s) * cos(2 * .pi * frequency * Double(j) / rate)
            im += w * Double(s) * sin(2 * .pi * frequency * Double(j) / rate)
        }
        return 10 * log10(re * re + im * im + 1e-9)
    }

    func testHumIsFoundAndNotchedWhileSpeechBandTonesPass() {
        let count = Int(3 * rate)
        let input = int16(hum(50, peak: 1000, seconds: 3), tone(1000, peak: 3000, count: count), noise(peak: 30, count: count))
        let (output, lines) = run(input, chunk: 1600)
        XCTAssertEqual(lines, [50, 100, 150, 250])
        let last = (count - 16000)..<count
        for f in [50.0, 100, 150, 250] {
            XCTAssertLessThan(level(output[last], at: f), level(input[last], at: f) - 30, "\(f) Hz")
        }
        XCTAssertEqual(level(output[last], at: 1000), level(input[last], at: 1000), accuracy: 0.5)
    }

    func testSixtyHertzMainsIsFoundToo() {
        let count = Int(3 * rate)
        let input = int16(hum(60, peak: 1000, seconds: 3), noise(peak: 30, count: count))
        XCTAssertEqual(run(input, chunk: 4096).lines, [60, 120, 180, 300])
    }

    /// A voice's harmonics (a steady 100 Hz voice, as a diphone synthesiser's can be) have no line at 50 or 60 Hz.
    func testAVoiceWithoutAMainsFundamentalPassesUntouched() {
        let count = Int(3 * rate)
        let harmonics = (1...20).map { tone(100 * Double($0), peak: 2000 / Double($0), count: count) }
        let voice = (0..<count).map { i in harmonics.map { $0[i] }.reduce(0, +) }
        let input = int16(voice, noise(peak: 30, count: count))
        let (output, lines) = run(input, chunk: 1600)
        XCTAssertEqual(lines, [])
        XCTAssertEqual(output, input)
    }

    func testNoiseAndSilencePassUntouched() {
        let count = Int(2 * rate)
        let noisy = int16(noise(peak: 3000, count: count))
        XCTAssertEqual(run(noisy, chunk: 1600).output, noisy)
        let silent = [Int16](repeating: 0, count: count)
        XCTAssertEqual(run(silent, chunk: 1600).output, silent)
    }

    func testTheChunkSizeDoesNotMatter() {
        let count = Int(2 * rate)
        let input = int16(hum(50, peak: 1000, seconds: 2), noise(peak: 100, count: count))
        let whole = run(input, chunk: count).output
        XCTAssertNotEqual(whole, input, "the hum was notched")
        XCTAssertEqual(run(input, chunk: 160).output, whole)
        XCTAssertEqual(run(input, chunk: 4097).output, whole)
    }

    /// Inside an utterance the filter stays as it was: hum that starts with the speech is notched after it.
    func testNotchesChangeOnlyWhenAllowed() {
        let count = Int(2 * rate)
        let humming = int16(hum(50, peak: 1000, seconds: 2), noise(peak: 30, count: count))
        var remover = HumRemover()
        XCTAssertEqual(remover.process(humming[...], notchesMayChange: false), humming)
        XCTAssertEqual(remover.notchedLines, [])
        _ = remover.process(humming[..<3200], notchesMayChange: true)
        XCTAssertEqual(remover.notchedLines, [50, 100, 150, 250], "measured all along, applied at the next block")
    }

    /// The hum is heard as soon as it is measured, before its notches may come on, and until they go off.
    func testHumIsHeardBeforeItIsNotched() {
        let count = Int(2 * rate)
        let humming = int16(hum(50, peak: 1000, seconds: 2), noise(peak: 30, count: count))
        let quiet = int16(noise(peak: 30, count: count))
        var remover = HumRemover()
        _ = remover.process(quiet[...], notchesMayChange: false)
        XCTAssertFalse(remover.hearsHum, "noise alone")
        _ = remover.process(humming[...], notchesMayChange: false)
        XCTAssertEqual(remover.notchedLines, [])
        XCTAssertTrue(remover.hearsHum, "inside an utterance: not notched, but heard")
        _ = remover.process(quiet[...])
        XCTAssertFalse(remover.hearsHum, "released")
    }

    func testHumThatStopsIsReleasedAndResetForgetsIt() {
        let count = Int(2 * rate)
        let humming = int16(hum(50, peak: 1000, seconds: 2), noise(peak: 30, count: count))
        let quiet = int16(noise(peak: 30, count: count))
        var remover = HumRemover()
        _ = remover.process(humming[...])
        XCTAssertEqual(remover.notchedLines, [50, 100, 150, 250])
        _ = remover.process(quiet[...])
        XCTAssertEqual(remover.notchedLines, [], "released within 2 s")
        XCTAssertEqual(remover.process(quiet[...]), quiet)
        _ = remover.process(humming[...])
        remover.reset()
        XCTAssertEqual(remover.notchedLines, [])
        XCTAssertEqual(remover.process(quiet[...]), quiet)
    }
}
