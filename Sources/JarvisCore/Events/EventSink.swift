import Foundation

/// Where events go: NDJSON (one object per line, flushed per line) or readable lines, on stdout.
public final class EventPrinter {
    public let json: Bool
    private let output: FileHandle

    public init(json: Bool, output: FileHandle = .standardOutput) {
        self.json = json
        self.output = output
    }

    /// Writes one line; unbuffered, so each event reaches a pipe as soon as it happens.
    public func print(_ event: Event) {
        let line = json ? event.json.serialized() : event.humanLine
        output.write(Data((line + "\n").utf8))
    }
}

/// CPU time (s) of the calling thread so far (`CLOCK_THREAD_CPUTIME_ID`): one worker's share of the process's.
public func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// CPU seconds (user + system) used by this process so far.
public func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}
