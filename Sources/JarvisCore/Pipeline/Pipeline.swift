import Foundation

/// Settings of the whole pipeline (times in seconds of audio).
public struct PipelineSettings: Sendable, Equatable {
    public var wakePhrase = "hey jarvis"
    public var vad = VADSettings()
    /// When false, every frame is treated as speech (the decoder runs continuously).
    public var vadEnabled = true
    /// Audio before the VAD's speech start that is fed to the recogniser (s).
    public var preRoll = 0.3
    /// After a wake phrase with no command, how long a command may take to start (s).
    public var followUpWindow = 5.0
    /// A follow-up command this many dB or more under its wake phrase (`WordLevel.level`) is not the talker's:
    /// rejected as "too-quiet", and the window stays open. Measured: the noise set's 53 follow-up commands lay
    /// 2 dB over to 5 dB under their wake phrase; after the real "jarvis" clips, the follow-ups were sounds
    /// 45–54 dB under it (one had been a "click" intent). nil: any level.
    public var followUpQuietDrop: Double? = 25
    /// Longest continuous decoding before the decoder is restarted (s of audio).
    public var maxUtterance = 55.0
    /// Audio re-fed to the restarted decoder so a phrase across the seam is still seen whole (s).
    public var restartOverlap = 4.0
    /// While the talker's voice is unknown (`RecognizerSettings.highVoiceWarp`), the standard recogniser's live
    /// decoder waits for it, at most this long into the segment (s; nil: it does not wait). The pitch tells the
    /// voice after about 0.4 s of voiced speech; live decoding done before a segment goes to the high-voice
    /// recogniser was lost. Measured: the dev stream (one high voice) 3.65 → 3.4 s CPU with the same events;
    /// the same dev, real-recording, non-command and voice tables; on the noise set 5 more commands woke and
    /// were right (cwhite15 86.1 / 63.5 → 89.6 / 67.0 %, pink10 83.5 / 64.3 → 84.3 / 65.2 %), with the same
    /// false wakes: a live decoder that starts later starts with a cepstral mean over more of the speech.
    public var liveHoldForVoice: Double? = 1.0
    public var recognizer = RecognizerSettings()
    /// A wake score at which a wake is reported even when the command after it is unsure (and rejected).
    public var confidentWake = 0.9
    /// The command confidence a marginal wake phrase (under `confidentWake`) needs when the segment was heard by
    /// the acoustic model adapted to speech in noise (`RecognizerSettings.babbleAdaptation`);
    /// `Pipeline.unsureCommandConfidence` otherwise.
    /// Measured on the negatives and confusable names under other talkers' babble: with 0.5, 2 false intents of
    /// 375 instead of 1 ("go forward two blocks…" as "hey jarvis, go to the next tab" at 0.87).
    public var adaptedCommandConfidence = 0.9
    /// Seconds of audio after the last search (or rejection) after which the language model is unloaded (its
    /// decoder is most of the memory; loading it again costs about half a second of CPU),
    /// so an idle listener stays small; nil keeps it loaded.
    public var releaseLanguageModelAfter: Double? = 120
    /// Seconds of other speech after a complete command, without a pause, that make it part of a sentence.
    public var maxTrailingSpeech = 0.5
    public var minTrailingPhones = 4
    /// ...unless that speech lies this many dB or more under the wake phrase (`WordLevel.level`): then it is
    /// somebody else's, babble or a TV that was talking before the command and goes on after it. Measured:
    /// the non-commands' own continuation lay within 6 dB of their wake phrase (one at 8 dB, 88 such
    /// sentences), the babble after commands said in a talking room 6–14 dB under it. nil: any speech.
    /// Speech no louder than the talk that was going on before the wake phrase is not the talker's either
    /// (`RecognizerSettings.roomUnderTalker`). The same drop tells a sure command's trailing sound
    /// (`trailingSpeechCheckSeconds`) from the talker's own.
    public var quietTrailingSpeechDrop: Double? = 10
    /// A search is only taken when the language model also heard the word before the query (see `interpret`).
    public var confirmFreeTextTrigger = true
    /// Longest stretch of audio the language model decodes for one command (s), from 0.3 s before it: a
    /// spoken search is a few seconds long, but with `--vad off` a rejected command's span can run on for
    /// most of a 55 s segment (measured on 2 minutes of such audio: 7.5 → 7.0 s CPU, 150.6 → 148.5 MB).
    public var maxLanguageModelAudio = 8.0
    /// ...or when the language model expecting a lead (`CommandLeadModel`) heard one first, and that path's
    /// acoustic score is at most this far (nats per 10 ms frame) below the general model's path over the same
    /// audio. The same test takes an unsure search (grammar confidence under 0.5) and picks a search's query.
    public var leadAcousticLoss = 0.5
    /// ...and the word before a search's query counts as heard when that model heard it, on such a path, where
    /// the general model did not: espeak's "search for football scores" under babble was "but the score |
    /// football scores" to the general model, "but that for | football scores" to the lead-expecting one.
    /// Measured: babble10 intents +1 clip; every other clip of every set the same (no new false intent).
    public var triggerHeardByLeadModel = true
    /// A search's query that opens with "a" or "an" before a plural ("a winter jackets", "a cat videos") loses
    /// the article (`Pipeline.articleBeforePluralDropped`): the lead-expecting model heard the end of "for" as a
    /// word. "a recipe for pancakes" and "a few good movies" keep it.
    public var articleBeforePluralDropped = true
    /// A segment under changing noise (babble: SNR under `RecognizerSettings.cleanSNR`, its floor spread over
    /// `steadySpread` + 1 dB) that did not wake although the live decoder proposed the wake phrase in it is
    /// heard once more with the babble turned into a steady floor (`BabbleFloor`); that hearing's events replace
    /// the first's when it gives a command (nil: never). Measured (intents under babble 10 dB): the dev set's
    /// commands under other talkers' babble 16.5 → 27.0 %, the voice set under that babble 6.5 → 18.5 %, the
    /// dev set the same; 2 of 360 talking-room non-commands more became commands (docs/accuracy.md, stop 43).
    public var babbleFloor: BabbleFloorSettings? = BabbleFloorSettings()
    /// Longest segment heard again with the babble floored (s): the floor needs the whole segment at once.
    public var babbleFloorMaxSegment = 12.0
    /// The floored hearing's command must be at least this sure: heard again, "hey jarvis, read my emails" in a
    /// talking room became "please right click" (confidence 0.86).
    public var babbleFloorConfidence = 0.9
    /// When the floored hearing verifies a name that the first hearing verified under the bar, and hears after it
    /// the same command words as the first hearing did, less sure than `babbleFloorConfidence` where the first
    /// hearing was at least that sure, the command is taken as first heard: the floor that lets the name through
    /// blurs the words after it (flite slt's "page down" in a room already talking: heard as is, the name 0.42
    /// nats per frame, under the bar of 0.8, and "page down" 0.995 sure; floored, the name 1.06 and "page down"
    /// 0.83). Measured: docs/accuracy.md, stop 84.
    public var babbleFloorTakesCommandAsHeard = true
    /// In the floored hearing, speech after a command at least this sure, `quietTrailingSpeechDrop` or more under
    /// the wake phrase, is somebody else's too; after a less sure one (with nil, after every one) any speech makes
    /// the command part of a sentence. A room already talking goes on after the command: espeak-ng's "hey jarvis,
    /// go back" there, heard again 0.9996 sure, was dropped for the room's talk after it. But the grammar fits a
    /// talking room's sentence, or a misheard command, to a command, less sure, and the room goes on after it:
    /// "make the text bigger please" became "please open twitter please" (0.947), "play some relaxing music"
    /// "please open up youtube" (0.98), espeak-ng f3's "go forward" "go home please" (0.990); the right commands so
    /// dropped were 0.9957–0.9996 sure. Measured (commands under other talkers' babble running from 3 s before the
    /// command to 1 s after it): intents 27.8 → 30.4 % on the babble set, 5.4 → 7.6 % on the voice set under that
    /// babble; see docs/accuracy.md, stop 75.
    public var quietTrailingSpeechFlooredConfidence: Double? = 0.995
    /// Mains hum (50 or 60 Hz and its harmonics) is notched out of the audio before the VAD and the recognisers
    /// hear it (`HumRemover`; nil: never); the notches change only between utterances. Audio without hum passes
    /// untouched. Measured: the dev commands under hum from 3 s before them 69.6 → 92.2 % of intents, every
    /// other set the same clip by clip (docs/accuracy.md, stop 44).
    public var hum: HumSettings? = HumSettings()
    /// When the grammar finds no command after a wake phrase, the language model's transcript is searched for
    /// a command with free text ("search for …"; see `freeTextCommand`).
    public var freeTextSecondOpinion = true
    /// ...and for a command without free text that it heard whole ("refresh the page"; `wholeCommand`).
    public var wholeCommandSecondOpinion = true
    /// ...on its best path, or on one of its next best (`RecognizerSettings.freeTextAlternatives`): flite
    /// rms's "scroll up" was "or just scroll up" on the best path (two words before the command, when one was
    /// allowed) and a shorter path on another. Measured: voice set +1 clip, every other clip the same.
    public var wholeCommandOnAlternatives = true
    /// ...after at most this many words the language model heard first (over the end of the wake phrase, or a
    /// "search for" the grammar made of the command's start). Measured with 2 instead of 1 (2026-11-27, stop
    /// 48): flite rms's "scroll down", which the grammar heard as "search for" and phones at 0.37 and the language
    /// model as "or just scroll down", is taken (voice set 72 → 73 of 92); the dev, non-command, variant, name,
    /// other-voice, babble, room and noise sets and the real recordings the same, clip by clip.
    public var wholeCommandLeadWords = 2
    /// When neither finds one, the language model expecting a lead ("search for", "look up") hears the speech
    /// again, and a search it hears first, whose path sounds about as good as the general model's
    /// (`leadAcousticLoss`), is taken. Measured: paraphrase 88 → 92 %, every other table unchanged.
    public var ledSearchAfterRejection = true
    /// Words the language model may hear before such a command's first word.
    public var freeTextLeadWords = 2
    /// Whether a search whose lead only the language model's words are parsed with ("find cheap hotels",
    /// `CommandDefinition.languageModelOnly`) is taken when the general language model heard it first (after
    /// at most one word, the end of the wake phrase) and nothing else took the speech as a command (nor did the
    /// grammar hear a search of its own).
    public var languageModelOnlyLeads = true
    /// ...also when the grammar heard a search of its own whose lead holds a word the general model did not hear
    /// (not a carrier word, nor the lead's last word): the grammar stretched "search the internet for" over
    /// "search pizza", which the model heard as "search pizza recipes". A grammar lead the model heard all of but
    /// its "for" ("search formidable soup" for "search for vegetable soup") still needs the lead-expecting model.
    /// Measured: the variant set's "search pizza recipes" 0 → 2 of 5 (and one wrong query, "big sur recipes",
    /// where there was a rejection); the dev, query, request, voice, other-voice, non-command, name, noise, babble
    /// and talking-room sets the same, clip by clip.
    public var languageModelOnlyLeadOverUnheardGrammarLead = true
    /// Whether, when the grammar heard a search whose lead's last word neither the general language model nor
    /// the one expecting a lead heard (`confirmFreeTextTrigger`), a command without free text that the general
    /// model heard whole (`wholeCommandSecondOpinion`, which must be on too) is taken before the search is
    /// rejected: flite awb's "go up" was "google" and phones to the grammar, "go up" to the model. Measured
    /// (2026-12-03, stop 86): the variant set 2 more right commands (that "go up", kal16's "reload this page");
    /// the dev, non-command, room, voice, other-voice, request and talking-room sets the same, clip by clip.
    public var wholeCommandOverUnheardTrigger = true
    /// Whether, when the language model's check rejects a command without free text in a clean segment (it heard
    /// none of the words the check asks for: "not-heard-as-command"), a command of another intent, without free
    /// text, that the general model heard whole (`wholeCommandSecondOpinion`, which must be on too) is taken
    /// instead, at confidence 0.5: flite slt's "go to the top" was "go to github" and a phone to the grammar,
    /// "this go to the top" to the model. Measured (2026-12-03, stop 87): the variant set's first 420 clips
    /// 358 → 359 (awb's "go down", the grammar's "go back"), its seventh round 4 of 25 ("go to the top" by slt,
    /// awb and festival kal, awb's "jump to the bottom"); the dev, non-command, room, voice, other-voice and
    /// request sets the same, clip by clip.
    public var wholeCommandOverUnheardCommand = true
    /// A command (without free text) whose confidence is below this, in a clean segment (SNR at or above
    /// the recogniser's `cleanSNR`), is only taken when the language model heard one of its words other than
    /// `carrierWords`. Measured: non-commands rejected 86 → 92.7 %, clean intents 82.6 → 81.7 %; in noise the
    /// language model mishears real commands (it cost 5 points of babble intents), so noisy segments skip it.
    public var languageModelCheckBelow = 0.9
    /// Whether that check, for a command with words of a closed slot (`CommandSet.slotWords`: "left" of
    /// "scroll left a little", "youtube" of "open youtube"), asks for one of those words: they say what the
    /// command does, its other words only which command it is. Without it the grammar's "scroll left a little"
    /// passed for "the scroll is on the table" (flite awb and festival kal), which the language model heard
    /// word for word. The model expecting a command, asked when the general one did not agree, still needs
    /// all of the command's words. Measured (2026-12-02, stop 82): non-commands after a wake 145 → 147 of 150
    /// rejected; the variant set 2 right commands lost (flite kal16's "show me github", the model heard "show me
    /// it"; espeak-ng's "scroll way down", "scroll … don't") and a wrong one rejected ("scroll right a lot"); the
    /// dev, request, voice, other-voice, query and name sets the same, clip by clip.
    public var languageModelCheckWantsSlotWords = true
    /// A sure command followed by a little more of the talker's speech, at least `trailingSpeechCheckPhones`
    /// phone-loop words over at least this many seconds, less than `quietTrailingSpeechDrop` under the wake phrase
    /// (a level that cannot be measured counts as the talker's), is checked by the language model as an unsure
    /// one is, in a clean segment (4 phones over `maxTrailingSpeech` make it part of a sentence, `speechContinues`,
    /// and it is not taken at all): the grammar fits the first words of a request it does not hold to a command,
    /// sure of it ("tell me a joke" → "show me youtube" and two phones at 0.98, "read my emails" → "reload" and
    /// two at 0.999). With `trailingSpeechCheckTakesAnyWord` any of the command's words other than `carrierWords`
    /// will do. nil: not checked. Measured (2026-12-03, stop 85; docs/accuracy.md): non-commands after a wake
    /// 147 → 149 of 150 rejected; the variant set 1 right command lost (flite kal16's "click here", heard as
    /// "click" and phones) and 5 wrong ones rejected ("open instagram" as "open a new tab", "go down" as "go
    /// back"); the dev, room, voice, other-voice and request sets the same, clip by clip. Without the level, the
    /// room set's hum after 4 sure commands was heard as more speech, and they were lost.
    public var trailingSpeechCheckSeconds: Double? = 0.2
    /// Phone-loop words after the command, at least, for `trailingSpeechCheckSeconds`.
    public var trailingSpeechCheckPhones = 2
    /// Whether that check takes any of the command's words other than `carrierWords`, not only its slot's
    /// (`languageModelCheckWantsSlotWords`): the grammar was sure of them, and a command it holds only in part
    /// ("right click the mouse" and its last sounds as phones) keeps its slot word in the general model's ears
    /// less often than its other words ("sprite click the mouse"). Measured: with the slot's word, the variant set
    /// 2 more right commands lost for 2 more wrong ones rejected.
    public var trailingSpeechCheckTakesAnyWord = true
    /// Whether a twin the recogniser took over the grammar's words (`RecognizerSettings.twinMargin`), whose
    /// confidence is that of those words when lower and so perhaps under `Pipeline.unsureCommandConfidence`,
    /// is checked by the language model in a clean segment, as an unsure command is (whatever
    /// `languageModelCheckBelow` says), instead of being rejected as unsure: flite slt's "go up" was the grammar's
    /// "go back" at a confidence of 0.26, the twin "go up" fitted 0.34 nats per 10 ms frame better, and the model
    /// heard "guy up". Only for a command without free text; when the twin arbitration
    /// (`twinArbitrationMargin`) goes back to the grammar's words, they are rejected as unsure. Measured
    /// (2026-12-03, stop 86): the variant set 2 more right commands (slt's and espeak-ng's "go up"); the
    /// non-command, dev, room, voice, other-voice and request sets the same, clip by clip.
    public var unsureTakenTwinChecked = true
    /// Words many commands share, which prove nothing ("open the window" is not "open twitter").
    public var carrierWords = Set(["please", "the", "a", "to", "go", "open", "me", "you"] + CommandSet.requestOpeners)
    /// Words that open a command as a request ("can you scroll down"). Such a command sounds like a sentence
    /// ("could you open up youtube" for "good morning how are you"), so the language model's check applies to it
    /// however sure the grammar is, and in noise too: under babble the grammar hears "could you" in other
    /// people's talk.
    public var requestOpeners = Set(CommandSet.requestOpeners)
    /// ...heard on its best path or on one of its next best (`RecognizerSettings.freeTextAlternatives`):
    /// espeak-ng's "open up gmail" was "oh the wheel" on the best path and "open up the wheel" on the next.
    public var languageModelCheckAlternatives = true
    /// ...or heard by the language model expecting a command (`CommandPhraseModel`): all the command's words,
    /// on a path at most this far (nats per 10 ms frame) below the general model's path over the same audio.
    /// nil: only the general model's words count.
    public var commandModelAcousticLoss: Double? = 0.5
    /// A command without free text whose nearest twin (`RecognizerSettings.twinMargin`: the command one word away
    /// that best fits its span) fitted within this many nats per 10 ms frame of it, either way, is decided by the
    /// language model expecting a command (`CommandPhraseModel`), which hears the whole speech: the other one is
    /// taken when that model heard the other's word and not the command's, on a path at most
    /// `commandModelAcousticLoss` below the general model's. espeak-ng's "next tab" was "new tab" (the twin 0.09
    /// worse), flite slt's "close tab" under white noise "last tab" (0.21); the model heard "next tab" and "close
    /// hand". Measured (stop 70): dev clean intents 94.8 → 95.7 %, white15 76.5 → 77.4 % (those two), the variant
    /// set one more (espeak-ng's "next tab please"); in the voice, other-voice, request, non-command and noise
    /// sets the model switched nothing. nil: never.
    public var twinArbitrationMargin: Double? = 0.4
    /// A command (without free text) whose confidence is below `commandFitCheckBelow`, in a noisy segment, is
    /// rejected when it fits the audio worse than the general language model's own words do by more than this
    /// (nats per 10 ms frame): both forced over the audio the model heard, the command between the words the
    /// model heard before it and those it heard over the phones after it (`UtteranceRecognizer.alignedAcousticScores`,
    /// `FreeText.words(splitAt:before:)`). In a talking room the grammar fits other people's talk to a command:
    /// espeak-ng's "add milk to the shopping list" became "go to github dot com please" (0.55), which fits worse
    /// than the model's "have a real cause of a shopping list" by 1.55. Measured (stop 61): the talking-room
    /// non-command set's commands 54 → 43 of 450 (rejected 88.0 → 90.4 %); wrong commands dropped: 2 in the dev
    /// set, 1 in the noise set, 7 in the babble set (other talkers), which also lost 4 of its 103 right commands.
    /// Until stop 69 a command followed by phones was fitted after all the model's words up to the phones (its
    /// own included: "… kids in mind scroll left eighteen times"), a path that lost by 1.0 or had none (then not
    /// checked); fitted as now: talking room rejected 405 → 409 of 450, the babble set 2 wrong commands more and
    /// the same right ones, the dev and noise sets the same clip by clip. The dev set's noisy commands that reach
    /// the check fit within 0.76; its two over 0.8 are wrong. nil: never.
    public var commandFitLoss: Double? = 0.8
    /// ...checked under this grammar confidence (a sure command in noise is rarely another's talk). Clean
    /// segments are not checked: there the language model's check (`languageModelCheckBelow`) stands, and real
    /// clean commands fit as badly as 1.1 ("right click" heard as "spike click").
    public var commandFitCheckBelow = 0.9
    /// At most this many other readings of a search in its `transcript` event's `alternatives`, from the
    /// language models' best paths (`RecognizerSettings.freeTextAlternatives`); 0: none.
    public var transcriptAlternatives = 5

