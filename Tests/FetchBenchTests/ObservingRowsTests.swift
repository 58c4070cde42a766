import Testing

@testable import FetchBench

@Suite struct ObservingRowsTests {
    @Test func observingIsAGroupOfOnlyThatQuickRuns() {
        #expect(Options(["--only", "observing"]).problem == nil)
        #expect(Options(["--only", "observing"]).runs("observing"))
        #expect(!Options(["--only", "observing"]).runs("websocket"))
        #expect(Options(["--quick"]).runs("observing"))
    }
}
