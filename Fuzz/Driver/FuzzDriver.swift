import FetchFuzzing
import Foundation

/// The libFuzzer driver: runs the fuzz target that `FETCH_FUZZ_TARGET` names (`Fuzz/run` sets it), and crashes, so
/// that libFuzzer keeps the input as a reproducer, when its property does not hold.
///
/// SwiftPM links an executable's entry point as `main`, so the driver has one and hands over to libFuzzer's
/// `LLVMFuzzerRunDriver`, which parses libFuzzer's flags and runs the loop.
@main
enum FuzzDriver {
    /// The target this process runs.
    static let target: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["FETCH_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget.named(name) else {
            let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("FETCH_FUZZ_TARGET must be one of \(names), not '\(name)'\n".utf8))
            exit(2)
        }
        return target
    }()

    static func main() {
        _ = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzer(&argc, &argv, fuzzOneInput))
    }
}

/// libFuzzer's callback: checks the property on one input. (libFuzzer's own `main`, which `-sanitize=fuzzer` links
/// too, calls it by this name.)
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    if let failure = FuzzDriver.target.check(input) {
        FileHandle.standardError.write(Data("\(FuzzDriver.target.name): property violated: \(failure)\n".utf8))
        abort()
    }
    return 0
}

/// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size))`, from the
/// libFuzzer that `-sanitize=fuzzer` links.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzer(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
