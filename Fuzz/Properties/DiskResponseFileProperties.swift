import Fetch
import Foundation

/// The disk cache's file decoder (`DiskResponseStore.decode`): any bytes are read without a crash; a file it accepts
/// has its numbers within their documented ranges (a status of 100...599, durations within
/// `ResponseFreshness.range`, dates within `DiskResponseStore.maximumDateOffset` of 2001); and encoding what it read
/// gives a file that decodes to the same response.
///
/// Random bytes almost never carry the right content hash, so the input is checked twice: as a whole file, and as a
/// file's bytes without their hash, sealed with the right one, which lets the fuzzer reach the metadata decoder.
package enum DiskResponseFileProperties {
    /// Checks the properties on `input` as a file, and on `input` sealed with its hash.
    package static func check(_ input: Data) -> String? {
        if let problem = checkFile(input) {
            return "as a whole file: \(problem)"
        }
        var sealed = input
        let hash = input.withUnsafeBytes { ContentHash.hash($0) }
        withUnsafeBytes(of: hash.bigEndian) { sealed.append(contentsOf: $0) }
        if let problem = checkFile(sealed) {
            return "sealed with its hash: \(problem)"
        }
        return nil
    }

    private static func checkFile(_ file: Data) -> String? {
        guard let response = DiskResponseStore.decode(file) else {
            return nil
        }
        if let problem = outOfRange(response) {
            return "\(problem), in \(file.base64EncodedString())"
        }
        guard let encoded = DiskResponseStore.encode(response) else {
            return "a decoded response does not encode again, from \(file.base64EncodedString())"
        }
        guard let again = DiskResponseStore.decode(encoded) else {
            return "a re-encoded response does not decode, from \(file.base64EncodedString())"
        }
        guard same(response, again) else {
            return "a re-encoded response decodes differently, from \(file.base64EncodedString())"
        }
        return nil
    }

    private static func outOfRange(_ response: StoredResponse) -> String? {
        guard (100...599).contains(response.status) else {
            return "status \(response.status)"
        }
        guard response.freshness.isValid else {
            return "freshness \(response.freshness)"
        }
        let dates = [response.requestTime, response.responseTime].map(\.timeIntervalSinceReferenceDate)
        let offset = DiskResponseStore.maximumDateOffset
        guard dates.allSatisfy({ (-offset...offset).contains($0) }) else {
            return "dates \(dates)"
        }
        return nil
    }

    private static func same(_ first: StoredResponse, _ second: StoredResponse) -> Bool {
        first.key == second.key && first.status == second.status && first.headers == second.headers
            && first.data == second.data && first.url?.absoluteString == second.url?.absoluteString
            && first.varyingValues == second.varyingValues && first.requestTime == second.requestTime
            && first.responseTime == second.responseTime && first.freshness == second.freshness
    }
}
