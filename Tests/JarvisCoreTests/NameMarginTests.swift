import XCTest
@testable import JarvisCore

/// The wake name's margin at the end of a segment: the second pass's, or the live decoder's latest over its own
/// span of the same name less a penalty, when that is higher (`UtteranceRecognizer.bestNameMargin`).
final class NameMarginTests: XCTestCase {
    func testTheLiveDecodersSpanOfTheSameNameCountsLessThePenalty() {
        // A real "jarvis": 0.96 over the live decoder's frames 31–124, 0.79 over the second pass's 40–118.
        XCTAssertEqual(UtteranceRecognizer.bestNameMargin(0.79, frames: 40...118, live: [(31...124, 0.96)],
                                                          penalty: 0.1), 0.86, accuracy: 1e-12)
        // Less the penalty, a live margin under the second pass's leaves the second pass's.
        XCTAssertEqual(UtteranceRecognizer.bestNameMargin(0.79, frames: 40...118, live: [(31...124, 0.85)],
                                                          penalty: 0.1), 0.79)
        XCTAssertEqual(UtteranceRecognizer.bestNameMargin(0.79, frames: 40...118, live: [], penalty: 0.1), 0.79)
    }

    func testOnlyTheLiveDecodersLatestReadingOfTheNameCounts() {
        // The live decoder read the name three times as the segment went on; its last reading decides, not
        // its best: each earlier reading is not another chance.
        let readings: [(frames: ClosedRange<Int>, margin: Double)] = [(59...107, 0.96), (59...101, 1.11), (59...127, 0.69)]
        XCTAssertEqual(UtteranceRecognizer.bestNameMargin(0.76, frames: 60...110, live: readings, penalty: 0.1), 0.76)
        XCTAssertEqual(UtteranceRecognizer.bestNameMargin(0.5, frames: 60...110, live: readings, penalty: 0.1),
                       0.59, accuracy: 1e-12)
    }

    func testAnotherNameDoesNotCount() {
        // A live candidate elsewhere in the segment (a name said earlier), and one that overlaps this name by
        // less than half of the longer span.
        XCTAssertEqual(UtteranceRecognizer.bestNameMargin(0.7, frames: 200...260, live: [(31...124, 1.5)],
                                                          penalty: 0.1), 0.7)
        XCTAssertEqual(UtteranceRecognizer.bestNameMargin(0.7, frames: 100...160, live: [(60...125, 1.5)],
                                                          penalty: 0.1), 0.7)
        // Exactly half of the longer span overlaps: the same name.
        XCTAssertEqual(UtteranceRecognizer.bestNameMargin(0.7, frames: 100...160, live: [(70...130, 1.5)],
                                                          penalty: 0.1), 1.4, accuracy: 1e-12)
        // The last candidate of this name, after which another name was read elsewhere.
        XCTAssertEqual(UtteranceRecognizer.bestNameMargin(0.7, frames: 100...160,
                                                          live: [(100...158, 1.2), (300...350, 0.2)], penalty: 0.1),
                       1.1, accuracy: 1e-12)
    }
}
