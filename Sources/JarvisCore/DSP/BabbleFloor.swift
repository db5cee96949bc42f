import Foundation

/// Settings of `BabbleFloor` (short-time Fourier transform of 512 samples, hop 256 = 16 ms).
public struct BabbleFloorSettings: Sendable, Equatable {
    /// Percentile of a bin's power over the loud frames around a frame that becomes that bin's floor there
    /// (50: the median). Measured offline, whole files floored before the replay, on the babble set (the dev
    /// set's commands under other talkers' babble, 10 dB): 30, 40 and 50 all woke 67–81 % of the commands
    /// instead of 55 %, the median with the most right intents; 85 woke 20 %.
    public var percentile: Double = 50
    /// Hops each side of a frame whose loud frames give its floor (60 = 0.96 s each way). A floor from the
    /// past alone (120 hops before; offline, as above) woke 54 % of the babble set's commands, as many as no
    /// floor: babble that starts with the speech has no past, and the wake phrase is floored at its own level.
    public var spanHops = 60
    /// Frames this far or more under the block's loudest frame (power ratio; 1e-4 = 40 dB) are not the babble:
    /// the quiet before and after a segment is left out of the percentile.
    public var loudRatio: Float = 1e-4
    /// The floor is recomputed every this many hops and held in between (the median is the cost).
    public var strideHops = 4

    public init() {}
}

/// Turns the babble of other talkers under speech into a steady floor: every short-time bin is raised to at
/// least the median of its power over the loud frames of the second around it (Klatt's noise masking, with
/// the babble's own level as the mask). Where the talker is louder than the babble nothing changes; where the
/// babble is, its words are replaced by its average spectrum, which a phone loop can no longer follow.
/// Non-causal: it needs the whole segment (`PipelineSettings.babbleFloor`). Not thread-safe (one per pipeline).
public final class BabbleFloor {
    public static let hop = ShortTimeSpectra.hop
    public let settings: BabbleFloorSettings
    private let stft = ShortTimeSpectra()

    public init(settings: BabbleFloorSettings = BabbleFloorSettings()) {
        self.settings = settings
    }

    /// The block with each bin raised to its local floor, keeping its phase; same length (16 kHz Int16 samples).
    public func apply(_ samples: ArraySlice<Int16>) -> [Int16] {
        stft.reshape(samples) { analysis in
            let bins = ShortTimeSpectra.bins, power = analysis.power
            let floor = Self.floors(power: power, frames: analysis.frames, bins: bins, settings: settings)
            return { f, k in
                let p = power[f * bins + k], target = floor[f * bins + k]
                return p >= target || p <= 0 ? 1 : (target / p).squareRoot()
            }
        }
    }

    /// Per frame and bin: the `percentile` of the bin's power over the loud frames within `spanHops` either
    /// side (0 where there are none), recomputed every `strideHops`.
    static func floors(power: [Float], frames: Int, bins: Int, settings: BabbleFloorSettings) -> [Float] {
        var frameLevels = [Float](repeating: 0, count: frames)
        for f in 0..<frames { for k in 0..<bins { frameLevels[f] += power[f * bins + k] } }
        let loudest = frameLevels.max() ?? 0
        let loud = frameLevels.map { $0 > loudest * settings.loudRatio && $0 > 0 }
        var floor = [Float](repeating: 0, count: frames * bins)
        let stride = max(1, settings.strideHops)
        var values: [Float] = []
        values.reserveCapacity(2 * settings.spanHops + 1)
        for centre in Swift.stride(from: 0, to: frames, by: stride) {
            let lower = max(0, centre - settings.spanHops), upper = min(frames, centre + settings.spanHops + 1)
            let members = (lower..<upper).filter { loud[$0] }
            guard !members.isEmpty else { continue }
            let rank = min(members.count - 1, Int((settings.percentile / 100 * Double(members.count - 1)).rounded()))
            for k in 0..<bins {
                values.removeAll(keepingCapacity: true)
                for f in members { values.append(power[f * bins + k]) }
                values.sort()
                let level = values[rank]
                for f in centre..<min(frames, centre + stride) { floor[f * bins + k] = level }
            }
        }
        return floor
    }
}
