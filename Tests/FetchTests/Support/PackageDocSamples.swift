// The code samples of the `///` doc comments of `package` declarations in Sources, which users never see: compiled
// here, with package access, between PACKAGE-DOC-BEGIN and PACKAGE-DOC-END (ReadmeTests' DocSampleTests checks that
// they match). The samples of public declarations and of the articles compile in ReadmeTests, against the public API
// only.

import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum HARWriterSample {
    static func sample(urlRequest: URLRequest, response: Response, start: Date, duration: Duration) throws {
        // PACKAGE-DOC-BEGIN
        let writer = try HARWriter(file: URL(fileURLWithPath: "api.har"))
        try writer.append(
            HAR.Entry(
                request: urlRequest, response: response, startedDateTime: start,
                timings: .total(duration)))
        // PACKAGE-DOC-END
    }
}

enum ServerSentEventParserSample {
    static func sample(stream: ResponseStream) async throws {
        // PACKAGE-DOC-BEGIN
        var parser = ServerSentEventParser()
        for try await chunk in stream {
            for event in try parser.parse(chunk) {
                print(event.data)
            }
        }
        // PACKAGE-DOC-END
    }
}
