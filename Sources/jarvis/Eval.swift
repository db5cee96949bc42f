import ArgumentParser
import Foundation
import JarvisCore

extension Jarvis {
    struct Eval: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Score the pipeline on evaluation manifests, in one process (the table of ../shared/eval/score.py).",
            discussion: """
            A manifest has one JSON object per line: {"file", "kind", "cond", "expect": {"wake", "intents": \
            [{"name", "slots", "t"}]}} (../shared/eval/devset.py and realset.py write them). Each clip is replayed \
            from a fresh pipeline state with dry-run actions; the models are loaded once per worker. Rows and \
            columns are those of score.py; clips of kind "rejection" (the wake phrase, then no command) add the share \
            of them rejected, and clips that say a command add how many of them were acted on wrongly (an intent \
            that is not the one said: score.py counts them with the misses; searches for other words apart) and, per \
            slice, why those that did nothing did nothing (no wake, or the reason they were rejected). With \
            --json, one line: score.py's summary object. --outcomes keeps each clip's result and a later run's \
            --against compares with it, clip by clip (a change's gains and losses). `make eval` runs the dev set, \
            this project's other sets and the real recordings, each compared with its last run.
            """)

        @Argument(help: "Manifest files (JSON lines); several are scored as one table.")
        var manifests: [String]

        @Option(name: .long, help: "Worker threads (each loads its own decoders).")
        var jobs = 2

        @Option(name: .long, help: "Only clips whose kind starts with one of these (comma-separated).")
        var kinds: String?

        @Flag(name: .long, help: ArgumentHelp(
            "List the clips that were scored wrong, with what was heard (for a rejection, its reason and words).",
            discussion: "With --transcripts, also the clips whose transcript has word errors ('misheard' lines)."))
        var failures = false

        @Flag(name: .long, help: ArgumentHelp(
            "One row per slice and voice (the manifest's \"voice\"; '-' where a line has none).",
            discussion: "Which talkers a change helps or hurts; the summary line is the same."))
        var byVoice = false

        @Flag(name: .long, help: ArgumentHelp(
            "Also transcribe each clip whose manifest line has a text with the language model; print word error rates.",
            discussion: """
            The whole clip (at most 60 s) is heard as a search's query is heard in a clean segment. On the real \
            recordings (realset.py gives their transcripts) this says whether a change to the recogniser helps \
            recorded voices, not only synthetic ones.
            """))
        var transcripts = false

        @Option(name: .long, help: ArgumentHelp(
            "Write each clip's result to this file (JSON lines: file, slice, ok, outcome), for a later --against.",
            valueName: "file"))
        var outcomes: String?

        @Option(name: .long, help: ArgumentHelp(
            "Compare with the results an earlier --outcomes wrote: the clips gained, lost and changed.",
            discussion: """
            Printed under the table: a count line, then 'gained', 'lost' and 'changed' (wrong before and after, \
            with another outcome) lines, each with what came out before and now. Clips are matched by file name \
            and slice, so a dev set rebuilt in another folder compares too.
            """,
            valueName: "file"))
        var against: String?

        @OptionGroup var common: CommonOptions

        func validate() throws {
            if manifests.isEmpty { throw ValidationError("Give at least one manifest.") }
            guard (1...16).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 16.") }
            if against != nil, common.json {
                throw ValidationError("--against prints under the table; leave out --json.")
            }
        }

        /// Says `message` in one line on standard error; the exit for a bad file argument (status 2).
        static func refuse(_ message: String) -> ExitCode {
            FileHandle.standardError.write(Data("jarvis: \(message)\n".utf8))
            return ExitCode(ExitStatus.usage)
        }

        static func cannotWrite(_ path: String) -> String {
            "the outcomes cannot be written to '\(path)'; check that its folder exists and is writable."
        }

        /// Whether `path` can be written (replaced, as the outcomes are: its folder must be writable), without
        /// touching it.
        static func canWrite(_ path: String) -> Bool {
            let folder = (path as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { return false }
            return FileManager.default.isWritableFile(atPath: folder.isEmpty ? "." : folder)
        }

        func run() throws {
            let setup = try RunSetup.load(common)
            var entries: [ManifestEntry] = []
            for path in manifests {
                do { entries += try ManifestEntry.load(path) } catch {
                    FileHandle.standardError.write(Data("jarvis: \(error)\n".utf8))
                    throw ExitCode(ExitStatus.audioInput)
                }
            }
            if let kinds {
                let prefixes = kinds.split(separator: ",").map(String.init)
                entries = entries.filter { e in prefixes.contains { e.kind.hasPrefix($0) } }
            }
            // Both files checked before the run, which may take minutes: a bad one fails at once. The two may be
            // one file (compare with the last run, then keep this one).
            var earlier: [ClipResult]?
            if let against {
                do { earlier = try ClipResult.load(against) } catch { throw Self.refuse("\(error)") }
            }
            if let outcomes, !Self.canWrite(outcomes) { throw Self.refuse(Self.cannotWrite(outcomes)) }
            let table: EvaluationTable
            do {
                table = try Evaluation.run(entries, settings: setup.settings, commands: setup.commands, jobs: jobs,
                                           transcripts: transcripts, byVoice: byVoice)
            } catch {
                RunSetup.fail("\(error)", code: "recogniser", status: ExitStatus.recogniser,
                              printer: EventPrinter(json: common.json))
            }
            if common.json {
                print(table.summary.serialized())
            } else {
                print(table.render(), terminator: "")
                if let earlier, let against {
                    print(EvaluationComparison(before: earlier, now: table.results).render(
                        against: (against as NSString).lastPathComponent), terminator: "")
                }
                if failures {
                    for f in table.failures { print("miss \((f.file as NSString).lastPathComponent): \(f.got)") }
                    for m in table.misheard {
                        let said = m.said.joined(separator: " "), heard = m.heard.joined(separator: " ")
                        print("misheard \((m.file as NSString).lastPathComponent): said '\(said)', heard '\(heard)'")
                    }
                }
            }
            // After the table, so a failed write loses nothing of it.
            if let outcomes {
                do {
                    try table.results.map { $0.serialized() + "\n" }.joined()
                        .write(toFile: outcomes, atomically: true, encoding: .utf8)
                } catch { throw Self.refuse(Self.cannotWrite(outcomes)) }
            }
        }
    }
}
