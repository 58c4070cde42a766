import Foundation
import Testing

@testable import FetchExample

@Suite struct ConfigurationTests {
    @Test func theShippedConfigurationUsesTheEmbeddedBackend() throws {
        let configuration = try Configuration.load(from: ExampleFiles.configuration)
        #expect(configuration.server == nil && configuration.username == "ada")
        #expect(configuration.maxPOExpense == Money(cents: 500_000) && configuration.timeout == 10)
    }

    @Test func flagsOverrideTheFile() throws {
        let file = try Configuration.load(from: ExampleFiles.configuration)
        let options = try Options(arguments: ["--server", "http://127.0.0.1:9000/", "--max-po-expense", "100"])
        let configuration = file.overridden(by: options)
        #expect(configuration.server?.port == 9000 && configuration.maxPOExpense == Money(cents: 10_000))
        #expect(configuration.username == file.username)
    }

    @Test func embeddedOverridesAServerInTheFile() throws {
        var file = try Configuration.load(from: ExampleFiles.configuration)
        file.server = URL(string: "http://127.0.0.1:9000/")
        #expect(file.overridden(by: try Options(arguments: ["--embedded"])).server == nil)
    }

    @Test func aMissingFileIsNamedInTheError() {
        let missing = URL(fileURLWithPath: "/nonexistent/configuration.json")
        #expect {
            try Configuration.load(from: missing)
        } throws: { error in
            "\(error)".hasPrefix("cannot read the configuration /nonexistent/configuration.json")
        }
    }

    @Test func anInvalidServerIsRefused() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-example-\(UUID()).json")
        try Data(#"{"server": "ftp://x", "username": "a", "password": "b", "maxPOExpense": 1}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect {
            try Configuration.load(from: file)
        } throws: { error in
            "\(error)".contains("the server must be an http or https URL")
        }
    }
}
