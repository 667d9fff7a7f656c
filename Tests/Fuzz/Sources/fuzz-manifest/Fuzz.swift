import Foundation
import SlomoKit

/// Batch manifests: the first byte picks JSON, YAML or CSV, the rest is the manifest's text.
/// Any thrown error is a refusal (fine); a crash, leak or hang is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let format = ["json", "yaml", "csv"][Int(data[0]) % 3]
    _ = try? Manifest.parse(Data(bytes: data + 1, count: size - 1), format: format, path: "fuzz.\(format)")
    return 0
}

// SwiftPM links an executable's entry point as `fuzz_manifest_main`: hand it to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
               _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("fuzz_manifest_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc, argv = argv
    return runDriver(&argc, &argv) { fuzz($0, $1) }
}
