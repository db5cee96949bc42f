import Foundation

/// Where a pipeline's CPU goes, stage by stage (`jarvis bench`): the calling thread's CPU time (seconds) spent in
/// each of the recogniser's stages. A stage entered inside another is charged to itself alone, so the stages
/// never count a second twice; what no stage holds (the VAD, noise reduction, pitch, the pipeline's own logic) is
/// the benchmark's total less their sum.
public final class StageClock {
    public enum Stage: String, CaseIterable, Sendable {
        /// The live decoder over the speech, and the cepstral mean it follows.
        case liveDecoder = "live_decoder"
        /// Checking the live decoder's wake candidates (verification against the phone loop, the name's
        /// halves, its onset rivals, the wake search's confirmation).
        case wakeCandidates = "wake_candidates"
        /// The whole-utterance decode when a segment ends, with its checks of the wake phrase and the command.
        case secondPass = "second_pass"
        /// The language model's decodes: searches' queries and its checks of what the grammar heard.
        case languageModel = "language_model"
        /// Loading the language model's words and search (the first time it is asked for after a start or
        /// after `releaseLanguageModel`).
        case languageModelLoad = "language_model_load"
        /// Making a recogniser while the audio runs (the high-voice one, the first time a high voice talks).
        case recognizerSetUp = "recognizer_set_up"

        /// The name a table shows (the JSON key's words).
        public var label: String { rawValue.replacingOccurrences(of: "_", with: " ") }
    }

    /// CPU seconds charged to each stage so far.
    public private(set) var seconds: [Stage: Double] = [:]
    private var current: Stage?
    /// Thread CPU time (s) when `current` was last charged.
    private var since = 0.0

    public init() {}

    /// Runs `body`, charging the CPU it takes to `stage` (less what stages entered inside it take).
    public func measure<T, E: Error>(_ stage: Stage, _ body: () throws(E) -> T) throws(E) -> T {
        let outer = current
        switchTo(stage)
        defer { switchTo(outer) }
        return try body()
    }

    /// `clock.measure(stage, body)`, or `body()` alone when there is no clock.
    public static func measure<T, E: Error>(_ clock: StageClock?, _ stage: Stage,
                                            _ body: () throws(E) -> T) throws(E) -> T {
        guard let clock else { return try body() }
        return try clock.measure(stage, body)
    }

    private func switchTo(_ stage: Stage?) {
        let now = Self.threadCPUSeconds()
        if let current { seconds[current, default: 0] += now - since }
        current = stage
        since = now
    }

    /// CPU time of the calling thread (user and system), seconds.
    public static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
