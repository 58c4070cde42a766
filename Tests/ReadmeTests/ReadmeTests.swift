import Foundation
import Testing

/// Keeps README.md and the samples compiled in this target the same, so that the README's code always compiles.
@Suite struct ReadmeTests {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    @Test func everySwiftBlockOfTheREADMEIsCompiledHere() throws {
        let readme = try String(contentsOf: directory.appending(path: "../../README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme)
        let samples = try Self.sampleRegions(in: directory)
        #expect(blocks.count >= 6, "README.md should show its code in ```swift blocks")
        for block in blocks {
            let isCompiled = samples.contains(block)
            #expect(isCompiled, "README block not found among the compiled samples:\n\(block)")
        }
        for sample in samples {
            let isShown = blocks.contains(sample)
            #expect(isShown, "compiled sample not shown in README.md:\n\(sample)")
        }
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
