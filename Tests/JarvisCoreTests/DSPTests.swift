import XCTest
@testable import JarvisCore

/// Synthetic signals: the DSP must do the obvious thing on a tone, on silence and on a step.
func tone(hz: Double, seconds: Double, amplitude: Double = 0.5, rate: Int = 16_000) -> [Int16] {
    (0..<Int(seconds * Double(rate))).map { Int16(amplitude * 32767 * sin(2 * .pi * hz * Double($0) / Double(rate))) }
}

func noise(seconds: Double, amplitude: Double, seed: UInt64 = 1) -> [Int16] {
    var state = seed
    return (0..<Int(seconds * 16_000)).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let u = Double(state >> 11) / Double(1 << 53) * 2 - 1
        return Int16(u * amplitude * 32767)
    }
}

final class DSPTests: XCTestCase {
    func testHannWindowIsZeroAtTheEdgeAndOneInTheMiddle() {
        let w = hannWindow(320)
        XCTAssertEqual(w.count, 320)
        XCTAssertEqual(w[0], 0, accuracy: 1e-6)
        XCTAssertEqual(w[160], 1, accuracy: 1e-6)
    }

    func testToneEnergyLandsInItsBin() {
        let spectrum = PowerSpectrum(frameSamples: 320, fftSize: 512)
        let p = spectrum.power(of: tone(hz: 1000, seconds: 0.02)[...])
        XCTAssertEqual(p.count, 257)
        let peak = p.indices.max { p[$0] < p[$1] }!
        XCTAssertEqual(peak, 32, "1000 Hz / (16000 / 512) = bin 32")
        let inBand = bandEnergy(p, fftSize: 512, sampleRate: 16_000, lowHz: 250, highHz: 3800)
        let outOfBand = bandEnergy(p, fftSize: 512, sampleRate: 16_000, lowHz: 5000, highHz: 8000)
        XCTAssertGreaterThan(decibels(inBand) - decibels(outOfBand), 40)
    }

    func testSilenceHasNoEnergy() {
        let spectrum = PowerSpectrum(frameSamples: 320)
        let p = spectrum.power(of: [Int16](repeating: 0, count: 320)[...])
        XCTAssertEqual(p.reduce(0, +), 0)
        XCTAssertEqual(decibels(0), -120, accuracy: 0.01)
    }

    func testOutOfBandToneIsNotSpeechEnergy() {
        let spectrum = PowerSpectrum(frameSamples: 320)
        let low = spectrum.power(of: tone(hz: 100, seconds: 0.02)[...])
        let speech = spectrum.power(of: tone(hz: 1000, seconds: 0.02)[...])
        let band = { (p: [Float]) in decibels(bandEnergy(p, fftSize: 512, sampleRate: 16_000, lowHz: 250, highHz: 3800)) }
        XCTAssertGreaterThan(band(speech) - band(low), 20)
    }
}

final class VADTests: XCTestCase {
    /// Band-energy levels (dB) per 20 ms frame of `samples`, as the pipeline computes them.
    func levels(_ samples: [Int16]) -> [Float] {
        let spectrum = PowerSpectrum(frameSamples: 320)
        return stride(from: 0, to: samples.count - 319, by: 320).map {
            decibels(bandEnergy(spectrum.power(of: samples[$0..<($0 + 320)]), fftSize: 512, sampleRate: 16_000,
                                lowHz: 250, highHz: 3800))
        }
    }

    func transitions(_ samples: [Int16], settings: VADSettings = VADSettings()) -> [(Int, VADTransition)] {
        var vad = EnergyVAD(settings: settings)
        return levels(samples).enumerated().compactMap { i, l in
            let t = vad.process(bandEnergyDB: l)
            return t == .none ? nil : (i, t)
        }
    }

    func testSilenceAndQuietNoiseNeverStartSpeech() {
        XCTAssertTrue(transitions([Int16](repeating: 0, count: 32_000)).isEmpty)
        XCTAssertTrue(transitions(noise(seconds: 3, amplitude: 0.001)).isEmpty)
    }

    func testToneBurstStartsAndEndsSpeech() {
        // 1 s of quiet noise, a 0.5 s tone starting exactly on a frame boundary (frame 50), 2 s of quiet noise.
        let signal = noise(seconds: 1, amplitude: 0.001) + tone(hz: 800, seconds: 0.5) + noise(seconds: 2, amplitude: 0.001, seed: 2)
        let t = transitions(signal)
        XCTAssertEqual(t.count, 2)
        guard t.count == 2 else { return }
        // Onset: three loud frames (50, 51, 52) → reported at frame 52 as starting 2 frames earlier.
        XCTAssertEqual(t[0].0, 52)
        XCTAssertEqual(t[0].1, .speechStart(framesAgo: 2))
        // End: the tone's last frame is 74; 20 quiet frames later (hangover) speech ends.
        XCTAssertEqual(t[1].0, 75 + 19)
        XCTAssertEqual(t[1].1, .speechEnd(framesAgo: 20))
    }

