/// How far the low band (voicing and first formants) falls between the word before a name and the name's
/// first sound: the closure of "jarvis"'s "jh" silences it, the murmur of a nasal ("nervous", "marvis") or a
/// vowel ("elvis") does not. A pure function of 16 kHz audio and 10 ms frame indices (the recogniser's frames:
/// frame i covers samples 160·i ..< 160·i + `frameSamples`).
public enum OnsetDip {
    /// Samples per analysis frame (25 ms) and per hop (10 ms, the recogniser's frame).
    static let frameSamples = 400
    static let hopSamples = UtteranceRecognizer.samplesPerFrame
    /// The low band, Hz.
    static let lowHz = 100.0, highHz = 900.0
    /// Frames before and after the name's first frame searched for the dip (60 ms either side: aligners
    /// put the closure at the end of the word before as often as at the start of the name).
    static let framesBefore = 6, framesAfter = 5

    /// The low band's level (dB) in each 10 ms frame `frames` of `audio` (frames that do not fit are left out).
    static func lowBandLevels(_ audio: ArraySlice<Int16>, frames: ClosedRange<Int>,
                              spectrum: PowerSpectrum) -> [Double] {
        frames.compactMap { frame -> Double? in
            let start = audio.startIndex + frame * hopSamples
            guard frame >= 0, start + frameSamples <= audio.endIndex else { return nil }
            let power = spectrum.power(of: audio[start..<(start + frameSamples)])
            return Double(decibels(bandEnergy(power, fftSize: spectrum.fftSize, sampleRate: AudioFormat.sampleRate,
                                              lowHz: lowHz, highHz: highHz)))
        }
    }

    /// The loudest low-band frame of `lead` (the word before the name, frames of `audio`) less the quietest one
    /// within `framesBefore`/`framesAfter` of `nameStart`, in dB; nil when either holds no whole frame.
    /// `spectrum` must take frames of `frameSamples`.
    public static func dip(in audio: ArraySlice<Int16>, lead: ClosedRange<Int>, nameStart: Int,
                           spectrum: PowerSpectrum) -> Double? {
        guard let loud = lowBandLevels(audio, frames: lead, spectrum: spectrum).max(),
              let quiet = lowBandLevels(audio, frames: (nameStart - framesBefore)...(nameStart + framesAfter),
                                        spectrum: spectrum).min() else { return nil }
        return loud - quiet
    }
}
