import Dispatch
import FetchTesting
import Testing

@Suite struct CapturedTests {
    @Test func keepsEveryValueInOrder() {
        let captured = Captured<Int>()
        #expect(captured.value == nil)
        captured.capture(1)
        captured.capture(2)
        #expect(captured.values == [1, 2])
        #expect(captured.value == 2)
    }

    @Test func waitsForValuesDeliveredLaterFromAnotherThread() async throws {
        let captured = Captured<Int>()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
            captured.capture(1)
            captured.capture(2)
        }
        #expect(try await captured.wait(for: 2) == [1, 2])
        #expect(try await captured.first() == 1)
    }

    @Test func aWaitThatSeesTooFewValuesFailsSayingSo() async throws {
        let captured = Captured<Int>()
        captured.capture(7)
        let error = try await #require(throws: CaptureTimeout.self) {
            try await captured.wait(for: 3, timeout: 0.05)
        }
        #expect(error.wanted == 3)
        #expect(error.received == 1)
        #expect(error.description.hasPrefix("waited 0.05 seconds for 3 values, received 1"))
    }
}
