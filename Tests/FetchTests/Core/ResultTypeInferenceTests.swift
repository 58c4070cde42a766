import Foundation
import SpawnSupport
import Testing

/// Calls that name their result type compile with no annotation, and calls that name it nowhere get a diagnostic a
/// person can act on, not the compiler's "failed to produce diagnostic". Checked by type-checking snippets against
/// the Fetch module this test run built.
@Suite struct ResultTypeInferenceTests {
    static let declarations = """
        import Fetch
        import Foundation
        struct GetUUID: Request { var url: URL }
        struct UUIDAnswer: Decodable, Parsable { let uuid: String }
        """

    @Test func theAsFormsNeedNoAnnotation() async throws {
        let output = try await typecheck(
            """
            \(Self.declarations)
            func use(_ performer: any RequestPerforming, _ session: Session, url: URL) async throws {
                let answer = try await performer.perform(GetUUID(url: url), as: UUIDAnswer.self)
                let again = try await session.perform(GetUUID(url: url), as: UUIDAnswer.self)
                print(answer.uuid, again.uuid)
                performer.perform(GetUUID(url: url), as: UUIDAnswer.self) { result in print(result) }
            }
            """)
        #expect(output.status == 0, "\(output.text)")
    }

    @Test func callsThatNameNoTypeSayWhatToDo() async throws {
        let output = try await typecheck(
            """
            \(Self.declarations)
            func use(_ performer: any RequestPerforming, url: URL) async throws {
                let echo = try await performer.perform(GetUUID(url: url))
                print(echo)
                performer.perform(GetUUID(url: url)) { result in print(result) }
            }
            """)
        #expect(output.status != 0)
        #expect(!output.text.contains("failed to produce diagnostic"), "\(output.text)")
        let advice = output.text.components(separatedBy: "perform(request, as: User.self)").count - 1
        #expect(advice >= 2, "expected the advice for both calls:\n\(output.text)")
    }

    /// Runs `swiftc -typecheck` on `source` with the built Fetch module, on a thread of its own: waiting for a
    /// compiler on one of Swift's few cooperative threads would hold up every other test.
    private func typecheck(_ source: String) async throws -> (status: Int32, text: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try typecheckBlocking(source) })
            }
        }
    }

    /// Runs `swiftc -typecheck` on `source` with the built Fetch module; returns its exit status and output.
    private func typecheckBlocking(_ source: String) throws -> (status: Int32, text: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("inference-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("main.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["swiftc", "-typecheck", "-I", modulesDirectory().path]
        // Fetch's C target on Linux (the libcurl boundary): its module map sits in its own build directory.
        let cModuleMap = modulesDirectory().deletingLastPathComponent()
            .appendingPathComponent("CFetchCurl.build/module.modulemap")
        if FileManager.default.fileExists(atPath: cModuleMap.path) {
            arguments += ["-Xcc", "-fmodule-map-file=\(cModuleMap.path)"]
        }
        process.arguments = arguments + [file.path]
        let pipe = try Spawn.run(process) {
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            return pipe
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `.build/<triple>/debug/Modules`, where this test run's `Fetch.swiftmodule` is.
    private func modulesDirectory() -> URL {
        #if canImport(Darwin)
            if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
                return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("Modules")
            }
        #endif
        return Bundle.main.bundleURL.appendingPathComponent("Modules")
    }
}
