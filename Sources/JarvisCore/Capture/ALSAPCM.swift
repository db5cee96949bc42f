import CALSA
import Foundation

/// A failed alsa-lib call: the (negative errno) status code and alsa-lib's text for it.
public struct ALSAError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The negative errno alsa-lib returned (e.g. -ENOENT, -EBUSY, -ENODEV, -EPIPE).
    public let code: Int32
    /// What was being done ("open", "set hardware parameters", "read", …).
    public let operation: String

    public init(_ code: Int32, _ operation: String) {
        self.code = code
        self.operation = operation
    }

    /// `snd_strerror` text, e.g. "No such device".
    public var reason: String { String(cString: snd_strerror(code)) }
    public var description: String { "\(operation) failed: \(reason)" }
}

/// Silences alsa-lib's own stderr diagnostics once per process (jarvis reports failures itself).
enum ALSALibrary {
    /// Swift runs a static's initialiser once, thread-safely.
    private static let silenced: Void = jarvis_alsa_silence_errors()

    static func silence() { _ = silenced }
}

/// What the capture thread needs of an open capture device (an `ALSACapturePCM`; a fake in tests).
public protocol CapturePCM: AnyObject {
    var periodFrames: Int { get }
    func read(into buffer: UnsafeMutableBufferPointer<Int16>, timeoutMs: Int32) -> CaptureReadOutcome
    func recover(from code: Int32) throws(ALSAError)
    func close()
}

public enum CaptureReadOutcome: Equatable, Sendable {
    /// Frames read into the buffer (may be fewer than asked, or 0).
    case frames(Int)
    /// Nothing arrived within the timeout (the device may be stalled).
    case timeout
    /// A negative errno from alsa-lib.
    case failed(Int32)
}

/// One open capture PCM, configured for 16 kHz mono S16_LE interleaved; the `snd_pcm_t` is closed in deinit.
///
/// Opened by name (`default`, `hw:1,0`, an asoundrc PCM, …). When the device cannot deliver that format
/// or rate itself, it is reopened through alsa-lib's plug layer (`plug:'NAME'`), which converts.
/// Not thread-safe: one thread uses it at a time (the capture thread, once it has been handed over).
public final class ALSACapturePCM: CapturePCM {
    /// The name the user gave.
    public let name: String
    /// The name actually opened (the same, or `plug:'NAME'`).
    public let openedName: String
    /// Frames per period and in the whole ring of the kernel/plugin buffer, as negotiated.
    public let periodFrames: Int
    public let bufferFrames: Int

    private var pcm: OpaquePointer?

    /// Wished-for period and buffer times (µs): low latency, but no wake-up storm.
    static let periodMicroseconds: UInt32 = 32_000
    static let bufferMicroseconds: UInt32 = 320_000

    public init(name: String) throws(ALSAError) {
        ALSALibrary.silence()
        self.name = name
        var opened: (OpaquePointer, Int, Int)
        var openedName = name
        do {
            opened = try Self.openConfigured(name)
        } catch {
            // Format/rate/channels not offered by the device itself: let the plug layer convert.
            guard error.code == -EINVAL, !name.hasPrefix("plug"), !name.contains("'") else { throw error }
            openedName = "plug:'\(name)'"
            opened = try Self.openConfigured(openedName)
        }
        self.openedName = openedName
        pcm = opened.0
        periodFrames = opened.1
        bufferFrames = opened.2
    }

    deinit {
        if let pcm { snd_pcm_close(pcm) }
    }

    /// Closes the PCM now (idempotent).
    public func close() {
        if let pcm { snd_pcm_close(pcm) }
        pcm = nil
    }