    func testShortClickIsNotSpeech() {
        let signal = noise(seconds: 1, amplitude: 0.001) + tone(hz: 800, seconds: 0.04) + noise(seconds: 1, amplitude: 0.001)
        XCTAssertTrue(transitions(signal).isEmpty, "two loud frames are below the 3-frame onset")
    }

    func testSteadyNoiseBecomesTheFloor() {
        // A fan switches on and stays on: speech starts, but the floor rises and speech ends within seconds.
        let signal = noise(seconds: 1, amplitude: 0.001) + noise(seconds: 20, amplitude: 0.05, seed: 3)
        let t = transitions(signal)
        XCTAssertEqual(t.first?.1, .speechStart(framesAgo: 2))
        XCTAssertEqual(t.count, 2, "the VAD must not stay in speech forever on a steady noise")
        let (endFrame, _) = t.last!
        XCTAssertLessThan(endFrame, 50 + 20 * 50 / 2, "ends within 10 s")
    }

    func testResetForgetsState() {
        var vad = EnergyVAD()
        for _ in 0..<10 { _ = vad.process(bandEnergyDB: -60) }
        for _ in 0..<5 { _ = vad.process(bandEnergyDB: 0) }
        XCTAssertTrue(vad.inSpeech)
        vad.reset()
        XCTAssertFalse(vad.inSpeech)
        XCTAssertNil(vad.noiseFloorDB)
    }
}

final class AudioHistoryTests: XCTestCase {
    func testRingKeepsTheNewestSamples() {
        var h = AudioHistory(capacity: 5)
        h.append([1, 2, 3][...])
        XCTAssertEqual(h.samples(from: 0, to: 3), [1, 2, 3])
        h.append([4, 5, 6, 7][...])
        XCTAssertEqual(h.startSample, 2)
        XCTAssertEqual(h.endSample, 7)
        XCTAssertEqual(h.samples(from: 0, to: 7), [3, 4, 5, 6, 7], "overwritten samples are gone, not invented")
        XCTAssertEqual(h.samples(from: 5, to: 100), [6, 7])
        XCTAssertEqual(h.samples(from: 6, to: 6), [])
    }

    func testAppendLongerThanCapacity() {
        var h = AudioHistory(capacity: 3)
        h.append([1, 2, 3, 4, 5, 6, 7][...])
        XCTAssertEqual(h.endSample, 7)
        XCTAssertEqual(h.samples(from: 0, to: 7), [5, 6, 7])
    }
}

final class EventTests: XCTestCase {
    func testTypeAndTimeComeFirst() {
        let e = Event(t: 1.23456, .wake(phrase: "hey jarvis", score: 0.9), source: "a.wav")
        XCTAssertEqual(e.json.serialized(), #"{"type":"wake","t":1.235,"phrase":"hey jarvis","score":0.9,"source":"a.wav"}"#)
    }

    func testIntentSlotsKeepTheirTypes() {
        let i = Intent(name: "scroll", slots: ["direction": .string("down"), "amount": .int(3)], text: "scroll down three")
        let line = Event(t: 2, .intent(i, confidence: 0.5)).json.serialized()
        XCTAssertEqual(line, #"{"type":"intent","t":2,"name":"scroll","slots":{"amount":3,"direction":"down"},"text":"scroll down three","confidence":0.5}"#)
    }

    func testControlCharactersAndQuotesAreEscaped() throws {
        let text = "say \"hi\"\n\t\u{7}$(rm -rf /); ünïcödé"
        let line = Event(t: 0, .rejected(text: text, reason: "not-a-command")).json.serialized()
        XCTAssertFalse(line.contains("\n"))
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        XCTAssertEqual(parsed?["text"] as? String, text)
    }

    func testEveryEventIsOneJSONObject() throws {
        var stats = Stats()
        stats.audioSeconds = 3
        let events: [Event.Kind] = [
            .listening(source: "x", sampleRate: 16000), .speechStart, .speechEnd, .partial(text: "a"),
            .transcript(text: "a", confidence: 1, start: 0, end: 1, alternatives: ["b"]),
            .action(name: "scroll", status: "dry-run", backend: "dry-run", detail: "d"), .restart(reason: "max-utterance"),
            .error(code: "audio-not-found", message: "m"), .end(stats),
        ]
        for kind in events {
            let e = Event(t: 0.5, kind)
            let obj = try JSONSerialization.jsonObject(with: Data(e.json.serialized().utf8)) as? [String: Any]
            XCTAssertEqual(obj?["type"] as? String, e.type)
            XCTAssertEqual(obj?["t"] as? Double, 0.5)
            XCTAssertFalse(e.humanLine.isEmpty)
        }
    }
}
