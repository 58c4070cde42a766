import Foundation
import Testing

/// Keeps README.md and the samples compiled in this target the same, so that the README's code always compiles.
@Suite struct ReadmeTests {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    @Test func everySwiftBlockOfTheREADMEIsCompiledHere() throws {
        let readme = try String(contentsOf: directory.appending(path: "../../README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme)
        let samples = try Self.sampleRegions(in: directory)
        #expect(blocks.count >= 5, "README.md should show its code in ```swift blocks")
        for block in blocks {
            let isCompiled = samples.contains(block)
            #expect(isCompiled, "README block not found among the compiled samples:\n\(block)")
        }
        for sample in samples {
            let isShown = blocks.contains(sample)
            #expect(isShown, "compiled sample not shown in README.md:\n\(sample)")
        }
    }

    /// The README is the front door, not the manual: the manual is the DocC catalog.
    @Test func theREADMEIsAtMostTwelveKilobytes() throws {
        let readme = try Data(contentsOf: directory.appending(path: "../../README.md"))
        #expect(readme.count <= 12 * 1024, "README.md is \(readme.count) bytes: move material into a DocC article")
    }

    /// Every relative link of the README and of CONTRIBUTING.md reaches a file of the repository (a DocC article, a
    /// folder, a script), and every `#anchor` a heading of the same file.
    @Test func everyLinkOfTheREADMEAndCONTRIBUTINGResolves() throws {
        let root = directory.appending(path: "../..").standardizedFileURL
        for name in ["README.md", "CONTRIBUTING.md"] {
            let markdown = try String(contentsOf: root.appending(path: name), encoding: .utf8)
            let targets = Self.linkTargets(in: markdown)
            #expect(name != "README.md" || targets.count >= 10, "the README should link to the DocC articles")
            for target in targets where !target.contains("://") && !target.hasPrefix("mailto:") {
                let (path, anchor) = Self.split(target)
                if !path.isEmpty {
                    let exists = FileManager.default.fileExists(atPath: root.appending(path: path).path)
                    #expect(exists, "\(name) links to \(path), which does not exist")
                }
                if let anchor, path.isEmpty {
                    #expect(Self.anchors(in: markdown).contains(anchor), "\(name) links to a missing #\(anchor)")
                }
            }
        }
    }

    /// Every article the README links to is one of the DocC catalog's, and the catalog's landing page lists every
    /// article in its Topics, so that none is unreachable on the documentation site.
    @Test func everyArticleIsLinkedFromTheLandingPageAndTheREADMELinksOnlyArticlesThatExist() throws {
        let catalog = directory.appending(path: "../../Sources/Fetch/Fetch.docc").standardizedFileURL
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path)
            .filter { $0.hasSuffix(".md") && $0 != "Fetch.md" }.map { String($0.dropLast(3)) }
        #expect(articles.count >= 12)
        let landing = try String(contentsOf: catalog.appending(path: "Fetch.md"), encoding: .utf8)
        for article in articles {
            #expect(landing.contains("- <doc:\(article)>"), "Fetch.md's Topics do not list \(article)")
        }
        let readme = try String(contentsOf: directory.appending(path: "../../README.md"), encoding: .utf8)
        let linked = Self.linkTargets(in: readme).filter { $0.hasPrefix("Sources/Fetch/Fetch.docc/") }
            .map { String($0.dropFirst("Sources/Fetch/Fetch.docc/".count).dropLast(3)) }
        #expect(Set(linked) == Set(articles), "the README's table should link every article, and only those")
    }

    @Test func findsTheLinksAndAnchorsOfMarkdown() {
        let markdown =
            "# A Title\n\nSee [one](docs/One.md#part), [two](#a-title) and `[not](code)`.\n## Its `code`, too\n"
        #expect(Self.linkTargets(in: markdown) == ["docs/One.md#part", "#a-title"])
        #expect(Self.anchors(in: markdown) == ["a-title", "its-code-too"])
        #expect(Self.split("docs/One.md#part") == ("docs/One.md", "part"))
    }

    /// The targets of the `[text](target)` links of a Markdown text, outside code spans and fenced blocks.
    static func linkTargets(in markdown: String) -> [String] {
        var targets: [String] = []
        var inFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            guard !inFence else {
                continue
            }
            // Code spans are left out: the text between backticks of odd number.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset.isMultiple(of: 2) }.map(\.element).joined(separator: " ")
            var rest = Substring(prose)
            while let close = rest.range(of: "](") {
                let after = rest[close.upperBound...]
                guard let end = after.firstIndex(of: ")") else {
                    break
                }
                targets.append(String(after[..<end]))
                rest = after[end...]
            }
        }
        return targets
    }

    /// GitHub's anchors of the headings of a Markdown text: lowercased, spaces as `-`, punctuation dropped.
    static func anchors(in markdown: String) -> [String] {
        markdown.split(separator: "\n").filter { $0.hasPrefix("#") }.map { heading in
            let title = heading.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.filter { $0 == " " || $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            return kept.replacingOccurrences(of: " ", with: "-")
        }
    }

    /// A link's path and its anchor, if any.
    static func split(_ target: String) -> (String, String?) {
        guard let hash = target.firstIndex(of: "#") else {
            return (target, nil)
        }
        return (String(target[..<hash]), String(target[target.index(after: hash)...]))
    }

    /// The bodies of the ```swift fenced blocks of a Markdown text.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if let lines = current, line == "```" {
                blocks.append(dedented(lines))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The regions between `// <marker>-BEGIN` and `// <marker>-END` of the Swift files in `directory`, dedented.
    static func sampleRegions(in directory: URL, marker: String = "README") throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
        return try sampleRegions(in: files, marker: marker)
    }

    /// The regions of `files` between `// <marker>-BEGIN` and `// <marker>-END`, dedented.
    static func sampleRegions(in files: [URL], marker: String) throws -> [String] {
        var regions: [String] = []
        for file in files {
            var current: [Substring]?
            for line in try String(contentsOf: file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed == "// \(marker)-BEGIN" {
                    current = []
                } else if trimmed == "// \(marker)-END", let lines = current {
                    regions.append(dedented(lines))
                    current = nil
                } else {
                    current?.append(line)
                }
            }
        }
        return regions
    }

    /// The lines joined, with the indentation they all share removed.
    static func dedented(_ lines: [Substring]) -> String {
        let indents = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix(while: { $0 == " " }).count }
        let shared = indents.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(shared)) }.joined(separator: "\n")
    }
}
