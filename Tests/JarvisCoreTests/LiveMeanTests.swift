import CPocketSphinx
import XCTest
@testable import JarvisCore

/// The live decoder's cepstral mean is set without sphinxbase's `cmn_live_set` (whose 28 log lines per call cost
/// 2 % of the CPU in speech), to the same state: the mean, and the window's sum and frame count.
final class LiveMeanTests: XCTestCase {
    func testSettingTheMeanLeavesWhatCmnLiveSetLeaves() throws {
        let length: Int32 = 13
        let mean: [Float] = (0..<Int(length)).map { Float($0) * 0.37 - 2.1 }
        let theirs = try XCTUnwrap(cmn_init(length)), ours = try XCTUnwrap(cmn_init(length))
        defer { cmn_free(theirs); cmn_free(ours) }
        mean.withUnsafeBufferPointer { cmn_live_set(theirs, $0.baseAddress) }
        mean.withUnsafeBufferPointer { jarvis_cmn_set(ours, $0.baseAddress) }
        let count = Int(length)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: ours.pointee.cmn_mean, count: count)),
                       Array(UnsafeBufferPointer(start: theirs.pointee.cmn_mean, count: count)))
        XCTAssertEqual(Array(UnsafeBufferPointer(start: ours.pointee.sum, count: count)),
                       Array(UnsafeBufferPointer(start: theirs.pointee.sum, count: count)))
        XCTAssertEqual(ours.pointee.nframe, theirs.pointee.nframe)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: ours.pointee.cmn_mean, count: count)), mean)
    }
}
