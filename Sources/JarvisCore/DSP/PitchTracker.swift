import Foundation

/// The talker's fundamental frequency at the start of a speech segment, to choose the front end's frequency
/// warp for the segment (`RecognizerSettings.highVoiceWarp`).
///
/// A higher voice usually comes from a shorter vocal tract, whose formants sit higher than those of the
/// acoustic model's average speaker; a larger warp moves them back down. Measured on the 193 real recordings
/// that hold the name (`--wake-phrase jarvis`, F0 over each whole clip): speakers at 180 Hz or more were
/// detected 50 of 64 times with the warp 1.1 and 56 with 1.3, the others 127 of 129 with 1.1 and 116 with 1.3
/// (docs/accuracy.md).
///
/// Each 20 ms frame is analysed over the 40 ms that end with it (the frame and the one before): the lag of
/// the highest peak of the autocorrelation between `lowestHz` and `highestHz` is the period, and the frame
/// counts as voiced when that peak is at least `voicedCorrelation` of the zero-lag value. The estimate is the
/// median period of the first `framesForEstimate` voiced frames that lie no more than `voicedRangeDB` under the
/// loudest voiced frame so far (a faint hum or a voice in the background before the talker does not count);
/// once made, it stays until `reset`.
public struct PitchTracker: Sendable {
    public var lowestHz = 60.0
    public var highestHz = 400.0
    public var voicedCorrelation = 0.5
    public var voicedRangeDB = 20.0
    /// Voiced frames (20 ms) the estimate needs: 20 is 0.4 s of voiced speech, about "hey jarv" (with 10 the
    /// high "hey" alone decided).
    public var framesForEstimate = 20

    /// At most this many voiced frames are kept while no estimate can be made (5 s of voice).
    static let maxVoicedFrames = 250

    private var previous: [Float] = []
    /// The segment's voiced frames so far: zero-lag energy and period (samples).
    private var voiced: [(energy: Double, lag: Double)] = []
    /// The largest energy in `voiced`.
    private var loudest = 0.0
    public private(set) var estimate: Double?

    public init() {}

    /// Forgets the segment.
    public mutating func reset() {
        previous.removeAll(keepingCapacity: true)
        voiced.removeAll(keepingCapacity: true)
        loudest = 0
        estimate = nil
    }

    /// Adds the next frame of the segment (16 kHz samples; the pipeline's 20 ms frames).
    public mutating func add(_ frame: ArraySlice<Int16>) {
        guard estimate == nil else { return }
        let samples = frame.map(Float.init)
        let window = previous + samples
        previous = samples
        guard window.count >= 2 * frame.count, voiced.count < Self.maxVoicedFrames,
              let period = Self.period(of: window, lowestHz: lowestHz, highestHz: highestHz,
                                       voicedCorrelation: voicedCorrelation) else { return }
        voiced.append((energy: period.energy, lag: period.lag))
        loudest = max(loudest, period.energy)
        let near = voiced.filter { 10 * log10(loudest / $0.energy) <= voicedRangeDB }.prefix(framesForEstimate)
        guard near.count >= framesForEstimate, let median = BenchmarkResult.median(near.map(\.lag)) else { return }
        estimate = Double(AudioFormat.sampleRate) / median
    }

    /// The period (samples) of `window` by autocorrelation, with its zero-lag energy (sum of squares), or nil
    /// when the autocorrelation has no peak between `highestHz` and `lowestHz` or its highest one correlates
    /// less than `voicedCorrelation` (unvoiced, silent, or noise).
    static func period(of window: [Float], lowestHz: Double, highestHz: Double,
                       voicedCorrelation: Double) -> (lag: Double, energy: Double)? {
        let mean = window.reduce(0, +) / Float(window.count)
        let x = window.map { $0 - mean }
        let shortest = Int(Double(AudioFormat.sampleRate) / highestHz)
        let longest = min(x.count - 1, Int(Double(AudioFormat.sampleRate) / lowestHz))
        guard shortest < longest else { return nil }
        guard let (energy, values) = x.withUnsafeBufferPointer({ p -> (Double, [Double])? in
            let energy = Double(lagProduct(p, lag: 0))
            guard energy > 0 else { return nil }
            return (energy, (shortest...longest).map { Double(lagProduct(p, lag: $0)) })
        }) else { return nil }
        // The highest local maximum strictly inside the range: noise whose power falls with frequency (brown or
        // pink noise, rumble) correlates best at the shortest lag and then less and less, without a peak.
        var best: Int?, bestValue = -Double.infinity
        for i in 1..<(values.count - 1) where values[i] > values[i - 1] && values[i] >= values[i + 1] {
            if values[i] > bestValue { best = shortest + i; bestValue = values[i] }
        }
        guard let best, bestValue >= voicedCorrelation * energy else { return nil }
        return (Double(best), energy)
    }

    /// Σ x[i]·x[i + lag] over the samples that overlap (the autocorrelation at `lag` samples), eight products
    /// at a time: the tracker's inner loop, about 230 lags of about 500 products per 20 ms frame.
    static func lagProduct(_ x: UnsafeBufferPointer<Float>, lag: Int) -> Float {
        let n = x.count - lag
        guard let base = x.baseAddress, n > 0 else { return 0 }
        var sums = SIMD8<Float>(repeating: 0)
        var i = 0
        while i + 8 <= n {
            let a = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD8<Float>.self)
            let b = UnsafeRawPointer(base + i + lag).loadUnaligned(as: SIMD8<Float>.self)
            sums += a * b
            i += 8
        }
        var sum = sums.sum()
        while i < n { sum += x[i] * x[i + lag]; i += 1 }
        return sum
    }
}
