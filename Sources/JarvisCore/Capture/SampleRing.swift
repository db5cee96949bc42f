import Foundation

/// What happened at the capture end, delivered to the reader in order with the samples.
public enum CaptureNotice: Sendable, Equatable {
    /// alsa-lib reported an overrun (-EPIPE) or a suspend (-ESTRPIPE) and the PCM was recovered; the
    /// kernel dropped audio it could not hold (an unknown amount).
    case alsaOverrun(reason: String)
    /// The device failed while open (unplugged, I/O error): it was closed and will be reopened.
    case deviceLost(message: String)
    /// The device could not be opened; the next attempt comes after `retryIn` seconds.
    case deviceUnavailable(message: String, retryIn: Double)
    /// The device is open again after being lost or unavailable.
    case deviceAvailable
}

/// A fixed-size ring of 16 kHz samples between the capture thread (one writer) and the pipeline thread
/// (one reader). Memory is allocated once; it never grows.
///
/// Overrun policy when the reader falls behind and the ring is full:
/// - `.dropOldest` (live default): the oldest unread samples are overwritten; the count is kept and handed
///   to the reader with its next read (`RingChunk.dropped`), which reports it as an `overrun` event.
/// - `.block`: the writer waits for room (lossless; for file-backed PCMs that deliver faster than real time).
///
/// Thread safety: every stored property is guarded by `condition` (an NSCondition), hence `@unchecked Sendable`.
public final class SampleRing: @unchecked Sendable {
    public enum OverrunPolicy: String, Sendable {
        case dropOldest = "drop"
        case block
    }

    public struct Chunk: Sendable, Equatable {
        public var samples: [Int16] = []
        /// Samples overwritten before they were read, since the previous read.
        public var dropped = 0
        /// Notices posted at or before the end of `samples`, in order.
        public var notices: [CaptureNotice] = []
        /// The writer has closed the ring and everything has been read.
        public var ended = false
    }

    public let capacity: Int
    public let policy: OverrunPolicy

    private let condition = NSCondition()
    private var storage: [Int16]
    /// Index in `storage` of the oldest unread sample.
    private var head = 0
    private var count = 0
    /// Absolute index of the next sample to be written (all samples ever written).
    private var writePosition = 0
    private var droppedSinceRead = 0
    private var totalDropped = 0
    /// Notices with the absolute write position at which they were posted.
    private var notices: [(position: Int, notice: CaptureNotice)] = []
    private var closed = false

    public init(capacity: Int, policy: OverrunPolicy = .dropOldest) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.policy = policy
        storage = [Int16](repeating: 0, count: capacity)
    }

    /// All samples dropped by the overrun policy so far.
    public var droppedSamples: Int {
        condition.lock()
        defer { condition.unlock() }
        return totalDropped
    }

    /// Unread samples.
    public var available: Int {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    /// Appends samples. Returns how many unread samples this write dropped (`.dropOldest`). With `.block`,
    /// waits for room; returns early (the rest discarded) when the ring is closed.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        condition.lock()
        defer { condition.unlock() }
        if closed { return 0 }
        var dropped = 0
        var index = 0
        while index < samples.count {
            if count == capacity {
                switch policy {
                case .block:
                    while count == capacity && !closed { condition.wait() }
                    if closed { return dropped }
                case .dropOldest:
                    let drop = min(count, samples.count - index)
                    head = (head + drop) % capacity
                    count -= drop
                    dropped += drop
                }
            }
            let tail = (head + count) % capacity
            let room = min(capacity - count, capacity - tail, samples.count - index)
            for i in 0..<room { storage[tail + i] = samples[index + i] }
            count += room
            index += room
            writePosition += room
            condition.broadcast()
        }
        droppedSinceRead += dropped
        totalDropped += dropped
        return dropped
    }

    public func write(_ samples: [Int16]) {
        samples.withUnsafeBufferPointer { _ = write($0) }
    }

    /// Posts a notice after the samples written so far.
    public func post(_ notice: CaptureNotice) {
        condition.lock()
        defer { condition.unlock() }
        notices.append((writePosition, notice))
        condition.broadcast()
    }

    /// The writer is done (or the reader stops): readers drain what is left, a blocked writer returns.
    public func close() {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.broadcast()
    }

    /// Reads up to `maxSamples`, waiting up to `timeout` seconds when there is nothing to read. Samples
    /// stop at the next pending notice, so a notice is delivered exactly where it happened in the stream.
    public func read(maxSamples: Int, timeout: TimeInterval) -> Chunk {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while count == 0 && notices.isEmpty && droppedSinceRead == 0 && !closed {
            if !condition.wait(until: deadline) { break }
        }
        var chunk = Chunk()
        chunk.dropped = droppedSinceRead
        droppedSinceRead = 0
        let readPosition = writePosition - count
        var take = min(count, maxSamples)
        if let next = notices.first?.position, next > readPosition { take = min(take, next - readPosition) }
        if let next = notices.first?.position, next <= readPosition { take = 0 }
        if take > 0 {
            chunk.samples.reserveCapacity(take)
            for i in 0..<take { chunk.samples.append(storage[(head + i) % capacity]) }
            head = (head + take) % capacity
            count -= take
            condition.broadcast()   // room for a blocked writer
        }
        let newPosition = readPosition + take
        while let first = notices.first, first.position <= newPosition {
            chunk.notices.append(first.notice)
            notices.removeFirst()
        }
        chunk.ended = closed && count == 0 && notices.isEmpty
        return chunk
    }
}
