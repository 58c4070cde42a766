import Fetch
import Foundation

/// The failure of a request that no entry of a HAR file matches, from `MockPerformer(replaying:)`. It names the request, the closest recorded request, and how they differ:
///
/// ```text
/// No recorded answer in /fixtures/api.har for GET http://127.0.0.1/search?q=fetch&page=3; the closest recorded
/// request is log.entries[1], GET http://127.0.0.1/search?q=fetch&page=2, which differs in the query: page is "2"
/// recorded, "3" here
/// ```
public struct NoRecordedAnswer: Error, CustomStringConvertible {
    /// The request that found no answer.
    package let request: any Request

    /// The HAR file, when the entries came from one.
    package let file: URL?

    /// The index in `log.entries` of the recorded request closest to ``request``, or `nil` when the file has no
    /// entries.
    package let closestEntry: Int?

    /// The parts in which the closest recorded request differs from ``request``.
    package let differingParts: [HARMatcher.Part]

    /// The request as it was matched: method, URL and body size.
    private let summary: String
    /// The closest recorded request, as it was matched.
    private let closestSummary: String
    /// How they differ, one clause per part.
    private let details: [String]

    init(
        request: any Request,
        summary: String,
        file: URL?,
        closest: (index: Int, summary: String, differences: [HARMatcher.Difference])?
    ) {
        self.request = request
        self.summary = summary
        self.file = file
        self.closestEntry = closest?.index
        self.differingParts = closest?.differences.map(\.part) ?? []
        self.closestSummary = closest?.summary ?? ""
        self.details = closest?.differences.map(\.description) ?? []
    }

    /// What was asked, what is closest, and how it differs.
    public var description: String {
        let source = file?.path ?? "the HAR archive"
        let head = "No recorded answer in \(source) for \(summary)"
        guard let closestEntry else {
            return head + "; it has no entries"
        }
        return head + "; the closest recorded request is log.entries[\(closestEntry)], \(closestSummary), which"
            + " differs in " + details.joined(separator: "; and in ")
    }
}

// MARK: - LocalizedError

extension NoRecordedAnswer: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
