import Fetch
import Foundation
import Testing

/// The HAR 1.2 model: what it writes, what it reads back, and the errors that name the JSON path of a problem.
@Suite struct HARTests {
    static let started = Date(timeIntervalSince1970: 1_796_028_132.345)

    static func sampleEntry() -> HAR.Entry {
        var request = HAR.SentRequest(
            method: "POST",
            url: "https://api.example.com/users?page=2",
            headers: [HAR.Field(name: "Content-Type", value: "application/json")],
            queryString: [HAR.Field(name: "page", value: "2")],
            postData: HAR.PostData(mimeType: "application/json", text: #"{"name":"Ada"}"#),
            bodySize: 14
        )
        request.cookies = [HAR.Cookie(name: "session", value: "REDACTED")]
        let response = HAR.ReceivedResponse(
            status: 201,
            statusText: "Created",
            headers: [HAR.Field(name: "Content-Type", value: "application/octet-stream")],
            content: HAR.Content(size: 3, mimeType: "application/octet-stream", text: "AAEC", encoding: "base64")
        )
        return HAR.Entry(
            startedDateTime: started, request: request, response: response,
            timings: HAR.Timings(send: 1.5, wait: 20, receive: 0.25))
    }

    static func archive(entries: Int = 1) -> HAR {
        var archive = HAR()
        archive.log.entries = Array(repeating: sampleEntry(), count: entries)
        return archive
    }

    /// The archive's JSON as Foundation objects, to change one field of it.
    static func json(_ archive: HAR) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: archive.encoded()) as? [String: Any])
    }

    @Test func roundTripsEveryField() throws {
        let archive = Self.archive(entries: 2)
        let decoded = try HAR(data: archive.encoded())
        #expect(decoded == archive)
        #expect(decoded.log.entries[0].response.content.text == "AAEC")
    }

    @Test func writesTheFieldsHAR12RequiresWithTheirNames() throws {
        let json = try Self.json(Self.archive())
        let log = try #require(json["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: Any])?["name"] as? String == "Fetch")
        let entry = try #require((log["entries"] as? [[String: Any]])?.first)
        #expect(entry["startedDateTime"] as? String == "2026-11-30T08:42:12.345Z")
        #expect(entry["time"] as? Double == 21.75)
        #expect((entry["cache"] as? [String: Any])?.isEmpty == true)
        let request = try #require(entry["request"] as? [String: Any])
        for key in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"] {
            #expect(request[key] != nil, "request.\(key)")
        }
        let response = try #require(entry["response"] as? [String: Any])
        for key in [
            "status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize",
            "bodySize",
        ] {
            #expect(response[key] != nil, "response.\(key)")
        }
        let content = try #require(response["content"] as? [String: Any])
        #expect(content["encoding"] as? String == "base64")
        #expect(content["size"] as? Int == 3)
        let timings = try #require(entry["timings"] as? [String: Any])
        #expect(timings["send"] as? Double == 1.5 && timings["wait"] as? Double == 20)
        #expect(timings["receive"] as? Double == 0.25)
    }

    @Test func timingsOfAWholeCallAreCountedAsWaitingToTheMicrosecond() {
        #expect(HAR.Timings.total(.milliseconds(12)) == HAR.Timings(send: 0, wait: 12, receive: 0))
        #expect(HAR.Timings.total(0.012_345_6).wait == 12.346)
        #expect(HAR.Timings.total(-1).total == 0)
    }

    @Test func readsDatesWithAndWithoutFractionsAndWithOffsets() throws {
        for (text, expected) in [
            ("2026-11-30T08:42:12.345Z", 1_796_028_132.345),
            ("2026-11-30T09:42:12.345+01:00", 1_796_028_132.345),
            ("2026-11-30T08:42:12Z", 1_796_028_132.0),
        ] {
            var json = try Self.json(Self.archive())
            json = Self.setting(json, ["log", "entries", 0, "startedDateTime"], to: text)
            let archive = try HAR(data: JSONSerialization.data(withJSONObject: json))
            let date = try #require(archive.log.entries.first?.startedDateTime)
            #expect(abs(date.timeIntervalSince1970 - expected) < 0.0005, "\(text)")
        }
    }

    @Test func aTruncatedFileIsNotJSONAndSaysItMayBeTruncated() throws {
        let data = try Self.archive().encoded()
        let error = try #require(throws: HARError.self) { try HAR(data: data.prefix(data.count / 2)) }
        #expect(error.path == "")
        #expect(error.description.hasPrefix("HAR data: is not valid JSON; it looks truncated: "))
    }

    @Test func aJSONArrayIsNotAHARArchive() throws {
        let error = try #require(throws: HARError.self) { try HAR(data: Data("[1, 2]".utf8)) }
        #expect(error.path == "")
        #expect(error.description.contains("is not a HAR archive: its top level must be an object with a \"log\""))
    }

    @Test func aMissingFieldIsNamedByItsJSONPath() throws {
        var json = try Self.json(Self.archive(entries: 4))
        json = Self.setting(json, ["log", "entries", 3, "response", "status"], to: nil)
        let error = try #require(throws: HARError.self) {
            try HAR(data: JSONSerialization.data(withJSONObject: json))
        }
        #expect(error.path == "log.entries[3].response.status")
        #expect(error.description == "HAR data: log.entries[3].response.status: missing (HAR 1.2 requires it)")
    }

    @Test func aFieldOfTheWrongTypeIsNamedByItsJSONPath() throws {
        var json = try Self.json(Self.archive(entries: 2))
        json = Self.setting(json, ["log", "entries", 1, "time"], to: "fast")
        let error = try #require(throws: HARError.self) {
            try HAR(data: JSONSerialization.data(withJSONObject: json))
        }
        #expect(error.path == "log.entries[1].time")
        #expect(error.reason.hasPrefix("must be a number"))
    }

    @Test func aDateThatIsNotISO8601IsNamedByItsJSONPath() throws {
        var json = try Self.json(Self.archive())
        json = Self.setting(json, ["log", "entries", 0, "startedDateTime"], to: "30/11/2026 08:42")
        let error = try #require(throws: HARError.self) {
            try HAR(data: JSONSerialization.data(withJSONObject: json))
        }
        #expect(error.path == "log.entries[0].startedDateTime")
    }

    @Test func base64ThatIsNotBase64IsNamedByItsJSONPath() throws {
        var json = try Self.json(Self.archive(entries: 2))
        json = Self.setting(json, ["log", "entries", 1, "response", "content", "text"], to: "not base64!")
        let error = try #require(throws: HARError.self) {
            try HAR(data: JSONSerialization.data(withJSONObject: json))
        }
        #expect(error.path == "log.entries[1].response.content.text")
    }

    @Test func anotherVersionIsRefused() throws {
        var json = try Self.json(Self.archive())
        json = Self.setting(json, ["log", "version"], to: "2.0")
        let error = try #require(throws: HARError.self) {
            try HAR(data: JSONSerialization.data(withJSONObject: json))
        }
        #expect(error.path == "log.version")
    }

    @Test func aFileThatCannotBeReadIsNamed() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID()).har")
        let error = try #require(throws: HARError.self) { try HAR(contentsOf: missing) }
        #expect(error.file == missing)
        #expect(error.description.hasPrefix("\(missing.path): cannot be read"))
    }

    /// `json` with the value at `path` (keys and array indices) replaced, or removed when `value` is `nil`.
    static func setting(_ json: [String: Any], _ path: [Any], to value: Any?) -> [String: Any] {
        func set(_ node: Any, _ path: ArraySlice<Any>) -> Any? {
            guard let step = path.first else {
                return value
            }
            if let key = step as? String, var object = node as? [String: Any] {
                object[key] = set(object[key] as Any, path.dropFirst())
                return object
            }
            if let index = step as? Int, var array = node as? [Any] {
                array[index] = set(array[index], path.dropFirst()) as Any
                return array
            }
            return node
        }
        return set(json, path[...]) as? [String: Any] ?? json
    }
}
