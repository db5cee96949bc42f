/// A fixed-size ring of the most recent samples, addressed by absolute sample index of the stream.
/// Older audio is overwritten (never an unbounded queue); asking for it returns only what is still held.
public struct AudioHistory: Sendable {
    public let capacity: Int
    private var storage: [Int16]
    /// Absolute index one past the newest sample.
    public private(set) var endSample = 0

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        storage = [Int16](repeating: 0, count: capacity)
    }

    /// Absolute index of the first sample after the last gap (`skip(_:)`).
    private var heldFrom = 0

    /// Absolute index of the oldest sample still held.
    public var startSample: Int { max(heldFrom, endSample - capacity) }

    public mutating func append(_ samples: ArraySlice<Int16>) {
        endSample += max(0, samples.count - capacity)   // older than the ring holds: skipped
        for s in samples.suffix(capacity) {
            storage[endSample % capacity] = s
            endSample += 1
        }
    }

    /// Samples in `from..<to` (absolute), clipped to what the ring still holds.
    public func samples(from: Int, to: Int) -> [Int16] {
        let lo = max(from, startSample), hi = min(to, endSample)
        guard lo < hi else { return [] }
        return (lo..<hi).map { storage[$0 % capacity] }
    }

    /// `count` samples of the stream that never arrived: they move the end on, and nothing before them is held
    /// any more (audio on both sides of a gap is not one stretch).
    public mutating func skip(_ count: Int) {
        endSample += max(0, count)
        heldFrom = endSample
    }

    public mutating func reset() {
        endSample = 0
        heldFrom = 0
    }
}