    public init() {}
}

/// The frame-by-frame pipeline: VAD → wake spotting and command recognition → intents → events.
/// Replay and live capture both push audio through `process(_:)`; one instance per stream.
public final class Pipeline {
    /// The grammar's confidence under which a command is unsure: rejected unless the language model hears it,
    /// and after a marginal wake phrase, a reason to say nothing (`PipelineSettings.adaptedCommandConfidence`
    /// raises it for segments heard with the adapted model).
    static let unsureCommandConfidence = 0.5
    public let settings: PipelineSettings
    public let commands: CommandSet
    /// `commands` without those only the language model's words are parsed with (`CommandSet.grammarCommands`).
    let grammarCommands: CommandSet
    /// The recogniser of the current segment: `standardRecognizer`, or `highVoiceRecognizer` for a talker whose
    /// voice is high (`RecognizerSettings.highVoiceWarp`).
    private var recognizer: UtteranceRecognizer
    private let standardRecognizer: UtteranceRecognizer
    /// Made the first time a segment's talker has a high voice (its decoders warp frequencies further).
    private var highVoiceRecognizer: UtteranceRecognizer?
    /// Both recognisers, as far as they exist.
    private var recognizers: [UtteranceRecognizer] { [standardRecognizer] + (highVoiceRecognizer.map { [$0] } ?? []) }

