import Foundation

/// The files that ship beside the example's sources: its configuration and the demo data that the embedded backend
/// and `demo_server.py` both serve.
///
/// They are found through `#filePath`, so `swift run fetch-example` finds them from any working directory of a
/// checkout; `--config` points at another configuration.
enum ExampleFiles {
    /// `Examples/FetchExample/`.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// `Examples/FetchExample/configuration.json`: the settings used when no `--config` is given.
    static let configuration = directory.appendingPathComponent("configuration.json")

    /// `Examples/FetchExample/demo_data.json`: the one source of the demo API's data.
    static let demoData = directory.appendingPathComponent("demo_data.json")

    /// `Examples/FetchExample/demo_server.py`: the same API over HTTP.
    static let demoServer = directory.appendingPathComponent("demo_server.py")
}
