import Fetch
import Testing

@Suite struct TransferProgressTests {
    @Test func theFractionIsKnownOnlyWithAPositiveExpectedSizeAndNeverAboveOne() {
        #expect(TransferProgress(completedBytes: 25, expectedBytes: 100).fractionCompleted == 0.25)
        #expect(TransferProgress(completedBytes: 150, expectedBytes: 100).fractionCompleted == 1)
        #expect(TransferProgress(completedBytes: 25, expectedBytes: nil).fractionCompleted == nil)
        #expect(TransferProgress(completedBytes: 0, expectedBytes: 0).fractionCompleted == nil)
    }

    @Test func theDescriptionSaysTheBytesAndTheTotalWhenKnown() {
        #expect(TransferProgress(completedBytes: 25, expectedBytes: 100).description == "25 of 100 bytes")
        #expect(TransferProgress(completedBytes: 25, expectedBytes: nil).description == "25 bytes")
    }
}
