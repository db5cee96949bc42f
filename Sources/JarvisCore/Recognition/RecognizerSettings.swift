import Foundation

/// Settings of the recogniser (named, openWakeWord-style; defaults tuned on the dev set).
public struct RecognizerSettings: Sendable, Equatable {
    /// Cost (nats, ≥ 0) of each phone of the phone loops: the price of free speech against grammar words.
    /// Higher = more wakes and fewer rejections.
    public var phoneCost = 1.0
    /// Cost (nats) of ending an utterance without the wake phrase. Lower = fewer wakes.
    public var noWakeCost = 0.0
    /// Cost (nats, ≥ 0) of "free speech after the wake phrase" against a command. Higher = fewer rejections.
    public var garbageCost = 10.0
    /// Cost (nats, ≥ 0) of each word that opens a request ("can you …", `GrammarGenerator.requestCost`).
    /// Free (0), the grammar heard flite kal16's "new tab" under the dev set's babble as "can you last tab
    /// please"; at 2 and 5 it still did, at 7 and 10 it heard "new tab". The request set (40 clips) gives
    /// the same 85 % at 0, 7 and 10.
    public var requestCost = 7.0
    /// PocketSphinx word insertion penalty of the grammar search.
    public var wordInsertionPenalty = 0.65
    /// Verification threshold: the wake phrase's path score per 10 ms frame minus a free phone loop's over
    /// the same audio (nats). A wake below it is dropped; the `wake` event's score is 0.5 at it.
    public var wakeThreshold = 0.8
    /// A name the live decoder proposed is verified, at the end of its segment, with the better of two margins:
    /// over the second pass's span of it, and over the live decoder's latest span of it less this (nats per
    /// frame). The two decoders place the name's edges apart (the live one with its coarse phone loop), and a
    /// real "jarvis" can verify over one and not the other. Not under changing noise (babble), where other
    /// talkers give the live decoder names of their own. Measured: real "jarvis" clips 184 → 186 of 192 with
    /// `--wake-phrase jarvis`, no false wake over the real negatives with either phrase; the best of every live
    /// reading, in babble too, gave 187 but 3 more false intents on confusable names. nil: the second pass's alone.
    public var liveNameMarginPenalty: Double? = 0.1
    /// The same test for the command words after the wake phrase (nats per frame over a free phone loop).
    public var commandThreshold = 0.0
    /// Steady noise brings a word's score and the phone loop's together (the noise frames fit both alike):
    /// below `cleanSNR` (dB, the segment's loud frames over its quiet ones) the two thresholds fall linearly
    /// to these at `noisySNR`.
    /// Measured on commands under white and pink noise (10–15 dB, starting with the speech or long before it)
    /// and on negatives and confusable phrases ("hey jasmine, new tab") under the same noise: 0.6 woke on
    /// about half instead of a tenth, with no false wake in 500 noisy negatives; 0.5 let one through.
    public var noisyWakeThreshold = 0.6
    public var noisyCommandThreshold = -0.3
    public var cleanSNR = 30.0
    public var noisySNR = 20.0
    /// The wake thresholds in quiet a user may set (nats per frame): under the noisy fall (0.2) the bar stays
    /// above 0.
    public static let wakeThresholdRange: ClosedRange<Double> = 0.3...1.5
    /// Sets the wake threshold in quiet (`wakeThreshold`, nats per frame) and moves the one under steady noise
    /// (`noisyWakeThreshold`) by as much, so the bar keeps its fall under noise: the user's sensitivity (the
    /// config's `wake_threshold`). Lower wakes more often on voices the model fits less well (accents) and on
    /// names that sound like the wake phrase; docs/accuracy.md has the trade measured.
    public mutating func setWakeThreshold(_ quiet: Double) {
        precondition(Self.wakeThresholdRange.contains(quiet), "wake threshold out of range")
        noisyWakeThreshold += quiet - wakeThreshold
        wakeThreshold = quiet
    }
    /// Spread of the quiet frames' levels (dB) up to which the noise counts as steady (white and pink noise:
    /// 1–2.6 dB; babble: 4–8 dB); the lowering fades out 1 dB above it. Changing noise such as babble does
    /// not bring the scores together: lowering the thresholds there let confusable phrases through.
    public var steadySpread = 3.0
    /// Spectral noise reduction (`SpectralDenoiser`) before the second pass of a segment under `cleanSNR`
    /// whose floor spread is at most `steadySpread` (measured: it cost 5 points of intents on babble).
    public var denoiseSteadyNoise = true
    /// Whether the language model, too, hears a segment with steady noise reduced (as the second pass does).
    public var denoiseFreeText = true
    /// Whether a segment whose noise changes (`UtteranceRecognizer.segmentNoiseChanges`: babble) is decoded by
    /// the second pass, its verification and the language model with the acoustic model adapted to speech in
    /// noise (`AcousticAdaptation.noisySpeech`, an MLLR transform trained by scripts/make-adaptation.sh; only for
    /// the model it was trained for). The live decoder, the wake phrase's verification and other segments hear
    /// the model as installed. Measured: the dev set's babble10 intents 67.8 → 75.7 %, the babble set's (other
    /// talkers) 26.1 → 29.9 %; on every segment the same transform lost white15 wakes (96.5 → 91.3 %).
    public var babbleAdaptation = true
    /// White noise under audio that holds digital silence (`NoiseFloor`), in dB RMS relative to full scale: under
    /// a segment's second pass when the segment holds it, under the language model's decode when its own audio
    /// (the command, from 0.3 s before it) does; nil for none. Verification (the wake phrase's and
    /// the command's margins) still hears the audio as it came: its thresholds were set on it, and on floored
    /// audio the margins of non-commands rose too (measured on the dev and non-command sets: clean intents 87.8 →
    /// 92.2 % but non-commands rejected 140 → 136 of 150; with verification on the audio as it came 91.3 % and
    /// 140; the noisy tables, whose audio holds no digital silence, do not change).
    public var noiseFloorDB: Double? = -70
    /// The peak (dB re full scale) at which the second pass's and the language model's floor is `noiseFloorDB`
    /// (the dev set's clips peak at −3 dBFS): a segment that peaks lower or higher gets it that much lower or
    /// higher, in whole dB (never under −90 dBFS, about one Int16 step), so a file's level does not change what
    /// is heard.
    /// Measured on the dev set's clean commands turned down 20 dB: 93.0 % of intents with the floor at −70 dBFS
    /// ("football stories" for flite slt's "football scores", three more queries wrong), 95.7 % with it following
    /// the peak, as at full level. nil: `noiseFloorDB` at any level. The live decoder's floor stays absolute (it
    /// starts before the segment's peak is known).
    public var noiseFloorPeakDB: Double? = -3
    /// Whether the live decoder (the wake proposer) hears `noiseFloorDB` too, from the first chunk of a segment
    /// that holds digital silence. Its live cepstral mean and its frames went wrong on such audio: espeak-ng's
    /// British voice, whose speech starts right after a near-silent frame, had its whole "hey jarvis" taken for
    /// silence, so no candidate and no second pass. Verification still hears the audio as it came.
    public var floorLiveAudio = true
    /// A faint noise above 4.6 kHz under band-limited audio (`HighBandFill`: telephone audio, an 8 kHz voice),
    /// louder where a fricative's trace tops the speech band, for the second pass and the language model; nil for
    /// none. Verification and the live decoder hear the audio as it came.
    public var highBandFill: HighBandFill? = HighBandFill()
    /// Frequency warp of every decoder's front end (PocketSphinx `-warp_type inverse_linear`: a frequency f is
    /// read as f / factor, so formants sit lower, as from a longer vocal tract); nil or 1: none. Measured on the
    /// dev set against none: clean intents 91.3 → 93.9 % (espeak-ng's voice, whose formants sit high),
    /// paraphrases 88 → 92 %, white15 70.4 → 72.2 %, babble 68.7 → 67.8 %; name and d-name false wakes 24 → 17,
    /// the noise set's 2 → 4. 1.05: clean 91.3 %, babble 71.3 %; 1.15 and 1.2 lose clean clips of other voices.
    public var frequencyWarp: Double? = 1.1
    /// The frequency warp for a speech segment whose talker has a high voice: `PitchTracker`'s estimate of its
    /// F0 at or above `highVoiceHz`. The pipeline then hands the segment to a second recogniser, made on first
    /// need, which hears it again from its start. A higher voice usually means a shorter vocal tract and higher
    /// formants. Measured on the 192 real "jarvis" recordings (`--wake-phrase jarvis`): 177 → 184 detected,
    /// still no false wake over the 1,385 real negatives; espeak-ng's en-us+f3 voice 0 → 15 of 23 commands.
    /// nil: `frequencyWarp` for every voice.
    public var highVoiceWarp: Double? = 1.3
    /// F0 (Hz) from which a voice is high (`highVoiceWarp`). The dev set's voices lie at 90–172 Hz.
    public var highVoiceHz = 180.0
    /// Add the pronunciations of a non-rhotic accent that the model's American dictionary lacks to the grammar's
    /// and the language model's words (`GrammarDictionary.accentPronunciations`: "search" without its r-coloured vowel,
    /// "for" without its r).
    public var accentVariants = true
    /// Pronunciations of words the model's dictionary lacks, or other ways to say one it has (the config's
    /// `words`): word → phone strings ("N EH T F L IH K S"), added after the dictionary's own.
    public var extraPronunciations: [String: [String]] = [:]
    /// Let a command word that starts with the consonant the word before it ended with be heard without it
    /// ("scroll left" said with one "l"; `GrammarGraph.joiningRepeatedConsonants`).
    public var joinedConsonants = true
    /// Command words that the second pass also hears with the open "a" of British English (AE said as AA: "tab",
    /// "back", "last"; `GrammarGenerator.openVowels`), in clean segments without hum only
    /// (`UtteranceRecognizer.offersOpenVowels`). Measured: the voice set 75.0 → 78.3 % of intents (espeak-ng
    /// en-gb 13 → 16 of 23), non-commands rejected 139 → 141 of 150, the room set one paraphrase fewer, the dev
    /// set the same clip by clip. Offered under noise too, the open vowel drew other commands to the tab
    /// commands: dev white15 and babble10 intents fell 74.8 / 75.7 → 73.0 / 73.0 %. Empty: none.
    public var openVowelWords: Set<String> = ["tab", "back", "last"]
    /// Model paths.
    public var model = ModelPaths.debianDefault
    /// Score the acoustic model's tied-mixture Gaussians with the SIMD scorer (`GaussianScoring`): the same
    /// senone scores to the bit as PocketSphinx's own code (checked frame by frame over the dev set: 673,681
    /// frames, none differed), for 40 % less CPU (the dev stream 3.46 → 2.06 s). false: PocketSphinx scores.
    public var fastGaussianScoring = true
    /// Streaming wake: a second decoder follows the speech as it comes (live CMN, warm-started from the
    /// cepstral mean of the segment so far and of the previous ones) and reports the wake phrase as soon as
    /// its best path has passed it and it verifies, instead of after the whole utterance.
    public var streamingWake = true
    /// Audio of a segment (pre-roll included) collected before the live decoder starts, so its first frames
    /// are normalised with a mean over real speech (s).
    public var liveStartDelay = 0.5
    /// Seconds of audio between two looks at the live decoder's best path (adds up to this to the wake latency).
    public var liveCheckInterval = 0.06
    /// The wake phrase must lie this far behind the live decoder's last frame before it is trusted (s).
    public var wakeSettle = 0.1
    /// Verification score a wake phrase needs to be reported before the command after it is known.
    public var earlyWakeScore = 0.9
    /// Before a wake phrase is reported early, the wake search decodes the audio from this long before the live
    /// decoder's candidate to its end and must hear it there too (s); 0: no such check.
    public var earlyConfirmLead = 0.5
    /// How far (s) the end of the wake phrase in that decode may lie from the live decoder's.
    public var earlyConfirmSlack = 0.15
    /// Weight (in frames) of the previous segments' cepstral mean against the current segment's.
    public var priorMeanFrames = 100.0
    /// Skip the final whole-utterance decode of a segment in which the live decoder never hypothesised the
    /// wake phrase (saves the second pass on speech that is not for us).
    public var gateFinalDecode = true
    /// Verification score of a live wake candidate (raw audio) that makes the final decode run...
    public var gateScore = 0.2
    /// ...falling to this under steady noise (as the thresholds do, by `noisiness`), where the raw margin of a
    /// real wake phrase shrinks and only the second pass hears the noise reduced. Measured with every second
    /// pass open (345 noisy commands, 625 noisy non-commands): a candidate's raw margin from 0 to 0.25 nats
    /// per frame held 18 wakes and 1 false one. 0.08 (raw margin −0.01 at the noisy threshold): white15
    /// wakes / intents 64.3 / 47.0 → 72.2 / 51.3 %.
    public var noisyGateScore = 0.08
    /// Under steady noise, a segment whose live candidates all fall under `gateScore` still gets its second
    /// pass, but a wake found there needs both halves of its name to verify this far (nats per frame) over the
    /// phone loop (`nameHalvesMargin`'s test, stricter). nil: such segments are not decoded again. Measured on
    /// dev white15 and the noise set (345 commands and 625 non-commands under white and pink noise, from the
    /// speech or throughout): opening the gate alone woke 37 more commands and 8 more non-commands (confusable
    /// names: "hey marcus, click" clicked); with this test at 0.4 (and `nameHalvesMargin`), 24 more commands
    /// and 2 fewer non-commands.
    public var weakCandidateHalvesMargin: Double? = 0.4
    /// The least verification score of such a weak candidate (under it the candidate is dropped, as
    /// in quiet audio).
    public var weakCandidateScore = 0.001
    /// Under steady noise, a segment in which the live decoder proposed no wake candidate at all is decoded
    /// once more by it (its first `reducedNoiseSearchSpan`) with the noise reduced, as the second pass hears
    /// it; the wake phrases on that path become candidates by their verification on the raw audio, through the
    /// same gate. The live decoder hears the raw audio: under pink noise at 10 dB flite slt's "hey jarvis,
    /// scroll up" was "p" for 1.2 s. Measured (2026-11-26): the noise set's commands under white / pink noise,
    /// wakes 89.6 / 87.8 → 95.7 / 92.2 %, intents 67.0 / 67.0 → 71.3 / 69.6 %; its 625 non-commands the same 3
    /// false wakes and 1 false intent; dev, name, non-command, voice, variant and real sets unchanged. CPU: one
    /// more coarse decode of such segments; over 100 of the noise set's non-commands under steady noise 9.3 →
    /// 12.0 s (medians of 3 interleaved runs; 68 segments decoded again, 6 more second passes), over 77 of its
    /// commands the same within the machine's noise (26.8 → 26.1–28.3 s). Quiet audio and babble: no change.
    public var liveSearchOnReducedNoise = true
    /// How much of such a segment is heard again (s from its start): it bounds the extra work in long stretches
    /// of speech under a steady noise, where the decode costs about a third of the segment's CPU.
    public var reducedNoiseSearchSpan = 4.0
    /// The live decoder computes acoustic scores on every n-th 10 ms frame only (PocketSphinx `-ds`). It
    /// only proposes wake candidates; each is verified at full rate. Measured on the dev set and the real
    /// recordings: 2 costs no recall and a third of the CPU in continuous speech.
    public var liveFrameSkip = 2
    /// A live candidate that starts on the frame of one verified already and ends within this many 10 ms
    /// frames of it is that candidate again, not verified a second time: as audio comes in, the live decoder's
    /// best path moves the name's end by a frame or two ("142-184", "142-183", "142-182" in the dev stream),
    /// and each verification decodes its span twice at full rate. 0 verifies every distinct span.
    public var candidateEndTolerance = 3
    /// Word-exit beam of the live decoder (PocketSphinx `-wbeam`; default 7e-29). Fewer word exits per frame
    /// in its phone loop: measured 5 % less CPU and 3 MB less memory in continuous speech with the same
    /// dev-set and real-set results; 1e-18 lost 5 % of clean wakes.
    public var liveWordBeam = 1e-22
    /// Word-exit beam of a second decode of a segment whose second pass found no path through its grammar
    /// (PocketSphinx logs "Final result does not match the grammar"): festival kal's "hey jarvis, never mind"
    /// had none under the default beam (7e-29), which pruned every word exit into the final state, and so no
    /// wake and no `rejected`. 1e-80 gives it a path. Only for that retry: as the second pass's own beam it
    /// cost about 30 % more CPU and 2 noisy intents on the dev set. nil: no retry.
    public var noPathWordBeam: Double? = 1e-80
    /// Word-exit beam of the second pass's searches ("wake", "followup"); nil: PocketSphinx's default (7e-29).
    public var secondPassWordBeam: Double?
    /// Phones of the live wake search's loop (its competitor for speech without the wake phrase):
    /// `GrammarGenerator.broadPhones` (17 of the 39), which keep fewer of the acoustic model's Gaussian
    /// codebooks busy. The weaker competitor proposes more candidates (36 instead of 12 in the dev stream), so
    /// an early report also needs the whole grammar's agreement (`earlyConfirmLead`): without it, one false
    /// "hey jarvis" passed verification early in 60 minutes of real speech. Measured against all 39 phones:
    /// the dev stream's CPU 3.24 → 3.06 s, the same dev, non-command and real-recording tables.
    public var liveLoopPhones = GrammarGenerator.broadPhones
    /// Whether the live wake search follows the wake phrase with only the first word of each command
    /// (`GrammarGenerator.firstWordsOfCommands`) rather than whole commands: it only proposes candidates, and
    /// a first word anchors the name's end as well (with no command after it at all, "jarvis" ran on into
    /// the command and no wake was reported early). Measured: the dev stream's CPU −2 % (3.39 → 3.32 s,
    /// medians of alternating runs) and peak memory 92.0 → 90.2 MB (a smaller model cut); the same dev,
    /// real-recording, non-command, voice, name, variant and other-voice tables; the noise set one command
    /// and one false wake fewer (cwhite15 89.6 → 88.7 % woken).
    public var liveCommandFirstWords = true
    /// The words those first words leave out (`GrammarGenerator.firstWordsLeftOut`): a request's opening words
    /// (`CommandSet.requestOpeners`). "could" after a name-like word gave the live search a way to hear "jarvis"
    /// in an audiobook's "john dashwood could", while a request after the wake phrase still ends the name at
    /// "can"/"could" through the phone loop. Empty: every command's first word.
    public var liveFirstWordsLeftOut = Set(CommandSet.requestOpeners)
    /// The live decoder loads only the part of the acoustic model its grammar can use
    /// (`AcousticModelSubset`: the context-independent phones and the triphones of the grammar's words and loop
    /// phones), not a second copy of all of it. Measured: the dev stream's peak memory 90.4 → 87.3 MB with the
    /// same events and the same dev, non-command and real-recording tables. Models the subset cannot read are
    /// loaded whole. The subset is cached in PocketSphinx's binary format (`AcousticModelSubset.cachedFolder`):
    /// a replay's start-up 0.18 → 0.09 s of CPU, the same events.
    public var liveModelSubset = true
    /// How the search language model is held: `.paged` reads a trie model's n-grams from its file as lookups
    /// search them (`jarvis_paged_lm_read`), `.whole` reads all of it at load (sphinxbase). The same scores and
    /// events. Of the 20,000-word model's 22 MB, one search of the dev set holds 5–11 MB in clean audio (median
    /// 7.4), 8–18 MB in noise (a noisy decode weighs more words), until the model is released
    /// (`releaseLanguageModelAfter`). Measured on the dev stream (one search): peak memory 87.4 → 73.7 MB.
    public var languageModelLoading = PocketSphinxDecoder.LanguageModelLoading.paged
    /// Longest stretch of audio the live decoder follows in one search (s). Its search history grows with
    /// every frame (about 0.4 MB/s in speech), so in long speech it starts over on the last `liveOverlap`.
    public var liveWindow = 20.0
    /// Audio the live decoder re-reads when it starts over: longer than any wake phrase (s).
    public var liveOverlap = 1.5
    /// The second pass over a segment starts this long before the first live wake candidate (s)...
    public var candidateLead = 1.0
    /// ...and ends this long after the last one, or at the end of the segment (s).
    public var commandWindow = 10.0
    /// After a restart the second pass always covers the re-fed overlap and this much after it (s): a wake
    /// phrase across the seam and its command are decoded even if the live decoder missed them.
    public var afterReplayWindow = 1.0
    /// Share (0–1) of the `CommandLeadModel` ("search for", "look up" …) in the language model that
    /// transcribes a search's query; 0 transcribes it with the general model alone.
    public var commandLeadWeight: Float = 0.5
    /// Share (0–1) of the word pairs of search queries (`QueryBigramModel`: "stock prices", "for stock", "bus
    /// schedule") in the general language model when it hears a command the grammar heard as a search a second time,
    /// for the query's words only (`UtteranceRecognizer.decodeFreeText`); nil: the general model alone (so too, after a
    /// warning, when no cache folder can hold the model). The general model knows few of them: it scores "search for
    /// spock prices" within 0.8 (log10) of "search for stock prices", and four TTS voices' "stock prices" came out as
    /// "spock prices". Measured (2026-12-04, stop 88, release builds, clip by clip): the query set 166 → 171 of 270
    /// (stock prices ×4, bus schedule, chocolate cake; pizza recipes lost), the dev set's clean intents 95.7 → 96.5 %
    /// and nothing lost, the variant set 376 → 377 of 445, the voice set 76 → 75 of 92, the non-command set the same; a
    /// clean search costs a second decode (about 0.25 s of CPU). Mixed into the one decode whose scores the checks use,
    /// a lead path took flite awb's "go up" for a search for "up", and babble10 lost a search; mixed into every decode,
    /// a non-command ("good morning how are you") opened youtube; pairs into a function word ("football score was") or
    /// a word of another language ("for de", "de videos") cost searches.
    public var queryModelWeight: Float? = 0.2
    /// The language model's search also holds the `CommandPhraseModel` (the commands without free text), mixed in
    /// with `commandLeadWeight` when a command's words are checked (`PipelineSettings.commandModelAcousticLoss`);
    /// not with a weight of 0.
    public var commandPhraseModel = true
    /// How many of the language model's best hypotheses a free-text transcription keeps (`FreeText.alternatives`,
    /// the first being its best path); 0: only the best path.
    public var freeTextAlternatives = 20
    /// The language model's decoder knows only this many of its most probable words (and the commands'
    /// words); nil: all of them. Measured with Debian's en-us model (72,547 words): 20,000 give the same dev
    /// and non-command tables, with 27 MB less memory and 12 % less CPU per decode.
    public var languageModelWords: Int? = 20_000
    /// With `languageModelWords`, whether the language model itself is cut down to those words (every n-gram
    /// among them, the same scores; `LanguageModelPruning`, made once and cached on disk). Measured with
    /// Debian's en-us model: peak memory of the dev stream 126 → 108 MB, the same dev and non-command tables.
    /// false: the words are limited in the dictionary only and the whole model is loaded.
    public var pruneLanguageModel = true
    /// With `pruneLanguageModel`, at most this many n-grams of each order above one (index 0: bigrams);
    /// nil: all of them. Measured: 300,000 bigrams and 200,000 trigrams save 17 MB more but lose four clean
    /// search queries ("football scores" heard as "football stores").
    public var languageModelNGrams: [Int]? = nil
    /// A command followed by at most `rescoreMaxPhones` phones is checked against the command that best
    /// covers them too (`commandsGraph`), taken when it verifies `rescoreMargin` nats per frame better over
    /// that span; in clean audio only with the language model's agreement (`UtteranceResult.rescored`).
    /// Measured: clean intents 87.0 → 87.8 %, babble 66.1 → 67.0 %, non-commands rejected 139 → 140 of 150;
    /// 6 phones rather than 3: white15 51.3 → 53.9 % (10: the same as 6). Without the agreement, clean was
    /// 89.6 % but two more non-commands were taken as commands.
    public var rescoreTrailingPhones = true
    public var rescoreMaxPhones = 6
    public var rescoreMargin = 0.0
    /// A command with free text followed by at most this many phones ("search for" and one phone: a query too
    /// short to be one) is weighed against the commands without free text over the same span
    /// (`GrammarGenerator.commandsGraph(withFreeText: false)`), and becomes the one that verifies
    /// `shortFreeTextMargin` nats per frame better. Under white noise flite kal16's "right click" was heard as
    /// "search for" + one phone (verified −0.36; "right click" 0.58 over the same span) and dropped as unsure.
    /// nil: never.
    public var shortFreeTextPhones: Int? = 2
    /// Measured on the dev set: the command it won was 0.94 better; two commands heard wrong by both
    /// ("google for" + 2 phones for "double click", "search google for" + 1 for "search for dogs") had wrong
    /// commands 0.15 and 0.30 better, which a margin of 0 took.
    public var shortFreeTextMargin = 0.5
    /// A complete command (no free text) is checked against its twins, the commands one word away from it
    /// ("next tab" for "new tab"), aligned over its span in one decode; the best twin is taken when its path
    /// scores this many nats per 10 ms frame above the heard command's (`UtteranceRecognizer.commandTwin`).
    /// nil: no twin check. Measured over the 988 commands of the dev, noise, babble, room, voice and variant
    /// sets that have twins, 6 twins scored 0.41–0.86 above: 5 right (espeak-ng's "next tab" heard as "new tab"
    /// under white and pink noise, flite kal16's "click" as "forward"), 1 as wrong as what was heard ("open
    /// amazon" for "open reddit", said "click"); 8 scored 0.05–0.20 above, 7 of them wrong. Aligning each twin
    /// on its own spread the scores out: wrong twins up to 0.81 above.
    public var twinMargin: Double? = 0.3
    /// Whether the twins include the commands only the language model's words are parsed with
    /// (`CommandDefinition.languageModelOnly`) when their words are all the grammar's: "go down" and "go up" are
    /// twins of the "go back" the grammar heard for them, as it holds no "go down". Taken at `twinMargin`, or decided
    /// by the model expecting a command (`PipelineSettings.twinArbitrationMargin`), as any twin. Measured (stop 72):
    /// the variant set 349 → 357 of 420 (festival kal's and flite kal16's "go down" or "go up" had gone back a
    /// page), every other set the same clip by clip.
    public var languageModelOnlyTwins = true
    /// The language model's last words whose level (`WordLevel.level`) lies this many dB or more under the
    /// talker's (their wake phrase's; without one, the median of the decoded words) are dropped from a free
    /// text: quieter speech behind the talker. Measured on the dev set's babble (10 dB): the words it added
    /// after queries ("that", "are", "gun") lay 14–20 dB under the wake phrase; the last words of clean
    /// queries within 5 dB of it. nil keeps them.
    public var quietTrailingWordDrop: Double? = 12
    /// The same for a command's last words, when the command stands without them (`scroll down` for
    /// `scroll down eight`): babble behind the talker, or a plosive's release heard as a word ("scroll right"
    /// as "scroll right eight" in clean audio, the "eight" 19–26 dB under the wake phrase). nil keeps them.
    public var quietTrailingCommandWordDrop: Double? = 12
    /// Talk that was going on before the wake phrase (a TV, a room already talking) goes on after the command:
    /// when the `roomListening` seconds before the wake phrase (`WordLevel.roomLevel`) lie `roomUnderTalker`
    /// dB or more under it, speech after the command up to `roomContinuesWithin` dB over that level is the
    /// room's, not the talker's, however close to the talker's level (`WordLevel.othersCeiling`): it does not
    /// make a sure command (confidence ≥ `PipelineSettings.languageModelCheckBelow`) part of a sentence
    /// (`PipelineSettings.quietTrailingSpeechDrop`), nor stay among a command's or a query's last words
    /// (`quietTrailingCommandWordDrop`, `quietTrailingWordDrop`). nil: the room is not compared.
    /// Measured on the babble set's commands said in a room already talking (`cbabble10`): the room lay 9–15 dB
    /// under the wake phrase, the talk after the commands 4 dB under to 3 dB over the room; before the
    /// non-command set's sentences the room was silent (44–51 dB under). Intents 37.4 → 47.8 % (the dev set's
    /// babble voices) and 15.7 → 20.0 % (other voices); the non-command set in the same room: 8 → 10 of 120
    /// taken as commands (10 more for unsure commands too, whose sentence the grammar took whole). Every other
    /// set the same.
    public var roomUnderTalker: Double? = 6
    public var roomContinuesWithin = 3.0
    public var roomListening = 2.0
    /// Under steady noise (scaled by `noisiness`), a wake phrase that verifies up to this much (nats per
    /// frame) under the wake threshold still wakes when a complete command follows it in the same breath
    /// with a confidence of at least `tentativeWakeCommandConfidence`: the evidence of the two adds up.
    /// nil: never. 0.1 since the shorter noise window (`DenoiserSettings.minimumSpanFrames`): with it, 0.2
    /// let "hey davis, scroll down" under white noise through, and 0.1 loses no command of the noisy sets.
    public var tentativeWakeSlack: Double? = 0.1
    /// The command's confidence for such a wake. 0.9 (0.99 before) since a strong first half of the name may
    /// carry a weak second one (`strongFirstHalfMargin`): of the dev set's and the noise set's 970 noisy clips
    /// only flite slt's "new tab" under white noise changed (0.91: woken and right); the noise set's 625
    /// non-commands still give 3 false wakes and 1 false intent, none of them tentative.
    public var tentativeWakeCommandConfidence = 0.9
    /// A wake phrase of more than one word must also verify as a whole: all its words against the phone loop
    /// over their frames, at most this far (nats per frame) under the threshold its name had to pass. The name
    /// carries the evidence against other names ("hey davis"); the whole phrase keeps a name-like word in
    /// other speech from waking without a "hey". Measured (whole-phrase margins): real wake phrases from 0.63 up
    /// in clean audio, 1.09 up in babble, 0.28 up under white noise; it stopped one false wake of the noise set
    /// (a negative under babble whose phrase verified at -0.03), and no real one (measured with the noise window
    /// of 45 hops, `DenoiserSettings.minimumSpanFrames`). Checked only for a name whose quiet-room score is
    /// under `earlyWakeScore`: a surer name carries the phrase, and skipping the two decodes keeps the dev
    /// stream's CPU where it was (0.0149 s per audio second; 0.0160 with the check on every wake). nil: no
    /// whole-phrase margin (the lead's duration still counts).
    public var wakePhraseAllowance: Double? = 0.4
    /// The words of a wake phrase before its name ("hey") must last at least this long together (s; their own
    /// frames, not a pause after them), and `noisyMinimumLeadDuration` under steady noise (scaled by
    /// `noisiness`: the "h" drowns in hiss). Each phone takes at least 3 frames in the acoustic model, so the
    /// grammar can fit "hey" into the last 60–90 ms of any word before a "jarvis" ("the jarvis", "i asked
    /// jarvis to…"); a spoken "hey" lasted 130 ms or more in every clean clip of the dev and non-command sets,
    /// and 90 ms or more under white noise.
    public var minimumLeadDuration = 0.1
    public var noisyMinimumLeadDuration = 0.08
    /// A lead shorter than the minimum but at least this long (s) still counts when it sounds like the lead
    /// said after a pause: the lead's words verify against the phone loop over their frames and the
    /// `shortLeadContext` before them by at least `shortLeadMargin` (nats per frame). Some talkers say a quick
    /// "hey" (espeak-ng's Scottish voice: 70–80 ms, its name at 1.8); a "hey" the grammar squeezes into the end
    /// of another word has that word's sounds before it ("i asked jarvis": −1.8 and −5.5). Measured on the
    /// real recordings' bare "jarvis" clips, whose leads of 7–9 frames are such fits: −0.63 at best; the
    /// Scottish voice's 7–8-frame "hey" 0.19 to 0.54. nil: the minimum alone.
    public var shortLeadDuration: Double? = 0.07
    public var shortLeadMargin = 0.0
    /// How much audio before a short lead its check hears (s).
    public var shortLeadContext = 0.1
    /// Under steady noise a name-like word can fit the name well on average while one half of it does not fit
    /// at all: "davis" and "marcus" match the end of "jarvis", "charlie" its start. The noise blurs the phone
    /// loop as much as the name, so the average margin lets them through. The name's phones are split in two
    /// (the first ⌈n/2⌉, the rest), aligned over its frames, and each half is verified on its own frames
    /// against the phone loop: a wake the second pass finds in steady noise needs both at least this far over it
    /// (nats per frame) at `noisySNR` and under (above it, `halvesMarginFollowsNoisiness`); a wake reported early
    /// (its name verified confidently on the raw audio) is not tested.
    /// Names of fewer than 4 phones are not split. nil: no such test. Measured on the noise set: the halves of
    /// real wake names in noise were under 0 in 8 of 315 woken commands, and the confusable names that passed
    /// every other test had one half at -0.22 to 0.38.
    public var nameHalvesMargin: Double? = 0
    /// Whether, between `cleanSNR` and `noisySNR`, the halves' margin moves from `quietNameHalvesMargin` to
    /// `nameHalvesMargin` with `noisiness`, as the thresholds do (`nameHalvesMargin(at:weakOnly:)`); false: the
    /// noisy margin wherever there is steady noise. Measured: the voice set under white noise (92 commands, its
    /// segments at 20–22 dB SNR) 43.5 → 44.6 % (espeak-ng en-us+f3's "open youtube", second half at −0.08); the
    /// dev set, the noise, room and babble sets, the non-command, name and voice sets and the real recordings the
    /// same, clip by clip (white 15 dB and pink 10 dB segments lie at or under `noisySNR`: the margin is 0 there).
    public var halvesMarginFollowsNoisiness = true
    /// Steady noise drowns the end of a name first: the fricatives of "jarvis"'s second half ("v ah s") lie
    /// where white and pink noise are strongest, while its first half ("jh aa r") is voiced and loud. The names
    /// that pass for it in noise fit its end ("davis", "marcus": their first half fails) or fit its start
    /// weakly ("charlie": 0.68 over the loop at best). So a second half under the margin still holds when the
    /// first half verifies at least `strongFirstHalfMargin` and the second at least `weakSecondHalfMargin`
    /// (nats per frame); the first half's margin never moves. nil: both halves need the margin. Measured on
    /// the noise set and dev white15/babble10 (1,085 clips, 2026-11-26), the halves test had stopped 9 commands
    /// with a first half of 1.6 to 2.7 and a second of −0.29 to 0.36, and every non-command it stopped had a
    /// first half under 0.9 or a second at −∞. With the rule: dev white15 wakes 93.9 → 95.7 %, intents 73.0 →
    /// 73.9 %; the noise set's cwhite15 / pink10 intents 66.1 / 65.2 → 67.0 / 67.0 %; the same false wakes
    /// everywhere (noise set 3, names 8, real negatives 0 with either phrase). 2026-11-27 (stop 46), 1.5 / −0.4
    /// → 1.0 / −1.0, still over the stopped non-commands' first halves: the voice set under white noise 44.6 →
    /// 46.7 % (espeak-ng en-us+f3's "page down", halves 2.4 / −0.74, and flite kal's "scroll up"); the noise
    /// set one more wake and the same intents, with the same 2 false wakes and no false intent over its 625
    /// negatives; the dev, room and name-under-noise sets and the real "jarvis" clips the same, clip by clip.
    public var strongFirstHalfMargin: Double? = 1.0
    public var weakSecondHalfMargin = -1.0
    /// The same test without steady noise, with a far lower bar: a half of the name that cannot be aligned over
    /// 6 frames or more, or fits more than this many nats per frame worse than the phone loop, is not there.
    /// Measured on clean speech (2026-11-25): over 576 true wakes (the dev, non-command and voice sets, 176 real
    /// "jarvis" clips) the weaker half was at least -1.68 (espeak-ng's "jarvis", whose "v ah s" is faint);
    /// of 26 similar names that woke, "hey jasmine" by flite's 8 kHz kal voice had no second half at all and
    /// "hey davos" by festival's ked a first half at -2.32. Tested last (the cheaper tests drop most candidates
    /// first), before an early wake is reported (a wake the second pass drops is still a wake) and in the second
    /// pass for a wake not reported early. nil: not tested.
    public var quietNameHalvesMargin: Double? = -2
    /// Names that differ from the wake name in their first sound ("nervous", "travis", "service" for
    /// "jarvis": n, t, s for jh) fit the name's other phones, so they verify against the phone loop as well as
    /// the name does. The name's onset rivals (its pronunciation with the first consonant replaced by each
    /// other consonant, its voiced or voiceless twin and an affricate's stop (`affricateStops`) excepted, or
    /// dropped) compete with it over its frames: a wake is dropped when the best rival, aligned alone, scores
    /// more than this many nats per frame over the name. Names that start with a vowel have no onset rivals.
    /// nil: no such test. Measured in quiet rooms: real "jarvis" clips had rivals at most 0.45 over the name
    /// (175 of the real recordings), the dev set's commands and non-commands 0.42 (264 wakes); over 132 clean
    /// clips of 11 similar names × 6 voices the 14 that woke had rivals from -0.26 to 0.9 ("nervous"
    /// 0.75–0.9, "travis" by kal16 0.63–0.67, "service" by awb 0.54 and 0.28): 0.5 stops 6 of them. Not under
    /// steady noise (`noisiness` above 0), where the name's first sound drowns and its rivals fit as well: it
    /// cost a fifth of the noisy commands' wakes.
    public var onsetRivalMargin: Double? = 0.5
    /// Under steady noise, where the onset rivals are not asked, how far (dB) the low band must fall from the
    /// word before the name to the name's first sound (`OnsetDip`): the closure of "jh" silences it, the
    /// murmur of a nasal or a vowel does not. nil: not tested.
    public var onsetDipMinimum: Double? = 9
    /// Whether, in a clean segment (SNR at or above `cleanSNR`), the name's rivals also replace its first
    /// syllable's onset and vowel together (`UtteranceRecognizer.onsetRivals`: about 1,200 more, "s er v ah s",
    /// "t r ae v ah s" for "jh aa r v ah s"). Names that share only the end of "jarvis" ("service", "travis") fit
    /// the onset rivals no better than the name, but one of these. Measured (2026-11-28, stop 55): the name set's
    /// false wakes 8 → 5 of 110 ("travis" by flite slt, "service" twice by kal16), the non-command set 142 → 143
    /// of 150 rejected; the real "jarvis" clips (184/192), the dev, voice, other-voice, variant and request sets the
    /// same, clip by clip. Under other talkers' babble they cost the babble set 3 of its 345 commands (29.9 →
    /// 29.0 %), so a segment under `cleanSNR` hears the onset rivals only. Rivals whose onset is the name's own
    /// or its kin ("jh ah r v ah s": the name in another accent) cost a real clip in twenty.
    public var firstSyllableRivals = true
    /// The fewest frames (10 ms) the name's first phone may take when the name's phones are aligned over its
    /// frames in a clean segment or under steady noise (`UtteranceRecognizer.nameOnsetLastsLongEnough`); nil: not
    /// tested. A phone's three states take 3 frames at the least, and a name without its first sound gets no
    /// more: flite slt's "hey harvest" (its "h" said with "hey") woke with a "jh" of 3 frames, past the onset
    /// rivals (0.41 and 0.47 nats per frame over the name). Measured (2026-12-02, stop 81): in clean segments the
    /// real "jarvis" clips' first phones took 5 frames or more (186 wakes), the dev, voice, other-voice, variant,
    /// request and non-command sets' wakes 7 or more (907); under steady noise 5 or more (397 wakes), where
    /// festival kal's "marvis" took 3. Under babble a real name's took 3 and 4 (festival kal): not tested there.
    public var minimumNameOnsetFrames: Int? = 4

