/// Signal-to-noise ratio of one speech segment, from the band levels (dB) of its frames: the loud frames
/// (90th percentile) against the quiet ones (10th percentile), and how steady those quiet ones are.
///
/// The quiet frames are the pauses between words, and the background just before the segment. Either can
/// be the better witness: noise that starts with the speech (a fan switched on, a recording that begins
/// mid-noise) is only in the pauses; a background that was there before the speech fills the lead-in, while
/// a short segment may have few pauses. The lead-in joins the pauses when it is as loud as they are quiet.
/// A value type: add one level per frame.
public struct SegmentSNR: Sendable, Equatable {
    /// Fewest frames for an estimate (nil below).
    public var minFrames = 25
    /// Most frames kept (the latest); 3000 frames of 20 ms are 60 s.
    public var maxFrames = 3000
    /// Background frames before the segment kept as its lead-in (50 frames of 20 ms are 1 s).
    public var leadFrames = 50
    /// How close (dB) the lead-in's median must be to the pauses' quiet level to count as the same background.
    public var sameBackgroundDB = 3.0
    /// A segment that starts at most this many background frames after the previous one ended (100 frames of
    /// 20 ms are 2 s: a command cut off from its wake phrase by a pause) may take the noise from that one, when
    /// its own quiet frames are less steady (a short segment full of speech has few pauses).
    public var carryFrames = 100
    /// Levels of the current segment.
    public private(set) var levels: [Float] = []
    /// Levels of the background before it, sorted (only their percentiles count).
    public private(set) var lead: [Float] = []
    /// `levels` sorted, kept so as levels come and go: an estimate (asked for every 200 ms of speech, every
    /// frame once a segment holds `maxFrames`) looks its percentiles up instead of sorting.
    private var sortedLevels: [Float] = []
    private var background: [Float] = []
    /// The last segment's estimate, the background frames since it ended, and the estimate the current segment
    /// may take its noise from (`carryFrames`).
    private var previous: Estimate?
    private var framesSincePrevious = 0
    private var carried: Estimate?

    public init() {}

    /// A frame outside speech (the background that the next segment's lead-in is taken from).
    public mutating func addBackground(levelDB: Float) {
        framesSincePrevious += 1
        background.append(levelDB)
        if background.count > 2 * leadFrames { background.removeFirst(background.count - leadFrames) }
    }

    /// Speech began: the last `leadFrames` of background become the lead-in of a new segment.
    public mutating func startSegment() {
        carried = framesSincePrevious <= carryFrames ? previous : nil
        lead = background.suffix(leadFrames).sorted()
        background.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
        sortedLevels.removeAll(keepingCapacity: true)
    }

    public mutating func add(levelDB: Float) {
        levels.append(levelDB)
        sortedLevels.insert(levelDB, at: Self.firstIndex(notBelow: levelDB, in: sortedLevels))
        if levels.count > maxFrames {
            for old in levels.prefix(levels.count - maxFrames) { Self.remove(old, from: &sortedLevels) }
            levels.removeFirst(levels.count - maxFrames)
        }
    }

    /// Moves the last `count` frames (a hangover of trailing silence that is not part of the segment) to the
    /// background, which the next segment's lead-in is taken from.
    public mutating func dropLast(_ count: Int) {
        let dropped = levels.suffix(min(count, levels.count))
        levels.removeLast(dropped.count)
        for level in dropped {
            Self.remove(level, from: &sortedLevels)
            addBackground(levelDB: level)
        }
    }

    /// The segment ended (after `dropLast`): returns its estimate, which is kept for a segment that follows soon.
    @discardableResult
    public mutating func endSegment() -> Estimate? {
        previous = estimate
        framesSincePrevious = 0
        return previous
    }

    public mutating func reset() {
        previous = nil
        carried = nil
        levels.removeAll(keepingCapacity: true)
        lead.removeAll(keepingCapacity: true)
        sortedLevels.removeAll(keepingCapacity: true)
        background.removeAll(keepingCapacity: true)
    }

