import Foundation

/// The one-line live level meter of `jarvis listen` on a terminal: a dBFS bar and the state, redrawn in
/// place with `\r` on stderr at most ten times a second. Used only in readable mode with stderr a TTY.
public final class LevelMeter {
    /// Bar range: -60 dBFS (empty) to 0 dBFS (full).
    public static let floorDB = -60.0
    public static let width = 30
    static let minInterval = 0.1

    private let output: FileHandle
    private var lastDraw = Date.distantPast
    private var drawn = false
    private var peakDB = LevelMeter.floorDB

    public init(output: FileHandle = .standardError) {
        self.output = output
    }

    /// RMS level in dBFS (full scale = 32768), at least `floorDB`.
    public static func dBFS<C: Collection>(_ samples: C) -> Double where C.Element == Int16 {
        guard !samples.isEmpty else { return floorDB }
        var sum = 0.0
        for s in samples { let x = Double(s) / 32768; sum += x * x }
        let rms = (sum / Double(samples.count)).squareRoot()
        return max(floorDB, 20 * log10(max(rms, 1e-10)))
    }

    /// The meter line for a level and a state, e.g. `[#########.....] -32 dBFS  listening`.
    public static func line(dB: Double, state: LiveState) -> String {
        let fraction = (min(0, max(floorDB, dB)) - floorDB) / -floorDB
        let filled = Int((fraction * Double(width)).rounded())
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "[\(bar)] \(String(format: "%4.0f", dB)) dBFS  \(state.rawValue)"
    }

    /// Records a chunk's level; redraws when 0.1 s has passed since the last drawing.
    public func update(_ samples: [Int16], state: LiveState) {
        peakDB = max(peakDB, Self.dBFS(samples))
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= Self.minInterval else { return }
        lastDraw = now
        output.write(Data(("\r\u{1B}[2K" + Self.line(dB: peakDB, state: state)).utf8))
        drawn = true
        peakDB = Self.floorDB
    }

    /// Erases the meter line (before an event line is printed, and at the end).
    public func clear() {
        guard drawn else { return }
        output.write(Data("\r\u{1B}[2K".utf8))
        drawn = false
        lastDraw = .distantPast
    }
}
