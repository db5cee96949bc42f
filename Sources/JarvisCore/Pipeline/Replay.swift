import Foundation

/// Runs the pipeline over file sources, each from a fresh state, emitting events tagged with the file name.
public enum Replay {
    /// Samples read from the source per step (0.1 s).
    public static let chunkSamples = 1600

    /// Files replayed one after the other with one pipeline (`jarvis replay`, and each worker of `jarvis eval`):
    /// the models load once, and each file starts from `Pipeline.reset()`'s fresh state, which gives the events
    /// of a new pipeline (`jarvis eval`'s tables are score.py's, which starts a process per file).
    public final class Session {
        let settings: PipelineSettings
        let commands: CommandSet
        let processor: CommandProcessor
        private var pipeline: Pipeline?
        /// Where the pipeline's events go: the current file's emitter.
        private var emitCurrent: (Event) -> Void = { _ in }
        /// Samples of the current file fed to the pipeline so far.
        private var fed = 0
        /// Seconds of the current file fed to the pipeline so far (where a recogniser failure happened).
        public var position: Double { AudioFormat.seconds(fed) }

        public init(settings: PipelineSettings, commands: CommandSet = .builtin(),
                    processor: CommandProcessor = DesktopCommandProcessor.dryRun()) {
            self.settings = settings
            self.commands = commands
            self.processor = processor
        }

        /// Loads the models now rather than at the first file.
        public func prepare() throws(DecoderError) { _ = try readyPipeline() }

        private func readyPipeline() throws(DecoderError) -> Pipeline {
            if let pipeline { return pipeline }
            let made = try Pipeline(settings: settings, commands: commands, processor: processor) { [unowned self] in
                self.emitCurrent($0)
            }
            pipeline = made
            return made
        }

        /// Replays one file from a fresh state. Returns false when the file could not be read (an `error`
        /// event was emitted).
        @discardableResult
        public func run(path: String, tagSource: Bool, realtime: Bool = false,
                        emit: @escaping (Event) -> Void) throws(DecoderError) -> Bool {
            let source = tagSource ? path : nil
            let tagged: (Event) -> Void = { e in
                var e = e
                if case .listening = e.kind {} else { e.source = source }
                emit(e)
            }
            let cpuStart = processCPUSeconds()
            let audio: AudioFileSource
            do {
                audio = try AudioFileSource(path: path)
            } catch {
                tagged(Event(t: 0, .error(code: error.code.rawValue, message: error.message)))
                return false
            }
            tagged(Event(t: 0, .listening(source: path, sampleRate: AudioFormat.sampleRate)))
            emitCurrent = tagged
            let pipeline = try readyPipeline()
            pipeline.reset()
            var ok = true
            let wallStart = Date()
            fed = 0
            while true {
                let chunk: [Int16]
                do {
                    chunk = try audio.read(maxSamples: Replay.chunkSamples)
                } catch {
                    tagged(Event(t: AudioFormat.seconds(fed), .error(code: error.code.rawValue, message: error.message)))
                    ok = false
                    break
                }
                if chunk.isEmpty { break }
                try pipeline.process(chunk)
                fed += chunk.count
                if realtime {
                    let ahead = AudioFormat.seconds(fed) - Date().timeIntervalSince(wallStart)
                    if ahead > 0 { Thread.sleep(forTimeInterval: ahead) }
                }
            }
            try pipeline.finish()
            var stats = pipeline.stats
            stats.cpuSeconds = processCPUSeconds() - cpuStart
            if !ok { stats.errors += 1 }
            tagged(Event(t: AudioFormat.seconds(fed), .end(stats)))
            return ok
        }

        /// Longest audio `transcribe(path:)` hears (s); a longer file is heard up to there.
        public static let longestTranscription = 60.0

        /// What the language model hears in the file as a whole (`Pipeline.transcribe`), at most
        /// `longestTranscription` seconds of it; nil when the file cannot be read.
        public func transcribe(path: String) throws(DecoderError) -> [String]? {
            guard let audio = try? AudioFileSource(path: path) else { return nil }
            var samples: [Int16] = []
            let limit = AudioFormat.samples(Self.longestTranscription)
            while samples.count < limit {
                guard let chunk = try? audio.read(maxSamples: min(Replay.chunkSamples, limit - samples.count)) else {
                    return nil
                }
                if chunk.isEmpty { break }
                samples += chunk
            }
            let pipeline = try readyPipeline()
            defer { pipeline.reset() }
            return try pipeline.transcribe(samples)
        }
    }
}
