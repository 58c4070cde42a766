import Fetch
import Foundation
import Testing

@Suite struct DecodableParsableTests {
    let adaJSON = #"{"id": 1, "name": "Ada", "createdAt": "2026-11-30T08:42:12.345Z"}"#

    @Test func decodesTheBodyOfA2xxResponse() throws {
        let user = try User.parse(response: response(body: adaJSON), errorParser: nil).get()
        #expect(user.id == 1)
        #expect(user.name == "Ada")
    }

    @Test func decodesISO8601DatesWithFractionalSeconds() throws {
        let user = try User.parse(response: response(body: adaJSON), errorParser: nil).get()
        #expect(abs(user.createdAt.timeIntervalSince1970 - 1_796_028_132.345) < 0.0005)
    }

    @Test func decodesISO8601DatesWithoutFractionalSecondsAndWithOffsets() throws {
        let plain = #"{"id": 1, "name": "Ada", "createdAt": "2026-11-30T08:42:12Z"}"#
        let offset = #"{"id": 1, "name": "Ada", "createdAt": "2026-11-30T09:42:12+01:00"}"#
        let first = try User.parse(response: response(body: plain), errorParser: nil).get()
        let second = try User.parse(response: response(body: offset), errorParser: nil).get()
        #expect(first.createdAt.timeIntervalSince1970 == 1_796_028_132)
        #expect(second.createdAt == first.createdAt)
    }

    @Test func aDateThatIsNotISO8601FailsWithItsPathAndValue() throws {
        let body = #"{"id": 1, "name": "Ada", "createdAt": "30/11/2026"}"#
        let error = try fetchError(User.parse(response: response(body: body), errorParser: nil))
        guard case .decoding(_, let response) = error.fetchKind else {
            Issue.record("expected .decoding, got \(error)")
            return
        }
        #expect(response.status == 200)
        #expect(error.description.contains("createdAt"))
        #expect(error.description.contains("30/11/2026"))
    }

    @Test func aStatusOutside2xxIsUnacceptableWithoutAnErrorParser() throws {
        let error = try fetchError(User.parse(response: response(status: 404, body: "{}"), errorParser: nil))
        guard case .unacceptableStatus(let response) = error.fetchKind else {
            Issue.record("expected .unacceptableStatus, got \(error)")
            return
        }
        #expect(response.status == 404)
        #expect(error.response?.status == 404)
    }

    @Test func anErrorBodyBecomesTheErrorParsersError() throws {
        let body = #"{"error": true, "reason": "no such user"}"#
        let result = User.parse(
            response: response(status: 404, body: body), errorParser: DecodableErrorParser<APIError>())
        #expect(throws: APIError(error: true, reason: "no such user")) { try result.get() }
    }

    @Test func anErrorBodyTheParserDoesNotKnowIsUnacceptableWithTheBody() throws {
        let result = User.parse(
            response: response(status: 502, body: "<html>Bad Gateway</html>"),
            errorParser: DecodableErrorParser<APIError>()
        )
        let error = try fetchError(result)
        #expect(error.response?.status == 502)
        #expect(error.description.contains("<html>Bad Gateway</html>"))
    }