    /// What the levels say about the noise under the speech.
    public struct Estimate: Sendable, Equatable {
        /// Loud minus quiet level (dB).
        public var snrDB: Double
        /// The quiet level (dB, band energy as the VAD measures it).
        public var noiseDB: Double
        /// Spread of the quietest quarter of the frames (their 25th minus 5th percentile, dB): about 1 dB for
        /// steady noise (fan, hiss, white or pink noise), several dB for silence between words or for babble.
        public var floorSpreadDB: Double
    }

    /// nil with fewer than `minFrames` frames in the segment and its lead-in together. When the previous segment
    /// ended shortly before this one (`carryFrames`) and its noise floor was steadier than this segment's quiet
    /// frames, and no louder than them (within `sameBackgroundDB`), its noise level and spread are taken, with
    /// this segment's loud level.
    public var estimate: Estimate? {
        guard let own = ownEstimate else { return nil }
        guard let carried, carried.floorSpreadDB < own.floorSpreadDB,
              carried.noiseDB <= own.noiseDB + sameBackgroundDB else { return own }
        return Estimate(snrDB: own.snrDB + own.noiseDB - carried.noiseDB, noiseDB: carried.noiseDB,
                        floorSpreadDB: carried.floorSpreadDB)
    }

    /// The estimate from this segment's levels and its lead-in only.
    private var ownEstimate: Estimate? {
        guard !levels.isEmpty else { return nil }
        guard levels.count >= max(1, minFrames) else {
            // Too short to have pauses of its own ("hey jarvis" cut off from its command by the VAD in a hiss):
            // the background just before it is the only witness of the noise.
            guard lead.count >= 10, lead.count + levels.count >= max(1, minFrames) else { return nil }
            return Self.estimate(merging: lead, sortedLevels)
        }
        let pauses = Self.estimate(merging: [], sortedLevels)
        // The lead-in counts when it is the same background as the pauses (within `sameBackgroundDB`), not
        // the silence before a noise that started with the speech.
        guard lead.count >= 10, abs(Self.percentile(lead, 0.5) - pauses.noiseDB) <= sameBackgroundDB
        else { return pauses }
        return Self.estimate(merging: lead, sortedLevels)
    }

    /// Index of the `p` percentile among `count` sorted values (the value at or below it, no interpolation).
    private static func percentileIndex(_ p: Double, count: Int) -> Int {
        min(count - 1, Int(p * Double(count - 1)))
    }

    private static func percentile(_ sorted: [Float], _ p: Double) -> Double {
        Double(sorted[percentileIndex(p, count: sorted.count)])
    }

    /// The estimate from the levels of two sorted arrays together (`a` may be empty; `b` is not), read off as the
    /// two are merged, up to the 90th percentile.
    private static func estimate(merging a: [Float], _ b: [Float]) -> Estimate {
        let count = a.count + b.count
        let wanted = [0.05, 0.1, 0.25, 0.9].map { percentileIndex($0, count: count) }  // ascending
        var values: [Double] = []
        var i = 0, j = 0, k = 0
        while values.count < wanted.count {
            let value: Float
            if j >= b.count || (i < a.count && a[i] <= b[j]) {
                value = a[i]
                i += 1
            } else {
                value = b[j]
                j += 1
            }
            while values.count < wanted.count, wanted[values.count] == k { values.append(Double(value)) }
            k += 1
        }
        return Estimate(snrDB: values[3] - values[1], noiseDB: values[1], floorSpreadDB: values[2] - values[0])
    }

    /// Where `value` goes in `sorted` (the first index whose value is not below it).
    private static func firstIndex(notBelow value: Float, in sorted: [Float]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Removes one `value` from `sorted`.
    private static func remove(_ value: Float, from sorted: inout [Float]) {
        let index = firstIndex(notBelow: value, in: sorted)
        if index < sorted.count, sorted[index] == value { sorted.remove(at: index) }
    }
}
