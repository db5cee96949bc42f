import Foundation

import CFFTW

/// A block's short-time spectra (FFTW, 512 samples, hop 256 = 16 ms at 16 kHz, a √Hann window before the FFT
/// and after the inverse: it overlap-adds to 1 at 50 % overlap), and the block made again from them with a
/// gain on each frame's bins. Owns its FFTW plans and buffers; not thread-safe.
public final class ShortTimeSpectra {
    public static let fftSize = 512
    public static let hop = 256
    public static let bins = fftSize / 2 + 1

    /// The spectra of one block: `frames` frames of `bins` bins, frame-major.
    public struct Analysis {
        public let frames: Int
        /// Interleaved real and imaginary parts.
        public let spectra: [Float]
        /// Power (squared magnitude) of each bin.
        public let power: [Float]
    }

    private let window: [Float]
    private let real: UnsafeMutablePointer<Float>
    private let complex: UnsafeMutablePointer<Float>   // interleaved re, im; `bins` bins
    private let forward: fftwf_plan
    private let inverse: fftwf_plan

    public init() {
        let n = Self.fftSize
        window = hannWindow(n).map { $0.squareRoot() }
        real = fftwf_alloc_real(n)!
        let out = fftwf_alloc_complex(n / 2 + 1)!
        complex = UnsafeMutableRawPointer(out).assumingMemoryBound(to: Float.self)
        PowerSpectrum.plannerLock.lock()
        forward = fftwf_plan_dft_r2c_1d(Int32(n), real, out, UInt32(FFTW_ESTIMATE))!
        inverse = fftwf_plan_dft_c2r_1d(Int32(n), out, real, UInt32(FFTW_ESTIMATE))!
        PowerSpectrum.plannerLock.unlock()
    }

    deinit {
        PowerSpectrum.plannerLock.lock()
        fftwf_destroy_plan(forward)
        fftwf_destroy_plan(inverse)
        PowerSpectrum.plannerLock.unlock()
        fftwf_free(real)
        fftwf_free(UnsafeMutableRawPointer(complex))
    }

    /// The spectra of `input` (at least `fftSize` samples); the last frame reaches past its end, zero-padded.
    public func analyse(_ input: [Int16]) -> Analysis {
        let n = Self.fftSize, hop = Self.hop, bins = Self.bins
        let frames = (input.count - n) / hop + 2
        var spectra = [Float](repeating: 0, count: frames * bins * 2)
        var power = [Float](repeating: 0, count: frames * bins)
        for f in 0..<frames {
            let start = f * hop
            for i in 0..<n {
                let s = start + i < input.count ? Float(input[start + i]) : 0
                real[i] = s * window[i]
            }
            fftwf_execute(forward)
            for k in 0..<bins {
                let re = complex[2 * k], im = complex[2 * k + 1]
                spectra[(f * bins + k) * 2] = re
                spectra[(f * bins + k) * 2 + 1] = im
                power[f * bins + k] = re * re + im * im
            }
        }
        return Analysis(frames: frames, spectra: spectra, power: power)
    }

    /// The block of `count` samples made from `analysis` with each bin scaled by `gain(frame, bin)` (called
    /// frame by frame, bins in order), rounded and clipped to Int16.
    public func synthesise(_ analysis: Analysis, count: Int, gain: (Int, Int) -> Float) -> [Int16] {
        let n = Self.fftSize, hop = Self.hop, bins = Self.bins
        var output = [Float](repeating: 0, count: analysis.frames * hop + n)
        for f in 0..<analysis.frames {
            for k in 0..<bins {
                let g = gain(f, k)
                complex[2 * k] = analysis.spectra[(f * bins + k) * 2] * g
                complex[2 * k + 1] = analysis.spectra[(f * bins + k) * 2 + 1] * g
            }
            fftwf_execute(inverse)   // unnormalised: n × the signal
            let start = f * hop
            for i in 0..<n { output[start + i] += real[i] * window[i] / Float(n) }
        }
        return (0..<count).map { Int16(max(-32768, min(32767, output[$0].rounded()))) }
    }

    /// `samples` analysed, each bin scaled by the gain that `gains` makes from the analysis (per frame and
    /// bin, called as `synthesise` calls it), and made again; a block shorter than one FFT comes back as it is.
    public func reshape(_ samples: ArraySlice<Int16>, gains: (Analysis) -> (Int, Int) -> Float) -> [Int16] {
        guard samples.count >= Self.fftSize else { return Array(samples) }
        let analysis = analyse(Array(samples))
        return synthesise(analysis, count: samples.count, gain: gains(analysis))
    }
}