    /// Where the recognisers' CPU goes (`jarvis bench`); nil (the default) measures nothing.
    public var stageClock: StageClock? {
        didSet { for recognizer in recognizers { recognizer.stageClock = stageClock } }
    }
    /// The talker's F0 at the start of the current segment, which chooses its recogniser.
    private var pitch = PitchTracker()
    /// Whether the current segment's recogniser has been chosen by its pitch.
    private var voiceChosen = false
    /// Absolute sample at which the current segment's utterance began (its pre-roll included).
    private var segmentFrom = 0
    /// Carries out intents (dry-run unless the caller chose an executing one).
    private let processor: CommandProcessor
    /// Where events go (the `emit` given at init).
    private let output: (Event) -> Void
    /// Events held while a babble segment's two hearings are compared (`hearAgainWithBabbleFloored`); nil:
    /// events go out at once.
    private var heldEvents: [Event]?

    private let spectrum = PowerSpectrum(frameSamples: AudioFormat.frameSamples)
    private var vad: EnergyVAD
    private var history: AudioHistory
    private var frameBuffer: [Int16] = []
    /// Absolute index of the next sample to arrive.
    private var sampleCount = 0
    private var inSpeech = false
    /// Band levels of the current speech segment (its signal-to-noise ratio sets the recogniser's thresholds).
    private var segmentSNR = SegmentSNR()
    /// Made on first need (`PipelineSettings.babbleFloor`).
    private var babbleFloor: BabbleFloor?
    /// `PipelineSettings.hum`'s; the lines it notched when last traced.
    private var humRemover: HumRemover?
    private var tracedHumLines: [Double] = []
    /// Set while the results of a hearing with the babble floored are handled (`babbleFloorConfidence`).
    private var hearingFloored = false
    /// After a wake phrase with no command: the window in which one may still start.
    private struct FollowUp {
        /// Absolute sample by which the command must start.
        var deadline: Int
        /// The wake phrase's level (`WordLevel.level`, dB), which the command must come near
        /// (`PipelineSettings.followUpQuietDrop`); nil when unknown.
        var talkerLevel: Double?
    }
    private var followUp: FollowUp?
    /// Absolute sample of the last language-model decode (search text, rejected speech).
    private var lastLanguageModelUse = 0
    /// Spans (absolute samples) of the last wake phrases reported: the same phrase heard again (in a
    /// restart's overlap, or by the whole-utterance decode after the live decoder) is not reported twice.
    /// A wake phrase the live decoder missed is still reported when a later one in the same utterance was.
    private var reportedWakes: [Range<Int>] = []

    private func wasReported(_ wake: UtteranceResult.WakeSpan) -> Bool {
        reportedWakes.contains { $0.overlaps(wake.startSample..<wake.endSample) }
    }

    /// Wake phrases reported while their utterance went on, whose command has not been handled yet.
    private var awaitingCommand: [Range<Int>] = []

    private func noteReported(_ wake: UtteranceResult.WakeSpan) {
        reportedWakes.append(wake.startSample..<wake.endSample)
        if reportedWakes.count > 8 { reportedWakes.removeFirst() }
    }

    /// Takes the early-reported wake phrase that `wake` is (the same phrase, maybe decoded again after a
    /// restart with slightly different bounds) off the awaiting list.
    private func takeAwaiting(_ wake: UtteranceResult.WakeSpan) -> Bool {
        guard let i = awaitingCommand.firstIndex(where: { $0.overlaps(wake.startSample..<wake.endSample) })
        else { return false }
        awaitingCommand.remove(at: i)
        return true
    }
    public private(set) var stats = Stats()
    /// Muted: speech is not decoded, so the wake phrase is not acted on (a film playing); the VAD still runs.
    /// An utterance already being decoded when muting finishes, but its wake phrase is ignored.
    public var muted = false

    public init(settings: PipelineSettings, commands: CommandSet = .builtin(),
                processor: CommandProcessor = DesktopCommandProcessor.dryRun(),
                emit: @escaping (Event) -> Void) throws(DecoderError) {
        self.settings = settings
        self.commands = commands
        grammarCommands = commands.grammarCommands
        self.processor = processor
        self.output = emit
        standardRecognizer = try UtteranceRecognizer(commands: commands, wakePhrase: settings.wakePhrase,
                                                     settings: settings.recognizer)
        recognizer = standardRecognizer
        vad = EnergyVAD(settings: settings.vad)
        history = AudioHistory(capacity: AudioFormat.samples(settings.maxUtterance + 5))
        humRemover = settings.hum.map { HumRemover(settings: $0) }
    }

    var now: Double { AudioFormat.seconds(sampleCount) }

    /// Whether the language model (search text) is loaded now.
    public var languageModelLoaded: Bool { recognizers.contains { $0.languageModelLoaded } }
    /// Live wake candidates verified in the current (or last) speech segment
    /// (`RecognizerSettings.candidateEndTolerance`).
    var liveCandidatesVerified: Int { recognizer.liveCandidatesVerified }
    /// Samples the live decoders decoded in segments then handed to the other recogniser (work lost).
    var liveSamplesAbandoned: Int { recognizers.map(\.liveSamplesAbandoned).reduce(0, +) }
    /// Bytes of the paged language model's file read into memory so far; nil when it is not loaded or was read
    /// whole.
    public var languageModelResidentBytes: Int? { recognizer.languageModelResidentBytes }

    /// Whether the current segment is decoded with the high-voice recogniser (`RecognizerSettings.highVoiceWarp`).
    var decodesAHighVoice: Bool { recognizer !== standardRecognizer }

    /// Whether nothing is being heard or awaited: no speech segment is open and no wake phrase waits for its
    /// command (the follow-up window). A pipeline replaced now (a reload) loses no command.
    public var isBetweenUtterances: Bool { !inSpeech && followUp == nil }

    /// Makes the (pruned, cached) language model ready on disk without loading it.
    public func prepareLanguageModel() { recognizer.prepareLanguageModel() }

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

    /// Back to the state of a new pipeline (for the next file of a batch), keeping the models loaded: the
    /// same audio gives the same events as in a fresh pipeline. Call after `finish()`.
    public func reset() {
        for recognizer in recognizers { recognizer.reset() }
        recognizer = standardRecognizer
        pitch.reset()
        voiceChosen = false
        vad = EnergyVAD(settings: settings.vad)
        history = AudioHistory(capacity: AudioFormat.samples(settings.maxUtterance + 5))
        frameBuffer.removeAll(keepingCapacity: true)
        humRemover?.reset()
        tracedHumLines = []
        sampleCount = 0
        inSpeech = false
        segmentSNR.reset()
        followUp = nil
        lastLanguageModelUse = 0
        reportedWakes = []
        awaitingCommand = []
        stats = Stats()
    }

    /// Ends the stream: flushes a partial frame and decodes the open utterance.
    public func finish() throws(DecoderError) {
        if !frameBuffer.isEmpty {
            frameBuffer += [Int16](repeating: 0, count: AudioFormat.frameSamples - frameBuffer.count)
            try processFrame(frameBuffer[...])
            frameBuffer.removeAll()
        }
        try endSpeechHere()
        if followUp != nil { expireFollowUp() }
        stats.audioSeconds = now
    }

    /// `count` samples of the stream that never reached the pipeline (the capture ring dropped them): they
    /// count on the audio clock, but nothing hears them. Speech in progress ends where the audio stopped, and
    /// its utterance is decoded as at the end of a stream (with the samples of a partial frame, which are lost
    /// too); the VAD's noise floor and a follow-up window go on.
    public func skip(samples count: Int) throws(DecoderError) {
        guard count > 0 else { return }
        let lost = frameBuffer.count + count
        frameBuffer.removeAll(keepingCapacity: true)
        try endSpeechHere()
        vad.breakStream()
        history.skip(lost)
        sampleCount += lost
    }

    /// Ends the open speech segment at the current sample (the stream ends or breaks off) and decodes it.
    private func endSpeechHere() throws(DecoderError) {
        guard inSpeech else { return }
        inSpeech = false
        recognizer.segmentNoise = segmentSNR.endSegment()
        emit(Event(t: now, .speechEnd))
        try endUtterance()
    }

