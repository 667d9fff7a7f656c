import Foundation
import FuzzDriver
import SlomoKit

/// Batch manifests: the first byte picks JSON, YAML or CSV, the rest is the text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = ParserHarness.manifest(Data(bytes: data, count: size))
    return 0
}

@_cdecl("fuzz_manifest_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzz) }
