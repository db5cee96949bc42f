import CSndFile
import Foundation

/// Decodes any file libsndfile reads (WAV, FLAC, …; 8/16/24/32-bit integer or float, any rate, any
/// channel count), or the same piped into standard input, and streams it as 16 kHz mono Int16: channels are
/// averaged, then libsamplerate converts the rate. Memory stays bounded whatever the file's length.
public final class AudioFileSource: AudioSource {
    public let name: String
    /// How errors name the input: "Audio file 'x.wav'", or "The audio on standard input".
    private let described: String
    /// The file's own sample rate (Hz) and channel count, as its header states them.
    public let fileSampleRate: Int
    public let fileChannels: Int

    private var file: OpaquePointer?
    private var resampler: OpaquePointer?
    private let ratio: Double
    private var interleaved: [Float]
    private var mono: [Float] = []
    private var resampled: [Float] = []
    private var pending: [Float] = []   // resampled samples not yet returned
    private var fileEnded = false
    private var flushed = false
    private var framesRead = 0

    /// Largest rate accepted; anything above is a broken header, not audio.
    static let maxSampleRate = 768_000
    static let maxChannels = 64
    /// File frames read per call to libsndfile.
    static let chunkFrames = 4096

    /// The path that stands for standard input (`jarvis replay -`).
    public static let standardInputPath = "-"

