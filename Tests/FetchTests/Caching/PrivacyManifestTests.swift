import Foundation
import Testing

/// Apple requires an SDK that calls a required-reason API to declare it in a privacy manifest; the disk cache reads
/// the timestamps of its own files (`lstat`, `fstat`), which is the file-timestamp category.
@Suite struct PrivacyManifestTests {
    static let manifest = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Caching
        .deletingLastPathComponent()  // FetchTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package
        .appendingPathComponent("Sources/Fetch/PrivacyInfo.xcprivacy")

    @Test func theManifestIsAPlistThatDeclaresTheFileTimestampAPIsForFilesInTheAppContainer() throws {
        let data = try Data(contentsOf: Self.manifest)
        let plist = try #require(
            try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        let accessed = try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        let timestamps = try #require(
            accessed.first { $0["NSPrivacyAccessedAPIType"] as? String == "NSPrivacyAccessedAPICategoryFileTimestamp" })
        // C617.1: timestamps of files inside the app's container, where the disk cache writes its own files.
        #expect(timestamps["NSPrivacyAccessedAPITypeReasons"] as? [String] == ["C617.1"])
    }

    @Test func thePackageShipsTheManifestAsAResourceOfTheFetchTarget() throws {
        let package = try String(
            contentsOf: Self.manifest.deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Package.swift"),
            encoding: .utf8)
        #expect(package.contains(#"resources: [.copy("PrivacyInfo.xcprivacy")]"#))
    }
}
