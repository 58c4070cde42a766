import FetchFuzzing
import Foundation
import Testing

/// Replays the fuzz targets' committed seeds (`Fuzz/Corpus/<Target>/`) and reproducers (`Fuzz/Reproducers/<Target>/`)
/// through the same properties that `Fuzz/run` checks, so that an input the fuzzer once broke Fetch with stays a
/// test.
@Suite struct FuzzReplayTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Fuzz")

    /// The files in `Fuzz/<kind>/<target>/`; none when the directory does not exist.
    static func inputs(_ kind: String, of target: FuzzTarget) throws -> [URL] {
        let directory = fuzzDirectory.appending(path: kind).appending(path: target.name)
        guard FileManager.default.fileExists(atPath: directory.path) else {
            return []
        }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func everySeedAndReproducerSatisfiesTheProperty(of name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let seeds = try Self.inputs("Corpus", of: target)
        #expect(!seeds.isEmpty, "Fuzz/Corpus/\(name)/ has no seeds")
        for file in try seeds + Self.inputs("Reproducers", of: target) {
            let failure = target.check(try Data(contentsOf: file))
            #expect(failure == nil, "\(file.path): \(failure ?? "")")
        }
    }

    @Test func everyCorpusDirectoryIsAFuzzTarget() throws {
        let directories = try FileManager.default.contentsOfDirectory(
            atPath: Self.fuzzDirectory.appending(path: "Corpus").path)
        // Fuzz/run fuzzes one target per directory of Fuzz/Corpus, so each must name one, and each target needs one.
        #expect(Set(directories.filter { !$0.hasPrefix(".") }) == Set(FuzzTarget.all.map(\.name)))
    }
}
