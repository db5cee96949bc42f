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
    /// Levels of the background before it.
    public private(set) var lead: [Float] = []
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
        lead = Array(background.suffix(leadFrames))
        background.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
    }

    public mutating func add(levelDB: Float) {
        levels.append(levelDB)
        if levels.count > maxFrames { levels.removeFirst(levels.count - maxFrames) }
    }

    /// Moves the last `count` frames (a hangover of trailing silence that is not part of the segment) to the
    /// background, which the next segment's lead-in is taken from.
    public mutating func dropLast(_ count: Int) {
        let dropped = levels.suffix(min(count, levels.count))
        levels.removeLast(dropped.count)
        for level in dropped { addBackground(levelDB: level) }
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
            return Self.estimate(lead + levels)
        }
        let pauses = Self.estimate(levels)
        // The lead-in counts when it is the same background as the pauses (within `sameBackgroundDB`), not
        // the silence before a noise that started with the speech.
        guard lead.count >= 10, abs(Self.percentile(lead.sorted(), 0.5) - pauses.noiseDB) <= sameBackgroundDB
        else { return pauses }
        return Self.estimate(lead + levels)
    }

    private static func percentile(_ sorted: [Float], _ p: Double) -> Double {
        Double(sorted[min(sorted.count - 1, Int(p * Double(sorted.count - 1)))])
    }

    private static func estimate(_ levels: [Float]) -> Estimate {
        let sorted = levels.sorted()
        return Estimate(snrDB: percentile(sorted, 0.9) - percentile(sorted, 0.1), noiseDB: percentile(sorted, 0.1),
                        floorSpreadDB: percentile(sorted, 0.25) - percentile(sorted, 0.05))
    }
}