    private func processFrame(_ input: ArraySlice<Int16>) throws(DecoderError) {
        // Hum is taken out frame by frame; its notches change only between utterances (and at any frame
        // with the VAD off).
        let frame = humRemover?.filtered(input, notchesMayChange: !inSpeech || !settings.vadEnabled)?[...] ?? input
        if UtteranceRecognizer.tracing, let lines = humRemover?.notchedLines, lines != tracedHumLines {
            tracedHumLines = lines
            FileHandle.standardError.write(Data("hum: notched at \(lines) Hz from \(now) s\n".utf8))
        }
        let frameStart = sampleCount
        history.append(frame)
        sampleCount += frame.count

        let transition: VADTransition
        if settings.vadEnabled {
            let power = spectrum.power(of: frame)
            let level = decibels(bandEnergy(power, fftSize: spectrum.fftSize, sampleRate: AudioFormat.sampleRate,
                                            lowHz: settings.vad.lowHz, highHz: settings.vad.highHz))
            transition = vad.process(bandEnergyDB: level)
            if case .speechStart = transition { segmentSNR.startSegment() }
            if inSpeech || transition != .none {
                segmentSNR.add(levelDB: level)
            } else {
                segmentSNR.addBackground(levelDB: level)
            }
        } else {
            // One segment from the first frame (and from the first after a gap: `skip(samples:)`).
            transition = inSpeech ? .none : .speechStart(framesAgo: 0)
        }

        switch transition {
        case .speechStart(let framesAgo):
            inSpeech = true
            let onset = frameStart - framesAgo * AudioFormat.frameSamples
            emit(Event(t: AudioFormat.seconds(onset), .speechStart))
            let from = max(history.startSample, onset - AudioFormat.samples(settings.preRoll))
            startPitch(from: onset)
            if !muted { try beginUtterance(at: from) }
            segmentFrom = from
        case .speechEnd(let framesAgo):
            inSpeech = false
            segmentSNR.dropLast(framesAgo)
            recognizer.segmentNoise = segmentSNR.endSegment()
            // The hangover frames were fed too: the decoder saw the trailing silence.
            emit(Event(t: AudioFormat.seconds(sampleCount - framesAgo * AudioFormat.frameSamples), .speechEnd))
            try endUtterance()
        case .none:
            // Every 10 frames (200 ms), and every frame once the segment holds `maxFrames` levels: the live wake
            // check reads it (percentiles looked up in levels kept sorted).
            if inSpeech && segmentSNR.levels.count % 10 == 0 { recognizer.segmentNoise = segmentSNR.estimate }
            if inSpeech && recognizer.utteranceStartSample != nil {
                if try chooseVoice(frame) { break }
                if let wake = try recognizer.process(frame) { reportEarly(wake) }
                if recognizer.utteranceSeconds >= settings.maxUtterance { try restart() }
            }
        }
        if !inSpeech, let deadline = followUp?.deadline, sampleCount >= deadline { expireFollowUp() }
        // Also within speech: with the VAD off (or in an hour of chatter) a segment may never end.
        if let idle = settings.releaseLanguageModelAfter, languageModelLoaded,
           sampleCount - lastLanguageModelUse >= AudioFormat.samples(idle) {
            for recognizer in recognizers { recognizer.releaseLanguageModel() }
        }
    }

    /// A new segment's pitch, from its onset (absolute sample) to now; the standard recogniser takes it until
    /// its talker's voice is known.
    private func startPitch(from onset: Int) {
        pitch.reset()
        voiceChosen = settings.recognizer.highVoiceWarp == nil
        recognizer = standardRecognizer
        recognizer.segmentNoise = nil
        guard !voiceChosen else { return }
        // The standard recogniser's live decoder waits for the voice: its work is lost when the segment goes
        // to the high-voice recogniser.
        if settings.liveHoldForVoice != nil { recognizer.holdLive() }
        var at = max(history.startSample, onset)
        while at + AudioFormat.frameSamples <= sampleCount {
            pitch.add(history.samples(from: at, to: at + AudioFormat.frameSamples)[...])
            at += AudioFormat.frameSamples
        }
    }

    /// Adds `frame` (the newest in `history`) to the segment's pitch; when that says the talker's voice is high,
    /// hands the segment to the high-voice recogniser, which hears it again from its start (this frame
    /// included). Returns whether it did.
    private func chooseVoice(_ frame: ArraySlice<Int16>) throws(DecoderError) -> Bool {
        guard !voiceChosen, let warp = settings.recognizer.highVoiceWarp else { return false }
        pitch.add(frame)
        guard let f0 = pitch.estimate else {
            let elapsed = sampleCount - segmentFrom
            if let hold = settings.liveHoldForVoice, elapsed > AudioFormat.samples(hold) { try releaseLive() }
            // A segment whose voice is still unknown after `restartOverlap` seconds keeps the standard one.
            if elapsed > AudioFormat.samples(settings.restartOverlap) {
                voiceChosen = true
                try releaseLive()
            }
            return false
        }
        voiceChosen = true
        guard f0 >= settings.recognizer.highVoiceHz, segmentFrom >= history.startSample else {
            try releaseLive()
            return false
        }
        if UtteranceRecognizer.tracing {
            FileHandle.standardError.write(Data("voice: F0 \(Int(f0)) Hz after \(AudioFormat.seconds(sampleCount - segmentFrom)) s, warp \(warp)\n".utf8))
        }
        let noise = recognizer.segmentNoise
        recognizer.abandon()
        recognizer = try highVoice(warp: warp)
        recognizer.segmentNoise = noise
        try beginUtterance(at: segmentFrom)
        return true
    }

    /// The high-voice recogniser (its decoders warp frequencies by `warp`), made the first time it is asked for.
    private func highVoice(warp: Double) throws(DecoderError) -> UtteranceRecognizer {
        if let highVoiceRecognizer { return highVoiceRecognizer }
        var high = settings.recognizer
        high.frequencyWarp = warp
        let made = try StageClock.measure(stageClock, .recognizerSetUp) { () throws(DecoderError) in
            try UtteranceRecognizer(commands: commands, wakePhrase: settings.wakePhrase, settings: high)
        }
        made.stageClock = stageClock
        highVoiceRecognizer = made
        return made
    }

    /// What the language model hears in `audio` (16 kHz mono) as a whole, as it hears a search's query in a clean
    /// segment (the recogniser the talker's pitch picks, the high-band fill of band-limited audio; no noise reduction,
    /// no hum notches), but without the word pairs of search queries (`queryModelWeight`: the recordings are sentences
    /// and digits, not queries): lower-case words. For measuring transcription on recorded speech (`jarvis eval
    /// --transcripts`); call `reset()` before the next stream.
    public func transcribe(_ audio: [Int16]) throws(DecoderError) -> [String] {
        reset()
        var tracker = PitchTracker()
        var at = 0
        while tracker.estimate == nil, at + AudioFormat.frameSamples <= audio.count {
            tracker.add(audio[at..<(at + AudioFormat.frameSamples)])
            at += AudioFormat.frameSamples
        }
        if let warp = settings.recognizer.highVoiceWarp, let f0 = tracker.estimate,
           f0 >= settings.recognizer.highVoiceHz {
            recognizer = try highVoice(warp: warp)
        }
        recognizer.segmentNoise = nil
        recognizer.hearsHum = false
        return try recognizer.transcribeFreeText(audio, startSample: 0, fromSample: 0).words
    }

    /// The recogniser's results for the utterance, told first whether the audio holds hum (`HumRemover.hearsHum`).
    private func finishUtterance(keepingCommandsAfterNamesUnderBar keep: Bool = false) throws(DecoderError) -> [UtteranceResult] {
        recognizer.hearsHum = humRemover?.hearsHum ?? false
        return try recognizer.finish(keepingCommandsAfterNamesUnderBar: keep)
    }

    private func beginUtterance(at from: Int, replayed: Int = 0) throws(DecoderError) {
        let before = history.samples(from: from - WordLevel.roomSpan(settings.recognizer), to: from)
        try recognizer.begin(atSample: from, mode: followUp == nil ? .wake : .followUp, replayed: replayed,
                             before: before)
        if let wake = try recognizer.process(history.samples(from: from, to: sampleCount)[...]) { reportEarly(wake) }
    }

    /// A wake phrase the recogniser is sure of while the utterance goes on: reported now (the command
    /// after it comes when the utterance ends, as the result whose wake overlaps it: `takeAwaiting`).
    private func reportEarly(_ wake: UtteranceResult.WakeSpan) {
        guard !muted, !wasReported(wake) else { return }
        noteReported(wake)
        awaitingCommand.append(wake.startSample..<wake.endSample)
        if awaitingCommand.count > 4 { awaitingCommand.removeFirst() }
        stats.wakes += 1
        emit(Event(t: AudioFormat.seconds(wake.endSample), .wake(phrase: settings.wakePhrase, score: wake.score)))
    }

    /// Lets the current recogniser's live decoder start (`UtteranceRecognizer.holdsLive`).
    private func releaseLive() throws(DecoderError) {
        if let wake = try recognizer.releaseLive() { reportEarly(wake) }
    }

    private func emit(_ event: Event) {
        if heldEvents != nil { heldEvents?.append(event) } else { output(event) }
    }

    private func endUtterance() throws(DecoderError) {
        guard let from = recognizer.utteranceStartSample else { return }
        try releaseLive()
        let isFollowUp = followUp != nil
        let noise = recognizer.segmentNoise
        guard !isFollowUp, !muted, settings.babbleFloor != nil, let noise, recognizer.segmentNoiseChanges,
              sampleCount - from <= AudioFormat.samples(settings.babbleFloorMaxSegment) else {
            for result in try finishUtterance() { try handle(result, isFollowUp: isFollowUp) }
            return
        }
        // Babble: the segment as heard; when that does not wake although the live decoder proposed the wake
        // phrase, the segment heard again with the babble floored, whose command is taken if it gives one.
        // (A wake whose words were rejected stays rejected: heard again, the talking room's sentences after
        // "hey jarvis" became commands.)
        let candidates = recognizer.liveCandidatesVerified
        let before = HandlingState(of: self)
        heldEvents = []
        defer { if let held = heldEvents { heldEvents = nil; held.forEach(output) } }
        let keep = settings.babbleFloorTakesCommandAsHeard && candidates > 0
        for result in try finishUtterance(keepingCommandsAfterNamesUnderBar: keep) { try handle(result, isFollowUp: false) }
        let asHeard = heldEvents ?? []
        guard candidates > 0, !wokeSince(from) else { return }
        let afterHeard = HandlingState(of: self)
        before.restore(self)
        heldEvents = []
        do {
            try hearAgainWithBabbleFloored(from: from, noise: noise,
                                           commandsAsHeard: recognizer.commandsAfterNamesUnderBar)
        } catch {
            afterHeard.restore(self)
            heldEvents = asHeard
            throw error
        }
        if !(heldEvents ?? []).contains(where: Self.isIntent) {
            afterHeard.restore(self)
            heldEvents = asHeard
        }
    }

    /// Whether a wake was reported for audio after `from` (absolute sample).
    private func wokeSince(_ from: Int) -> Bool { reportedWakes.contains { $0.upperBound > from } }

    private static func isIntent(_ event: Event) -> Bool {
        if case .intent = event.kind { return true }
        return false
    }

    /// What handling a segment's results changes, kept to undo it.
    private struct HandlingState {
        var reportedWakes: [Range<Int>], awaitingCommand: [Range<Int>], followUp: FollowUp?, stats: Stats

        init(of pipeline: Pipeline) {
            reportedWakes = pipeline.reportedWakes
            awaitingCommand = pipeline.awaitingCommand
            followUp = pipeline.followUp
            stats = pipeline.stats
        }

        func restore(_ pipeline: Pipeline) {
            pipeline.reportedWakes = reportedWakes
            pipeline.awaitingCommand = awaitingCommand
            pipeline.followUp = followUp
            pipeline.stats = stats
        }
    }