    /// - Parameter path: a file, or `standardInputPath` for the audio piped into the process.
    public init(path: String) throws(AudioInputError) {
        name = path
        let fromInput = path == Self.standardInputPath
        described = fromInput ? "The audio on standard input" : "Audio file '\(path)'"
        let readPath: String
        if fromInput {
            readPath = try Self.stageStandardInput()
        } else {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw AudioInputError(.notFound, "Audio file '\(path)' does not exist; check the path.")
            }
            if isDir.boolValue {
                throw AudioInputError(.isDirectory, "'\(path)' is a directory, not an audio file; pass a WAV or FLAC file.")
            }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw AudioInputError(.unreadable, "Audio file '\(path)' cannot be read; check its permissions.")
            }
            readPath = path
        }
        // The staged copy of standard input goes once libsndfile holds it open (or fails to).
        defer { if fromInput { unlink(readPath) } }
        let size = (try? FileManager.default.attributesOfItem(atPath: readPath)[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 {
            throw AudioInputError(.empty, fromInput
                ? "The audio on standard input is empty; pipe a WAV or FLAC file in (sox in.mp3 -t wav - | jarvis replay -)."
                : "Audio file '\(path)' is empty; record or pick a file that holds audio.")
        }
        if let problem = wavHeaderProblem(path: readPath, streamed: fromInput) {
            throw AudioInputError(.malformed, "\(described) is damaged: \(problem); re-record or re-encode it.")
        }
        var info = SF_INFO()
        guard let handle = sf_open(readPath, Int32(SFM_READ), &info) else {
            let reason = Self.libsndfileReason(nil)
            throw AudioInputError(.unsupported, fromInput
                ? "The audio on standard input is not in a format libsndfile reads (\(reason)); pipe WAV or FLAC in."
                : "'\(path)' is not a readable audio file (\(reason)); use a WAV or FLAC file.")
        }
        guard info.channels >= 1, Int(info.channels) <= Self.maxChannels,
              info.samplerate >= 1000, Int(info.samplerate) <= Self.maxSampleRate else {
            sf_close(handle)
            throw AudioInputError(.malformed,
                "\(described) has an invalid header (\(info.channels) channels at \(info.samplerate) Hz); re-encode it.")
        }
        file = handle
        fileSampleRate = Int(info.samplerate)
        fileChannels = Int(info.channels)
        ratio = Double(AudioFormat.sampleRate) / Double(info.samplerate)
        interleaved = [Float](repeating: 0, count: Self.chunkFrames * Int(info.channels))
        if fileSampleRate != AudioFormat.sampleRate {
            var error: Int32 = 0
            resampler = src_new(Int32(SRC_SINC_MEDIUM_QUALITY), 1, &error)
            if resampler == nil {
                sf_close(handle)
                file = nil
                throw AudioInputError(.unsupported,
                    "Cannot resample '\(path)' from \(info.samplerate) Hz (\(String(cString: src_strerror(error)))).")
            }
        }
    }

    /// libsndfile's reason for the last failure on `file` (nil: the last `sf_open`), without the full stop its
    /// sentences end with ("Format not recognised."), to be quoted inside one of ours.
    static func libsndfileReason(_ file: OpaquePointer?) -> String {
        Wording.quoted(String(cString: sf_strerror(file)))
    }

    /// Copies standard input, to its end, into a temporary file and returns its path: libsndfile reads several
    /// formats only from a file it can seek in, and a WAV piped from `sox … -t wav -` states its length only when
    /// sox knew it. Standard input that is a terminal holds no audio: an error, rather than waiting for a typist.
    static func stageStandardInput(_ input: Int32 = STDIN_FILENO) throws(AudioInputError) -> String {
        if isatty(input) == 1 {
            throw AudioInputError(.unreadable,
                "Standard input is a terminal, not audio; pipe a file in (sox in.mp3 -t wav - | jarvis replay -).")
        }
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("jarvis-stdin-XXXXXX").path
        var name = Array(template.utf8CString)
        let output = name.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard output >= 0 else {
            throw AudioInputError(.unreadable,
                "Cannot stage standard input in \(FileManager.default.temporaryDirectory.path) (\(String(cString: strerror(errno)))); set TMPDIR to a writable folder.")
        }
        defer { close(output) }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw AudioInputError(.unreadable, "Standard input cannot be read (\(reason)).")
            }
            var written = 0
            while written < got {
                let n = buffer.withUnsafeBytes { Glibc.write(output, $0.baseAddress! + written, got - written) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    let reason = String(cString: strerror(errno))
                    unlink(path)
                    throw AudioInputError(.unreadable,
                        "Cannot stage standard input in \(FileManager.default.temporaryDirectory.path) (\(reason)); free some space or set TMPDIR.")
                }
                written += n
            }
        }
        return path
    }

    deinit {
        if let file { sf_close(file) }
        if let resampler { src_delete(resampler) }
    }

    public func read(maxSamples: Int) throws(AudioInputError) -> [Int16] {
        while pending.count < maxSamples && !(fileEnded && flushed) {
            try decodeChunk()
        }
        let n = min(maxSamples, pending.count)
        let out = pending[..<n].map(Self.toInt16)
        pending.removeFirst(n)
        return out
    }

    /// Reads one chunk from the file, downmixes and resamples it into `pending`.
    private func decodeChunk() throws(AudioInputError) {
        guard let file else { fileEnded = true; flushed = true; return }
        var got = 0
        if !fileEnded {
            got = Int(interleaved.withUnsafeMutableBufferPointer {
                sf_readf_float(file, $0.baseAddress, sf_count_t(Self.chunkFrames))
            })
            if got <= 0 {
                fileEnded = true
                let status = sf_error(file)
                if status != 0 && framesRead == 0 {
                    throw AudioInputError(.malformed,
                        "\(described) could not be decoded (\(Self.libsndfileReason(file))); re-encode it.")
                }
                got = 0
            }
            framesRead += got
        }
        mono.removeAll(keepingCapacity: true)
        if fileChannels == 1 {
            mono.append(contentsOf: interleaved[..<got])
        } else {
            let scale = 1 / Float(fileChannels)
            for frame in 0..<got {
                var sum: Float = 0
                let base = frame * fileChannels
                for ch in 0..<fileChannels { sum += interleaved[base + ch] }
                mono.append(sum * scale)
            }
        }
        guard let resampler else {
            pending.append(contentsOf: mono)
            if fileEnded { flushed = true }
            return
        }
        try resample(resampler, endOfInput: fileEnded)
    }

    private func resample(_ state: OpaquePointer, endOfInput: Bool) throws(AudioInputError) {
        var offset = 0
        repeat {
            let capacity = Int(Double(mono.count - offset) * ratio) + 256
            if resampled.count < capacity { resampled = [Float](repeating: 0, count: capacity) }
            var data = SRC_DATA()
            var status: Int32 = 0
            var used = 0, produced = 0
            mono.withUnsafeBufferPointer { input in
                resampled.withUnsafeMutableBufferPointer { output in
                    data.data_in = input.baseAddress.map { $0 + offset }
                    data.input_frames = Int(mono.count - offset)
                    data.data_out = output.baseAddress
                    data.output_frames = Int(capacity)
                    data.end_of_input = endOfInput ? 1 : 0
                    data.src_ratio = ratio
                    status = src_process(state, &data)
                    used = Int(data.input_frames_used)
                    produced = Int(data.output_frames_gen)
                }
            }
            if status != 0 {
                throw AudioInputError(.malformed,
                    "Resampling \(name == Self.standardInputPath ? "standard input" : "'\(name)'") failed (\(String(cString: src_strerror(status)))).")
            }
            pending.append(contentsOf: resampled[..<produced])
            offset += used
            if used == 0 && produced == 0 {
                if endOfInput { flushed = true }
                break
            }
        } while offset < mono.count || (endOfInput && !flushed)
    }

    @inline(__always) static func toInt16(_ x: Float) -> Int16 {
        let v = (x * 32768).rounded()
        return Int16(max(-32768, min(32767, v)))
    }
}
