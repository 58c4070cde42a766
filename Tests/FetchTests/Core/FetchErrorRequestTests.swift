import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every case of `FetchError` carries its request once the pipeline has named it, prints it, and hands it back.
@Suite struct FetchErrorRequestTests {
    let request = TestRequest("https://api.example.com/files/7", method: .put)
    let target = "PUT https://api.example.com/files/7"

    /// One error of each case that the pipeline names, made as a transport or a parser makes them: without a request.
    var unnamed: [FetchError] {
        let url = URL(string: "https://api.example.com/files/7")!
        return [
            .encoding(CocoaError(.coderInvalidValue)), .transport(URLError(.cannotConnectToHost)), .timedOut(),
            .cancelled(), .notHTTPResponse(), .responseTooLarge(limit: 10), .lineTooLong(limit: 10),
            .redirectRefused(from: url, to: URL(string: "http://api.example.com/")!, reason: "a downgrade"),
            .integrityCheckFailed(url: url, reason: "12 bytes, not 10"),
            .attemptsExhausted(attempts: 3, lastError: FetchError.timedOut()),
        ]
    }

    @Test func everyCaseTheNamingFillsCarriesAndPrintsTheRequest() {
        for error in unnamed {
            let named = error.naming(request)
            #expect(named.request?.url == request.url, "\(named)")
            #expect(named.request?.method == .put, "\(named)")
            #expect(named.description.hasPrefix(target), "\(named.description)")
        }
    }

    @Test func aCancellationNamesTheRequestNotJustTheRequest() {
        let named = FetchError.cancelled().naming(request)
        #expect(named.description == "\(target) was cancelled before it finished")
    }

    @Test func namingKeepsARequestAlreadyNamed() {
        let other = TestRequest("https://api.example.com/other")
        let named = FetchError.cancelled(request: other).naming(request)
        #expect(named.request?.url == other.url)
    }

    @Test func theCasesWithAResponseNameTheRequestItAnswers() {
        let response = Response(status: 404, data: Data("gone".utf8), originalRequest: request)
        let context = DecodingError.Context(codingPath: [], debugDescription: "x")
        let errors: [FetchError] = [
            .unacceptableStatus(response), .decoding(.dataCorrupted(context), response),
            .credentialRefreshFailed(URLError(.userAuthenticationRequired), response), .notEventStream(response),
        ]
        for error in errors {
            #expect(error.request?.url == request.url)
            #expect(error.description.hasPrefix("\(target) → 404"), "\(error.description)")
        }
    }

    @Test func exhaustedAttemptsNameTheRequestOfTheirLastErrorWhenTheyNameNone() {
        let error = FetchError.attemptsExhausted(attempts: 2, lastError: FetchError.cancelled(request: request))
        #expect(error.request?.url == request.url)
    }

    @Test func anIntegrityFailureWithoutARequestStillNamesTheDownloadsURL() {
        let url = URL(string: "https://user:secret@api.example.com/big.iso")!
        let error = FetchError.integrityCheckFailed(url: url, reason: "wrong SHA-256")
        #expect(error.description.contains("https://user:***@api.example.com/big.iso"))
        #expect(!error.description.contains("secret"))
    }
}
