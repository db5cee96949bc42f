import Foundation

/// A faint noise above 4.6 kHz under audio that has nothing there: telephone audio, or a voice made at 8 kHz and
/// resampled (flite's kal), whose band above 4 kHz holds only the resampler's residue, 80 dB or more under the
/// speech.
///
/// PocketSphinx's acoustic model was trained on wide-band speech: its upper mel filters always saw some energy
/// under the speech, if only a microphone's noise. Under band-limited speech they see next to nothing, less than
/// in the pauses when the file's own noise is wide-band (devset.py pads every clip with such noise), and "s" and
/// "f", whose energy lies up there, fall silent. A steady noise in the empty band, far under the speech band
/// (`levelUnderSpeechDB`), gives those filters the floor a recording would have. Measured on flite kal's 23
/// commands (the voice set): 65.2 → 78.3 % intents. Clips band-limited throughout, their noise too (six of the
/// same voice's commands over the fixtures' noise bed, low-passed whole), were all heard right without it too.
/// Where the top of the speech band is loud, as in a fricative, the fill grows with it (`followsUpperBandDB`).
///
/// Like `NoiseFloor`, the noise at a sample is a function of its absolute position in the stream, and its gain
/// one of the audio within `reach` samples of it, so a slice gets the same fill however the stream was cut
/// (but for its first and last `reach` samples), and again when it is decoded a second time.
public struct HighBandFill: Sendable, Equatable {
    /// Audio is band-limited when its loud frames' power from 4.4 to 7.8 kHz lies at least this far (dB) under
    /// their power from 0.3 to 3.8 kHz. Measured on clean speech: the duller TTS voices lie 27–48 dB under
    /// (flite awb), recorded "jarvis" clips 1–31 dB; 8 kHz audio resampled 51–94 dB (flite kal 79–83).
    public var bandLimitDB = -60.0
    /// Level of the noise (its power over the whole band) relative to the loud frames' power from 0.3 to 3.8 kHz:
    /// about where a natural voice's own high band lies. On flite kal's commands -40 to -20 dB gave the same
    /// intents (78.3 %), -45 and -55 dB fewer (73.9 %).
    public var levelUnderSpeechDB = -30.0

    /// Fricatives ("s", "f", "sh") keep a trace of their energy under 4 kHz, in the band's top
    /// (`upperBandLowHz`–`upperBandHighHz`), where a wide-band voice would have put most of it above. So the
    /// fill also follows that band's short-time power, this many dB over it (artificial bandwidth extension by a
    /// shaped noise): "s" gets its hiss back while a vowel, whose power lies lower, keeps the steady floor. nil:
    /// the steady fill only. Measured (2026-11-28, stop 55): flite kal's searches and commands (the query and voice
    /// sets, 53 clips) 50.9 → 69.8 % right at 10 dB (a first version at 0 dB: 56.6, 3: 66.0, 6 and 8: 62–66, 13
    /// and 16: 69.8); recorded telephone-band speech transcribed by the language model (`jarvis eval
    /// --transcripts`: asterisk prompts, spoken digits) 62.3 / 79.7 → 60.3 / 76.0 % WER (6, 10 and 13 dB alike).
    public var followsUpperBandDB: Double? = 10
    /// The band under 4 kHz whose power the fill follows (Hz).
    public var upperBandLowHz = 2500.0
    public var upperBandHighHz = 3800.0
    /// Half the window over which that band's power is averaged (samples; 128 = 8 ms each side).
    public var envelopeHalfWindow = 128

    /// How far (samples) the audio on either side of a sample moves its fill: the band-pass filter's half and
    /// the power's window.
    public var reach: Int { followsUpperBandDB == nil ? 0 : Self.bandPassTapCount / 2 + envelopeHalfWindow }
    static let bandPassTapCount = 101

    public init() {}

    /// Taps of a band-pass filter (Hamming-windowed difference of two sincs) from `lowHz` to `highHz` at 16 kHz
    /// (`lowHz` 0: a low-pass); 101 taps make each edge about 0.3 kHz wide, so the vowels' second formant stays out.
    static func bandPassTaps(lowHz: Double, highHz: Double, count: Int = bandPassTapCount) -> [Float] {
        let middle = Double(count - 1) / 2, rate = Double(AudioFormat.sampleRate)
        return (0..<count).map { i in
            let t = Double(i) - middle
            let sinc = { (cutoff: Double) in t == 0 ? 2 * cutoff : sin(2 * .pi * cutoff * t) / (.pi * t) }
            let window = 0.54 - 0.46 * cos(2 * .pi * Double(i) / Double(count - 1))
            return Float((sinc(highHz / rate) - sinc(lowHz / rate)) * window)
        }
    }

    /// Per sample of `samples`, the mean power (Int16 steps squared) of their band from `upperBandLowHz` to
    /// `upperBandHighHz`, over ±`envelopeHalfWindow` samples (fewer at the ends).
    func upperBandPower(of samples: ArraySlice<Int16>) -> [Float] {
        let taps = Self.bandPassTaps(lowHz: upperBandLowHz, highHz: upperBandHighHz)
        let x = samples.map(Float.init), n = x.count, half = taps.count / 2
        // The band's samples: y[i] sums taps[k]·x[i + half − k] over the k that stay inside x.
        let inside = half..<max(half, n - half)   // every tap inside x
        var y = [Float](repeating: 0, count: n)
        for (j, value) in Self.filter(x, taps: taps, outputs: inside.count).enumerated() { y[half + j] = value }
        for i in 0..<n where !inside.contains(i) {
            for k in max(0, i + half - n + 1)..<min(taps.count, i + half + 1) { y[i] += taps[k] * x[i + half - k] }
        }
        var sums = [Double](repeating: 0, count: n + 1)   // running sums of the band's squared samples
        for i in 0..<n { sums[i + 1] = sums[i] + Double(y[i] * y[i]) }
        let w = envelopeHalfWindow
        return (0..<n).map { i in
            let lo = max(0, i - w), hi = min(n, i + w + 1)
            return Float((sums[hi] - sums[lo]) / Double(hi - lo))
        }
    }

