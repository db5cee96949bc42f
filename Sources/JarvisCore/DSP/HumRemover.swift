import Foundation

/// What counts as mains hum, and how it is taken out (`HumRemover`).
public struct HumSettings: Sendable, Equatable {
    /// Mains frequencies looked for (Hz).
    public var fundamentals: [Double] = [50, 60]
    /// Highest harmonic notched (Hz): the recogniser's filters start at 130 Hz, and a ground loop's harmonics
    /// fade within a few hundred hertz.
    public var highestHarmonic = 500.0
    /// Samples per measurement block (3200 at 16 kHz: 0.2 s, FFT bins 5 Hz apart, so that every harmonic of
    /// 50 and 60 Hz, and the points 15 and 20 Hz either side of it, fall on a bin).
    public var blockSamples = 3200
    /// A line is a harmonic whose power stands this far (dB) over the power 15 and 20 Hz either side of it,
    /// smoothed over blocks (`smoothing`).
    public var lineRatioDB = 15.0
    /// Weight of the previous blocks in the smoothed ratio and level (0.7: about a second to settle).
    public var smoothing = 0.7
    /// Hum is on when the fundamental and at least this many of its harmonics are lines; it goes off when the
    /// fundamental's smoothed ratio falls under `lineRatioDB` − `releaseDB`.
    public var harmonicLines = 1
    public var releaseDB = 6.0
    /// A harmonic more than this far (dB) under the hum's strongest line is left alone: in a quiet room a pure
    /// hum's sidelobes stand out of nothing too.
    public var lineRangeDB = 40.0
    /// Width of each notch (Hz, between its −3 dB points).
    public var notchWidth = 3.0

    public init() {}
}

/// Mains hum taken out before anything hears the audio: a stationary tone at 50 or 60 Hz with its harmonics (a
/// ground loop, a cheap microphone's preamplifier).
///
/// The speech band that the VAD and the segment SNR read starts at 250 Hz, so hum left in the audio counts as a
/// clean room, while the recogniser's filters (from 130 Hz) hear its 150 and 250 Hz harmonics. Every block of
/// `HumSettings.blockSamples` the power at each harmonic is compared with the power 15–20 Hz either side of it
/// (FFTW, Hann window), smoothed over blocks. When the fundamental and another harmonic stand out (after 0.4 s
/// for a strong hum), each harmonic that stands out is notched (a 2nd-order IIR notch, `notchWidth` wide) until
/// the fundamental fades. Speech has no line at 50 or 60 Hz (voices start above 70 Hz, and their harmonics
/// move), so a voice never turns it on; without hum the audio passes untouched, to the sample. It follows the
/// stream: the same samples give the same output however they are cut into chunks. Not thread-safe (one per
/// pipeline).
public struct HumRemover {
    public let settings: HumSettings
    public let sampleRate: Double
    /// Smoothed line ratios (dB) and powers (dB re full scale, per bin) per fundamental, per harmonic (index 0:
    /// the fundamental).
    private var ratios: [[Double]]
    private var levels: [[Double]]
    private var measured = false
    /// The block being gathered for the next measurement.
    private var block: [Int16] = []
    private let spectrum: PowerSpectrum
    /// Hz per bin of `spectrum`.
    private let binHz: Double
    /// The notches on now, lowest first; empty without hum.
    private var notches: [Notch] = []
    /// Frequencies (Hz) notched now: empty without hum.
    public var notchedLines: [Double] { notches.map(\.frequency) }

    public init(settings: HumSettings = HumSettings(), sampleRate: Double = Double(AudioFormat.sampleRate)) {
        self.settings = settings
        self.sampleRate = sampleRate
        ratios = settings.fundamentals.map { f in Array(repeating: 0, count: Self.harmonicCount(f, settings)) }
        levels = ratios
        spectrum = PowerSpectrum(frameSamples: settings.blockSamples, fftSize: settings.blockSamples)
        binHz = sampleRate / Double(settings.blockSamples)
        block.reserveCapacity(settings.blockSamples)
    }

    private static func harmonicCount(_ fundamental: Double, _ settings: HumSettings) -> Int {
        max(1, Int(settings.highestHarmonic / fundamental))
    }

    /// Back to a new remover's state (no hum known), keeping the FFT plan.
    public mutating func reset() {
        for f in ratios.indices {
            ratios[f] = Array(repeating: 0, count: ratios[f].count)
            levels[f] = ratios[f]
        }
        measured = false
        block.removeAll(keepingCapacity: true)
        notches = []
    }

    /// `samples` with the hum taken out (the same samples while there is none). The measurement of a block
    /// changes the notches from the next sample on, unless `notchesMayChange` is false (inside speech: an
    /// utterance is heard with the same filter throughout); the next block's measurement then decides.
    public mutating func process(_ samples: ArraySlice<Int16>, notchesMayChange: Bool = true) -> [Int16] {
        filtered(samples, notchesMayChange: notchesMayChange) ?? Array(samples)
    }

