import Foundation
import Testing

/// The source paths the DocC articles cite (`Transports/URLSession/URLSessionTransport.swift`, `Transports/Curl/`)
/// are files and folders of `Sources/Fetch` as they are now, so that a move of a file cannot leave an article
/// pointing at nothing.
@Suite struct ArticlePathTests {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    var articles: URL { directory.appending(path: "../../Sources/Fetch/Fetch.docc").standardizedFileURL }
    var sources: URL { directory.appending(path: "../../Sources/Fetch").standardizedFileURL }

    @Test func everySourcePathAnArticleCitesExists() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: articles.path).filter { $0.hasSuffix(".md") }
        var cited = 0
        for name in names {
            let text = try String(contentsOf: articles.appending(path: name), encoding: .utf8)
            for path in Self.citedPaths(in: text) {
                cited += 1
                let exists = FileManager.default.fileExists(atPath: sources.appending(path: path).path)
                #expect(exists, "\(name) cites `\(path)`, which is not under Sources/Fetch")
            }
        }
        #expect(cited >= 10, "PlatformDifferences.md should cite the files where the sources branch")
    }

    @Test func findsPathsInCodeSpansOnly() {
        let text =
            "A `Transports/Curl/` and `Pipeline/Session.swift` (`#if os(Linux)`), not Core/X.swift or `Package.swift`."
        #expect(Self.citedPaths(in: text) == ["Transports/Curl/", "Pipeline/Session.swift"])
    }

    /// The code spans of `text` that name a source path: a folder and a `.swift` file, or a folder ending in `/`.
    static func citedPaths(in text: String) -> [String] {
        let spans = text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        return spans.filter { span in
            let isPath = span.allSatisfy { $0.isLetter || $0.isNumber || "/+._-".contains($0) }
            return isPath && span.contains("/") && (span.hasSuffix(".swift") || span.hasSuffix("/"))
                && !span.hasPrefix("/") && !span.hasPrefix(".")
        }
    }
}