    /// Decodes the segment from `from` to now once more with its babble turned into a steady floor
    /// (`PipelineSettings.babbleFloor`) and handles its results. The recogniser keeps the segment's noise
    /// estimate (babble): measured on the floored audio, the floor counts as steady noise, and the noise
    /// reduction then taken to it left espeak-ng's "scroll down" as "please google". `commandsAsHeard`: the
    /// first hearing's commands after names under the bar (`PipelineSettings.babbleFloorTakesCommandAsHeard`).
    private func hearAgainWithBabbleFloored(from: Int, noise: SegmentSNR.Estimate,
                                            commandsAsHeard: [UtteranceResult]) throws(DecoderError) {
        guard let floorSettings = settings.babbleFloor, from >= history.startSample else { return }
        // The floor around the segment's first words comes from the second on either side of them.
        let lead = max(history.startSample, from - floorSettings.spanHops * BabbleFloor.hop)
        let floorer = babbleFloor ?? BabbleFloor(settings: floorSettings)
        babbleFloor = floorer
        let floored = floorer.apply(history.samples(from: lead, to: sampleCount)[...])
        if UtteranceRecognizer.tracing {
            FileHandle.standardError.write(Data(String(format: "babble (SNR %.1f dB, floor spread %.1f dB): heard again floored\n",
                                                       noise.snrDB, noise.floorSpreadDB).utf8))
        }
        let offset = from - lead
        let room = min(offset, WordLevel.roomSpan(settings.recognizer))
        try recognizer.begin(atSample: from, mode: .wake, before: Array(floored[(offset - room)..<offset]))
        recognizer.segmentNoise = noise
        if let wake = try recognizer.process(floored[offset...]) { reportEarly(wake) }
        hearingFloored = true
        defer { hearingFloored = false }
        for result in try finishUtterance() {
            if result.words.isEmpty || result.confidence >= settings.babbleFloorConfidence {
                try handle(result, isFollowUp: false)
            } else if let wake = result.wake, var sure = commandsAsHeard.first(where: { heard in
                heard.confidence >= settings.babbleFloorConfidence && heard.commandWords == result.commandWords
                    && heard.wake.map { $0.startSample < wake.endSample && wake.startSample < $0.endSample } ?? false }) {
                // The same name verified only here, and the same command, sure only as first heard.
                if UtteranceRecognizer.tracing {
                    FileHandle.standardError.write(Data("floored wake with the command as first heard: \(sure.words) at \(sure.confidence)\n".utf8))
                }
                sure.wake = wake
                try handle(sure, isFollowUp: false)
            }
        }
    }

    /// Restarts the decoder after `maxUtterance` of continuous decoding. The last `restartOverlap` seconds
    /// are decoded again, so a phrase spoken across the seam is seen whole; one already reported before the
    /// seam is recognised by its end time and not reported twice.
    private func restart() throws(DecoderError) {
        let overlapStart = max(history.startSample, sampleCount - AudioFormat.samples(settings.restartOverlap))
        let isFollowUp = followUp != nil
        // A wake phrase inside the overlap is decoded again, whole, with what follows it: handle it then.
        for result in try finishUtterance() where !(result.wake.map { $0.startSample >= overlapStart } ?? false) {
            try handle(result, isFollowUp: isFollowUp)
        }
        stats.restarts += 1
        emit(Event(t: now, .restart(reason: "max-utterance")))
        try beginUtterance(at: overlapStart, replayed: sampleCount - overlapStart)
    }

    private func expireFollowUp() {
        followUp = nil
        emitRejection("", reason: "no-command", at: now)
    }

    /// Counts a rejection and reports it (`rejected`).
    private func emitRejection(_ text: String, reason: String, at t: Double) {
        stats.rejections += 1
        emit(Event(t: t, .rejected(text: text, reason: reason)))
    }

    private func handle(_ result: UtteranceResult, isFollowUp: Bool) throws(DecoderError) {
        if !isFollowUp, let wake = result.wake, takeAwaiting(wake) {
            guard !muted else { return }
            if result.words.isEmpty { return openFollowUp(after: result) }
        } else if !isFollowUp {
            guard !muted, let wake = result.wake, !wasReported(wake) else { return }
            // Evidence adds up: a marginal wake phrase followed by words that do not really sound like the
            // command they were matched to is chatter, not a command; say nothing.
            // So is a marginal wake phrase whose command is a word inside a longer sentence.
            // The model adapted to speech in noise fits commands to babble more readily: what it heard after a
            // marginal wake phrase must be sure (`adaptedCommandConfidence`).
            let unsureBelow = result.heardAdapted ? settings.adaptedCommandConfidence : Self.unsureCommandConfidence
            let commandUnsure = result.words.contains { !GrammarGenerator.isPhoneWord($0) } && result.confidence < unsureBelow
            if (commandUnsure || speechContinues(result)) && wake.quietScore < settings.confidentWake { return }
            noteReported(wake)
            stats.wakes += 1
            emit(Event(t: AudioFormat.seconds(wake.endSample), .wake(phrase: settings.wakePhrase, score: wake.score)))
            // "Hey jarvis" … (pause) … "scroll down": wait for the command.
            if result.words.isEmpty { return openFollowUp(after: result) }
        } else if result.words.isEmpty {
            return   // noise, not speech: keep waiting until the window closes
        } else if let quiet = tooQuietForTheTalker(result) {
            // A sound far under the wake phrase (a mouse click, a television) is not the talker's command; the
            // talker may still say it: keep waiting.
            return emitRejection(quiet, reason: "too-quiet", at: now)
        }
        let followUpTalkerLevel = followUp?.talkerLevel
        followUp = nil
        try interpret(result, followUpTalkerLevel: followUpTalkerLevel)
    }

    /// Waits for the command of the wake phrase in `result` (`PipelineSettings.followUpWindow`).
    private func openFollowUp(after result: UtteranceResult) {
        followUp = FollowUp(deadline: sampleCount + AudioFormat.samples(settings.followUpWindow),
                            talkerLevel: talkerLevel(in: result))
    }

    /// The words of a follow-up command that lies `PipelineSettings.followUpQuietDrop` dB or more under its wake
    /// phrase (`FollowUp.talkerLevel`), else nil.
    private func tooQuietForTheTalker(_ result: UtteranceResult) -> String? {
        guard let drop = settings.followUpQuietDrop, let talker = followUp?.talkerLevel,
              let from = result.commandStart, let to = result.commandEnd,
              let level = historyLevel(from: from, to: to) else { return nil }
        if UtteranceRecognizer.tracing {
            FileHandle.standardError.write(Data("follow-up \(result.words) at \(Int(level)) dB, wake phrase \(Int(talker)) dB\n".utf8))
        }
        guard level <= talker - drop else { return nil }
        return result.commandWords.joined(separator: " ")
    }