    /// As `process`, but nil when no sample was filtered (no hum): the audio loop then keeps its own frame.
    mutating func filtered(_ samples: ArraySlice<Int16>, notchesMayChange: Bool) -> [Int16]? {
        var output: [Int16]?   // made when the first sample is filtered
        var from = samples.startIndex
        while from < samples.endIndex {
            // Up to the end of the block being gathered: the notches can change only there.
            let to = min(samples.endIndex, from + settings.blockSamples - block.count)
            if !notches.isEmpty {
                if output == nil { output = Array(samples) }
                for i in from..<to {
                    var x = Float(samples[i])
                    for n in notches.indices { x = notches[n].filter(x) }
                    output?[i - samples.startIndex] = Int16(max(-32768, min(32767, x.rounded())))
                }
            }
            block.append(contentsOf: samples[from..<to])
            if block.count == settings.blockSamples {
                measure(notchesMayChange: notchesMayChange)
                block.removeAll(keepingCapacity: true)
            }
            from = to
        }
        return output
    }

    /// The power (dB re full scale, per bin) at `frequency` in `power`, and how far (dB) it stands over the
    /// power 15 and 20 Hz either side of it.
    private func line(at frequency: Double, in power: [Float]) -> (level: Double, ratio: Double) {
        func at(_ hz: Double) -> Double {
            let bin = Int((hz / binHz).rounded())
            return bin >= 0 && bin < power.count ? Double(power[bin]) : 0
        }
        let around = [-20.0, -15, 15, 20].map { at(frequency + $0) }.reduce(0, +) / 4
        let here = at(frequency)
        return (10 * log10(here + 1e-12), 10 * log10((here + 1e-12) / (around + 1e-12)))
    }

    /// Whether harmonic `k` of fundamental `f` is a line: it stands out of its neighbourhood by `threshold` and
    /// lies within `lineRangeDB` of the fundamental's strongest harmonic.
    private func isLine(_ f: Int, _ k: Int, threshold: Double) -> Bool {
        ratios[f][k] >= threshold && levels[f][k] >= (levels[f].max() ?? 0) - settings.lineRangeDB
    }

    /// The index of the fundamental whose lines stand out most, nil without hum; hum keeps its lines until its
    /// fundamental fades.
    private var humFundamental: Int? {
        if let on = notchedFundamental, ratios[on][0] >= settings.lineRatioDB - settings.releaseDB { return on }
        return settings.fundamentals.indices.filter { f in
            isLine(f, 0, threshold: settings.lineRatioDB)
                && ratios[f].indices.dropFirst().filter { isLine(f, $0, threshold: settings.lineRatioDB) }.count
                    >= settings.harmonicLines
        }.max { ratios[$0][0] < ratios[$1][0] }
    }

    /// The index of the fundamental notched now, nil when none is.
    private var notchedFundamental: Int? {
        notches.first.flatMap { first in settings.fundamentals.firstIndex { abs($0 - first.frequency) < 0.5 } }
    }

    /// Whether the audio holds hum: notched now, or measured since and to be notched at the next pause (the
    /// notches change only between utterances, so hum that starts with the speech stays in it until then).
    public var hearsHum: Bool { !notches.isEmpty || humFundamental != nil }

    private mutating func measure(notchesMayChange: Bool) {
        let power = spectrum.power(of: block[...])
        // Ratios start from 0 dB (no line), so one block never turns the hum on; levels from the first block.
        let weight = settings.smoothing, levelWeight = measured ? settings.smoothing : 0
        measured = true
        for (f, fundamental) in settings.fundamentals.enumerated() {
            for k in ratios[f].indices {
                let (level, ratio) = line(at: fundamental * Double(k + 1), in: power)
                ratios[f][k] = weight * ratios[f][k] + (1 - weight) * ratio
                levels[f][k] = levelWeight * levels[f][k] + (1 - levelWeight) * level
            }
        }
        guard notchesMayChange else { return }
        guard let chosen = humFundamental else {
            notches = []
            return
        }
        // A harmonic stays notched while the hum lasts: speech around it hides its line, not the hum.
        let fundamental = settings.fundamentals[chosen]
        let kept = chosen == notchedFundamental ? Set(notches.map { Int(($0.frequency / fundamental).rounded()) - 1 }) : []
        let wanted = ratios[chosen].indices.filter { kept.contains($0) || isLine(chosen, $0, threshold: settings.lineRatioDB) }
            .map { fundamental * Double($0 + 1) }
        // Notches already on keep their state (no click where a line stays notched).
        notches = wanted.map { frequency in
            notches.first { abs($0.frequency - frequency) < 0.5 }
                ?? Notch(frequency: frequency, width: settings.notchWidth, sampleRate: sampleRate)
        }
    }

    /// A 2nd-order IIR notch (the Audio EQ Cookbook's), direct form I.
    struct Notch: Sendable {
        let frequency: Double
        private let b0, b1, b2, a1, a2: Float
        private var x1: Float = 0, x2: Float = 0, y1: Float = 0, y2: Float = 0

        init(frequency: Double, width: Double, sampleRate: Double) {
            self.frequency = frequency
            let w0 = 2 * Double.pi * frequency / sampleRate
            let alpha = sin(w0) / (2 * (frequency / width))
            let a0 = 1 + alpha
            b0 = Float(1 / a0)
            b1 = Float(-2 * cos(w0) / a0)
            b2 = Float(1 / a0)
            a1 = Float(-2 * cos(w0) / a0)
            a2 = Float((1 - alpha) / a0)
        }

        mutating func filter(_ x: Float) -> Float {
            let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            x2 = x1
            x1 = x
            y2 = y1
            y1 = y
            return y
        }
    }
}
