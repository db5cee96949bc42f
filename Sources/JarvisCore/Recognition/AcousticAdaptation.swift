import CPocketSphinx
import Foundation
import Synchronization

/// A transform of the acoustic model's Gaussians (MLLR: per feature stream, the means mapped by a matrix and a
/// bias, the variances scaled), PocketSphinx's `ps_mllr_t`, owned here and freed in `deinit`. A decoder takes
/// one through `PocketSphinxDecoder.adaptation`.
public final class AcousticAdaptation: @unchecked Sendable {
    /// The `ps_mllr_t`; immutable once read, so it may be shared between decoders.
    let mllr: OpaquePointer
    /// The length (coefficients) of each feature stream the transform maps.
    public let streamLengths: [Int]

    /// Reads a transform in PocketSphinx's text format: the class count (1), the stream count, then per stream
    /// its length n, n rows of n matrix entries, n biases and n variance scales.
    public init(text: String) throws(DecoderError) {
        guard let lengths = Self.streamLengths(of: text) else {
            throw DecoderError(operation: "read adaptation", status: -1, detail: "not a one-class MLLR transform")
        }
        let path = try writeTemporaryModelFile(text, kind: "adaptation", suffix: "mllr")
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let mllr = ps_mllr_read(path) else {
            throw DecoderError(operation: "read adaptation", status: -1, detail: "PocketSphinx cannot read it")
        }
        self.mllr = mllr
        streamLengths = lengths
    }

    deinit { ps_mllr_free(mllr) }

    /// The transform that changes nothing, for streams of `lengths`: decoding with it is decoding with the model
    /// as installed (PocketSphinx cannot drop a transform, only replace it).
    public static func identity(streamLengths lengths: [Int]) throws(DecoderError) -> AcousticAdaptation {
        var lines = ["1", String(lengths.count)]
        for n in lengths {
            lines.append(String(n))
            for row in 0..<n { lines.append((0..<n).map { $0 == row ? "1.0" : "0.0" }.joined(separator: " ")) }
            lines.append(Array(repeating: "0.0", count: n).joined(separator: " "))
            lines.append(Array(repeating: "1.0", count: n).joined(separator: " "))
        }
        return try AcousticAdaptation(text: lines.joined(separator: "\n") + "\n")
    }

    /// The stream lengths of a well-formed one-class transform, nil for anything else.
    static func streamLengths(of text: String) -> [Int]? {
        let numbers = text.split(whereSeparator: \.isWhitespace).map { Double($0) }
        guard numbers.count >= 2, !numbers.contains(nil), numbers[0] == 1,
              let streams = numbers[1].flatMap(Int.init(exactly:)), (1...8).contains(streams) else { return nil }
        var at = 2, lengths: [Int] = []
        for _ in 0..<streams {
            guard at < numbers.count, let n = numbers[at].flatMap(Int.init(exactly:)), (1...64).contains(n) else { return nil }
            lengths.append(n)
            at += 1 + n * n + 2 * n
        }
        return at == numbers.count ? lengths : nil
    }

    /// The transform for speech in noise (`noisySpeechText`, made by scripts/make-adaptation.sh), when the
    /// acoustic model in `folder` is the one it was trained for (the same `means` file); nil otherwise.
    public static func noisySpeech(forModelIn folder: String) -> AcousticAdaptation? {
        var info = stat()
        guard stat(folder + "/means", &info) == 0 else { return nil }
        let key = "\(folder)|\(info.st_size)|\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        if let known = noisySpeechByModel.withLock({ $0[key] }) { return known }
        var adaptation: AcousticAdaptation?
        // Hashed through its bytes: iterating `Data` itself took 9 ms of every start.
        if let means = FileManager.default.contents(atPath: folder + "/means"),
           means.withUnsafeBytes({ fnv1a($0) }) == noisySpeechModelMeans {
            adaptation = try? AcousticAdaptation(text: noisySpeechText)
        }
        noisySpeechByModel.withLock { $0[key] = adaptation }
        return adaptation
    }

    /// `noisySpeech`'s answer per model folder (with its means file's size and modification time).
    private static let noisySpeechByModel = Mutex<[String: AcousticAdaptation?]>([:])
}
