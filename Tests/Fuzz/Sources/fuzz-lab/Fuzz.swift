import FuzzDriver
import SlomoKit

/// What slomo reads of a lab file itself: a Phantom Cine's headers and tagged blocks (first byte
/// even) or a Photron `.cihx` (odd).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = ParserHarness.labHeader(UnsafeBufferPointer(start: data, count: size))
    return 0
}

@_cdecl("fuzz_lab_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzz) }
