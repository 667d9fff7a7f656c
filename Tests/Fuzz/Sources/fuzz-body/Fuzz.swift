import FuzzDriver
import SlomoKit

/// The bodies `slomo serve` decodes: a settings PATCH, an arm, a shot's export (the first byte picks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = ParserHarness.requestBody(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

@_cdecl("fuzz_body_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzz) }
