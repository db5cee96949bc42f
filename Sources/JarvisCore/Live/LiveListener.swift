import Foundation

/// Requests to a running `LiveListener` from other threads (signal handlers' dispatch queue).
/// `@unchecked Sendable`: the flags are guarded by `lock`; `capture` is itself thread-safe.
public final class LiveControl: @unchecked Sendable {
    private let lock = NSLock()
    private var stop = false
    private var reload = false
    private var capture: CaptureThread?

    public init() {}

    /// Stop: the capture thread ends, the pipeline finishes, `end` is printed (SIGINT/SIGTERM).
    public func requestStop() {
        lock.lock()
        stop = true
        let capture = self.capture
        lock.unlock()
        capture?.stop()   // also wakes the pipeline thread waiting on the ring
    }

    /// Re-create the pipeline from the settings at the next pause between utterances (SIGHUP;
    /// `Options.reloadWaitSeconds`).
    public func requestReload() {
        lock.lock()
        reload = true
        lock.unlock()
    }

    public var stopRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stop
    }

    func takeReload() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let r = reload
        reload = false
        return r
    }

    func attach(_ capture: CaptureThread) -> Bool {
        lock.lock()
        self.capture = capture
        let stopped = stop
        lock.unlock()
        return !stopped
    }
}

/// `jarvis listen`: the same `Pipeline` as replay, fed from an ALSA capture thread through a `SampleRing`.
/// The thread calling `run()` owns the pipeline (and the event output, the saved WAV and the meter); the
/// ALSA reads run on the `CaptureThread`. Event `t` is the audio clock: samples captured / 16000, those the
/// ring dropped included (`Pipeline.skip(samples:)`; the saved WAV holds them as silence). A kernel overrun's
/// loss is unknown and not counted.
public final class LiveListener {
    /// What a pipeline is made from; a SIGHUP (config reload) replaces it.
    public struct Setup {
        public var settings = PipelineSettings()
        public var commands = CommandSet.builtin()
        public var processor: CommandProcessor = DesktopCommandProcessor.dryRun()
        public init() {}
        public init(settings: PipelineSettings, commands: CommandSet, processor: CommandProcessor) {
            self.settings = settings
            self.commands = commands
            self.processor = processor
        }
    }

    public struct Options {
        public var device = "default"
        public var setup = Setup()
        /// Stop after this many seconds of captured audio.
        public var duration: Double?
        /// Printed right after `listening` (e.g. no display for actions, no history file).
        public var warnings: [Event] = []
        /// Control-socket requests are answered from here, between audio chunks (nil: no control socket).
        public var mailbox: ControlMailbox?
        /// Ring capacity in seconds of audio, and what to do when it is full.
        public var ringSeconds = 4.0
        public var overrunPolicy = SampleRing.OverrunPolicy.dropOldest
        /// Pace the capture at this multiple of real time (0: as fast as the device delivers).
        public var pace = 0.0
        /// Seconds of audio a reload waits at most for a pause between utterances (`Pipeline.isBetweenUtterances`),
        /// so that a command being spoken is heard whole by the old pipeline; after that it reloads anyway.
        public var reloadWaitSeconds = 10.0
        public init() {}
    }

    public let options: Options
    public let control = LiveControl()
    /// The device opened before `run()` (nil: the capture thread opens it, retrying).
    private let pcm: ALSACapturePCM?
    private let emitOut: (Event) -> Void
    private let wav: WAVWriter?
    private let meter: LevelMeter?
    /// A new setup on SIGHUP (the config is read again); throwing keeps the current one.
    private let reload: () throws -> Setup
    /// Muted by the control socket: speech is not decoded (kept across reloads).
    private var muted = false
    /// Events of an `inject` being answered, collected for the reply.
    private var collected: [Event]?

