/// The one audio format every stage after the source works in.
public enum AudioFormat {
    /// Samples per second of every frame handed to the pipeline.
    public static let sampleRate = 16_000
    /// Samples in one pipeline frame (20 ms at 16 kHz).
    public static let frameSamples = 320

    /// Seconds of audio in `samples` samples at 16 kHz.
    @inlinable public static func seconds(_ samples: Int) -> Double {
        Double(samples) / Double(sampleRate)
    }

    /// Samples in `seconds` seconds at 16 kHz, rounded to the nearest sample.
    @inlinable public static func samples(_ seconds: Double) -> Int {
        Int((seconds * Double(sampleRate)).rounded())
    }
}

/// A source of 16 kHz mono Int16 audio, read in chunks (file replay or live capture).
public protocol AudioSource: AnyObject {
    /// A name for events and error messages (a path or an ALSA device name).
    var name: String { get }
    /// Reads up to `maxSamples` samples; an empty array means the source has ended.
    func read(maxSamples: Int) throws(AudioInputError) -> [Int16]
}

/// Audio input failures; the CLI maps every case to exit code 3.
public struct AudioInputError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case notFound = "audio-not-found"
        case isDirectory = "audio-is-directory"
        case unreadable = "audio-unreadable"
        case empty = "audio-empty"
        case unsupported = "audio-unsupported"
        case malformed = "audio-malformed"
        case device = "audio-device"
    }
    public let code: Code
    /// One sentence: what went wrong, with which file or device, and what to do.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
