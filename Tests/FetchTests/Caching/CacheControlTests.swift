import Fetch
import Foundation
import Testing

@Suite struct CacheControlTests {
    @Test func readsAndWritesIMFFixdates() throws {
        let date = try #require(HTTPDate.date(from: "Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(date.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.string(from: date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.date(from: "0") == nil)
    }

    @Test func refusesDatesOutsideTheirFieldsRangesAndWritesFourDigitYears() throws {
        #expect(HTTPDate.date(from: "Fri, 31 Dec 0000 23:59:59 GMT") == nil)
        #expect(HTTPDate.date(from: "Sat, 31 Feb 2024 10:00:00 GMT") == nil)
        #expect(HTTPDate.date(from: "Sun, 06 Nov 1994 24:00:00 GMT") == nil)
        #expect(HTTPDate.date(from: "Sun, 06 Nov -994 08:49:37 GMT") == nil)
        #expect(HTTPDate.date(from: "Sun, 06 Nov 99999999999999999999 08:49:37 GMT") == nil)
        let early = try #require(HTTPDate.date(from: "Mon, 01 Jan 0001 00:00:00 GMT"))
        #expect(HTTPDate.string(from: early).hasSuffix(", 01 Jan 0001 00:00:00 GMT"))
        #expect(HTTPDate.date(from: "Sunday, 06-Nov-94 08:49:37 GMT")?.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.date(from: "Sun Nov  6 08:49:37 1994")?.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.date(from: "Sun Nov  6 08:49:37 -994") == nil)
        #expect(HTTPDate.date(from: "Fri, 31 Dec 9999 23:59:60 GMT") == nil)
        let leapSecond = try #require(HTTPDate.date(from: "Sat, 31 Dec 2016 23:59:60 GMT"))
        #expect(HTTPDate.string(from: leapSecond) == "Sun, 01 Jan 2017 00:00:00 GMT")
    }

    @Test func aMaxAgeThatIsNotDeltaSecondsIsStaleAndAHugeOneIsCapped() {
        #expect(CacheControl("max-age=inf").maxAge == 0)
        #expect(CacheControl("max-age=1e9").maxAge == 0)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl("max-age=20000000000000").maxAge == 2_147_483_648)
        #expect(CacheControl("max-age=\"60\"").maxAge == 60)
    }

    @Test func readsCacheControlDirectives() {
        let control = CacheControl(#"Private, max-age="30", no-cache="Set-Cookie", must-revalidate, x-unknown=1"#)
        #expect(control.isPrivate)
        #expect(control.maxAge == 30)
        #expect(control.noCache)
        #expect(control.mustRevalidate)
        #expect(!control.noStore)
    }

    @Test func readsDirectivesAmidSpacesAndTabs() {
        let control = CacheControl(" \tmax-age = 60 ,\tstale-if-error=\"10\"\t, ,  PRIVATE  ,\t")
        #expect(control.maxAge == 60)
        #expect(control.staleIfError == 10)
        #expect(control.isPrivate)
        #expect(CacheControl("   ").maxAge == nil)
        #expect(CacheControl("max-age=\"\"").maxAge == 0)
    }

    @Test func readsTheDirectivesThatLetASharedCacheStoreAResponseToCredentials() {
        let control = CacheControl("Public, S-MAXAGE=\"120\", max-age=60")
        #expect(control.isPublic)
        #expect(control.sharedMaxAge == 120)
        #expect(control.maxAge == 60)
        #expect(CacheControl("s-maxage=1e9").sharedMaxAge == nil, "an invalid s-maxage is absent, not a permission")
        #expect(CacheControl("s-maxage=99999999999999999999").sharedMaxAge == 2_147_483_648)
        #expect(CacheControl("stale-if-error=-1").staleIfError == nil)
        #expect(!CacheControl("max-age=60").isPublic)
    }
}
