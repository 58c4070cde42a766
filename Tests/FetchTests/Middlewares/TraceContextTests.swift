import Fetch
import Foundation
import Testing

@Suite struct TraceContextTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let spanID = "00f067aa0ba902b7"

    @Test func readsAVersion00Traceparent() throws {
        let sampled = try #require(TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-01"))
        #expect(sampled.traceID == Self.traceID)
        #expect(sampled.spanID == Self.spanID)
        #expect(sampled.isSampled)
        #expect(sampled.state == nil)
        #expect(sampled.traceparent == "00-\(Self.traceID)-\(Self.spanID)-01")

        let unsampled = try #require(TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-00"))
        #expect(!unsampled.isSampled)
        #expect(unsampled.traceparent.hasSuffix("-00"))
    }

    @Test func readsTheSampledFlagAsABitAndSendsNoUnknownFlag() throws {
        let flags09 = try #require(TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-09"))
        #expect(flags09.isSampled)
        #expect(flags09.traceparent == "00-\(Self.traceID)-\(Self.spanID)-01")
        let flags02 = try #require(TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-02"))
        #expect(!flags02.isSampled)
    }

    @Test(arguments: [
        "",
        "00",
        "00-\(traceID)-\(spanID)",
        "00-\(traceID.uppercased())-\(spanID)-01",  // uppercase trace id
        "00-\(traceID)-\(spanID.uppercased())-01",  // uppercase parent id
        "00-\(traceID)-\(spanID)-0A",  // uppercase flags
        "0A-\(traceID)-\(spanID)-01",  // uppercase version
        "00-00000000000000000000000000000000-\(spanID)-01",  // all-zero trace id
        "00-\(traceID)-0000000000000000-01",  // all-zero parent id
        "00-\(traceID.dropLast())-\(spanID)-01",  // 31 digits
        "00-\(traceID)0-\(spanID)-01",  // 33 digits
        "00-\(traceID)-\(spanID.dropLast())-01",  // 15 digits
        "00-\(traceID)-\(spanID)0-01",  // 17 digits
        "00-\(traceID)-\(spanID)-1",  // one flag digit
        "00-\(traceID)-\(spanID)-01-",  // version 00 has nothing after its flags
        "00-\(traceID)-\(spanID)-01-future",
        "00-\(traceID)-\(spanID)-010",
        "00_\(traceID)-\(spanID)-01",  // wrong delimiter
        "00-\(traceID)_\(spanID)-01",
        "00-\(traceID)-\(spanID)_01",
        "ff-\(traceID)-\(spanID)-01",  // version ff is forbidden
        "0-\(traceID)-\(spanID)-01",
        " 00-\(traceID)-\(spanID)-01",
        "00-\(traceID)-\(spanID)-01 ",
        "00-4bf92f3577b34da6a3ce929d0e0e473g-\(spanID)-01",  // not hexadecimal
        "00-4bf92f3577b34da6a3ce929d0e0e473é-\(spanID)-01",  // not ASCII
    ])
    func rejectsATraceparentThatBreaksTheGrammar(_ value: String) {
        #expect(TraceContext(traceparent: value) == nil)
    }

    @Test func readsALaterVersionByItsFirstFields() throws {
        let bare = try #require(TraceContext(traceparent: "cc-\(Self.traceID)-\(Self.spanID)-01"))
        #expect(bare.traceID == Self.traceID)
        #expect(bare.spanID == Self.spanID)
        #expect(bare.isSampled)
        #expect(bare.traceparent == "00-\(Self.traceID)-\(Self.spanID)-01")

        let extended = try #require(TraceContext(traceparent: "cc-\(Self.traceID)-\(Self.spanID)-01-what-comes-next"))
        #expect(extended.spanID == Self.spanID)
        #expect(TraceContext(traceparent: "cc-\(Self.traceID)-\(Self.spanID)-01.what-comes-next") == nil)
        #expect(TraceContext(traceparent: "cc-\(Self.traceID)-\(Self.spanID)") == nil)
    }

    @Test func keepsAValidTracestateWithoutItsWhitespaceAndEmptyMembers() throws {
        let context = try #require(
            TraceContext(
                traceparent: "00-\(Self.traceID)-\(Self.spanID)-01",
                tracestate: " rojo=00f067aa0ba902b7 ,, \t,congo=t61rcWkgMzE,tenant@system= a value"))
        #expect(context.state == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE,tenant@system= a value")
    }

    @Test(arguments: [
        "Rojo=1",  // uppercase key
        "_rojo=1",  // a key starts with a letter or digit
        "rojo",  // no value
        "rojo=",  // an empty value
        "rojo=a=b",  // = in a value
        "rojo=1,rojo=2",  // a repeated key
        "rojo=caf\u{E9}",  // not ASCII
        "rojo=a\tb",  // a tab inside a value
        "\(String(repeating: "k", count: 257))=1",  // a key of 257 characters
        "rojo=\(String(repeating: "v", count: 257))",  // a value of 257
        (1...33).map { "k\($0)=v" }.joined(separator: ","),  // 33 members
    ])
    func dropsAnInvalidTracestateButKeepsTheTrace(_ tracestate: String) throws {
        let context = try #require(
            TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-01", tracestate: tracestate))
        #expect(context.traceID == Self.traceID)
        #expect(context.state == nil)
    }

    @Test func keeps32MembersAndAnEmptyTracestateIsNone() throws {
        let members = (1...32).map { "k\($0)=v" }.joined(separator: ",")
        let full = TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-01", tracestate: members)
        #expect(full?.state == members)
        let empty = TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-01", tracestate: " , ")
        #expect(empty?.state == nil)
    }

    @Test func truncatesALongTracestateByWholeMembersLongOnesFirst() throws {
        let long = "big=" + String(repeating: "x", count: 200)
        let members = (1...5).map { "k\($0)=" + String(repeating: "\($0)", count: 100) }
        let state = ([members[0], long] + members[1...]).joined(separator: ",")
        let context = try #require(TraceContext(traceparent: "00-\(Self.traceID)-\(Self.spanID)-01", tracestate: state))
        // 5 members of 103 characters and 4 commas make 519: the long one goes first, then the last one.
        #expect(context.state == members[0..<4].joined(separator: ","))
        #expect((context.state?.utf8.count ?? 0) <= 512)
    }

    @Test func aNewTraceHasRandomIdsThatReadBack() throws {
        let first = TraceContext()
        let second = TraceContext(isSampled: false)
        #expect(first.isSampled)
        #expect(!second.isSampled)
        #expect(first.traceID != second.traceID)
        #expect(first.spanID != second.spanID)
        for context in [first, second] {
            let read = try #require(TraceContext(traceparent: context.traceparent))
            #expect(read == context)
            #expect(context.traceID.count == 32)
            #expect(context.spanID.count == 16)
        }
    }

    @Test func anUnsetCurrentTraceIsNoneAndASetOneIsScoped() throws {
        #expect(TraceContext.current == nil)
        let trace = TraceContext()
        TraceContext.$current.withValue(trace) {
            #expect(TraceContext.current == trace)
        }
        #expect(TraceContext.current == nil)
    }
}
