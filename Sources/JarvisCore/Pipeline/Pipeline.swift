import Foundation

/// Settings of the whole pipeline (times in seconds of audio).
public struct PipelineSettings: Sendable, Equatable {
    public var wakePhrase = "hey jarvis"
    public var vad = VADSettings()
    /// When false, every frame is treated as speech (the decoders run continuously).
    public var vadEnabled = true
    /// Audio before the VAD's speech start that is fed to the spotter (s).
    public var preRoll = 0.3
    /// After a wake, how long to wait for a command to start (s).
    public var followUpWindow = 5.0
    /// Longest command after a wake (s); decoding starts then even if speech goes on.
    public var maxCommand = 8.0
    /// Speech needed after the wake phrase before the command is decoded (s).
    public var minCommandSpeech = 0.2
    /// Audio before the detected wake start given to the command stage (s).
    public var wakeMargin = 0.35
    /// Longest continuous decoding before a decoder is restarted (s of audio).
    public var maxUtterance = 55.0
    /// Audio re-fed to the restarted decoder so a phrase across the seam is still seen whole (s).
    public var restartOverlap = 3.0
    /// Relative weight of the out-of-grammar branch (higher rejects more).
    public var garbageWeight = 0.05
    public var wake: WakeSettings? = nil
    public var model = ModelPaths.debianDefault

    public init() {}
}

/// The frame-by-frame pipeline: VAD → wake spotter → command recogniser → events.
/// Replay and live capture both push audio through `process(_:)`; one instance per stream.
public final class Pipeline {
    public let settings: PipelineSettings
    public let commands: CommandSet
    private let spotter: WakeSpotter
    private let recognizer: CommandRecognizer
    private let emit: (Event) -> Void

    private let spectrum = PowerSpectrum(frameSamples: AudioFormat.frameSamples)
    private var vad: EnergyVAD
    private var history: AudioHistory
    private var frameBuffer: [Int16] = []
    /// Absolute index of the next sample to arrive.
    private var sampleCount = 0
    private var inSpeech = false
    private var speechEndedAt = 0
    private var pendingWake: WakeDetection?
    /// Samples of speech heard after the pending wake phrase.
    private var speechAfterWake = 0
    /// End of the last detection: detections re-found in a restart's overlap are ignored.
    private var lastWakeEnd = -1
    public private(set) var stats = Stats()

    public init(settings: PipelineSettings, commands: CommandSet = .builtin(),
                emit: @escaping (Event) -> Void) throws(DecoderError) {
        self.settings = settings
        self.commands = commands
        self.emit = emit
        let words = CommandSet.normalizeWords(settings.wakePhrase)
        let phrase = words.joined(separator: " ")
        spotter = try KeyphraseWakeSpotter(phrase: phrase, model: settings.model,
                                           settings: settings.wake ?? .defaults(forWords: words.count))
        recognizer = try GrammarCommandRecognizer(commands: commands, wakePhrase: phrase, model: settings.model,
                                                  garbageWeight: settings.garbageWeight)
        vad = EnergyVAD(settings: settings.vad)
        let seconds = max(settings.maxCommand + settings.followUpWindow, settings.restartOverlap) + 5
        history = AudioHistory(capacity: AudioFormat.samples(seconds))
    }

    var now: Double { AudioFormat.seconds(sampleCount) }