    private static func openConfigured(_ name: String) throws(ALSAError) -> (OpaquePointer, Int, Int) {
        var handle: OpaquePointer?
        // Non-blocking open, so a busy device fails at once instead of hanging; reads then block.
        let rc = snd_pcm_open(&handle, name, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
        guard rc >= 0, let pcm = handle else { throw ALSAError(rc, "open") }
        do {
            let sizes = try configure(pcm)
            return (pcm, sizes.0, sizes.1)
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
    }

    private static func configure(_ pcm: OpaquePointer) throws(ALSAError) -> (Int, Int) {
        var rc = snd_pcm_nonblock(pcm, 0)
        guard rc >= 0 else { throw ALSAError(rc, "switch to blocking mode") }
        var hwp: OpaquePointer?
        rc = snd_pcm_hw_params_malloc(&hwp)
        guard rc >= 0, let hw = hwp else { throw ALSAError(rc, "allocate hardware parameters") }
        defer { snd_pcm_hw_params_free(hw) }
        rc = snd_pcm_hw_params_any(pcm, hw)
        guard rc >= 0 else { throw ALSAError(rc, "read hardware parameters") }
        _ = snd_pcm_hw_params_set_rate_resample(pcm, hw, 1)
        rc = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)
        guard rc >= 0 else { throw ALSAError(rc, "set interleaved access") }
        rc = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE)
        guard rc >= 0 else { throw ALSAError(rc, "set format S16_LE") }
        rc = snd_pcm_hw_params_set_channels(pcm, hw, 1)
        guard rc >= 0 else { throw ALSAError(rc, "set mono") }
        var rate = UInt32(AudioFormat.sampleRate)
        var dir: Int32 = 0
        rc = snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &dir)
        guard rc >= 0 else { throw ALSAError(rc, "set rate 16000 Hz") }
        guard rate == UInt32(AudioFormat.sampleRate) else { throw ALSAError(-EINVAL, "set rate 16000 Hz") }
        // Sizes are wishes: a device that cannot meet them keeps its nearest, which is fine.
        var buffer = bufferMicroseconds
        dir = 0
        _ = snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &buffer, &dir)
        var period = periodMicroseconds
        dir = 0
        _ = snd_pcm_hw_params_set_period_time_near(pcm, hw, &period, &dir)
        rc = snd_pcm_hw_params(pcm, hw)
        guard rc >= 0 else { throw ALSAError(rc, "set hardware parameters") }
        var periodFrames: snd_pcm_uframes_t = 0
        var bufferFrames: snd_pcm_uframes_t = 0
        dir = 0
        _ = snd_pcm_hw_params_get_period_size(hw, &periodFrames, &dir)
        _ = snd_pcm_hw_params_get_buffer_size(hw, &bufferFrames)
        // snd_pcm_hw_params has prepared the PCM.
        return (max(Int(periodFrames), 64), max(Int(bufferFrames), Int(periodFrames)))
    }

    /// Waits up to `timeoutMs` for audio, then reads what is there (at most `buffer.count` frames).
    /// The wait keeps the capture thread responsive to a stop request even if the device stalls.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>, timeoutMs: Int32) -> CaptureReadOutcome {
        guard let pcm else { return .failed(-EBADFD) }
        if snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED {
            let rc = snd_pcm_start(pcm)
            if rc < 0 { return .failed(rc) }
        }
        let ready = snd_pcm_wait(pcm, timeoutMs)
        if ready == 0 { return .timeout }
        if ready < 0 { return .failed(ready) }
        let n = snd_pcm_readi(pcm, buffer.baseAddress, snd_pcm_uframes_t(buffer.count))
        if n == -Int(EAGAIN) { return .frames(0) }
        if n < 0 { return .failed(Int32(n)) }
        return .frames(n)
    }

    /// Recovers from an overrun (-EPIPE), a suspend (-ESTRPIPE) or an interrupted call (-EINTR) with
    /// `snd_pcm_recover`; throws when the PCM cannot be recovered.
    public func recover(from code: Int32) throws(ALSAError) {
        guard let pcm else { throw ALSAError(-EBADFD, "recover") }
        let rc = snd_pcm_recover(pcm, code, 1)
        guard rc >= 0 else { throw ALSAError(rc, "recover") }
    }
}

/// A capture PCM as `arecord -L` lists it.
public struct CaptureDevice: Sendable, Equatable {
    public let name: String
    /// alsa-lib's description (may hold several lines).
    public let description: String

    /// The PCMs that can capture (IOID "Input" or unset), from `snd_device_name_hint(-1, "pcm")`.
    public static func list() throws(ALSAError) -> [CaptureDevice] {
        ALSALibrary.silence()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        let rc = snd_device_name_hint(-1, "pcm", &hints)
        guard rc >= 0, let hints else { throw ALSAError(rc, "list PCM devices") }
        defer { snd_device_name_free_hint(hints) }
        func take(_ hint: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let value = snd_device_name_get_hint(hint, id) else { return nil }
            defer { free(value) }
            return String(cString: value)
        }
        var out: [CaptureDevice] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            guard let name = take(hint, "NAME") else { continue }
            let ioid = take(hint, "IOID")
            if ioid != nil && ioid != "Input" { continue }
            out.append(CaptureDevice(name: name, description: take(hint, "DESC") ?? ""))
        }
        return out
    }

    public init(name: String, description: String) {
        self.name = name
        self.description = description
    }
}
