import Foundation

/// A detected wake phrase, in absolute samples of the stream (16 kHz).
public struct WakeDetection: Equatable, Sendable {
    public let phrase: String
    public let startSample: Int
    public let endSample: Int
    /// Confidence 0…1.
    public let score: Double
}

/// The wake stage: fed speech audio frame by frame, reports the wake phrase.
public protocol WakeSpotter: AnyObject {
    var phrase: String { get }
    /// Starts listening for the phrase at absolute sample `startSample` (speech began, or a restart).
    func begin(atSample startSample: Int) throws(DecoderError)
    /// Feeds the samples that follow what was fed before; returns a detection ending in them, if any.
    func process(_ samples: ArraySlice<Int16>) throws(DecoderError) -> WakeDetection?
    /// Stops listening (speech ended).
    func end()
    /// Absolute sample where the current utterance began, nil when not listening.
    var utteranceStartSample: Int? { get }
}

/// Settings of the keyphrase spotter (openWakeWord-style named post-processing).
public struct WakeSettings: Sendable, Equatable {
    /// PocketSphinx keyphrase threshold (likelihood ratio of the phrase against a phone loop), per phrase
    /// length in words: longer phrases can use a stricter threshold.
    public var threshold: Double
    /// Frame skipping (`-ds`): 1 scores every 10 ms frame.
    public var downsample = 1

    public init(threshold: Double) { self.threshold = threshold }

    /// Defaults tuned on the dev set: two words ("hey jarvis") and one word ("jarvis").
    public static func defaults(forWords count: Int) -> WakeSettings {
        WakeSettings(threshold: count >= 2 ? 1e-20 : 1e-12)
    }
}

/// PocketSphinx keyphrase search: a first-stage spotter that compares the phrase's HMM path with a phone loop.
public final class KeyphraseWakeSpotter: WakeSpotter {
    public let phrase: String
    public let settings: WakeSettings
    private let decoder: PocketSphinxDecoder
    public private(set) var utteranceStartSample: Int?
    private var fedSamples = 0

    public init(phrase: String, model: ModelPaths, settings: WakeSettings) throws(DecoderError) {
        self.phrase = phrase
        self.settings = settings
        decoder = try PocketSphinxDecoder(model: model, extraArguments: [
            ("-kws_threshold", String(settings.threshold)), ("-ds", String(settings.downsample)),
            ("-cmn", "live"),
        ])
        try decoder.addKeyphrase(name: "wake", phrase: phrase)
        try decoder.useSearch("wake")
    }

    public func begin(atSample startSample: Int) throws(DecoderError) {
        try decoder.startUtterance()
        utteranceStartSample = startSample
        fedSamples = 0
    }

    public func process(_ samples: ArraySlice<Int16>) throws(DecoderError) -> WakeDetection? {
        guard let start = utteranceStartSample else { return nil }
        try decoder.process(samples)
        fedSamples += samples.count
        guard let hyp = decoder.hypothesis(), !hyp.text.isEmpty else { return nil }
        // Keyphrase frame numbers are not reset per utterance in this PocketSphinx, so only the phrase's
        // duration is used: the detection is reported as the phrase ends, i.e. at the audio just fed.
        let samplesPerFrame = AudioFormat.sampleRate / PocketSphinxDecoder.framesPerSecond
        let seg = hyp.words.last
        let durationSamples = seg.map { ($0.endFrame - $0.startFrame + 1) * samplesPerFrame } ?? AudioFormat.samples(0.8)
        let endSample = start + fedSamples
        let startSample = max(start, endSample - durationSamples)
        // Score: margin of the detection over the threshold, squashed to 0…1 (0.5 = at threshold).
        let margin = seg.map { decoder.naturalLog($0.probability) - log(settings.threshold) } ?? 0
        let score = 1 / (1 + exp(-margin / 10))
        // A detection consumes the utterance: start afresh after it.
        decoder.endUtterance()
        utteranceStartSample = nil
        return WakeDetection(phrase: phrase, startSample: startSample, endSample: endSample, score: score)
    }

    public func end() {
        decoder.endUtterance()
        utteranceStartSample = nil
    }
}