    /// Feeds any number of samples; events are emitted as frames complete.
    public func process(_ samples: [Int16]) throws(DecoderError) {
        var index = 0
        while index < samples.count {
            let take = min(AudioFormat.frameSamples - frameBuffer.count, samples.count - index)
            frameBuffer.append(contentsOf: samples[index..<(index + take)])
            index += take
            if frameBuffer.count == AudioFormat.frameSamples {
                try processFrame(frameBuffer[...])
                frameBuffer.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Ends the stream: flushes a partial frame, decodes a pending command.
    public func finish() throws(DecoderError) {
        if !frameBuffer.isEmpty {
            let pad = [Int16](repeating: 0, count: AudioFormat.frameSamples - frameBuffer.count)
            frameBuffer += pad
            try processFrame(frameBuffer[...])
            frameBuffer.removeAll()
        }
        if inSpeech {
            inSpeech = false
            speechEndedAt = sampleCount
            emit(Event(t: now, .speechEnd))
        }
        spotter.end()
        if pendingWake != nil { try decodeCommand(endSample: sampleCount) }
        stats.audioSeconds = now
    }

    private func processFrame(_ frame: ArraySlice<Int16>) throws(DecoderError) {
        let frameStart = sampleCount
        history.append(frame)
        sampleCount += frame.count

        let transition: VADTransition
        if settings.vadEnabled {
            let power = spectrum.power(of: frame)
            let level = decibels(bandEnergy(power, fftSize: spectrum.fftSize, sampleRate: AudioFormat.sampleRate,
                                            lowHz: settings.vad.lowHz, highHz: settings.vad.highHz))
            transition = vad.process(bandEnergyDB: level)
        } else {
            transition = frameStart == 0 ? .speechStart(framesAgo: 0) : .none
        }

        switch transition {
        case .speechStart(let framesAgo):
            inSpeech = true
            let onset = frameStart - framesAgo * AudioFormat.frameSamples
            emit(Event(t: AudioFormat.seconds(onset), .speechStart))
            if pendingWake == nil {
                let from = max(history.startSample, onset - AudioFormat.samples(settings.preRoll))
                try spotter.begin(atSample: from)
                try feedSpotter(history.samples(from: from, to: sampleCount)[...])
            } else {
                speechAfterWake += sampleCount - max(onset, pendingWake!.endSample)
            }
            return
        case .speechEnd(let framesAgo):
            inSpeech = false
            speechEndedAt = sampleCount - framesAgo * AudioFormat.frameSamples
            emit(Event(t: AudioFormat.seconds(speechEndedAt), .speechEnd))
            spotter.end()
        case .none:
            break
        }

        if inSpeech {
            if let wake = pendingWake {
                if frameStart >= wake.endSample { speechAfterWake += frame.count }
            } else if spotter.utteranceStartSample != nil {
                try feedSpotter(frame)
            } else {
                // Listening resumes after a command decoded mid-speech.
                try spotter.begin(atSample: frameStart)
                try feedSpotter(frame)
            }
        }
        try updatePendingWake()
    }

    private func feedSpotter(_ samples: ArraySlice<Int16>) throws(DecoderError) {
        guard !samples.isEmpty else { return }
        if let start = spotter.utteranceStartSample,
           sampleCount - start >= AudioFormat.samples(settings.maxUtterance) {
            try restartSpotter()
            return
        }
        guard let detection = try spotter.process(samples) else { return }
        if detection.endSample <= lastWakeEnd + AudioFormat.samples(0.3) {
            // Already reported before a restart; keep listening.
            try spotter.begin(atSample: sampleCount)
            return
        }
        lastWakeEnd = detection.endSample
        if ProcessInfo.processInfo.environment["JARVIS_DEBUG"] != nil {
            FileHandle.standardError.write(Data("wake \(detection) utt \(String(describing: spotter.utteranceStartSample)) now \(sampleCount)\n".utf8))
        }
        stats.wakes += 1
        emit(Event(t: AudioFormat.seconds(detection.endSample), .wake(phrase: settings.wakePhrase, score: detection.score)))
        pendingWake = detection
        speechAfterWake = max(0, sampleCount - detection.endSample)
    }

    /// Restarts the spotter after `maxUtterance` of continuous decoding, re-feeding the overlap so a
    /// wake phrase spoken across the seam is seen whole (and reported once: see `lastWakeEnd`).
    private func restartSpotter() throws(DecoderError) {
        spotter.end()
        stats.restarts += 1
        emit(Event(t: now, .restart(reason: "max-utterance")))
        let from = max(history.startSample, sampleCount - AudioFormat.samples(settings.restartOverlap))
        try spotter.begin(atSample: from)
        try feedSpotter(history.samples(from: from, to: sampleCount)[...])
    }

    private func updatePendingWake() throws(DecoderError) {
        guard let wake = pendingWake else { return }
        let enoughSpeech = speechAfterWake >= AudioFormat.samples(settings.minCommandSpeech)
        if enoughSpeech && !inSpeech {
            try decodeCommand(endSample: min(sampleCount, speechEndedAt + AudioFormat.samples(0.25)))
        } else if sampleCount - wake.endSample >= AudioFormat.samples(settings.maxCommand) {
            try decodeCommand(endSample: sampleCount)
        } else if !enoughSpeech && !inSpeech && sampleCount - wake.endSample >= AudioFormat.samples(settings.followUpWindow) {
            pendingWake = nil
            stats.rejections += 1
            emit(Event(t: now, .rejected(text: "", reason: "no-command")))
        }
    }

    private func decodeCommand(endSample: Int) throws(DecoderError) {
        guard let wake = pendingWake else { return }
        pendingWake = nil
        let start = max(history.startSample, wake.startSample - AudioFormat.samples(settings.wakeMargin))
        let audio = history.samples(from: start, to: max(endSample, wake.endSample))
        let outcome = try recognizer.recognize(audio, startSample: start)
        let t = AudioFormat.seconds(endSample)
        switch outcome {
        case .intent(let intent, let transcript):
            emit(Event(t: t, .transcript(text: transcript.text, confidence: transcript.confidence,
                                          start: transcript.start, end: transcript.end,
                                          alternatives: transcript.alternatives)))
            stats.intents += 1
            emit(Event(t: t, .intent(intent, confidence: transcript.confidence)))
            emit(Event(t: t, .action(name: intent.name, status: "dry-run", backend: "dry-run",
                                     detail: ActionDescription.describe(intent))))
        case .rejected(let text, let reason, let transcript):
            if let transcript {
                emit(Event(t: t, .transcript(text: transcript.text, confidence: transcript.confidence,
                                              start: transcript.start, end: transcript.end,
                                              alternatives: transcript.alternatives)))
            }
            stats.rejections += 1
            emit(Event(t: t, .rejected(text: text, reason: reason)))
        }
    }
}

/// Human-readable summaries of what an intent would do.
public enum ActionDescription {
    public static func describe(_ intent: Intent) -> String {
        let slots = intent.slots
        switch intent.name {
        case "scroll":
            return "scroll \(slots["direction"]?.description ?? "down") by \(slots["amount"]?.description ?? "1")"
                + (slots["unit"] == .string("page") ? " page" : "")
        case "click":
            return "\(slots["button"]?.description ?? "left") click x\(slots["count"]?.description ?? "1")"
        case "navigate":
            if let url = slots["url"] { return "open \(url)" }
            return "browser \(slots["target"]?.description ?? "")"
        case "search":
            return "search \"\(slots["query"]?.description ?? "")\""
        default:
            return intent.name
        }
    }
}
