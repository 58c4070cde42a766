import Foundation

/// One fuzzed parser or encoder of outside input: a name and a property that must hold for every input.
///
/// The libFuzzer driver (`Fuzz/Driver`, built by `Fuzz/run`) runs ``check`` on generated inputs, and
/// `FuzzReplayTests` runs it on the committed seeds (`Fuzz/Corpus/<name>/`) and reproducers
/// (`Fuzz/Reproducers/<name>/`), so a crash that the fuzzer once found stays a failing test until it is fixed.
///
/// Adding a target: write its property as a `static func …(_ input: Data) -> String?` in a file of its own,
/// add one line to ``all``, and add a few seed inputs to `Fuzz/Corpus/<name>/`.
package struct FuzzTarget: Sendable {
    /// The name `Fuzz/run` and the corpus directories use, such as `HTTPDate`.
    package let name: String

    /// Checks the property on one input: `nil` when it holds, otherwise what went wrong, with the input.
    package let check: @Sendable (Data) -> String?

    /// Every fuzz target.
    package static let all: [FuzzTarget] = [
        FuzzTarget(name: "HTTPDate", check: HTTPDateProperties.check),
        FuzzTarget(name: "RetryAfter", check: RetryAfterProperties.check),
        FuzzTarget(name: "CacheControl", check: CacheControlProperties.check),
        FuzzTarget(name: "HeaderValidation", check: HeaderValidationProperties.check),
        FuzzTarget(name: "PercentEncoding", check: PercentEncodingProperties.check),
        FuzzTarget(name: "MultipartBody", check: MultipartBodyProperties.check),
        FuzzTarget(name: "ServerSentEvent", check: ServerSentEventProperties.check),
        FuzzTarget(name: "ResponseHead", check: ResponseHeadProperties.check),
        FuzzTarget(name: "WireNumber", check: WireNumberProperties.check),
        FuzzTarget(name: "DiskResponseFile", check: DiskResponseFileProperties.check),
        FuzzTarget(name: "WebSocketFrames", check: WebSocketFrameProperties.check),
        FuzzTarget(name: "HARRedaction", check: HARRedactionProperties.check),
        FuzzTarget(name: "TraceContext", check: TraceContextProperties.check),
    ]

    /// The target called `name`, if there is one.
    package static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
