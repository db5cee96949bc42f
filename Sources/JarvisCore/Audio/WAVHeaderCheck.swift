import Foundation

/// Checks a RIFF/WAVE header for lies libsndfile would quietly work around: a data chunk that claims more
/// bytes than the file holds (a truncated or forged file), zero channels, or a zero sample rate.
/// Returns a reason, or nil when the header is consistent (or the file is not a WAV). `streamed`: the file holds
/// what arrived through a pipe, whose writer could not go back to fill in the length (sox writes 0x7FFFF000), so a
/// data chunk longer than the file is not a lie.
func wavHeaderProblem(path: String, streamed: Bool = false) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    let fileSize = (try? handle.seekToEnd()).map(Int.init) ?? 0
    try? handle.seek(toOffset: 0)
    guard let head = try? handle.read(upToCount: 64 * 1024), head.count >= 12 else { return nil }
    let bytes = [UInt8](head)
    func tag(_ at: Int) -> String { String(decoding: bytes[at..<(at + 4)], as: UTF8.self) }
    func le32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
    func le16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    guard tag(0) == "RIFF", tag(8) == "WAVE" else { return nil }
    var offset = 12
    while offset + 8 <= bytes.count {
        let id = tag(offset), size = le32(offset + 4)
        if id == "fmt ", offset + 8 + 8 <= bytes.count {
            let channels = le16(offset + 10), rate = le32(offset + 12)
            if channels == 0 { return "its header says it has 0 channels" }
            if rate == 0 { return "its header says its sample rate is 0 Hz" }
        }
        if id == "data" {
            let available = fileSize - (offset + 8)
            // 0 and 0xFFFFFFFF mean "length unknown" (streamed WAV); anything else must fit in the file.
            if !streamed, size != 0, size != 0xFFFF_FFFF, size > available + 1 {
                return "its header claims \(size) bytes of audio but the file holds only \(max(0, available))"
            }
            return nil
        }
        offset += 8 + size + (size & 1)
    }
    return nil
}