    public init() {}
}

extension RecognizerSettings {
    /// The PocketSphinx options of `frequencyWarp`.
    var warpArguments: [(String, String)] { PocketSphinxDecoder.warpArguments(factor: frequencyWarp ?? 1) }
}

extension GrammarGenerator {
    /// The generator of the second pass's grammars under `settings`: its costs, and with `joinedConsonants` the
    /// joined words of `dictionary`'s pronunciations (none without a dictionary).
    public init(commands: CommandSet, settings: RecognizerSettings, dictionary: GrammarDictionary?) {
        self.init(commands: commands, phoneCost: settings.phoneCost, noWakeCost: settings.noWakeCost,
                  garbageCost: settings.garbageCost)
        requestCost = settings.requestCost
        if settings.joinedConsonants { joinPronunciations = dictionary?.pronunciations }
        if let dictionary {
            openVowels = Self.openVowelPronunciations(of: settings.openVowelWords, from: dictionary.pronunciations)
        }
    }
}

extension RecognizerSettings {
    /// The margin (nats per frame over the phone loop) that both halves of the wake name need in a segment of
    /// `noisiness` (0 clean … 1 at `noisySNR` or under, `UtteranceRecognizer.noisiness`): `quietNameHalvesMargin`
    /// without steady noise; `weakCandidateHalvesMargin` when only weak candidates opened the second pass;
    /// else `nameHalvesMargin`, reached from the quiet margin as the noise grows (`halvesMarginFollowsNoisiness`).
    /// nil: no test.
    public func nameHalvesMargin(at noisiness: Double, weakOnly: Bool = false) -> Double? {
        guard noisiness > 0 else { return quietNameHalvesMargin }
        if weakOnly { return weakCandidateHalvesMargin }
        guard let noisy = nameHalvesMargin else { return nil }
        guard halvesMarginFollowsNoisiness, let quiet = quietNameHalvesMargin else { return noisy }
        return quiet + (noisy - quiet) * min(1, noisiness)
    }
}
