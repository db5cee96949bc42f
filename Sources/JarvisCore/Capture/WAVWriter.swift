import CSndFile
import Foundation

/// Writes 16 kHz mono 16-bit PCM WAV (libsndfile) — what `listen --save-audio` heard, replayable as is.
/// The header is rewritten after every write, so the file is valid even if the process is killed.
/// Not thread-safe: used by the pipeline thread only.
public final class WAVWriter {
    public struct OpenError: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    public let path: String
    private var file: OpaquePointer?
    public private(set) var samplesWritten = 0

    public init(path: String) throws(OpenError) {
        self.path = path
        var info = SF_INFO()
        info.samplerate = Int32(AudioFormat.sampleRate)
        info.channels = 1
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            let reason = AudioFileSource.libsndfileReason(nil)
            throw OpenError(message: "Cannot write audio to '\(path)' (\(reason)); check that the folder exists and is writable.")
        }
        file = handle
        sf_command(handle, Int32(SFC_SET_UPDATE_HEADER_AUTO), nil, Int32(SF_TRUE))
    }

    deinit { close() }

    public func write(_ samples: [Int16]) {
        guard let file, !samples.isEmpty else { return }
        let n = samples.withUnsafeBufferPointer { sf_write_short(file, $0.baseAddress, sf_count_t($0.count)) }
        samplesWritten += Int(n)
    }

    /// Finalises the header and closes the file (idempotent).
    public func close() {
        if let file { sf_close(file) }
        file = nil
    }
}
