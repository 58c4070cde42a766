import Foundation
import Testing

/// Keeps the code samples of the documentation (the `///` doc comments in Sources and the articles of the DocC
/// catalogs) and the samples compiled in this target the same, so that the documentation's code always compiles.
///
/// A sample is compiled between `// DOC-BEGIN` and `// DOC-END` in a file of this target, verbatim but for
/// indentation, in a scope that supplies what it takes for granted. This target has no `package` access
/// (`packageAccess: false` in Package.swift), so a sample compiles as a user's code would, against the public API
/// only. The samples of `package` declarations' doc comments, which users never see, are compiled in FetchTests'
/// `PackageDocSamples.swift` instead, between `// PACKAGE-DOC-BEGIN` and `// PACKAGE-DOC-END`.
@Suite struct DocSampleTests {
    /// One ```swift block of the documentation, and where it is.
    struct Block: CustomStringConvertible {
        let file: String
        let line: Int
        let code: String
        /// Whether the block documents a `package` declaration.
        var isPackage = false

        var description: String { "\(file):\(line)" }
    }

    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    var sources: URL { directory.appending(path: "../../Sources").standardizedFileURL }
    var packageSamples: URL { directory.appending(path: "../FetchTests/Support/PackageDocSamples.swift") }

    @Test func everySwiftBlockOfADocCommentIsCompiledHere() throws {
        let blocks = try Self.docCommentBlocks(under: sources)
        let samples = try ReadmeTests.sampleRegions(in: directory, marker: "DOC")
        let packageSamples = try ReadmeTests.sampleRegions(in: [packageSamples], marker: "PACKAGE-DOC")
        #expect(blocks.count >= 28, "Sources should show code in ```swift blocks of /// comments")
        for block in blocks {
            let isCompiled = (block.isPackage ? packageSamples : samples).contains(block.code)
            let place = block.isPackage ? "FetchTests' PackageDocSamples.swift" : "the compiled samples"
            #expect(isCompiled, "doc comment sample at \(block) not found among \(place):\n\(block.code)")
        }
    }

    @Test func aSampleOfAPackageDeclarationIsKnownAsOne() {
        let source = """
            /// A public type.
            ///
            /// ```swift
            /// publicSample()
            /// ```
            @available(macOS 13, *)
            public struct A {}

            /// A package type.
            ///
            /// ```swift
            /// packageSample()
            /// ```
            package struct B {}
            """
        let blocks = Self.docCommentBlocks(inSwift: source, file: "A.swift")
        #expect(blocks.map(\.code) == ["publicSample()", "packageSample()"])
        #expect(blocks.map(\.isPackage) == [false, true])
    }

    @Test func everySwiftBlockOfADocCArticleIsCompiledHere() throws {
        let blocks = try Self.articleBlocks(under: sources)
        let samples = try ReadmeTests.sampleRegions(in: directory, marker: "DOC")
        #expect(blocks.count >= 10, "the DocC articles should show code in ```swift blocks")
        for block in blocks {
            let isCompiled = samples.contains(block.code)
            #expect(isCompiled, "article sample at \(block) not found among the compiled samples:\n\(block.code)")
        }
    }

    @Test func everyCompiledSampleIsShownInTheDocumentation() throws {
        let comments = try Self.docCommentBlocks(under: sources)
        let shown = comments.filter { !$0.isPackage }.map(\.code) + (try Self.articleBlocks(under: sources)).map(\.code)
        for sample in try ReadmeTests.sampleRegions(in: directory, marker: "DOC") {
            let isShown = shown.contains(sample)
            #expect(isShown, "compiled sample not shown in a public doc comment or an article:\n\(sample)")
        }
        let shownInPackage = comments.filter(\.isPackage).map(\.code)
        for sample in try ReadmeTests.sampleRegions(in: [packageSamples], marker: "PACKAGE-DOC") {
            let isShown = shownInPackage.contains(sample)
            #expect(isShown, "PackageDocSamples.swift sample not shown in a package doc comment:\n\(sample)")
        }
    }

