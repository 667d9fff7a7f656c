import FuzzDriver
import SlomoKit

/// The option-value parsers, one line of the input each (see ParserHarness.values).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ParserHarness.values(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}

@_cdecl("fuzz_values_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzz) }
