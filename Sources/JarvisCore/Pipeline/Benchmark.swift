import Foundation

/// Cost and latency of the pipeline over one file, fed frame by frame as live capture feeds it.
public struct BenchmarkResult: Sendable {
    public var file: String
    public var audioSeconds = 0.0
    /// Process CPU seconds spent creating the pipeline (model and grammar load).
    public var loadCPUSeconds = 0.0
    /// Process CPU seconds spent processing the audio.
    public var cpuSeconds = 0.0
    /// Peak resident memory of the process (VmHWM), bytes.
    public var peakRSSBytes = 0
    /// Resident memory at the end of the run (VmRSS), bytes.
    public var endRSSBytes = 0
    /// Seconds of audio between the end of the wake phrase (the wake event's `t`) and the point in the
    /// audio at which the event was emitted.
    public var wakeLatencies: [Double] = []
    /// Seconds of audio between the end of the command (the transcript's `t_end`) and the `intent` event.
    public var intentLatencies: [Double] = []
    public var wakes = 0
    public var intents = 0
    /// Of `cpuSeconds`, the CPU seconds of each of the recognisers' stages (`StageClock`).
    public var stageSeconds: [StageClock.Stage: Double] = [:]

    /// Of `cpuSeconds`, what no stage of `stageSeconds` holds (the VAD, noise reduction, pitch, the pipeline's
    /// logic), seconds.
    public var otherStageSeconds: Double { max(0, cpuSeconds - stageSeconds.values.reduce(0, +)) }

    /// Share of `cpuSeconds` (percent) of each stage, in `StageClock.Stage.allCases` order, then the rest.
    public var stagePercents: [Double] {
        guard cpuSeconds > 0 else { return [] }
        return (StageClock.Stage.allCases.map { stageSeconds[$0] ?? 0 } + [otherStageSeconds]).map { $0 / cpuSeconds * 100 }
    }

    /// CPU seconds per minute of audio.
    public var cpuPerAudioMinute: Double { audioSeconds > 0 ? cpuSeconds / audioSeconds * 60 : 0 }
    /// Share of one core, percent.
    public var corePercent: Double { audioSeconds > 0 ? cpuSeconds / audioSeconds * 100 : 0 }

    public var json: JSONValue {
        .object([
            ("file", .string(file)), ("audio_seconds", .number(audioSeconds)), ("load_cpu_seconds", .number(loadCPUSeconds)),
            ("cpu_seconds", .number(cpuSeconds)), ("cpu_per_audio_minute", .number(cpuPerAudioMinute)),
            ("core_percent", .number(corePercent)), ("peak_rss_mb", .number(Double(peakRSSBytes) / 1_048_576)),
            ("end_rss_mb", .number(Double(endRSSBytes) / 1_048_576)),
            ("wakes", .int(wakes)), ("intents", .int(intents)),
            ("wake_latency_median", Self.median(wakeLatencies).map(JSONValue.number) ?? .null),
            ("intent_latency_median", Self.median(intentLatencies).map(JSONValue.number) ?? .null),
            ("cpu_stage_seconds", .object(StageClock.Stage.allCases.map { ($0.rawValue, .number(stageSeconds[$0] ?? 0)) }
                                          + [("other", .number(otherStageSeconds))])),
        ])
    }

    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

public enum Benchmark {
    /// Runs the pipeline (dry-run actions) over `path`, one 20 ms frame at a time.
    public static func run(path: String, settings: PipelineSettings, commands: CommandSet = .builtin())
        throws -> BenchmarkResult {
        var result = BenchmarkResult(file: path)
        let audio = try AudioFileSource(path: path)
        var fed = 0
        var lastCommandEnd: Double?
        let loadStart = processCPUSeconds()
        let pipeline = try Pipeline(settings: settings, commands: commands) { event in
            let emittedAt = AudioFormat.seconds(fed)
            switch event.kind {
            case .wake:
                result.wakes += 1
                result.wakeLatencies.append(max(0, emittedAt - event.t))
            case .transcript(_, _, _, let end, _):
                lastCommandEnd = end
            case .intent:
                result.intents += 1
                if let end = lastCommandEnd { result.intentLatencies.append(max(0, emittedAt - end)) }
            default:
                break
            }
        }
        // The pruned language model is made once per machine (cached); making it is not part of the cost
        // measured, so the peak-memory mark is reset after it (Linux: 5 into clear_refs resets VmHWM).
        pipeline.prepareLanguageModel()
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let clock = StageClock()
        pipeline.stageClock = clock
        let start = processCPUSeconds()
        result.loadCPUSeconds = start - loadStart
        // Streamed from the file (as capture would deliver it), one 20 ms frame per call.
        while true {
            let chunk = try audio.read(maxSamples: Replay.chunkSamples)
            if chunk.isEmpty { break }
            var index = 0
            while index < chunk.count {
                let end = min(chunk.count, index + AudioFormat.frameSamples)
                fed += end - index
                try pipeline.process(Array(chunk[index..<end]))
                index = end
            }
        }
        try pipeline.finish()
        result.cpuSeconds = processCPUSeconds() - start
        result.stageSeconds = clock.seconds
        result.audioSeconds = AudioFormat.seconds(fed)
        result.peakRSSBytes = residentBytes("VmHWM:")
        result.endRSSBytes = residentBytes("VmRSS:")
        return result
    }

    /// A memory line of /proc/self/status (`VmHWM:` peak, `VmRSS:` now), bytes (0 when unavailable).
    public static func residentBytes(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kb * 1024
        }
        return 0
    }
}