    /// The first `outputs` values of `taps` run over `input` with every tap inside it: value j is
    /// Σ taps[k]·input[j + taps.count − 1 − k], summed in k's order from 0. Eight values are made side by side,
    /// each lane doing a scalar loop's float operations in its order (no fused multiply-add), so each value is
    /// the scalar loop's to the bit.
    static func filter(_ input: [Float], taps: [Float], outputs: Int) -> [Float] {
        guard outputs > 0 else { return [] }
        precondition(outputs + taps.count - 1 <= input.count)
        let last = taps.count - 1
        var out = [Float](repeating: 0, count: outputs)
        input.withUnsafeBufferPointer { x in
            out.withUnsafeMutableBufferPointer { y in
                var j = 0
                while j + 8 <= outputs {
                    var sum = SIMD8<Float>(repeating: 0)
                    for k in 0...last {
                        sum += SIMD8(repeating: taps[k])
                            * UnsafeRawPointer(x.baseAddress! + j + last - k).loadUnaligned(as: SIMD8<Float>.self)
                    }
                    UnsafeMutableRawPointer(y.baseAddress! + j).storeBytes(of: sum, as: SIMD8<Float>.self)
                    j += 8
                }
                for j in j..<outputs {
                    for k in 0...last { y[j] += taps[k] * x[j + last - k] }
                }
            }
        }
        return out
    }

    /// Taps of the low-pass filter (cut-off 3.4 kHz at 16 kHz, Hamming-windowed sinc) whose output, every other
    /// sample negated, is the noise: the sign flip moves 0–3.4 kHz up to 4.6–8 kHz.
    static let taps = bandPassTaps(lowHz: 0, highHz: 3400, count: 47)
    static let tapsPower: Float = taps.reduce(0) { $0 + $1 * $1 }

    /// The loud frames' power in the speech band (0.3–3.8 kHz) and above it (4.4–7.8 kHz), as summed FFT power per
    /// 512-sample frame (`PowerSpectrum`), over the loudest quarter of `samples`' frames; nil for under 4 frames.
    static func bandPowers(of samples: ArraySlice<Int16>, spectrum: PowerSpectrum) -> (speech: Double, high: Double)? {
        let n = spectrum.fftSize
        let frames = samples.count / n
        guard frames >= 4 else { return nil }
        var perFrame: [(total: Double, speech: Double, high: Double)] = []
        for f in 0..<frames {
            let start = samples.startIndex + f * n
            let power = spectrum.power(of: samples[start..<(start + n)])
            let band = { (low: Double, high: Double) in
                Double(bandEnergy(power, fftSize: n, sampleRate: AudioFormat.sampleRate, lowHz: low, highHz: high))
            }
            perFrame.append((Double(power.reduce(0, +)), band(300, 3800), band(4400, 7800)))
        }
        let loud = perFrame.sorted { $0.total > $1.total }.prefix(max(1, frames / 4))
        let speech = loud.reduce(0.0) { $0 + $1.speech } / Double(loud.count)
        let high = loud.reduce(0.0) { $0 + $1.high } / Double(loud.count)
        return speech > 0 ? (speech, high) : nil
    }

    /// The fill's per-sample RMS (Int16 steps) for `samples`, or nil when they are not band-limited (or too short,
    /// or silent).
    public func level(for samples: ArraySlice<Int16>, spectrum: PowerSpectrum) -> Float? {
        guard let (speech, high) = Self.bandPowers(of: samples, spectrum: spectrum),
              high < speech * pow(10, bandLimitDB / 10) else { return nil }
        // A frame's one-sided power sum is N²·(3/16)·σ² for white noise of variance σ² under a Hann window.
        let n = Double(spectrum.fftSize)
        let speechVariance = speech / (n * n * 3 / 16)
        return Float((speechVariance * pow(10, levelUnderSpeechDB / 10)).squareRoot() * 32768)
    }

    /// `samples` with the fill at `rms` (Int16 steps) added (rounded, clipped to the Int16 range); `start` is the
    /// absolute index of the first sample in the stream.
    public func apply(_ samples: ArraySlice<Int16>, start: Int, rms: Float) -> [Int16] {
        let taps = Self.taps
        // Uniform noise of this peak has variance peak²/3; the filter scales it by the taps' power.
        let source = NoiseFloor(amplitude: (3 * rms * rms / Self.tapsPower).squareRoot())
        let history = taps.count - 1
        var white = [Float](repeating: 0, count: samples.count + history)
        for i in white.indices { white[i] = source.noise(at: start - history + i, stream: 1) }
        // The fill's gain per sample: 1, or more where the band's top is loud (a fricative).
        let gains: [Float]? = followsUpperBandDB.map { db in
            let over = Float(pow(10, db / 10)) / (rms * rms)
            return upperBandPower(of: samples).map { (1 + over * $0).squareRoot() }
        }
        let filtered = Self.filter(white, taps: taps, outputs: samples.count)
        return NoiseFloor.adding(to: samples, start: start) { index in
            var low = filtered[index - start]
            if let gains { low *= gains[index - start] }
            return index & 1 == 0 ? low : -low
        }
    }
}