    @Test func findsTheSwiftBlocksOfDocComments() {
        let source = """
            /// A type.
            ///
            /// ```swift
            /// let a = 1
            ///
            ///     indented()
            /// ```
            ///
            /// ```
            /// not swift
            /// ```
            struct A {
                /// ```swift
                /// member()
                /// ```
                func b() {}

                /// ```swift
                /// unclosed()
                func c() {}
            }
            """
        let blocks = Self.docCommentBlocks(inSwift: source, file: "A.swift")
        #expect(blocks.map(\.code) == ["let a = 1\n\n    indented()", "member()", "unclosed()"])
        #expect(blocks.map(\.description) == ["A.swift:3", "A.swift:13", "A.swift:18"])
    }

    /// The ```swift blocks of the `///` comments of every Swift file under `directory`.
    static func docCommentBlocks(under directory: URL) throws -> [Block] {
        try files(under: directory) { $0.pathExtension == "swift" }.flatMap { file in
            docCommentBlocks(inSwift: try String(contentsOf: file, encoding: .utf8), file: name(of: file))
        }
    }

    /// The ```swift blocks of the Markdown files of every `.docc` catalog under `directory`.
    static func articleBlocks(under directory: URL) throws -> [Block] {
        try files(under: directory) { $0.pathExtension == "md" && $0.path.contains(".docc/") }.flatMap { file in
            let lines = try String(contentsOf: file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            return blocks(in: lines.map { Optional($0) }, file: name(of: file))
        }
    }

    /// The ```swift blocks of the `///` comments of Swift `source`.
    static func docCommentBlocks(inSwift source: String, file: String) -> [Block] {
        // The doc comment's text is what follows `///` and one space; other lines are `nil`, which end a block.
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring? in
            let trimmed = line.drop(while: { $0 == " " })
            guard trimmed.hasPrefix("///") else {
                return nil
            }
            let content = trimmed.dropFirst(3)
            return content.first == " " ? content.dropFirst() : content
        }
        // Whether the declaration after each line's comment is a `package` one (attributes on their own lines
        // skipped).
        let sourceLines = source.split(separator: "\n", omittingEmptySubsequences: false)
        var declaresPackage = [Bool](repeating: false, count: sourceLines.count)
        var next = false
        for index in sourceLines.indices.reversed() {
            let trimmed = sourceLines[index].drop(while: { $0 == " " })
            if !trimmed.hasPrefix("///") && !trimmed.hasPrefix("@") {
                next = trimmed.hasPrefix("package ")
            }
            declaresPackage[index] = next
        }
        return blocks(in: lines, file: file).map { block in
            var block = block
            block.isPackage = declaresPackage[block.line - 1]
            return block
        }
    }

    /// The ```swift fenced blocks of Markdown `lines`, dedented, each with the line of its opening fence. A `nil`
    /// line (code after a doc comment) ends a block that was not closed.
    static func blocks(in lines: [Substring?], file: String) -> [Block] {
        var blocks: [Block] = []
        var current: (line: Int, lines: [Substring])?
        for (index, line) in lines.enumerated() {
            let fence = line?.trimmingCharacters(in: .whitespaces)
            if let block = current, line == nil || fence == "```" {
                blocks.append(Block(file: file, line: block.line, code: ReadmeTests.dedented(block.lines)))
                current = nil
            } else if current == nil, fence == "```swift" {
                current = (index + 1, [])
            } else if let line {
                current?.lines.append(line)
            }
        }
        if let block = current {
            blocks.append(Block(file: file, line: block.line, code: ReadmeTests.dedented(block.lines)))
        }
        return blocks
    }

    /// The files under `directory`, in a stable order, that `isIncluded` accepts.
    static func files(under directory: URL, where isIncluded: (URL) -> Bool) throws -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory.path])
        }
        return enumerator.compactMap { $0 as? URL }.filter(isIncluded).sorted { $0.path < $1.path }
    }

    /// The path of `file` from `Sources/`, for messages.
    static func name(of file: URL) -> String {
        let components = file.standardizedFileURL.pathComponents
        let start = components.lastIndex(of: "Sources").map { components.index(after: $0) } ?? components.startIndex
        return components[start...].joined(separator: "/")
    }
}