    private var tracker = StateTracker()
    /// Samples delivered to the pipeline(s) or dropped by the ring on the way: the audio clock.
    private var fed = 0
    /// The audio clock in seconds (read it after `run()` returns or throws: the pipeline's thread moves it).
    public var seconds: Double { AudioFormat.seconds(fed) }
    /// Where the current pipeline's clock starts (a SIGHUP re-creates it).
    private var offsetSamples = 0
    private var deviceErrors = 0

    public init(options: Options, pcm: ALSACapturePCM?, saveAudio: WAVWriter? = nil, meter: LevelMeter? = nil,
                reload: @escaping () throws -> Setup = { throw CancellationError() },
                emit: @escaping (Event) -> Void) {
        self.options = options
        self.pcm = pcm
        self.wav = saveAudio
        self.meter = meter
        self.reload = reload
        self.emitOut = emit
    }

    private func emit(_ event: Event) {
        meter?.clear()
        collected?.append(event)
        emitOut(event)
        if let new = tracker.observe(event.kind) {
            emitOut(Event(t: event.t, .state(new.rawValue)))
        }
    }

    private func settle() {
        if let new = tracker.settle() {
            meter?.clear()
            emitOut(Event(t: AudioFormat.seconds(fed), .state(new.rawValue)))
        }
    }

    /// A pipeline whose events are shifted onto the listener's clock.
    private func makePipeline(_ setup: Setup) throws(DecoderError) -> Pipeline {
        let offset = AudioFormat.seconds(offsetSamples)
        let pipeline = try Pipeline(settings: setup.settings, commands: setup.commands,
                                    processor: setup.processor) { [unowned self] e in
            emit(offset == 0 ? e : e.shifted(by: offset))
        }
        pipeline.muted = muted
        pipeline.prepareLanguageModel()
        return pipeline
    }

    /// Answers one control-socket request on the pipeline's thread.
    private func answer(_ request: ControlRequest, pipeline: Pipeline, totals: Stats) -> JSONValue {
        switch request {
        case .status:
            var stats = totals
            stats.add(pipeline.stats)
            return .object([("ok", .bool(true)), ("state", .string(tracker.state.rawValue)), ("muted", .bool(muted)),
                            ("device", .string(options.device)), ("wake_phrase", .string(pipeline.settings.wakePhrase)),
                            ("t", .number(AudioFormat.seconds(fed))), ("wakes", .int(stats.wakes)),
                            ("intents", .int(stats.intents)), ("rejections", .int(stats.rejections)),
                            ("restarts", .int(stats.restarts))])
        case .mute, .unmute:
            muted = request == .mute
            pipeline.muted = muted
            emit(Event(t: AudioFormat.seconds(fed), .control(command: request.line, detail: "")))
            return .object([("ok", .bool(true)), ("muted", .bool(muted))])
        case .inject(let text):
            emit(Event(t: AudioFormat.seconds(fed), .control(command: "inject", detail: text)))
            collected = []
            pipeline.inject(text: text)
            let events = collected ?? []
            collected = nil
            return .object([("ok", .bool(true)), ("events", .array(events.map(\.json)))])
        }
    }

