import Foundation

/// How loud a decoded word is, for telling the talker's words from quieter speech behind them (a TV, other
/// people) that the language model also turned into words.
public enum WordLevel {
    /// 10 ms frames, the recogniser's (samples).
    static let frameSamples = AudioFormat.sampleRate / 100

    /// Level of the audio between 10 ms frames `startFrame` and `endFrame` (inclusive) of `audio`: the 90th
    /// percentile of the frames' mean-square energy, in dB over one Int16 step squared. A word's loud part,
    /// not its consonants or the pause inside it. nil when the span holds no whole frame.
    public static func level(of audio: ArraySlice<Int16>, startFrame: Int, endFrame: Int) -> Double? {
        var energies = meanSquares(of: audio, startFrame: startFrame, endFrame: endFrame).map { 10 * log10($0 + 1) }
        guard !energies.isEmpty else { return nil }
        energies.sort()
        return energies[min(energies.count - 1, energies.count * 9 / 10)]
    }

    /// Mean square (Int16 steps squared) of each whole 10 ms frame of `audio` between frames `startFrame` and
    /// `endFrame` (inclusive), in order.
    static func meanSquares(of audio: ArraySlice<Int16>, startFrame: Int = 0, endFrame: Int = .max / 2 / 160) -> [Double] {
        let first = audio.startIndex + max(0, startFrame) * frameSamples
        let end = min(audio.endIndex, audio.startIndex + (endFrame + 1) * frameSamples)
        var squares: [Double] = []
        var i = first
        while i + frameSamples <= end {
            var sum = 0.0
            for k in i..<(i + frameSamples) { sum += Double(audio[k]) * Double(audio[k]) }
            squares.append(sum / Double(frameSamples))
            i += frameSamples
        }
        return squares
    }

    /// Level of a whole stretch of audio (`level(of:startFrame:endFrame:)` over all of it).
    public static func level(of audio: ArraySlice<Int16>) -> Double? {
        level(of: audio, startFrame: 0, endFrame: audio.count / frameSamples)
    }

    /// Seconds just before a wake phrase left out of the room's level (the phrase's onset may start earlier
    /// than the decoder's alignment says).
    static let roomOnsetGap = 0.1

    /// Samples of audio before a wake phrase that `roomLevel` looks at: `roomListening` seconds, and the gap.
    public static func roomSpan(_ settings: RecognizerSettings) -> Int {
        AudioFormat.samples(settings.roomListening + roomOnsetGap)
    }

    /// Level of the talk before a wake phrase: `audio` (which ends where the wake phrase begins, at most
    /// `roomSpan` samples of it) up to `roomOnsetGap` before its end; nil when that holds less than 1 s.
    public static func roomLevel(before audio: ArraySlice<Int16>) -> Double? {
        let end = audio.endIndex - AudioFormat.samples(roomOnsetGap)
        guard end - audio.startIndex >= AudioFormat.samples(1) else { return nil }
        return level(of: audio[audio.startIndex..<end])
    }

    /// The level (dB) at or under which speech after the talker's words is somebody else's: `drop` dB under
    /// `talker` (the wake phrase's level), or up to `roomContinuesWithin` dB over `room` (`roomLevel`) when
    /// the room lay `roomUnderTalker` dB or more under the talker.
    public static func othersCeiling(talker: Double, drop: Double, room: Double?, settings: RecognizerSettings) -> Double {
        guard let room, let under = settings.roomUnderTalker, room <= talker - under else { return talker - drop }
        return max(talker - drop, room + settings.roomContinuesWithin)
    }

    /// How many of the last words of `levels` (dB, one per word, nil = unknown) lie `drop` dB or more under
    /// `reference` (the talker's level; nil: the median of the words), counted from the end and stopping at
    /// the first word that does not, never counting the `keep` first words.
    public static func quietTail(_ levels: [Double?], reference: Double? = nil, drop: Double, keep: Int) -> Int {
        let known = levels.compactMap { $0 }.sorted()
        guard !known.isEmpty else { return 0 }
        let talker = reference ?? (known.count % 2 == 1 ? known[known.count / 2]
                                   : (known[known.count / 2 - 1] + known[known.count / 2]) / 2)
        var count = 0
        for level in levels.dropFirst(keep).reversed() {
            guard let level, level <= talker - drop else { break }
            count += 1
        }
        return count
    }
}
