import FuzzDriver
import SlomoKit

/// WAV headers and the samples after them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = ParserHarness.wav(UnsafeBufferPointer(start: data, count: size))
    return 0
}

@_cdecl("fuzz_wav_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzz) }