    /// `followUpTalkerLevel`: the level of the wake phrase whose follow-up window `result` was heard in (dB).
    private func interpret(_ result: UtteranceResult, followUpTalkerLevel: Double? = nil) throws(DecoderError) {
        let t = now
        let start = AudioFormat.seconds(result.commandStart ?? sampleCount)
        let end = AudioFormat.seconds(result.commandEnd ?? sampleCount)
        // The talker's level, measured once, when the language model first hears this command.
        lazy var talkerLevel = self.talkerLevel(in: result)
        // What each language model heard, once per command: an unsure search asks the lead-expecting one, and
        // asks it again when its query is rejected and the grammar's words are checked (a second decode of the
        // same audio, about a second of CPU in noise, with the same words).
        var heardBefore: [UtteranceRecognizer.Expectation: UtteranceRecognizer.FreeText] = [:]
        // Whether the grammar heard a command with free text (a search): its query is heard with the word pairs of
        // search queries mixed in (`RecognizerSettings.queryModelWeight`), other speech without them. Parsed as
        // below, with the grammar's commands (a taken twin, parsed with all, is never a command with free text).
        lazy var grammarHeardFreeText =
            Self.parse(result.words, droppingTrailingPhonesWith: grammarCommands).map { freeTextSlot(of: $0) != nil } ?? false
        func freeText(expecting: UtteranceRecognizer.Expectation = .nothing) throws(DecoderError) -> UtteranceRecognizer.FreeText {
            if let heard = heardBefore[expecting] { return heard }
            let heard = try decodeFreeText(expecting: expecting)
            heardBefore[expecting] = heard
            return heard
        }
        func decodeFreeText(expecting: UtteranceRecognizer.Expectation) throws(DecoderError) -> UtteranceRecognizer.FreeText {
            guard let from = result.freeSpeechStart ?? result.commandStart,
                  let (audio, audioStart) = languageModelAudio() else { return .init(before: [], text: "") }
            lastLanguageModelUse = sampleCount
            return try recognizer.transcribeFreeText(audio, startSample: audioStart, fromSample: from,
                                                     expecting: expecting, talkerLevel: talkerLevel,
                                                     roomLevel: result.roomLevel, forQuery: grammarHeardFreeText)
        }
        /// The audio the language models hear, and its first sample: from 0.3 s before the command to 0.2 s
        /// after it, at most `maxLanguageModelAudio`. Measured on the dev set's searches: this window beats the
        /// whole rest of the utterance and the whole utterance from the wake phrase on (clean 63 % vs 60 % and 57 %).
        func languageModelAudio() -> (samples: [Int16], start: Int)? {
            guard let commandStart = result.commandStart ?? result.freeSpeechStart else { return nil }
            let audioStart = max(history.startSample, commandStart - AudioFormat.samples(0.3))
            let audioEnd = min((result.commandEnd ?? sampleCount) + AudioFormat.samples(0.2),
                               audioStart + AudioFormat.samples(settings.maxLanguageModelAudio))
            return (history.samples(from: audioStart, to: audioEnd), audioStart)
        }
        /// How far (nats per 10 ms frame) `command`, between the words the general language model heard before
        /// it and those it heard over the phones after it, fits the model's audio worse than all the model's own
        /// words (`commandFitLoss`); nil when either has no path or the model heard nothing.
        func commandFitLoss(_ command: [String]) throws(DecoderError) -> Double? {
            let free = try freeText()
            guard !free.words.isEmpty, let commandStart = result.commandStart,
                  let (audio, audioStart) = languageModelAudio() else { return nil }
            // The model's words before the command and, when phones followed it (speech the grammar did not
            // take), those over the phones: `free.before` holds everything up to the phones, command included.
            let fitted = free.words(splitAt: commandStart, before: true) + command
                + (result.freeSpeechStart.map { free.words(splitAt: $0, before: false) } ?? [])
            let scores = try recognizer.alignedAcousticScores(of: [free.words, fitted], audio, startSample: audioStart)
            guard let own = scores[0] else { return nil }
            // Path scores are kept right-shifted by SENSCR_SHIFT (10 bits) inside PocketSphinx.
            let loss = scores[1].map { (own - $0) * 1024 / Double(max(1, free.frames)) }
            if UtteranceRecognizer.tracing {
                FileHandle.standardError.write(Data("command fit: '\(fitted.joined(separator: " "))' against the language model's '\(free.words.joined(separator: " "))' loses \(loss.map { "\($0)" } ?? "nothing (no path)") per frame\n".utf8))
            }
            return loss
        }
        // A search's query as the language model expecting its lead ("search for") hears it: a misheard lead
        // ("sartre", "so it or") no longer decides, and the query is split at the model's own words. Only
        // when it hears the lead first, after at most one word (the end of the wake phrase, which the audio
        // starts a little before, is often heard as "this": "what does look up the old…" is not a search),
        // and that path sounds about as good as the general model's own over the same audio; else nil.
        func ledSearch(_ general: UtteranceRecognizer.FreeText) throws(DecoderError) -> (intent: Intent, query: String)? {
            guard recognizer.canExpect(.lead) else { return nil }
            let led = try freeText(expecting: .lead)
            guard let (intent, query) = search(in: led.words) else { return nil }
            let loss = pathLoss(of: led, against: general)
            if UtteranceRecognizer.tracing {
                FileHandle.standardError.write(Data("lead heard by the lead model; its path loses \(loss) per frame\n".utf8))
            }
            return loss <= settings.leadAcousticLoss ? (intent, query) : nil
        }
        /// How far (nats per 10 ms frame) an expecting model's path sounds worse than the general model's.
        func pathLoss(of expecting: UtteranceRecognizer.FreeText, against general: UtteranceRecognizer.FreeText) -> Double {
            (general.acousticScore - expecting.acousticScore) / Double(max(1, expecting.frames))
        }
        /// Whether the language model expecting a lead heard `word` before the free text, on a path that sounds
        /// about as good as the general model's (`triggerHeardByLeadModel`).
        func leadModelHeard(_ word: String, general: UtteranceRecognizer.FreeText) throws(DecoderError) -> Bool {
            guard settings.triggerHeardByLeadModel, recognizer.canExpect(.lead) else { return false }
            let led = try freeText(expecting: .lead)
            let loss = pathLoss(of: led, against: general)
            let heard = try recognizer.heard(word, in: led.before)
            if UtteranceRecognizer.tracing {
                FileHandle.standardError.write(Data("'\(word)' heard by the lead model: \(heard); its path loses \(loss) per frame\n".utf8))
            }
            return heard && loss <= settings.leadAcousticLoss
        }
        /// The search a language model's words hold, its lead heard first (after at most one word), else nil.
        /// The words are parsed with the grammar's commands unless `parsingWith` says otherwise.
        func search(in heard: [String], parsingWith set: CommandSet? = nil) -> (intent: Intent, query: String)? {
            let words = heard.drop(while: recognizer.wakeWords.contains)
            guard let intent = freeTextCommand(in: Array(words), leadWords: 1, parsingWith: set),
                  case .string(let query)? = freeTextSlot(of: intent).flatMap({ intent.slots[$0] }) else { return nil }
            return (intent, query)
        }
        /// Other readings of a search: the language models' best paths (`FreeText.alternatives`), each parsed
        /// as a command with free text whose lead is heard first, as "lead query" like the transcript's text;
        /// without `text` and repeats, at most `transcriptAlternatives`.
        func searchAlternatives(besides text: String) -> [String] {
            var seen: Set<String> = [text], readings: [String] = []
            for free in [heardBefore[.nothing], heardBefore[.lead]].compactMap({ $0 }) {
                for path in free.alternatives where readings.count < settings.transcriptAlternatives {
                    guard let (intent, query) = search(in: path) else { continue }
                    let reading = (Self.leadWords(of: intent, query: query) + [query]).joined(separator: " ")
                    if seen.insert(reading).inserted { readings.append(reading) }
                }
            }
            return readings
        }
        /// Whether a model heard `word` among `heard` (whole or as a sound-alike: `heard(_:in:)`) or in parts on one
        /// of `paths` (`heardInParts`: "you tube").
        func heardWord(_ word: String, in heard: [String], orInPartsOn paths: [[String]]) throws(DecoderError) -> Bool {
            if try recognizer.heard(word, in: heard) { return true }
            return try recognizer.heardInParts(word, on: paths)
        }
        /// Whether a model heard any of `words` (`heardWord`; in parts on `paths`, by default `heard` itself).
        func heardAnyOf(_ words: [String], in heard: [String], orInPartsOn paths: [[String]]? = nil) throws(DecoderError) -> Bool {
            for word in words where try heardWord(word, in: heard, orInPartsOn: paths ?? [heard]) { return true }
            return false
        }
        /// Whether a model's words hold all of `words` (`heardWord`).
        func heardAllOf(_ words: [String], in heard: [String]) throws(DecoderError) -> Bool {
            for word in words where !(try heardWord(word, in: heard, orInPartsOn: [heard])) { return false }
            return true
        }
        func takeSearch(_ intent: Intent, slot: String, query: String, lead: [String]) {
            var intent = intent
            let (query, lead) = Self.mendedQuery(query, lead: lead, intent: intent.name, slot: slot,
                                                 commands: grammarCommands,
                                                 dropArticleBeforePlural: settings.articleBeforePluralDropped)
            intent.slots[slot] = .string(query)
            intent.text = (lead + [query]).joined(separator: " ")
            emit(Event(t: t, .transcript(text: intent.text, confidence: result.confidence, start: start, end: end,
                                          alternatives: searchAlternatives(besides: intent.text))))
            perform(intent, confidence: result.confidence, at: t)
        }
        func reject(_ text: String, _ reason: String) { emitRejection(text, reason: reason, at: t) }
        // Speech after the wake phrase that the grammar did not take as a command may still be one: the
        // language model, which knows every word, heard "search for football scores" where the grammar heard
        // "back" and phones. Its words are parsed with the same phrase patterns: a whole command, a command
        // with free text, or (`ledSearchAfterRejection`) a search the lead-expecting model hears.
        func tookFreeTextCommand(_ free: UtteranceRecognizer.FreeText) throws(DecoderError) -> Bool {
            guard settings.freeTextSecondOpinion else { return false }
            let all = free.words
            // "refresh the page", where the grammar heard "please search for" and three phones.
            if takeWholeCommand(free) { return true }
            if let intent = freeTextCommand(in: all), let slot = freeTextSlot(of: intent),
               case .string(let heard)? = intent.slots[slot] {
                takeSearch(intent, slot: slot, query: try ledSearch(free)?.query ?? heard,
                           lead: Self.leadWords(of: intent, query: heard))
                return true
            }
            // Nor in the general model's words: the model expecting a lead decides, as for an unsure search
            // ("was what op tomato soup" → "look up tomato soup").
            if settings.ledSearchAfterRejection, let led = try ledSearch(free),
               let slot = freeTextSlot(of: led.intent) {
                takeSearch(led.intent, slot: slot, query: led.query,
                           lead: Self.leadWords(of: led.intent, query: led.query))
                return true
            }
            return try takeLanguageModelOnlySearch(free)
        }
        /// A command without free text that the general model heard whole (`wholeCommand`), on its best path or
        /// (`wholeCommandOnAlternatives`) one of its next best, of another intent than `rejectedIntent`, taken at
        /// confidence 0.5; false when there is none or `wholeCommandSecondOpinion` is off. Another intent: the
        /// model's "click the mouse" is no second opinion on a "right click the mouse" it did not hear "right" of.
        func takeWholeCommand(_ free: UtteranceRecognizer.FreeText, otherThan rejectedIntent: String? = nil) -> Bool {
            guard settings.wholeCommandSecondOpinion else { return false }
            let paths = [free.words] + (settings.wholeCommandOnAlternatives ? free.alternatives : [])
            let heard = paths.lazy.compactMap(wholeCommand).filter { $0.name != rejectedIntent }
            guard let intent = heard.first else { return false }
            emit(Event(t: t, .transcript(text: intent.text, confidence: 0.5, start: start, end: end, alternatives: [])))
            perform(intent, confidence: 0.5, at: t)
            return true
        }
        /// A search whose lead the general model heard first and only its words are parsed with ("find cheap
        /// hotels in paris"; `PipelineSettings.languageModelOnlyLeads`), with that model's query; false when
        /// there is none.
        ///
        /// Given the grammar's own search lead (`overUnheardLead`, ending in `trigger`), only when that lead has
        /// a word that is neither a carrier word, nor the trigger, nor in the model's lead, and the model heard
        /// none of them: "search the internet for" over flite slt's "search pizza", which the model heard as
        /// "this search pizza recipes" ("internet" unheard).
        func takeLanguageModelOnlySearch(_ free: UtteranceRecognizer.FreeText, overUnheardLead grammarLead: [String]? = nil,
                                         trigger: String? = nil) throws(DecoderError) -> Bool {
            guard settings.languageModelOnlyLeads, let (intent, query) = search(in: free.words, parsingWith: commands),
                  grammarCommands.parse(CommandSet.normalizeWords(intent.text)) == nil,
                  let slot = freeTextSlot(of: intent) else { return false }
            let lead = Self.leadWords(of: intent, query: query)
            if let grammarLead {
                let distinctive = grammarLead.filter {
                    !settings.carrierWords.contains($0) && !lead.contains($0) && $0 != trigger
                }
                if distinctive.isEmpty { return false }
                for word in distinctive where try recognizer.heard(word, in: free.words) { return false }
            }
            takeSearch(intent, slot: slot, query: query, lead: lead)
            return true
        }
        func rejectUnlessFreeText(_ text: String, _ reason: String) throws(DecoderError) {
            if settings.freeTextSecondOpinion, !commands.freeTextSlots.isEmpty {
                let free = try freeText()
                if try tookFreeTextCommand(free) { return }
            }
            reject(text, reason)
        }
        if result.words.allSatisfy(GrammarGenerator.isPhoneWord) {
            let free = try freeText()
            if try tookFreeTextCommand(free) { return }
            emit(Event(t: t, .transcript(text: free.text, confidence: 0, start: start, end: end, alternatives: [])))
            return reject(free.text, "not-a-command")
        }
        var literal = result.commandWords
        // A twin the recogniser took may be a command the grammar does not hold ("go down" for its "go back").
        let parser = result.closeTwin?.taken == true ? commands : grammarCommands
        guard var intent = Self.parse(result.words, droppingTrailingPhonesWith: parser) else {
            return try rejectUnlessFreeText(literal.joined(separator: " "), "not-a-command")
        }
        if speechContinues(result) {
            return try rejectUnlessFreeText(literal.joined(separator: " "), "speech-continues")
        }
        // Most checks below are for commands without free text: a search has its own (`confirmFreeTextTrigger`).
        let withoutFreeText = commands.freeTextSlots.allSatisfy { intent.slots[$0] == nil }
        // A twin taken over the grammar's words is no surer than they were: in clean audio, when that is unsure,
        // the language model checks it.
        let underUnsureBar = result.confidence < Self.unsureCommandConfidence
        let takenTwinToCheck = underUnsureBar && settings.unsureTakenTwinChecked && result.closeTwin?.taken == true
            && recognizer.segmentIsClean && withoutFreeText
        if underUnsureBar && !takenTwinToCheck {
            // An unsure search ("please look up" at 0.0004): the language model expecting its lead decides.
            if let slot = freeTextSlot(of: intent) {
                let free = try freeText()
                if let query = try ledSearch(free)?.query {
                    return takeSearch(intent, slot: slot, query: query, lead: literal)
                }
                return try rejectUnlessFreeText(literal.joined(separator: " "), "low-confidence")
            }
            return try rejectUnlessFreeText(literal.joined(separator: " "), "low-confidence")
        }
        // Two commands one word apart that fit the audio about as well (espeak-ng's "next tab" fitted "new tab"
        // 0.09 nats per frame better): the model expecting a command, which hears the whole speech, decides. The
        // twin may be a command only the language model's words are parsed with ("go up" for the grammar's "go back").
        if let within = settings.twinArbitrationMargin, let twin = result.closeTwin, abs(twin.margin) < within,
           withoutFreeText, case let other = twin.words, other != literal,
           let allowed = settings.commandModelAcousticLoss, recognizer.canExpect(.command),
           let switched = commands.parse(other) {
            let expecting = try freeText(expecting: .command)
            let loss = pathLoss(of: expecting, against: try freeText())
            let heardOther = try heardAnyOf(Set(other).subtracting(literal).sorted(), in: expecting.words)
            let heardMine = try heardAnyOf(Set(literal).subtracting(other).sorted(), in: expecting.words)
            if UtteranceRecognizer.tracing {
                FileHandle.standardError.write(Data("twin arbitration: \(literal) or \(other) (\(twin.margin)): the command model heard \(expecting.words), its path loses \(loss) per frame\n".utf8))
            }
            if heardOther, !heardMine, loss <= allowed {
                // Back to the words the grammar heard, which a taken twin replaced: as unsure as they were.
                if takenTwinToCheck {
                    return try rejectUnlessFreeText(other.joined(separator: " "), "low-confidence")
                }
                intent = switched
                literal = other
            }
        }
        // An unsure command in noise must fit its audio about as well as what the language model heard there.
        if let allowed = settings.commandFitLoss, result.confidence < settings.commandFitCheckBelow,
           !recognizer.segmentIsClean, withoutFreeText, let loss = try commandFitLoss(literal), loss > allowed {
            return reject(literal.joined(separator: " "), "not-heard-as-command")
        }
        // An unsure command in clean audio needs the language model, which knows every word, to have heard
        // one of its words: the grammar fits "take a picture of the sunset" to "last tab" with confidence 0.8.
        // A request ("could you go back") needs it however sure, and in noise too (`requestOpeners`).
        let request = literal.first.map(settings.requestOpeners.contains) ?? false
        let unsure = result.confidence < settings.languageModelCheckBelow || result.rescored || takenTwinToCheck
        // A sure command with a little more speech after it (`trailingSpeechCheckSeconds`).
        let trailed = !unsure && !request && withoutFreeText && recognizer.segmentIsClean
            && speechTrails(result, talker: talkerLevel ?? followUpTalkerLevel)
        if unsure && recognizer.segmentIsClean || trailed || request, withoutFreeText {
            let free = try freeText()
            var heard = free.words
            if settings.languageModelCheckAlternatives {
                heard += Set(free.alternatives.joined()).subtracting(heard)  // each word once: `heard` looks them up
            }
            let content = literal.filter { !settings.carrierWords.contains($0) }
            // ...or heard it in parts ("could you open you tube"), on its best path or the next best.
            let paths = [free.words] + (settings.languageModelCheckAlternatives ? free.alternatives : [])
            let checked = content.isEmpty ? literal : content
            // ...and, for a command with a closed slot, one of the slot's words ("left", not "scroll").
            let anyWord = trailed && settings.trailingSpeechCheckTakesAnyWord
            let slotWords = settings.languageModelCheckWantsSlotWords && !anyWord
                ? checked.filter(commands.slotWords.contains) : []
            var agrees = try heardAnyOf(slotWords.isEmpty ? checked : slotWords, in: heard, orInPartsOn: paths)
            if !agrees, let allowed = settings.commandModelAcousticLoss, recognizer.canExpect(.command) {
                // The general model may have misheard a command it finds an unlikely sentence ("can you been in a
                // cab" for "can you open a new tab"): the model expecting a command decides, when it hears all
                // the command's words on a path that sounds about as good.
                let expecting = try freeText(expecting: .command)
                let loss = pathLoss(of: expecting, against: free)
                let all = try heardAllOf(checked, in: expecting.words)
                if UtteranceRecognizer.tracing {
                    FileHandle.standardError.write(Data("command model heard \(expecting.words) (\(expecting.alternatives.prefix(5).map { $0.joined(separator: " ") })): all words \(all); its path loses \(loss) per frame\n".utf8))
                }
                agrees = all && loss <= allowed
            }
            if !agrees {
                // Not this command, but perhaps another that the model heard whole ("go to the top" where the
                // grammar heard "go to github"). Not in noise, where only a request is checked: there the model
                // mishears real commands.
                if settings.wholeCommandOverUnheardCommand, recognizer.segmentIsClean,
                   takeWholeCommand(free, otherThan: intent.name) { return }
                return reject(literal.joined(separator: " "), "not-heard-as-command")
            }
        }
        if let slot = freeTextSlot(of: intent) {
            let free = try freeText()
            if free.text.isEmpty { return reject(literal.joined(separator: " "), "empty-query") }
            // The language model, which knows all words, must also have heard the word that opens the free
            // text ("for" of "search for"): the grammar alone hears "google" in "good morning". When it heard
            // the same command's lead, its query stands; when it did not ("so it or" for "search for"), the
            // language model expecting the lead decides (always asking it gave the same intents on the dev
            // set's 96 searches, for 4.5 % more CPU per search).
            var led = search(in: free.words).flatMap { $0.intent.name == intent.name ? $0.query : nil }
            if led == nil { led = try ledSearch(free)?.query }
            if settings.confirmFreeTextTrigger, led == nil,
               let trigger = result.words.prefix(while: { !GrammarGenerator.isPhoneWord($0) }).last,
               !(try recognizer.heard(trigger, in: free.before)), !(try leadModelHeard(trigger, general: free)) {
                // Not a search whose lead only the language model hears: when the grammar heard "search for", the
                // general model's "search" with no "for" has the "for" inside its query ("search formidable soup"
                // for "search for vegetable soup"). Measured: 3 wrong queries of the query set's 270 clips and 1 of
                // the variant set's, against 2 right ones.
                // Unless the grammar stretched a longer lead over the query's first words: a lead only the
                // general model's words are parsed with, heard by it, may stand in for a grammar lead with a word
                // it did not hear.
                if settings.languageModelOnlyLeadOverUnheardGrammarLead,
                   try takeLanguageModelOnlySearch(free, overUnheardLead: literal, trigger: trigger) { return }
                // Nor a search at all: the model heard a whole command without free text ("go up" for "google").
                if settings.wholeCommandOverUnheardTrigger, takeWholeCommand(free) { return }
                return reject((free.before + [free.text]).joined(separator: " "), "not-a-command")
            }
            return takeSearch(intent, slot: slot, query: led ?? free.text, lead: literal)
        }
        emit(Event(t: t, .transcript(text: intent.text, confidence: result.confidence, start: start, end: end,
                                      alternatives: [])))
        perform(intent, confidence: result.confidence, at: t)
    }

