/// What one utterance held. Times are absolute samples of the stream (16 kHz).
public struct UtteranceResult: Equatable, Sendable {
    public struct WakeSpan: Equatable, Sendable {
        public let startSample: Int
        public let endSample: Int
        /// Confidence 0…1 (acoustic verification against a free phone loop); 0.5 at the threshold for the
        /// segment's noise.
        public let score: Double
        /// The same against the quiet-room threshold: a wake phrase that only passes thanks to the noise
        /// allowance stays marginal (reported only with a command that is sure).
        public var quietScore: Double

        public init(startSample: Int, endSample: Int, score: Double, quietScore: Double? = nil) {
            self.startSample = startSample
            self.endSample = endSample
            self.score = score
            self.quietScore = quietScore ?? score
        }
    }
    public var wake: WakeSpan?
    /// Level (dB, `WordLevel.roomLevel`) of the talk in the audio as it came just before the wake phrase;
    /// nil without a wake phrase or under 1 s of audio before it.
    public var roomLevel: Double?
    /// The words after the wake phrase (or the whole utterance in the follow-up window), fillers removed;
    /// phone-loop words stand for free speech.
    public var words: [String]
    /// `words` without the phone-loop words (free speech).
    public var commandWords: [String] { words.filter { !GrammarGenerator.isPhoneWord($0) } }
    /// Absolute sample where the first phone-loop word after the last command word starts (free text).
    public var freeSpeechStart: Int?
    /// Absolute samples of the command words.
    public var commandStart: Int?
    public var commandEnd: Int?
    /// Where free text can end: the next wake phrase, or the end of the utterance (the grammar's phone loop
    /// often hands the last words of a query to silence fillers, so `commandEnd` can be early).
    public var spanEnd: Int?
    /// Confidence of the command words, 0…1 (their acoustic match against a free phone loop; 0.5 at the
    /// command threshold); 0 when there are none.
    public var confidence: Double
    /// The command is not the one the grammar heard first but the one that covers the phones after it
    /// (`RecognizerSettings.rescoreTrailingPhones`): it needs the language model's agreement like an unsure one.
    public var rescored = false
    /// Heard with the acoustic model adapted to speech in noise (`RecognizerSettings.babbleAdaptation`).
    public var heardAdapted = false
    /// What the twin test weighed (`RecognizerSettings.twinMargin`); nil without a twin test.
    public struct WeighedTwin: Equatable, Sendable {
        /// The command one word away: the best twin when it was not taken, the command heard first when it was.
        public var words: [String]
        /// How much better (nats per 10 ms frame) the best twin fitted the command's span than the command heard
        /// first.
        public var margin: Double
        /// Whether the twin was taken (`RecognizerSettings.twinMargin`): the result's words are the twin's, which
        /// may be a command only the language model's words are parsed with (`languageModelOnlyTwins`).
        public var taken: Bool
    }
    public var closeTwin: WeighedTwin?
}
