import CALSA
import Foundation

/// The ALSA read loop on its own thread: blocking reads from the PCM into a `SampleRing`, with the fault
/// handling of an always-on capture:
/// - overrun (-EPIPE) / suspend (-ESTRPIPE): `snd_pcm_recover`, then an `alsaOverrun` notice;
/// - the device fails (-ENODEV, -EIO, …) or cannot be (re)opened (missing, busy): it is closed, a notice
///   is posted, and it is reopened with exponential backoff (0.5 s doubling to 8 s; each wait can be cut
///   short by `stop()`); capture resumes when it is back. Never a busy loop.
/// It stops after `limitSamples` samples (then closes the ring) or when `stop()` is called.
///
/// `@unchecked Sendable`: `pcm` and the loop's locals are only touched by the capture thread once
/// `start()` has handed them over; `stopping` and `finished` are guarded by `condition`.
public final class CaptureThread: @unchecked Sendable {
    public let deviceName: String
    public let ring: SampleRing
    /// Stop after this many samples have been captured (`--duration`); nil: run until stopped.
    public let limitSamples: Int?
    /// Pace reads to this multiple of real time (1 = real time); 0: as fast as the device delivers.
    public let pace: Double

    public static let initialBackoff = 0.5
    public static let maxBackoff = 8.0

    /// Opens the device (again); an `ALSACapturePCM` by name unless a test gives a fake.
    public typealias Opener = @Sendable () throws -> any CapturePCM
    private let open: Opener
    private let initialBackoff: Double
    private let maxBackoff: Double
    private var pcm: (any CapturePCM)?
    private let condition = NSCondition()
    private var stopping = false
    private var finished = false
    private var thread: Thread?

    /// `pcm`: the device opened by the caller (nil: the loop opens it, retrying until it can).
    public init(deviceName: String, pcm: (any CapturePCM)?, ring: SampleRing, limitSamples: Int? = nil,
                pace: Double = 0, backoff: (initial: Double, max: Double) = (initialBackoff, maxBackoff),
                open: Opener? = nil) {
        self.deviceName = deviceName
        self.open = open ?? { try ALSACapturePCM(name: deviceName) }
        initialBackoff = backoff.initial
        maxBackoff = backoff.max
        self.pcm = pcm
        self.ring = ring
        self.limitSamples = limitSamples
        self.pace = pace
    }

    public func start() {
        let thread = Thread { [self] in
            run()
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "jarvis-capture"
        self.thread = thread
        thread.start()
    }

    /// Asks the loop to end (within about 0.2 s) and closes the ring; safe from any thread.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        ring.close()
    }

    /// Waits until the thread has closed the device and ended; false on timeout.
    @discardableResult
    public func join(timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !finished {
            if !condition.wait(until: deadline) { return finished }
        }
        return true
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    /// Sleeps `seconds` unless stopped first; returns false when stopped.
    private func pause(_ seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !stopping {
            if !condition.wait(until: deadline) { break }
        }
        return !stopping
    }

    /// One readable sentence for a device that could not be opened or failed: what, which device, what to
    /// do. `orRetry` adds the `--retry` hint (start-up failure without retrying).
    public static func describe(_ error: ALSAError, device: String, orRetry: Bool = false) -> String {
        let retry = orRetry ? ", or pass --retry to wait for it" : ""
        switch -error.code {
        case ENOENT, ENODEV, ENXIO:
            return "Capture device '\(device)' is not available (\(error.reason)); check the name with 'jarvis devices' or plug it in\(retry)."
        case EBUSY:
            return "Capture device '\(device)' is busy (\(error.reason)); close the program using it or pick another with --device\(retry)."
        case EACCES, EPERM:
            return "Capture device '\(device)' cannot be opened (\(error.reason)); add yourself to the 'audio' group\(retry)."
        default:
            return "Capture device '\(device)' failed to \(error.operation) (\(error.reason)); check it with 'arecord -D \(device)' or pick another with --device\(retry)."
        }
    }

    private func run() {
        var backoff = initialBackoff
        var wasDown = false
        var captured = 0
        let wallStart = Date()
        var buffer = [Int16](repeating: 0, count: 4096)
        defer { pcm?.close(); pcm = nil; ring.close() }
        while !isStopping {
            if let limitSamples, captured >= limitSamples { return }
            guard let device = pcm else {
                do {
                    pcm = try open()
                    if wasDown { ring.post(.deviceAvailable) }
                    wasDown = false
                } catch {
                    wasDown = true
                    let alsa = error as? ALSAError ?? ALSAError(-EIO, "open")
                    ring.post(.deviceUnavailable(message: Self.describe(alsa, device: deviceName), retryIn: backoff))
                    if !pause(backoff) { return }
                    backoff = min(backoff * 2, maxBackoff)
                }
                continue
            }
            var want = min(buffer.count, device.periodFrames)
            if let limitSamples { want = min(want, limitSamples - captured) }
            let outcome = buffer.withUnsafeMutableBufferPointer { all in
                device.read(into: UnsafeMutableBufferPointer(rebasing: all[0..<want]), timeoutMs: 200)
            }
            switch outcome {
            case .frames(let n):
                guard n > 0 else { continue }
                backoff = initialBackoff   // only audio proves the device works again
                buffer.withUnsafeBufferPointer { _ = ring.write(UnsafeBufferPointer(rebasing: $0[0..<n])) }
                captured += n
                if pace > 0 {
                    let ahead = AudioFormat.seconds(captured) / pace - Date().timeIntervalSince(wallStart)
                    if ahead > 0, !pause(ahead) { return }
                }
            case .timeout:
                continue
            case .failed(let code):
                if code == -EPIPE || code == -ESTRPIPE || code == -EINTR {
                    do {
                        try device.recover(from: code)
                        if code != -EINTR {
                            ring.post(.alsaOverrun(reason: code == -EPIPE ? "overrun" : "suspended"))
                        }
                        continue
                    } catch {
                        // Falls through: treat as a lost device.
                    }
                }
                device.close()
                pcm = nil
                wasDown = true
                ring.post(.deviceLost(message: Self.describe(ALSAError(code, "read"), device: deviceName)))
                // A device that opens but fails every read must not make this a busy loop: back off here too.
                if !pause(backoff) { return }
                backoff = min(backoff * 2, maxBackoff)
            }
        }
    }
}