    /// Runs a command given as text (the control socket's `inject`), as if it had been said after the wake
    /// phrase: `transcript`, then `intent` and `action`, or `rejected`. Works while muted.
    public func inject(text: String) {
        let t = now
        let words = CommandSet.normalizeWords(text)
        let spoken = words.joined(separator: " ")
        emit(Event(t: t, .transcript(text: spoken, confidence: 1, start: t, end: t, alternatives: [])))
        guard let intent = commands.parse(words) else { return emitRejection(spoken, reason: "not-a-command", at: t) }
        perform(intent, confidence: 1, at: t)
    }

    private func perform(_ intent: Intent, confidence: Double, at t: Double) {
        stats.intents += 1
        emit(Event(t: t, .intent(intent, confidence: confidence)))
        let outcome = processor.perform(intent)
        emit(Event(t: t, .action(name: outcome.name, status: outcome.status, backend: outcome.backend,
                                 detail: outcome.detail)))
    }

    /// The talker's level (`WordLevel.level`, dB): their wake phrase's, when `result` holds one and the history
    /// still holds its audio.
    private func talkerLevel(in result: UtteranceResult) -> Double? {
        guard let wake = result.wake else { return nil }
        return historyLevel(from: wake.startSample, to: wake.endSample)
    }

    /// Level (`WordLevel.level`, dB) of the audio from sample `from` to `to` while the history still holds it.
    private func historyLevel(from: Int, to: Int) -> Double? {
        guard from >= history.startSample else { return nil }
        return WordLevel.level(of: history.samples(from: from, to: to)[...])
    }

    /// The phone-loop words that end a result after its command words.
    struct TrailingSpeech {
        /// How many phone-loop words.
        var phones: Int
        /// Absolute samples from the first of them to the end of the command's span.
        var from: Int, to: Int
        var seconds: Double { AudioFormat.seconds(to - from) }
    }

    /// `result`'s trailing phones; nil when it does not end in phones.
    func trailingSpeech(_ result: UtteranceResult) -> TrailingSpeech? {
        guard let last = result.words.last, GrammarGenerator.isPhoneWord(last),
              let from = result.freeSpeechStart, let to = result.commandEnd else { return nil }
        return TrailingSpeech(phones: result.words.reversed().prefix(while: GrammarGenerator.isPhoneWord).count,
                              from: from, to: to)
    }

