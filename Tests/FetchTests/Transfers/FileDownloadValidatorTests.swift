import Foundation
import Testing

@testable import Fetch

/// Which validators a download resumes on (RFC 9110 §13.1.5): a strong `ETag`, or a `Last-Modified` at least a second
/// before the response's `Date` (§8.8.2.2); anything else starts over.
@Suite struct FileDownloadValidatorTests {
    static let url = URL(fileURLWithPath: "/validators")

    func response(_ headers: HeaderFields) -> Response {
        Response(status: 200, headers: headers, originalRequest: TestRequest(Self.url))
    }

    @Test(arguments: [
        ("Tue, 14 Nov 2023 22:13:19 GMT", "Tue, 14 Nov 2023 22:13:20 GMT", true),  // a second before: strong
        ("Tue, 14 Nov 2023 22:13:20 GMT", "Tue, 14 Nov 2023 22:13:20 GMT", false),  // the same second: weak
        ("Tue, 14 Nov 2023 22:13:21 GMT", "Tue, 14 Nov 2023 22:13:20 GMT", false),  // after its Date
        ("Tue, 14 Nov 2023 22:13:19 GMT", nil, false),  // no Date: no way to tell
        ("Tue, 14 Nov 2023 22:13:19 GMT", "yesterday", false),  // a Date that does not parse
        ("not a date", "Tue, 14 Nov 2023 22:13:20 GMT", false),
    ])
    func aLastModifiedIsStrongOnlyAtLeastASecondBeforeItsDate(
        lastModified: String, date: String?, isStrong: Bool
    ) {
        var headers: HeaderFields = ["Last-Modified": lastModified]
        if let date {
            headers = headers.setting("Date", to: date)
        }
        #expect((FileDownload.strongLastModified(of: response(headers)) != nil) == isStrong)
    }

    @Test(arguments: [
        ("\"v1\"", true), ("W/\"v1\"", false), ("v1", false), ("\"", false), ("", false),
    ])
    func anETagIsStrongOnlyWhenQuotedWithoutW(_ tag: String, isStrong: Bool) {
        #expect((FileDownload.strongEntityTag(of: response(["ETag": tag])) != nil) == isStrong)
    }
}
