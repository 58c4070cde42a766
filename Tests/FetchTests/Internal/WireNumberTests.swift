import Fetch
import Foundation
import Testing

@Suite struct WireNumberTests {
    @Test func digitsAreReadWithCheckedArithmetic() {
        #expect(WireNumber.digits("0".utf8) == 0)
        #expect(WireNumber.digits("9223372036854775807".utf8) == Int.max)
        #expect(WireNumber.digits("9223372036854775808".utf8) == nil)
        #expect(WireNumber.digits("99999999999999999999999".utf8) == nil)
        #expect(WireNumber.digits("".utf8) == nil)
        #expect(WireNumber.digits("12a".utf8) == nil)
        #expect(WireNumber.digits("-1".utf8) == nil)
        #expect(WireNumber.digits("+1".utf8) == nil)
        #expect(WireNumber.digits("100".utf8, maximum: 99) == nil)
        #expect(WireNumber.digits("١٢".utf8) == nil, "Arabic-Indic digits are not ASCII digits")
    }

    @Test func statusCodesAreThreeDigitsFrom100To599() {
        #expect(WireNumber.statusCode("200".utf8) == 200)
        #expect(WireNumber.statusCode("599".utf8) == 599)
        #expect(WireNumber.statusCode("100".utf8) == 100)
        for invalid in ["99", "099", "600", "2000", "99999999999999999999999", "", "20x", " 200"] {
            #expect(WireNumber.statusCode(invalid.utf8) == nil, "\(invalid)")
        }
    }

    @Test func deltaSecondsAreDigitsOnlyAndSaturateAt2To31() {
        #expect(WireNumber.deltaSeconds("60") == 60)
        #expect(WireNumber.deltaSeconds(" 60\t") == 60)
        #expect(WireNumber.deltaSeconds("2147483648") == 2_147_483_648)
        #expect(WireNumber.deltaSeconds("99999999999999999999999999999") == 2_147_483_648)
        for invalid in ["1e300", "inf", "-1", "nan", "0x10", "", " ", "1.5", "+5", "6 0"] {
            #expect(WireNumber.deltaSeconds(invalid) == nil, "\(invalid)")
        }
    }

    @Test func byteCountsRejectWhatDoesNotFitInsteadOfTrapping() {
        #expect(WireNumber.byteCount("1024") == 1024)
        #expect(WireNumber.byteCount("9223372036854775807") == Int64.max)
        #expect(WireNumber.byteCount("9223372036854775808") == nil)
        #expect(WireNumber.byteCount("-5") == nil)
        #expect(WireNumber.byteCount("5, 5") == nil)
    }

    @Test func aContentLengthIsOneValidLengthRepeatedOrNot() {
        #expect(WireNumber.contentLength("5") == 5)
        #expect(WireNumber.contentLength("5, 5") == 5)
        #expect(WireNumber.contentLength(" 0 ") == 0)
        for invalid in ["2, 5", "18446744073709551616", "-1", "+5", "", "5,", ", 5", "5 5", "0x10", "1e3"] {
            #expect(WireNumber.contentLength(invalid) == nil, "\(invalid)")
        }
    }

    @Test func doublesBecomeIntegersClampedNeverTrapping() {
        #expect(WireNumber.clampedInteger(1e300) == Int.max)
        #expect(WireNumber.clampedInteger(.infinity) == Int.max)
        #expect(WireNumber.clampedInteger(-.infinity) == Int.min)
        #expect(WireNumber.clampedInteger(.nan) == Int.min)
        #expect(WireNumber.clampedInteger(9.223372036854775807e18) == Int.max)
        #expect(WireNumber.clampedInteger(41.9) == 41)
        #expect(WireNumber.clampedInteger(-41.9) == -41)
        #expect(WireNumber.clampedInteger(1e9, in: 0...100) == 100)
        #expect(WireNumber.clampedInteger(-3, in: 0...100) == 0)
        #expect(WireNumber.clampedInteger(.nan, in: 0...100) == 0)
    }
}
