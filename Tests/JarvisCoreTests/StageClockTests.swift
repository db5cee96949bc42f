import XCTest
@testable import JarvisCore

final class StageClockTests: XCTestCase {
    /// Burns about `seconds` of the calling thread's CPU.
    private func burn(_ seconds: Double) {
        let end = StageClock.threadCPUSeconds() + seconds
        var x = 1.0
        while StageClock.threadCPUSeconds() < end { for _ in 0..<1000 { x = x * 1.000001 + 1e-9 } }
        XCTAssertGreaterThan(x, 0)
    }

    /// A stage entered inside another is charged to itself alone: the outer stage keeps only its own work, and
    /// the two together are what the outer call took, not more.
    func testANestedStageIsChargedOnce() {
        let clock = StageClock()
        let before = StageClock.threadCPUSeconds()
        clock.measure(.secondPass) {
            burn(0.02)
            clock.measure(.languageModel) { burn(0.05) }
            burn(0.02)
        }
        let took = StageClock.threadCPUSeconds() - before
        let outer = clock.seconds[.secondPass] ?? 0, inner = clock.seconds[.languageModel] ?? 0
        XCTAssertGreaterThanOrEqual(inner, 0.05)
        XCTAssertGreaterThanOrEqual(outer, 0.04)
        XCTAssertLessThan(outer, 0.05, "the inner stage's CPU is not the outer one's too")
        XCTAssertLessThanOrEqual(outer + inner, took + 1e-6)
        XCTAssertEqual(Set(clock.seconds.keys), [.secondPass, .languageModel])
    }

    /// A stage that throws is charged up to the throw, and the stage around it goes on being charged after it.
    func testAThrowingStageIsChargedAndTheOuterOneResumes() {
        struct Failure: Error {}
        let clock = StageClock()
        var threw = false
        clock.measure(.liveDecoder) {
            do {
                try clock.measure(.wakeCandidates) { () throws(Failure) in
                    burn(0.02)
                    throw Failure()
                }
            } catch {
                threw = true
            }
            burn(0.03)
        }
        XCTAssertTrue(threw)
        XCTAssertGreaterThanOrEqual(clock.seconds[.wakeCandidates] ?? 0, 0.02)
        XCTAssertGreaterThanOrEqual(clock.seconds[.liveDecoder] ?? 0, 0.03)
        XCTAssertLessThan(clock.seconds[.wakeCandidates] ?? 0, 0.03)
    }

    /// Without a clock the work runs and nothing is measured.
    func testNoClockRunsTheWorkAlone() {
        var ran = false
        StageClock.measure(nil, .secondPass) { ran = true }
        XCTAssertTrue(ran)
    }
}
