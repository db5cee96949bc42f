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

    func testABreakInTheStreamEndsSpeechAndKeepsTheFloor() {
        var vad = EnergyVAD()
        for _ in 0..<10 { _ = vad.process(bandEnergyDB: -60) }
        for _ in 0..<5 { _ = vad.process(bandEnergyDB: 0) }
        XCTAssertTrue(vad.inSpeech)
        let floor = vad.noiseFloorDB
        vad.breakStream()
        XCTAssertFalse(vad.inSpeech)
        XCTAssertEqual(vad.noiseFloorDB, floor)
        // Loud again after the gap: a new onset run of 3 frames, not the old one carried over.
        XCTAssertEqual(vad.process(bandEnergyDB: 0), .none)
        XCTAssertEqual(vad.process(bandEnergyDB: 0), .none)
        XCTAssertEqual(vad.process(bandEnergyDB: 0), .speechStart(framesAgo: 2))
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

    func testAGapIsNotHeld() {
        var h = AudioHistory(capacity: 10)
        h.append([1, 2, 3][...])
        h.skip(4)
        XCTAssertEqual(h.endSample, 7)
        XCTAssertEqual(h.startSample, 7, "audio before a gap is not one stretch with the audio after it")
        XCTAssertEqual(h.samples(from: 0, to: 7), [])
        h.append([8, 9][...])
        XCTAssertEqual(h.samples(from: 0, to: 9), [8, 9])
        h.reset()
        h.append([1][...])
        XCTAssertEqual(h.samples(from: 0, to: 1), [1])
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

    /// The `end` line counts in words that agree with their numbers: "1 wake", "2 wakes", "0 restarts".
    func testEndLineCountsInTheRightNumber() {
        var stats = Stats()
        stats.audioSeconds = 4.2
        stats.cpuSeconds = 0.72
        stats.wakes = 1
        stats.intents = 2
        stats.rejections = 1
        XCTAssertEqual(Event(t: 4.19, .end(stats)).humanLine,
                       "   4.19s  end: 4.2 s audio, 0.72 s CPU, 1 wake, 2 intents, 1 rejected, 0 restarts")
        stats.restarts = 1
        XCTAssertTrue(Event(t: 0, .end(stats)).humanLine.hasSuffix(", 1 restart"))
    }
}

/// Segment SNR: loud frames against the quiet ones between words, and whether that floor is steady.
final class SegmentSNRTests: XCTestCase {
    func testSteadyNoiseUnderBurstsGivesTheBurstLevelAndASmallSpread() throws {
        var s = SegmentSNR()
        for i in 0..<100 { s.add(levelDB: i % 4 == 0 ? -40 + Float(i % 3) * 0.3 : -20) }
        let e = try XCTUnwrap(s.estimate)
        XCTAssertEqual(e.snrDB, 20, accuracy: 1)
        XCTAssertLessThan(e.floorSpreadDB, 1)
    }

    func testSilenceBetweenWordsIsNotASteadyFloor() throws {
        var s = SegmentSNR()
        // Gaps of digital silence and soft consonants: quiet frames spread over tens of dB.
        for i in 0..<100 { s.add(levelDB: i % 2 == 0 ? -20 : -100 + Float(i % 7) * 10) }
        let e = try XCTUnwrap(s.estimate)
        XCTAssertGreaterThan(e.snrDB, 40)
        XCTAssertGreaterThan(e.floorSpreadDB, 6)
    }

    /// A steady background before the speech joins the pauses; silence before noise that starts with the
    /// speech does not (it would make the noise look like a clean pause).
    func testLeadInCountsOnlyWhenItIsTheSameBackground() throws {
        var fan = SegmentSNR()
        for i in 0..<50 { fan.addBackground(levelDB: -30 + Float(i % 2) * 0.5) }
        fan.startSegment()
        // Few pauses, and those mixed with soft speech: alone they would not look steady.
        for i in 0..<40 { fan.add(levelDB: i % 5 == 0 ? -29 + Float(i % 3) * 2 : -10) }
        let withFan = try XCTUnwrap(fan.estimate)
        XCTAssertEqual(withFan.noiseDB, -30, accuracy: 1)
        XCTAssertLessThan(withFan.floorSpreadDB, 1)

        var suddenNoise = SegmentSNR()
        for _ in 0..<50 { suddenNoise.addBackground(levelDB: -80) }
        suddenNoise.startSegment()
        for i in 0..<40 { suddenNoise.add(levelDB: i % 3 == 0 ? -30 : -10) }
        let e = try XCTUnwrap(suddenNoise.estimate)
        XCTAssertEqual(e.noiseDB, -30, accuracy: 0.5, "the silence before is not the noise under the speech")
        XCTAssertEqual(e.snrDB, 20, accuracy: 0.5)
    }

    /// A command cut off from its wake phrase by a pause: a short segment full of speech, whose few quiet frames
    /// are soft speech, takes the noise from the steady segment that ended just before it; not after a long
    /// gap, and not when that segment's floor is louder than this one's quiet frames (the fan was switched off).
    func testSegmentSoonAfterASteadyOneTakesItsNoise() throws {
        func speechAfter(gap: Int, previousFloor: Float) -> SegmentSNR.Estimate? {
            var s = SegmentSNR()
            s.startSegment()
            for i in 0..<60 { s.add(levelDB: i % 3 == 0 ? previousFloor + Float(i % 2) * 0.5 : -20) }
            s.endSegment()
            for _ in 0..<gap { s.addBackground(levelDB: previousFloor) }
            s.startSegment()
            // Speech with soft consonants between its loud frames: 8 dB of spread among the quiet ones.
            for i in 0..<40 { s.add(levelDB: i % 4 == 0 ? -36 + Float(i % 8) : -20) }
            return s.estimate
        }
        let soon = try XCTUnwrap(speechAfter(gap: 5, previousFloor: -40))
        XCTAssertEqual(soon.noiseDB, -40, accuracy: 0.01)
        XCTAssertEqual(soon.snrDB, 20, accuracy: 0.01)
        XCTAssertLessThan(soon.floorSpreadDB, 1)
        let late = try XCTUnwrap(speechAfter(gap: 101, previousFloor: -40))
        XCTAssertGreaterThan(late.floorSpreadDB, 3, "more than carryFrames later the segment stands alone")
        XCTAssertEqual(late.noiseDB, -36, accuracy: 0.01)
        let louder = try XCTUnwrap(speechAfter(gap: 5, previousFloor: -30))
        XCTAssertEqual(louder.noiseDB, -36, accuracy: 0.01, "a floor louder than the quiet frames is not this one's")
    }

    func testTooFewFramesGiveNoEstimateAndDropLastRemovesTheHangover() {
        var s = SegmentSNR()
        for _ in 0..<24 { s.add(levelDB: -20) }
        XCTAssertNil(s.estimate)
        for _ in 0..<20 { s.add(levelDB: -90) }
        XCTAssertGreaterThan(s.estimate?.snrDB ?? 0, 60, "the silent hangover is the quiet part")
        s.dropLast(20)
        XCTAssertNil(s.estimate)
        s.reset()
        XCTAssertTrue(s.levels.isEmpty)
    }

    /// A segment too short for pauses of its own ("hey jarvis" that the VAD cut off from its command in a
    /// hiss) takes the noise from the background just before it; the hangover the VAD drops is background
    /// for the next segment (the command after the cut).
    func testShortSegmentTakesTheNoiseFromItsLeadIn() throws {
        var s = SegmentSNR()
        for i in 0..<60 { s.addBackground(levelDB: -40 + Float(i % 2)) }   // steady hiss, 1 dB ripple
        s.startSegment()
        for _ in 0..<14 { s.add(levelDB: -22) }   // 0.28 s of speech
        let short = try XCTUnwrap(s.estimate)
        XCTAssertEqual(short.snrDB, 18, accuracy: 1.01)
        XCTAssertLessThanOrEqual(short.floorSpreadDB, 1)
        // The hangover (20 frames of the hiss) goes back to the background: the next short segment has a lead.
        for i in 0..<20 { s.add(levelDB: -40 + Float(i % 2)) }
        s.dropLast(20)
        s.startSegment()
        XCTAssertEqual(s.lead.count, 20)
        for _ in 0..<8 { s.add(levelDB: -25) }
        XCTAssertEqual(try XCTUnwrap(s.estimate).snrDB, 15, accuracy: 1.01)
        // With no lead-in a short segment still has no estimate.
        var bare = SegmentSNR()
        bare.startSegment()
        for _ in 0..<14 { bare.add(levelDB: -22) }
        XCTAssertNil(bare.estimate)
    }

    /// The estimate keeps its levels sorted as they come and go (past `maxFrames`, and the hangover dropped)
    /// rather than sorting them at each ask: it is the same as sorting the segment's levels and its lead-in
    /// every time (percentiles without interpolation, ties included).
    func testAnEstimateIsTheSameAsSortingEveryLevel() {
        func percentile(_ values: [Float], _ p: Double) -> Double {
            let sorted = values.sorted()
            return Double(sorted[min(sorted.count - 1, Int(p * Double(sorted.count - 1)))])
        }
        func sortedEstimate(_ values: [Float]) -> SegmentSNR.Estimate {
            SegmentSNR.Estimate(snrDB: percentile(values, 0.9) - percentile(values, 0.1),
                                noiseDB: percentile(values, 0.1),
                                floorSpreadDB: percentile(values, 0.25) - percentile(values, 0.05))
        }
        /// What the estimate is by its definition (one segment, none before it to take the noise from).
        func expected(_ s: SegmentSNR) -> SegmentSNR.Estimate? {
            guard s.levels.count >= s.minFrames else {
                return s.lead.count >= 10 && s.lead.count + s.levels.count >= s.minFrames && !s.levels.isEmpty
                    ? sortedEstimate(s.lead + s.levels) : nil
            }
            let pauses = sortedEstimate(s.levels)
            let joins = s.lead.count >= 10 && abs(percentile(s.lead, 0.5) - pauses.noiseDB) <= s.sameBackgroundDB
            return joins ? sortedEstimate(s.lead + s.levels) : pauses
        }
        var random = SystemRandomNumberGenerator()
        var compared = 0, joined = 0
        for segment in 0..<40 {
            var s = SegmentSNR()
            s.maxFrames = 90
            // A background like the pauses (it joins them) or far below them; levels on a 0.5 dB grid (ties).
            let floor: Float = segment % 2 == 0 ? -40 : -90
            for _ in 0..<Int.random(in: 0...70, using: &random) {
                s.addBackground(levelDB: floor + Float(Int.random(in: 0...4, using: &random)) / 2)
            }
            s.startSegment()
            for _ in 0..<Int.random(in: 1...200, using: &random) {
                s.add(levelDB: Bool.random(using: &random) ? -20 + Float(Int.random(in: 0...20, using: &random)) / 2
                                                           : -40 + Float(Int.random(in: 0...8, using: &random)) / 2)
                XCTAssertEqual(s.estimate, expected(s), "segment \(segment), \(s.levels.count) levels")
                compared += 1
                if let e = s.estimate, s.levels.count >= s.minFrames, e != sortedEstimate(s.levels) { joined += 1 }
            }
            s.dropLast(Int.random(in: 0...30, using: &random))
            XCTAssertEqual(s.estimate, expected(s), "segment \(segment) after its hangover was dropped")
        }
        XCTAssertGreaterThan(compared, 1000)
        XCTAssertGreaterThan(joined, 100, "the lead-in joined the pauses often enough to be checked")
    }
}

/// Spectral noise reduction on synthetic signals.
final class SpectralDenoiserTests: XCTestCase {
    private func rms(_ x: ArraySlice<Int16>) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))).squareRoot()
    }

    func testWithoutSuppressionTheSignalComesBackUnchanged() {
        var settings = DenoiserSettings()
        settings.gainFloor = 1   // every gain is 1: analysis and overlap-add alone
        let input = zip(tone(hz: 440, seconds: 1, amplitude: 0.3), noise(seconds: 1, amplitude: 0.1)).map { $0 &+ $1 }
        let output = SpectralDenoiser(settings: settings).denoise(input[...])
        XCTAssertEqual(output.count, input.count)
        // Away from the first and last half window, where only one frame overlaps.
        let worst = (256..<(input.count - 512)).map { abs(Int(output[$0]) - Int(input[$0])) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testSteadyNoiseAloneIsAttenuated() {
        let input = noise(seconds: 2, amplitude: 0.05)
        let output = SpectralDenoiser().denoise(input[...])
        let drop = 20 * log10(rms(input[8000..<24000]) / rms(output[8000..<24000]))
        XCTAssertGreaterThan(drop, 10, "white noise alone should lose at least 10 dB")
    }

    func testNoiseThatStartsAfterQuietIsAttenuatedFromItsStart() {
        // Half a second of a quiet room (−70 dB), then hiss that starts with the speech: the quiet frames
        // within the minimum's span are not the hiss's level.
        let quiet = noise(seconds: 0.5, amplitude: 0.0003, seed: 3)
        let hiss = noise(seconds: 1.5, amplitude: 0.05, seed: 5)
        let input = quiet + hiss
        let output = SpectralDenoiser().denoise(input[...])
        let justAfter = 8000 + 512..<8000 + 8000   // the first half second of hiss, past one window
        let drop = 20 * log10(rms(input[justAfter]) / rms(output[justAfter]))
        XCTAssertGreaterThan(drop, 5, "hiss right after the quiet should lose at least 5 dB")
        XCTAssertLessThanOrEqual(rms(output[0..<7000]), rms(input[0..<7000]) * 1.01, "the quiet is not made louder")
        var counted = DenoiserSettings()
        counted.belowNoiseRatio = 0   // the quiet counts as noise
        let unaware = SpectralDenoiser(settings: counted).denoise(input[...])
        let unawareDrop = 20 * log10(rms(input[justAfter]) / rms(unaware[justAfter]))
        XCTAssertLessThan(unawareDrop, 3, "counting the quiet as noise leaves the hiss where it starts")
    }

    func testToneInNoiseComesOutCleaner() {
        // A tone that starts and stops (speech-like bursts) in steady noise at about 6 dB SNR.
        let burst = tone(hz: 1000, seconds: 0.3, amplitude: 0.2)
        let gap = [Int16](repeating: 0, count: 4800)
        let clean = Array((0..<5).map { _ in burst + gap }.joined())
        let hiss = noise(seconds: Double(clean.count) / 16_000, amplitude: 0.1, seed: 7)
        let input = zip(clean, hiss).map { $0 &+ $1 }
        let output = SpectralDenoiser().denoise(input[...])
        func errorDB(_ x: [Int16]) -> Double {
            let e = zip(x, clean).map { Int16(clamping: Int($0) - Int($1)) }
            return 20 * log10(rms(e[...]))
        }
        XCTAssertGreaterThan(errorDB(input) - errorDB(output), 6, "noise reduction should remove at least 6 dB of noise")
        // The bursts keep most of their level (the gain is close to 1 where the tone is).
        let kept = rms(output[1000..<4000]) / rms(clean[1000..<4000])
        XCTAssertGreaterThan(kept, 0.8)
    }

    func testSilenceStaysSilentAndShortBlocksPassThrough() {
        let silence = [Int16](repeating: 0, count: 16_000)
        XCTAssertEqual(SpectralDenoiser().denoise(silence[...]), silence)
        let short: [Int16] = [1, -2, 3]
        XCTAssertEqual(SpectralDenoiser().denoise(short[...]), short)
    }
}

/// Word levels: the talker's words against quieter speech behind them.
final class WordLevelTests: XCTestCase {
    func testToneLevelIsItsPowerAndSpanOutsideTheAudioHasNone() throws {
        // A sine of amplitude A has mean square A² / 2: 0.5 × 32767 → 20·log10(16383.5 / √2) ≈ 81.3 dB.
        let audio = tone(hz: 440, seconds: 0.5)
        let level = try XCTUnwrap(WordLevel.level(of: audio[...], startFrame: 0, endFrame: 49))
        XCTAssertEqual(level, 81.3, accuracy: 0.2)
        XCTAssertNil(WordLevel.level(of: audio[...], startFrame: 60, endFrame: 70))
        XCTAssertEqual(WordLevel.level(of: [Int16](repeating: 0, count: 1600)[...], startFrame: 0, endFrame: 9), 0)
    }

    func testLevelIsTheWordsLoudPartNotItsPauses() throws {
        // 0.1 s of tone inside 0.4 s of silence: the level of the tone (90th percentile of its frames).
        let audio = [Int16](repeating: 0, count: 1600) + tone(hz: 440, seconds: 0.1) + [Int16](repeating: 0, count: 3200)
        let level = try XCTUnwrap(WordLevel.level(of: audio[...], startFrame: 0, endFrame: 39))
        XCTAssertEqual(level, 81.3, accuracy: 0.2)
        // Slices keep their own frame 0.
        let slice = audio[1600...]
        XCTAssertEqual(try XCTUnwrap(WordLevel.level(of: slice, startFrame: 0, endFrame: 9)), 81.3, accuracy: 0.2)
    }

    func testTheRoomIsTheTalkBeforeTheWakePhraseLeavingOutItsOnset() throws {
        // 2 s of a quieter tone (amplitude 0.05: 61.3 dB), then the wake phrase's first 0.1 s at 0.5.
        let room = tone(hz: 300, seconds: 2, amplitude: 0.05) + tone(hz: 440, seconds: 0.1)
        XCTAssertEqual(try XCTUnwrap(WordLevel.roomLevel(before: room[...])), 61.3, accuracy: 0.2)
        // Under a second before the onset: unknown.
        XCTAssertNil(WordLevel.roomLevel(before: room.suffix(AudioFormat.samples(1.05))))
        // Silence before the wake phrase: no level to speak of.
        XCTAssertEqual(WordLevel.roomLevel(before: [Int16](repeating: 0, count: 32_000)[...]), 0)
    }

    func testSpeechNoLouderThanAQuieterRoomIsNotTheTalkers() {
        var settings = RecognizerSettings()
        settings.roomUnderTalker = 6
        settings.roomContinuesWithin = 3
        // No room, or a silent one: `drop` under the talker.
        XCTAssertEqual(WordLevel.othersCeiling(talker: 80, drop: 10, room: nil, settings: settings), 70)
        XCTAssertEqual(WordLevel.othersCeiling(talker: 80, drop: 10, room: 30, settings: settings), 70)
        // A room 9 dB under the talker: up to 3 dB over it.
        XCTAssertEqual(WordLevel.othersCeiling(talker: 80, drop: 10, room: 71, settings: settings), 74)
        // A room as loud as the talker is the talker's own talk: not taken.
        XCTAssertEqual(WordLevel.othersCeiling(talker: 80, drop: 10, room: 76, settings: settings), 70)
        settings.roomUnderTalker = nil
        XCTAssertEqual(WordLevel.othersCeiling(talker: 80, drop: 10, room: 71, settings: settings), 70)
    }

    func testOnlyTheQuietLastWordsAreCounted() {
        // Words at 72–75 dB, then babble words at 58 and 55 dB.
        XCTAssertEqual(WordLevel.quietTail([72, 75, 74, 73, 58, 55], drop: 10, keep: 1), 2)
        // A quiet word in the middle ends the count at the first loud one from the end.
        XCTAssertEqual(WordLevel.quietTail([72, 58, 74, 73, 55], drop: 10, keep: 1), 1)
        // Within the drop: nothing.
        XCTAssertEqual(WordLevel.quietTail([72, 75, 74, 66], drop: 10, keep: 1), 0)
        // The kept first words are never counted, however quiet the rest.
        XCTAssertEqual(WordLevel.quietTail([75, 75, 75, 55, 55], drop: 10, keep: 4), 1)
        XCTAssertEqual(WordLevel.quietTail([75, 75, 55], drop: 10, keep: 3), 0)
        // Against the median, a long quiet tail is its own reference; against the talker's level it is not.
        XCTAssertEqual(WordLevel.quietTail([75, 75, 55, 55, 55], drop: 10, keep: 1), 0)
        XCTAssertEqual(WordLevel.quietTail([75, 75, 55, 55, 55], reference: 76, drop: 10, keep: 1), 3)
        XCTAssertEqual(WordLevel.quietTail([75, 75, 55, 55, 55], reference: 76, drop: 10, keep: 3), 2)
        // Unknown levels stop the count; none known: nothing.
        XCTAssertEqual(WordLevel.quietTail([75, 75, 75, nil, 50], drop: 10, keep: 1), 1)
        XCTAssertEqual(WordLevel.quietTail([nil, nil], drop: 10, keep: 0), 0)
    }
}

final class NoiseFloorTests: XCTestCase {
    func testSilenceGetsNoiseAtTheRequestedLevel() {
        let floor = NoiseFloor(levelDB: -70)
        let out = floor.apply([Int16](repeating: 0, count: 16_000)[...], start: 0)
        let rms = (out.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(out.count)).squareRoot()
        XCTAssertEqual(20 * log10(rms / 32768), -70, accuracy: 0.5)
        XCTAssertLessThan(Double(out.filter { $0 == 0 }.count) / Double(out.count), 0.1)
        let mean = out.reduce(0.0) { $0 + Double($1) } / Double(out.count)
        XCTAssertEqual(mean, 0, accuracy: 0.3, "white noise without a DC offset")
    }

    func testSameNoiseWhateverTheChunksAndOnASecondPass() {
        let floor = NoiseFloor(levelDB: -60)
        let input = (0..<4000).map { Int16(truncatingIfNeeded: $0 * 37 % 2001 - 1000) }
        let whole = floor.apply(input[...], start: 500)
        var chunked: [Int16] = []
        var i = 0
        for size in [1, 159, 160, 1000, 7, 2673] where i < input.count {
            let end = min(input.count, i + size)
            chunked += floor.apply(input[i..<end], start: 500 + i)
            i = end
        }
        XCTAssertEqual(chunked, whole)
        XCTAssertEqual(floor.apply(input[1000..<3000], start: 1500), Array(whole[1000..<3000]))
        XCTAssertNotEqual(floor.apply(input[...], start: 501), whole, "the noise depends on the position")
    }

    func testLoudAudioIsBarelyChangedAndClipsAtFullScale() {
        let floor = NoiseFloor(levelDB: -70)
        let tone = (0..<1600).map { Int16(20_000 * sin(Double($0) * 0.2)) }
        let out = floor.apply(tone[...], start: 0)
        let largest = zip(out, tone).map { abs(Int($0) - Int($1)) }.max() ?? 0
        XCTAssertGreaterThan(largest, 0)
        XCTAssertLessThanOrEqual(largest, 19, "within the noise's peak amplitude (√3 × RMS ≈ 18 steps)")
        let loud = floor.apply([Int16](repeating: .max, count: 100)[...] + [Int16](repeating: .min, count: 100), start: 0)
        XCTAssertTrue(loud.prefix(100).allSatisfy { $0 > 32_700 } && loud.suffix(100).allSatisfy { $0 < -32_700 })
    }

    /// The floor follows the audio's peak (`RecognizerSettings.noiseFloorPeakDB`): as far under it as -70 dB lies
    /// under -3 dB, never under one step.
    func testTheFloorFollowsThePeakButNotUnderOneStep() {
        let floor = NoiseFloor(levelDB: -70)
        XCTAssertEqual(floor.following(peakDB: -3, reference: -3).levelDB, -70, accuracy: 1e-9)
        XCTAssertEqual(floor.following(peakDB: -13, reference: -3).levelDB, -80, accuracy: 1e-9)
        XCTAssertEqual(floor.following(peakDB: 0, reference: -3).levelDB, -67, accuracy: 1e-9)
        XCTAssertEqual(floor.following(peakDB: -33, reference: -3).levelDB, -90, accuracy: 1e-9, "one step")
        let quiet = floor.following(peakDB: -23, reference: -3)
            .apply([Int16](repeating: 0, count: 16_000)[...], start: 0)
        let rms = (quiet.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(quiet.count)).squareRoot()
        XCTAssertEqual(20 * log10(rms / 32768), -90, accuracy: 1.5)
        XCTAssertFalse(NoiseFloor.holdsDigitalSilence(quiet[...], silenceDB: -100), "no frame of zeros left")
    }

    func testDigitalSilenceIsAFrameUnderMinus80DB() {
        let quietNoise = NoiseFloor(levelDB: -65).apply([Int16](repeating: 0, count: 3200)[...], start: 0)
        XCTAssertFalse(NoiseFloor.holdsDigitalSilence(quietNoise[...]))
        var withGap = quietNoise
        withGap.replaceSubrange(960..<1120, with: [Int16](repeating: 1, count: 160))
        XCTAssertTrue(NoiseFloor.holdsDigitalSilence(withGap[...]))
        XCTAssertFalse(NoiseFloor.holdsDigitalSilence(withGap[...], silenceDB: -100), "one step is -90 dB")
        XCTAssertFalse(NoiseFloor.holdsDigitalSilence([Int16](repeating: 0, count: 159)[...]), "no whole frame")
    }
}

final class HighBandFillTests: XCTestCase {
    /// Tones at 500 Hz and 2 kHz: nothing above 4 kHz, as in telephone audio.
    let narrow = zip(tone(hz: 500, seconds: 1, amplitude: 0.3), tone(hz: 2000, seconds: 1, amplitude: 0.1)).map { $0 + $1 }

    /// The filters run eight outputs side by side; each value is the one-at-a-time loop's to the bit (the same
    /// float operations in the same order), at every length (shorter than the filter, edges, a ragged tail).
    func testTheFiltersGiveTheScalarLoopsValuesToTheBit() {
        var random = SystemRandomNumberGenerator()
        let fill = HighBandFill()
        let taps = HighBandFill.bandPassTaps(lowHz: fill.upperBandLowHz, highHz: fill.upperBandHighHz)
        for n in [0, 1, 7, 50, 100, 101, 102, 109, 203, 1000, 4099] {
            let samples = (0..<n).map { _ in Int16.random(in: -20_000...20_000, using: &random) }
            // `upperBandPower` as it was written first: one output at a time, the taps that stay inside.
            let x = samples.map(Float.init), half = taps.count / 2
            var sums = [Double](repeating: 0, count: n + 1)
            for i in 0..<n {
                var y: Float = 0
                for k in max(0, i + half - n + 1)..<min(taps.count, i + half + 1) { y += taps[k] * x[i + half - k] }
                sums[i + 1] = sums[i] + Double(y * y)
            }
            let w = fill.envelopeHalfWindow
            let expected = (0..<n).map { i in
                Float((sums[min(n, i + w + 1)] - sums[max(0, i - w)]) / Double(min(n, i + w + 1) - max(0, i - w)))
            }
            XCTAssertEqual(fill.upperBandPower(of: samples[...]), expected, "\(n) samples")
            // The fill's low-pass over its noise, every tap inside.
            let outputs = max(0, n - HighBandFill.taps.count + 1)
            let scalar = (0..<outputs).map { j in
                var low: Float = 0
                for k in 0..<HighBandFill.taps.count { low += HighBandFill.taps[k] * x[j + HighBandFill.taps.count - 1 - k] }
                return low
            }
            XCTAssertEqual(HighBandFill.filter(x, taps: HighBandFill.taps, outputs: outputs), scalar, "\(n) samples")
        }
    }

    func testOnlyBandLimitedAudioIsFilled() throws {
        let spectrum = PowerSpectrum(frameSamples: 512)
        let fill = HighBandFill()
        XCTAssertNotNil(fill.level(for: narrow[...], spectrum: spectrum))
        // A 6 kHz tone 40 dB under them: a dull voice still has that much up there.
        let dull = zip(narrow, tone(hz: 6000, seconds: 1, amplitude: 0.003)).map { $0 + $1 }
        XCTAssertNil(fill.level(for: dull[...], spectrum: spectrum))
        XCTAssertNil(fill.level(for: [Int16](repeating: 0, count: 16_000)[...], spectrum: spectrum), "silence")
        XCTAssertNil(fill.level(for: narrow.prefix(2000), spectrum: spectrum), "under 4 frames")
    }

    func testTheFillLiesAboveTheSpeechBandAtItsLevelUnderIt() throws {
        let spectrum = PowerSpectrum(frameSamples: 512)
        var fill = HighBandFill()
        fill.levelUnderSpeechDB = -30
        let rms = try XCTUnwrap(fill.level(for: narrow[...], spectrum: spectrum))
        let filled = fill.apply(narrow[...], start: 0, rms: rms)
        let before = try XCTUnwrap(HighBandFill.bandPowers(of: narrow[...], spectrum: spectrum))
        let after = try XCTUnwrap(HighBandFill.bandPowers(of: filled[...], spectrum: spectrum))
        // The noise's power from 4.4 to 7.8 kHz is most of its power over the whole band (4.6–8 kHz).
        XCTAssertEqual(10 * log10(after.high / after.speech), -30, accuracy: 2)
        XCTAssertEqual(10 * log10(after.speech / before.speech), 0, accuracy: 0.05, "the speech band is left alone")
        XCTAssertNil(fill.level(for: filled[...], spectrum: spectrum), "filled audio is band-limited no more")
    }

    func testSameFillWhateverTheChunks() {
        var fill = HighBandFill()
        fill.followsUpperBandDB = nil
        let whole = fill.apply(narrow[...], start: 800, rms: 50)
        var chunked: [Int16] = []
        var i = 0
        for size in [1, 159, 1000, 46, 47, 14_747] where i < narrow.count {
            let end = min(narrow.count, i + size)
            chunked += fill.apply(narrow[i..<end], start: 800 + i, rms: 50)
            i = end
        }
        XCTAssertEqual(chunked, whole)
        XCTAssertNotEqual(fill.apply(narrow[...], start: 801, rms: 50), whole, "the noise depends on the position")
    }

    /// Half a second of a vowel-like 500 Hz tone, then half a second of a fricative's trace under 4 kHz (3.2 kHz).
    let vowelThenFricative = tone(hz: 500, seconds: 0.5, amplitude: 0.3) + tone(hz: 3200, seconds: 0.5, amplitude: 0.03)

    func testTheFillFollowsTheTopOfTheSpeechBand() throws {
        let spectrum = PowerSpectrum(frameSamples: 512)
        let input = vowelThenFricative
        var steady = HighBandFill()
        steady.followsUpperBandDB = nil
        let following = HighBandFill()   // 10 dB over the band's top
        let rms = try XCTUnwrap(following.level(for: input[...], spectrum: spectrum))
        let a = steady.apply(input[...], start: 0, rms: rms), b = following.apply(input[...], start: 0, rms: rms)
        let vowel = 512..<7488, fricative = 8512..<15488   // clear of the step and the ends
        func high(_ x: [Int16], _ r: Range<Int>) throws -> Double { try XCTUnwrap(HighBandFill.bandPowers(of: x[r], spectrum: spectrum)).high }
        func speech(_ x: [Int16], _ r: Range<Int>) throws -> Double { try XCTUnwrap(HighBandFill.bandPowers(of: x[r], spectrum: spectrum)).speech }
        // Under the vowel the fill stays at the steady floor; under the fricative it lies 10 dB over its trace.
        XCTAssertEqual(10 * log10(try high(b, vowel) / high(a, vowel)), 0, accuracy: 1)
        XCTAssertEqual(10 * log10(try high(b, fricative) / speech(input, fricative)), 10, accuracy: 2)
        XCTAssertGreaterThan(10 * log10(try high(b, fricative) / high(a, fricative)), 15)
        XCTAssertEqual(10 * log10(try speech(b, fricative) / speech(input, fricative)), 0, accuracy: 0.05, "the speech band is left alone")
    }

    func testTheFollowingFillIsTheSameWhateverTheChunksAwayFromTheirEdges() {
        let fill = HighBandFill()
        let reach = fill.reach
        XCTAssertGreaterThan(reach, 0)
        let input = vowelThenFricative
        let whole = fill.apply(input[...], start: 800, rms: 30)
        var i = 0
        for size in [3000, 6000, 7000] {
            let piece = fill.apply(input[i..<(i + size)], start: 800 + i, rms: 30)
            XCTAssertEqual(Array(piece[reach..<(size - reach)]), Array(whole[(i + reach)..<(i + size - reach)]))
            i += size
        }
    }
}

/// The babble floor: each bin raised to its median over the loud frames of the second around it.
final class BabbleFloorTests: XCTestCase {
    private func rms(_ x: ArraySlice<Int16>) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))).squareRoot()
    }

    func testASteadySoundIsItsOwnFloorAndComesBackUnchanged() {
        let input = zip(tone(hz: 1000, seconds: 1, amplitude: 0.3), noise(seconds: 1, amplitude: 0.01)).map { $0 &+ $1 }
        let output = BabbleFloor().apply(input[...])
        XCTAssertEqual(output.count, input.count)
        // Half the frames sit under the median and are raised to it: a few dB at most for steady noise.
        let change = 20 * log10(rms(output[2000..<14_000]) / rms(input[2000..<14_000]))
        XCTAssertLessThan(abs(change), 0.5)
    }

    func testAGapInASoundThatFillsMostOfTheSecondIsFilledToItsLevel() {
        // A 1 kHz tone over 1.5 s with 0.2 s of near-silence in its middle: the tone is the median there.
        let on = tone(hz: 1000, seconds: 0.65, amplitude: 0.3)
        let hush = noise(seconds: 0.2, amplitude: 0.0001, seed: 9)
        let input = on + hush + on
        let output = BabbleFloor().apply(input[...])
        let gap = 10_400 + 800..<10_400 + 2400   // the middle of the hush, away from the tone's window
        XCTAssertLessThan(rms(input[gap]), 10)
        XCTAssertEqual(20 * log10(rms(output[gap]) / rms(input[1000..<9000])), 0, accuracy: 2,
                       "the hush takes the tone's level")
    }

    func testBurstsLouderThanTheirSurroundingsAreLeftAlone() {
        // A tone in a third of the frames over steady noise: each bin's median is the noise, under the tone.
        let burst = tone(hz: 1000, seconds: 0.2, amplitude: 0.3)
        let quiet = [Int16](repeating: 0, count: 6400)
        let bursts = Array((0..<4).map { _ in burst + quiet }.joined())
        let input = zip(bursts, noise(seconds: Double(bursts.count) / 16_000, amplitude: 0.01, seed: 4)).map { $0 &+ $1 }
        let output = BabbleFloor().apply(input[...])
        let inBurst = 9600 + 600..<9600 + 2600   // the second burst
        XCTAssertEqual(20 * log10(rms(output[inBurst]) / rms(input[inBurst])), 0, accuracy: 0.2)
        let between = 12_800 + 800..<12_800 + 5600
        XCTAssertLessThan(20 * log10(rms(output[between]) / rms(input[between])), 3,
                          "between the bursts the floor is the noise, not the tone")
    }

    func testSilenceFarFromSoundStaysSilentAndShortBlocksPassThrough() {
        let silence = [Int16](repeating: 0, count: 40_000)
        let input = silence + tone(hz: 500, seconds: 0.5, amplitude: 0.3) + silence
        let output = BabbleFloor().apply(input[...])
        // More than a span (60 hops, 0.96 s) and a window before the tone: nothing there to take a floor from.
        XCTAssertEqual(Array(output[0..<20_000]), Array(input[0..<20_000]))
        XCTAssertEqual(Array(output[(input.count - 20_000)...]), Array(input[(input.count - 20_000)...]))
        let short: [Int16] = [1, -2, 3]
        XCTAssertEqual(BabbleFloor().apply(short[...]), short)
    }
}