    @Test func malformedJSONFailsWithADecodingError() throws {
        let error = try fetchError(User.parse(response: response(body: #"{"id": 1, "name": "#), errorParser: nil))
        guard case .decoding(_, let response) = error.fetchKind else {
            Issue.record("expected .decoding, got \(error)")
            return
        }
        #expect(response.data == Data(#"{"id": 1, "name": "#.utf8))
    }

    @Test func aWrongTypeFailsNamingTheCodingPath() throws {
        let body = #"[{"id": 1, "name": "Ada", "createdAt": "2026-11-30T08:42:12Z"}, {"id": "two", "name": "B"}]"#
        let error = try fetchError([User].parse(response: response(body: body), errorParser: nil))
        #expect(error.description.contains("[1].id"))
        #expect(error.description.contains("expected Int"))
    }

    @Test func aMissingKeyFailsNamingTheKey() throws {
        let error = try fetchError(User.parse(response: response(body: #"{"id": 1}"#), errorParser: nil))
        #expect(error.description.contains(#"missing key "name""#))
    }

    @Test(arguments: [nil, ""])
    func anEmptyBodyFailsWithADecodingErrorThatSaysSo(body: String?) throws {
        let error = try fetchError(User.parse(response: response(body: body), errorParser: nil))
        guard case .decoding = error.fetchKind else {
            Issue.record("expected .decoding, got \(error)")
            return
        }
        #expect(error.description.contains("empty"))
    }

    @Test func arraysOfModelsDecodeWithoutWrapperTypes() throws {
        let body =
            #"[{"id": 1, "name": "Ada", "createdAt": "2026-11-30T08:42:12Z"}, "#
            + #"{"id": 2, "name": "Grace", "createdAt": "2026-11-30T08:42:12.5Z"}]"#
        let users = try [User].parse(response: response(body: body), errorParser: nil).get()
        #expect(users.map(\.name) == ["Ada", "Grace"])
    }

    @Test func arraysOfModelsTurnErrorBodiesIntoErrors() {
        let body = #"{"error": true, "reason": "slow down"}"#
        let result = [User].parse(
            response: response(status: 429, body: body), errorParser: DecodableErrorParser<APIError>())
        #expect(throws: APIError(error: true, reason: "slow down")) { try result.get() }
    }

    struct SnakeUser: Decodable, Parsable {
        let userName: String
        let joinedOn: Date

        static let decoder: JSONDecoder = {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = .secondsSince1970
            return decoder
        }()
    }

    @Test func aModelCanDeclareItsOwnDecoder() throws {
        let user = try SnakeUser.parse(
            response: response(body: #"{"user_name": "ada", "joined_on": 60}"#), errorParser: nil
        )
        .get()
        #expect(user.userName == "ada")
        #expect(user.joinedOn.timeIntervalSince1970 == 60)
    }

    @Test func arraysUseTheirElementsDecoder() throws {
        let users = try [SnakeUser].parse(
            response: response(body: #"[{"user_name": "ada", "joined_on": 0}]"#), errorParser: nil
        )
        .get()
        #expect(users.first?.userName == "ada")
    }
}

@Suite struct ReadyParsableTests {
    @Test func dataIsTheBodyAsItCame() throws {
        let bytes = Data([0, 1, 2, 255])
        let parsed = try Data.parse(
            response: Response(status: 200, data: bytes, originalRequest: TestRequest("https://e.test/")),
            errorParser: nil
        )
        .get()
        #expect(parsed == bytes)
    }

    @Test func dataOfAnEmptyBodyIsEmpty() throws {
        #expect(try Data.parse(response: response(body: nil), errorParser: nil).get().isEmpty)
    }

    @Test func dataOfAnErrorStatusIsAnError() throws {
        let result = Data.parse(
            response: response(status: 500, body: #"{"error": true, "reason": "down"}"#),
            errorParser: DecodableErrorParser<APIError>())
        #expect(throws: APIError(error: true, reason: "down")) { try result.get() }
        let error = try fetchError(Data.parse(response: response(status: 500, body: "down"), errorParser: nil))
        #expect(error.response?.status == 500)
    }

    @Test func stringIsUTF8WhenNoCharsetIsNamed() throws {
        let text = try String.parse(
            response: response(headers: ["Content-Type": "text/plain"], body: "café ☕︎"), errorParser: nil
        ).get()
        #expect(text == "café ☕︎")
    }

    @Test func stringUsesTheCharsetOfContentType() throws {
        let latin1 = Response(
            status: 200,
            headers: ["content-type": #"text/plain; charset="ISO-8859-1""#],
            data: Data([0x63, 0x61, 0x66, 0xE9]),
            originalRequest: TestRequest("https://e.test/")
        )
        #expect(try String.parse(response: latin1, errorParser: nil).get() == "café")
    }

    @Test func stringOfInvalidUTF8FailsWithADecodingError() throws {
        let invalid = Response(status: 200, data: Data([0xC3, 0x28]), originalRequest: TestRequest("https://e.test/"))
        let error = try fetchError(String.parse(response: invalid, errorParser: nil))
        guard case .decoding = error.fetchKind else {
            Issue.record("expected .decoding, got \(error)")
            return
        }
        #expect(error.description.contains("not valid utf-8"))
    }

    @Test func stringInAnUnknownCharsetFailsNamingTheCharset() throws {
        let error = try fetchError(
            String.parse(
                response: response(headers: ["Content-Type": "text/plain; charset=klingon"], body: "x"),
                errorParser: nil))
        #expect(error.description.contains("klingon"))
    }

    @Test func stringOfAnEmptyBodyIsEmptyAndOfAnErrorStatusIsAnError() throws {
        #expect(try String.parse(response: response(body: nil), errorParser: nil).get() == "")
        #expect(throws: FetchError.self) {
            try String.parse(response: response(status: 403, body: "no"), errorParser: nil).get()
        }
    }

    @Test func responseIsTheRawResponseForAnyStatus() throws {
        let notFound = response(status: 404, body: "gone")
        let parsed = try Response.parse(response: notFound, errorParser: DecodableErrorParser<APIError>()).get()
        #expect(parsed.status == 404)
        #expect(parsed.data == Data("gone".utf8))
    }

    @Test func emptyResponseAcceptsAny2xxAndIgnoresTheBody() throws {
        #expect(try EmptyResponse.parse(response: response(status: 204), errorParser: nil).get() == EmptyResponse())
        #expect(
            try EmptyResponse.parse(response: response(status: 200, body: "not json"), errorParser: nil).get()
                == EmptyResponse())
    }

    @Test func emptyResponseOfAnErrorStatusIsAnError() throws {
        let result = EmptyResponse.parse(
            response: response(status: 409, body: #"{"error": true, "reason": "taken"}"#),
            errorParser: DecodableErrorParser<APIError>())
        #expect(throws: APIError(error: true, reason: "taken")) { try result.get() }
        let error = try fetchError(EmptyResponse.parse(response: response(status: 409), errorParser: nil))
        #expect(error.response?.status == 409)
    }
}
