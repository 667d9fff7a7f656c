import FuzzDriver
import SlomoKit

/// A network trigger's datagram as `--trigger udp://…` takes it: parsed, its signature checked
/// (first byte even) or signed by the harness first (odd), then through the replay guard.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = ParserHarness.triggerMessage(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

@_cdecl("fuzz_trigger_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzz) }