    /// Runs until `--duration` worth of audio has been captured or a stop is requested; prints `end`.
    /// Returns the totals. Throws only when the recogniser fails.
    @discardableResult
    public func run() throws(DecoderError) -> Stats {
        let cpuStart = processCPUSeconds()
        let ring = SampleRing(capacity: AudioFormat.samples(options.ringSeconds), policy: options.overrunPolicy)
        let capture = CaptureThread(deviceName: options.device, pcm: pcm, ring: ring,
                                    limitSamples: options.duration.map { AudioFormat.samples($0) }, pace: options.pace)
        emit(Event(t: 0, .listening(source: options.device, sampleRate: AudioFormat.sampleRate)))
        emitOut(Event(t: 0, .state(tracker.state.rawValue)))
        for warning in options.warnings { emit(warning) }
        var setup = options.setup
        var pipeline = try makePipeline(setup)
        var totals = Stats()
        defer { capture.stop(); wav?.close() }
        if control.attach(capture) { capture.start() }

        /// Audio clock (samples) when the reload waiting for a pause was asked for.
        var reloadAskedAt: Int?
        while !control.stopRequested {
            if control.takeReload(), reloadAskedAt == nil { reloadAskedAt = fed }
            if let asked = reloadAskedAt,
               pipeline.isBetweenUtterances || fed - asked >= AudioFormat.samples(options.reloadWaitSeconds) {
                reloadAskedAt = nil
                try pipeline.finish()
                totals.add(pipeline.stats)
                offsetSamples = fed
                var reason = "SIGHUP"
                do {
                    setup = try reload()
                } catch is CancellationError {
                } catch {
                    reason = "SIGHUP; settings kept: \(error)"
                }
                pipeline = try makePipeline(setup)
                emit(Event(t: AudioFormat.seconds(fed), .reload(reason: reason)))
            }
            let current = pipeline, sofar = totals
            options.mailbox?.drain { answer($0, pipeline: current, totals: sofar) }
            let chunk = ring.read(maxSamples: Replay.chunkSamples, timeout: 0.1)
            if chunk.dropped > 0 {
                // The dropped samples came right before this chunk's: a gap in the audio, on the clock.
                emit(Event(t: AudioFormat.seconds(fed), .overrun(origin: "ring", droppedSamples: chunk.dropped)))
                try pipeline.skip(samples: chunk.dropped)
                wav?.write([Int16](repeating: 0, count: chunk.dropped))
                fed += chunk.dropped
            }
            if !chunk.samples.isEmpty {
                wav?.write(chunk.samples)
                try pipeline.process(chunk.samples)
                fed += chunk.samples.count
                meter?.update(chunk.samples, state: tracker.state)
            }
            for notice in chunk.notices { report(notice) }
            settle()
            if chunk.ended { break }
        }
        capture.stop()
        try pipeline.finish()
        settle()
        totals.add(pipeline.stats)
        totals.audioSeconds = AudioFormat.seconds(fed)
        totals.cpuSeconds = processCPUSeconds() - cpuStart
        totals.errors += deviceErrors
        wav?.close()
        meter?.clear()
        emitOut(Event(t: AudioFormat.seconds(fed), .end(totals)))
        capture.join(timeout: 0.5)
        return totals
    }

    private func report(_ notice: CaptureNotice) {
        let t = AudioFormat.seconds(fed)
        switch notice {
        case .alsaOverrun(let reason):
            emit(Event(t: t, .overrun(origin: reason == "overrun" ? "alsa" : "alsa-\(reason)", droppedSamples: nil)))
        case .deviceLost(let message):
            deviceErrors += 1
            emit(Event(t: t, .device(name: options.device, status: "lost", message: message, retryIn: nil)))
        case .deviceUnavailable(let message, let retryIn):
            deviceErrors += 1
            emit(Event(t: t, .device(name: options.device, status: "unavailable", message: message, retryIn: retryIn)))
        case .deviceAvailable:
            emit(Event(t: t, .device(name: options.device, status: "available", message: "", retryIn: nil)))
        }
    }
}

extension Stats {
    /// Adds another pipeline's counts (a SIGHUP reload starts a new pipeline).
    mutating func add(_ other: Stats) {
        wakes += other.wakes
        intents += other.intents
        rejections += other.rejections
        restarts += other.restarts
        errors += other.errors
    }
}

extension Event {
    /// The same event `seconds` later on the audio clock (times inside a transcript too).
    func shifted(by seconds: Double) -> Event {
        var kind = self.kind
        if case .transcript(let text, let confidence, let start, let end, let alternatives) = kind {
            kind = .transcript(text: text, confidence: confidence, start: start + seconds, end: end + seconds,
                               alternatives: alternatives)
        }
        return Event(t: t + seconds, kind, source: source)
    }
}
