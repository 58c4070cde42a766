import Fetch
import FetchTesting
import Foundation
import Testing

@testable import FetchExample

/// The example's `API` answered, synchronously and offline, from a recording of a whole run against the demo
/// backend: `Fixtures/demo.har`, made with
/// `swift run fetch-example --har Tests/FetchExampleTests/Fixtures/demo.har` (delete the file first: `--har` adds
/// to a file that is already there).
@Suite struct APIReplayTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/demo.har")

    /// The order's dates are those of the day it was recorded; the rest of its body must be the same.
    static let matcher = HARMatcher(ignoringBodyFields: ["orderedAt", "deliverBy"])

    /// An API over the recording, at the base URL the recording was made at (the embedded backend takes a new
    /// host each run).
    static func replayingAPI() throws -> API {
        let archive = try HAR(contentsOf: fixture)
        let first = try #require(archive.log.entries.first.flatMap { URL(string: $0.request.url) })
        let baseURL = try #require(URL(string: "/", relativeTo: first)?.absoluteURL)
        return API(
            baseURL: baseURL, performer: try MockPerformer(replaying: fixture, matching: matcher),
            maxPOExpense: Money(cents: 500_000), scheduler: TestScheduler())
    }

    @Test func theFixtureIsValidHAR() async throws {
        let validation = try await HARValidation.check(Self.fixture)
        #expect(validation.status == 0, "\(validation.output)\(validation.errors)")
        #expect(validation.output == "valid HAR 1.2: 11 entries\n")
    }

    @Test func replaysTheRecordedRunThroughTheAPI() throws {
        let api = try Self.replayingAPI()

        let login = Captured<Result<SignedIn, any Error>>()
        api.logIn(username: "ada", password: "analytical-engine", completion: login.capture)
        #expect(try #require(login.value).get().userID == Fixtures.userID)

        let announcements = Captured<Result<[Announcement], any Error>>()
        api.announcements(completion: announcements.capture)
        #expect(
            try #require(announcements.value).get().map(\.title) == [
                "Office closed on 24 December", "New expense policy", "Welcome, Linus!",
            ])
        let employees = Captured<Result<[Employee], any Error>>()
        api.employees(completion: employees.capture)
        #expect(
            try #require(employees.value).get().map(\.name) == [
                "Ada Lovelace", "Grace Hopper", "Alan Turing", "Linus Torvalds",
            ])
        let events = Captured<Result<[Event], any Error>>()
        api.events(completion: events.capture)
        #expect(try #require(events.value).get().map(\.title) == ["All-hands meeting", "Holiday party"])
        let products = Captured<Result<[Product], any Error>>()
        api.products(completion: products.capture)
        #expect(try #require(products.value).get().first == Fixtures.laptopStand)
        let purchases = Captured<Result<[Purchase], any Error>>()
        api.purchases(completion: purchases.capture)
        #expect(try #require(purchases.value).get().map(\.id) == ["PO-1001", "PO-1002"])

        let user = Captured<Result<User, any Error>>()
        api.user(id: Fixtures.userID, completion: user.capture)
        #expect(try #require(user.value).get().name == "Ada Lovelace")

        // Three laptop stands, ordered today: matched to the order recorded on another day.
        let purchase = Captured<Result<Purchase, any Error>>()
        api.place(Fixtures.order(Fixtures.laptopStand, quantity: 3), completion: purchase.capture)
        let placed = try #require(purchase.value).get()
        #expect(placed.id == "PO-1003" && placed.total == Money(cents: 14_970))
        // The same request again gets the next answer recorded for it.
        let purchasesAfter = Captured<Result<[Purchase], any Error>>()
        api.purchases(completion: purchasesAfter.capture)
        #expect(try #require(purchasesAfter.value).get().map(\.id) == ["PO-1001", "PO-1002", "PO-1003"])

        // The second login recorded is the refused one, and the last call, after logging out, was refused too.
        let wrongLogin = Captured<Result<SignedIn, any Error>>()
        api.logIn(username: "ada", password: "analytical-engine-wrong", completion: wrongLogin.capture)
        let loginError = try #require(throws: APIError.self) { try #require(wrongLogin.value).get() }
        #expect(loginError.status == 401)
        api.logOut()
        let refused = Captured<Result<[Employee], any Error>>()
        api.employees(completion: refused.capture)
        let error = try #require(throws: APIError.self) { try #require(refused.value).get() }
        #expect(error.status == 401)
    }

    @Test func anOrderThatWasNotRecordedFailsNamingWhatDiffers() throws {
        let api = try Self.replayingAPI()
        api.logIn(username: "ada", password: "analytical-engine") { _ in }
        let purchase = Captured<Result<Purchase, any Error>>()
        api.place(Fixtures.order(Fixtures.laptopStand, quantity: 2), completion: purchase.capture)
        let result = try #require(purchase.value)
        let error = try #require(throws: NoRecordedAnswer.self) { try result.get() }
        #expect(error.differingParts == [.body])
    }
}
