import Foundation

import CFFTW

/// Power spectrum of one frame through FFTW (single precision, real input).
/// Owns its FFTW plan and buffers; not thread-safe (one per pipeline). FFTW's planner is not thread-safe
/// either: plans are made and destroyed under one process-wide lock (executing them needs none).
public final class PowerSpectrum {
    static let plannerLock = NSLock()
    /// FFT length in samples (frames shorter than this are zero-padded).
    public let fftSize: Int
    private let window: [Float]
    private let input: UnsafeMutablePointer<Float>
    private let output: OpaquePointer   // fftwf_complex*
    private let plan: fftwf_plan

    public init(frameSamples: Int, fftSize: Int = 512) {
        precondition(fftSize >= frameSamples && fftSize > 0)
        self.fftSize = fftSize
        window = hannWindow(frameSamples)
        input = fftwf_alloc_real(fftSize)!
        let out = fftwf_alloc_complex(fftSize / 2 + 1)!
        output = OpaquePointer(out)
        Self.plannerLock.lock()
        plan = fftwf_plan_dft_r2c_1d(Int32(fftSize), input, out, UInt32(FFTW_ESTIMATE))!
        Self.plannerLock.unlock()
    }

    deinit {
        Self.plannerLock.lock()
        fftwf_destroy_plan(plan)
        Self.plannerLock.unlock()
        fftwf_free(input)
        fftwf_free(UnsafeMutableRawPointer(output))
    }

    /// Bins 0…fftSize/2 of |X(k)|² for `frame` (Int16 samples scaled to ±1), Hann-windowed.
    public func power(of frame: ArraySlice<Int16>) -> [Float] {
        let n = min(frame.count, window.count)
        var i = 0
        for s in frame.prefix(n) {
            input[i] = Float(s) / 32768 * window[i]
            i += 1
        }
        while i < fftSize { input[i] = 0; i += 1 }
        fftwf_execute(plan)
        let bins = fftSize / 2 + 1
        let complex = UnsafeMutablePointer<Float>(output)   // interleaved re, im
        return (0..<bins).map { k in
            let re = complex[2 * k], im = complex[2 * k + 1]
            return re * re + im * im
        }
    }
}

/// A periodic Hann window of `count` samples.
public func hannWindow(_ count: Int) -> [Float] {
    guard count > 1 else { return [Float](repeating: 1, count: count) }
    return (0..<count).map { 0.5 - 0.5 * cos(2 * Float.pi * Float($0) / Float(count)) }
}

/// Sum of the power in the bins covering `lowHz`…`highHz` (inclusive), for an FFT of `fftSize` at `sampleRate`.
public func bandEnergy(_ power: [Float], fftSize: Int, sampleRate: Int, lowHz: Double, highHz: Double) -> Float {
    let hzPerBin = Double(sampleRate) / Double(fftSize)
    let lo = max(0, Int((lowHz / hzPerBin).rounded(.up)))
    let hi = min(power.count - 1, Int((highHz / hzPerBin).rounded(.down)))
    guard lo <= hi else { return 0 }
    return power[lo...hi].reduce(0, +)
}

/// Energy in decibels, with a floor so silence is finite (−120 dB).
@inlinable public func decibels(_ energy: Float) -> Float {
    10 * log10(max(energy, 1e-12))
}
