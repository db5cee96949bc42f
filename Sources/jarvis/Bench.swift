import ArgumentParser
import Foundation
import JarvisCore

extension Jarvis {
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure the pipeline's cost and latency over audio files (make bench prints the full table).",
            discussion: """
            Each file is fed 20 ms at a time, as live capture feeds it, with dry-run actions. Reported per file: \
            CPU seconds per minute of audio and share of one core (model loading excluded, shown apart), peak \
            resident memory, and the median latency, in audio time, from the end of the wake phrase to the \
            wake event and from the end of the command to the intent event. A second table says where the CPU \
            went: the share of it in the live decoder, in checking its wake candidates, in the second pass at \
            the end of each segment, in the language model's decodes and in loading it, in making a \
            recogniser mid-run, and in the rest (VAD, noise reduction, pitch).
            """)

        @Argument(help: "Audio files.")
        var files: [String]

        @OptionGroup var common: CommonOptions

        func validate() throws {
            if files.isEmpty { throw ValidationError("Give at least one audio file.") }
        }

        func run() throws {
            let setup = try RunSetup.load(common)
            if !common.json {
                print("file                                   audio s  cpu s/min  core %  load s  peak MB  end MB  wakes  intents  wake lat  intent lat")
            }
            var stageRows: [(String, [Double])] = []
            for path in files {
                let r: BenchmarkResult
                do {
                    r = try Benchmark.run(path: path, settings: setup.settings, commands: setup.commands)
                } catch let error as AudioInputError {
                    FileHandle.standardError.write(Data(("jarvis: " + error.message + "\n").utf8))
                    throw ExitCode(ExitStatus.audioInput)
                }
                if common.json {
                    print(r.json.serialized())
                } else {
                    func ms(_ v: Double?) -> String { v.map { String(format: "%6.0f ms", $0 * 1000) } ?? "       -" }
                    let name = (path as NSString).lastPathComponent
                    stageRows.append((name, r.stagePercents))
                    print(name.padding(toLength: max(38, name.count), withPad: " ", startingAt: 0) + String(format: " %8.1f %10.3f %7.2f %7.2f %8.1f %7.1f %6d %8d  %@  %@",
                                 r.audioSeconds, r.cpuPerAudioMinute, r.corePercent,
                                 r.loadCPUSeconds, Double(r.peakRSSBytes) / 1_048_576, Double(r.endRSSBytes) / 1_048_576, r.wakes, r.intents,
                                 ms(BenchmarkResult.median(r.wakeLatencies)), ms(BenchmarkResult.median(r.intentLatencies))))
                }
            }
            guard !common.json else { return }
            let columns = StageClock.Stage.allCases.map(\.label) + ["other"]
            print("\nCPU by stage (% of the cpu above)")
            print("file".padding(toLength: 38, withPad: " ", startingAt: 0) + columns.map { " " + $0 }.joined())
            for (name, percents) in stageRows where !percents.isEmpty {
                print(name.padding(toLength: max(38, name.count), withPad: " ", startingAt: 0)
                      + zip(columns, percents).map { String(format: " %\($0.0.count).1f", $0.1) }.joined())
            }
        }
    }
}
