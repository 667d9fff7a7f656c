import FuzzDriver
import SlomoKit

/// Saved v4l2-ctl listings, read as `--list-formats-ext` and as `--list-ctrls-menus`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = ParserHarness.listing(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}

@_cdecl("fuzz_listing_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzz) }
