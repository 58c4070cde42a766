import Fetch
import Foundation
import Testing

@Suite struct DefaultEncodingTests {
    private struct Stamped: Codable, Equatable {
        let at: Date
    }

    /// `{"at": "<text>"}` decoded by the default decoder, then encoded by the default encoder.
    private func roundTrip(_ text: String) throws -> String {
        let decoded = try DefaultDecoding.decoder.decode(Stamped.self, from: Data(#"{"at":"\#(text)"}"#.utf8))
        let encoded = try DefaultEncoding.encoder.encode(decoded)
        let again = try DefaultDecoding.decoder.decode(Stamped.self, from: encoded)
        #expect(again == decoded, "\(text) did not decode back to the same date")
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: String])
        return try #require(object["at"])
    }

    @Test func aDateDecodedWithMillisecondsIsEncodedWithTheSameMilliseconds() throws {
        // Foundation's fractional style cuts .002 (a Double just below it) to .001: every millisecond is tried.
        for millisecond in 0..<1000 {
            let text = "2026-11-30T08:42:12.\(String(format: "%03d", millisecond))Z"
            let expected = millisecond == 0 ? "2026-11-30T08:42:12Z" : text
            #expect(try roundTrip(text) == expected)
        }
    }

    @Test func aDateDecodedWithMicrosecondsKeepsThem() throws {
        #expect(try roundTrip("2026-11-30T08:42:12.345678Z") == "2026-11-30T08:42:12.345678Z")
        #expect(try roundTrip("2026-11-30T08:42:12.000001Z") == "2026-11-30T08:42:12.000001Z")
    }

    @Test func aDateInWholeSecondsIsEncodedInWholeSeconds() throws {
        #expect(try roundTrip("2026-11-30T08:42:12Z") == "2026-11-30T08:42:12Z")
        #expect(try roundTrip("2026-11-30T09:42:12+01:00") == "2026-11-30T08:42:12Z")
    }

    @Test func aFractionBeforeTheEpochBelongsToTheSecondBefore() throws {
        #expect(try roundTrip("1969-12-31T23:59:59.500Z") == "1969-12-31T23:59:59.500Z")
    }

    @Test func anOffsetWithAFractionIsEncodedInUTC() throws {
        #expect(try roundTrip("2026-11-30T09:42:12.345+01:00") == "2026-11-30T08:42:12.345Z")
    }

    @Test func theDecoderStillRefusesWhatIsNotAnInternetDateTime() throws {
        #expect(throws: DecodingError.self) {
            try DefaultDecoding.decoder.decode(Stamped.self, from: Data(#"{"at":"2026-11-30 08:42:12.345"}"#.utf8))
        }
    }
}