    /// A command followed by `PipelineSettings.trailingSpeechCheckPhones` or more phones over
    /// `trailingSpeechCheckSeconds` or more, the talker's (`talker`: the wake phrase's level, dB): the rest of a
    /// request the grammar does not hold, when it is not a sentence (`speechContinues`).
    /// `talker` is measured only for such a command.
    func speechTrails(_ result: UtteranceResult, talker: @autoclosure () -> Double?) -> Bool {
        guard let atLeast = settings.trailingSpeechCheckSeconds, let trailing = trailingSpeech(result),
              trailing.phones >= settings.trailingSpeechCheckPhones, trailing.seconds >= atLeast else { return false }
        // Sound `quietTrailingSpeechDrop` or more under the wake phrase is not the talker's: a hum that came on
        // with the speech, a breath.
        guard let drop = settings.quietTrailingSpeechDrop, let talker = talker(),
              let after = historyLevel(from: trailing.from, to: trailing.to) else { return true }
        if UtteranceRecognizer.tracing {
            let line = "a sure command, then \(trailing.phones) phones over \(trailing.seconds) s"
            FileHandle.standardError.write(Data("\(line) at \(Int(after)) dB, talker \(Int(talker)) dB\n".utf8))
        }
        return after > talker - drop
    }

    /// A command followed, in the same breath, by `maxTrailingSpeech` or more of other speech (at least
    /// `minTrailingPhones` phones: one or two phones are a breath or the noise before the pause) is a word inside
    /// a sentence ("… mister john dashwood, click …"), not something said to the computer. Free text that a
    /// command takes, a search query, is not "other speech".
    func speechContinues(_ result: UtteranceResult) -> Bool {
        guard let trailing = trailingSpeech(result),
              result.words.contains(where: { !GrammarGenerator.isPhoneWord($0) }),
              grammarCommands.parse(Self.collapsePhoneWords(result.words)) == nil else { return false }
        guard trailing.phones >= settings.minTrailingPhones, trailing.seconds >= settings.maxTrailingSpeech
        else { return false }
        // Speech well under the talker's level is somebody else's (a room already talking, a TV): the talker
        // stopped after the command. Heard with the babble floored, only after a very sure command.
        let levelCompared = !hearingFloored
            || (settings.quietTrailingSpeechFlooredConfidence.map { result.confidence >= $0 } ?? false)
        if levelCompared, let drop = settings.quietTrailingSpeechDrop, let talker = talkerLevel(in: result),
           let after = historyLevel(from: trailing.from, to: trailing.to) {
            // The room's talk is compared only for a sure command: in noise nothing else checks an unsure one
            // (`languageModelCheckBelow`), and a sentence the grammar took whole for a command ("the scroll is
            // on the table" → "please scroll right nineteen") is followed by the room alone.
            let room = result.confidence >= settings.languageModelCheckBelow ? result.roomLevel : nil
            let ceiling = WordLevel.othersCeiling(talker: talker, drop: drop, room: room, settings: recognizer.settings)
            if UtteranceRecognizer.tracing {
                FileHandle.standardError.write(Data("speech after the command at \(Int(after)) dB, talker \(Int(talker)) dB, room \(room.map { "\(Int($0)) dB" } ?? "unknown")\n".utf8))
            }
            if after <= ceiling { return false }
        }
        return true
    }

    /// A command with free text (a search) in the language model's words: its literal words must start within
    /// the first `freeTextLeadWords` words (a hesitation, a misheard "hey"), and at least one word must follow
    /// them. The free text is all the words after them: the lead the phrase patterns take when they parse the
    /// words whole ("google for" + "hiking boots", not "google" + "for hiking boots"). Only when the words parse
    /// whole as a command without free text is a shorter lead looked for (the shortest): a lead that parses
    /// with a placeholder for its free text parses whole too.
    func freeTextCommand(in words: [String], leadWords: Int? = nil, parsingWith set: CommandSet? = nil) -> Intent? {
        guard words.count >= 2 else { return nil }
        let commands = set ?? grammarCommands
        for first in 0...min(leadWords ?? settings.freeTextLeadWords, words.count - 2) {
            if let whole = commands.parse(Array(words[first...])), freeTextSlot(of: whole) != nil { return whole }
            for end in (first + 1)..<words.count {
                guard var intent = commands.parse(Array(words[first..<end]) + [Self.freeSpeech]),
                      let slot = freeTextSlot(of: intent) else { continue }
                let query = words[end...].joined(separator: " ")
                intent.slots[slot] = .string(query)
                intent.text = words[first...].joined(separator: " ")
                return intent
            }
        }
        return nil
    }

    /// A search's query and lead where the grammar and the language model disagree on where the lead ends.
    /// The language model's last word of the lead can end after the grammar's ("search google for", then
    /// "for hiking boots"): a query's first word that repeats the lead's last is the lead's. And the grammar
    /// may have heard a shorter lead than was said ("google", then "for hiking boots"): the lead and the query
    /// are parsed again together, and a shorter query of the same intent is taken.
    /// And an article before a plural (`articleBeforePluralDropped`) is not the query's.
    static func mendedQuery(_ query: String, lead: [String], intent: String, slot: String,
                            commands: CommandSet,
                            dropArticleBeforePlural: Bool = false) -> (query: String, lead: [String]) {
        var queryWords = CommandSet.normalizeWords(query)
        let heardCount = queryWords.count
        if queryWords.count > 1, queryWords.first == lead.last { queryWords.removeFirst() }
        if dropArticleBeforePlural { queryWords = articleBeforePluralDropped(queryWords) }
        let query = queryWords.count < heardCount ? queryWords.joined(separator: " ") : query
        let words = lead + queryWords
        if let whole = commands.parse(words), whole.name == intent, case .string(let shorter)? = whole.slots[slot],
           !shorter.isEmpty, shorter.count < query.count {
            return (shorter, Array(words.prefix(words.count - CommandSet.normalizeWords(shorter).count)))
        }
        return (query, lead)
    }

    /// `words` without an opening "a" or "an" whose noun phrase ends in a plural: "a winter jackets" is
    /// "winter jackets", as nobody says the first. The noun phrase runs to the first word that starts another
    /// phrase ("a recipe | for pancakes" ends in "recipe" and keeps its article); a quantity word in it ("a few
    /// good movies", "a lot", "a couple") or an owner ("a cat's toys") keeps the article too. A plural ends in
    /// "s" but not in "ss", "us", "is" or "'s", and is not one of the singular words that end so ("news").
    static func articleBeforePluralDropped(_ words: [String]) -> [String] {
        guard words.count >= 2, ["a", "an"].contains(words[0]) else { return words }
        let phrase = words.dropFirst().prefix { !phraseBreakWords.contains($0) }
        guard let head = phrase.last, !phrase.contains(where: quantityWords.contains),
              !phrase.dropLast().contains(where: { $0.hasSuffix("'s") }) else { return words }
        let plural = head.count > 2 && head.hasSuffix("s") && !singularWordsEndingInS.contains(head)
            && !["ss", "us", "is", "'s"].contains(where: head.hasSuffix)
        return plural ? Array(words.dropFirst()) : words
    }
    /// Words that end a noun phrase: prepositions and conjunctions.
    static let phraseBreakWords: Set<String> = [
        "of", "for", "in", "on", "to", "with", "at", "from", "near", "by", "about", "and", "or", "under", "over",
        "without", "like", "than", "into", "vs", "versus", "that", "which", "who", "where", "when", "how",
    ]
    /// Words after "a" that count what follows ("a few good movies").
    static let quantityWords: Set<String> = [
        "few", "lot", "lots", "couple", "number", "bunch", "dozen", "pair", "hundred", "thousand", "million",
        "billion",
    ]
    /// Singular words that end in "s" like a plural.
    static let singularWordsEndingInS: Set<String> = [
        "news", "series", "species", "means", "lens", "gas", "canvas", "atlas", "alias", "bias", "christmas",
        "texas", "vegas", "chaos", "cosmos", "physics", "mathematics", "economics", "politics", "athletics",
        "measles", "diabetes", "herpes", "rabies", "mumps", "headquarters", "whereabouts",
    ]

    /// The words of a free-text intent's text before its query ("look up" of "look up tomato soup").
    static func leadWords(of intent: Intent, query: String) -> [String] {
        CommandSet.normalizeWords(String(intent.text.dropLast(query.count)))
    }

    /// A command without free text that the language model heard whole: all of `words` after at most
    /// `PipelineSettings.wholeCommandLeadWords` of them (and after the end of the wake phrase, which the audio
    /// starts a little before), nil otherwise.
    func wholeCommand(in words: [String]) -> Intent? {
        let words = Array(words.drop(while: { recognizer.wakeWords.contains($0) }))
        guard !words.isEmpty else { return nil }
        for first in 0...min(max(0, settings.wholeCommandLeadWords), words.count - 1) {
            if let intent = commands.parse(Array(words[first...])), freeTextSlot(of: intent) == nil {
                return intent
            }
        }
        return nil
    }

    /// The free-text slot (a search's query) an intent has, if any.
    func freeTextSlot(of intent: Intent) -> String? {
        commands.freeTextSlots.first { intent.slots[$0] != nil }
    }

    /// `words` (a recogniser result's, phone-loop words among them) parsed by `parser`, dropping phone-loop words
    /// from the end until they parse: phones after a complete command are speech before the next wake phrase, not
    /// part of it. nil when no such prefix parses.
    static func parse(_ words: [String], droppingTrailingPhonesWith parser: CommandSet) -> Intent? {
        var words = words
        var parsed = parser.parse(collapsePhoneWords(words))
        while parsed == nil, let last = words.last, GrammarGenerator.isPhoneWord(last) {
            words.removeLast()
            parsed = parser.parse(collapsePhoneWords(words))
        }
        return parsed
    }

    /// The placeholder that stands for a run of free speech (phone-loop words) when words are parsed.
    static let freeSpeech = "\u{1}"

    /// One placeholder per run of phone-loop words, so a free-text slot matches the run.
    static func collapsePhoneWords(_ words: [String]) -> [String] {
        var out: [String] = []
        for w in words {
            if GrammarGenerator.isPhoneWord(w) {
                if out.last != Self.freeSpeech { out.append(Self.freeSpeech) }
            } else {
                out.append(w)
            }
        }
        return out
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
