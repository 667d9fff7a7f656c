import SlomoCore
import SlomoKit

/// The command line's value parsers: rationals, times, segments and ramps (resolved against a
/// duration), shard specs, sizes and byte counts, camera-control options. Lines of the input
/// are fed to each in turn.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(16) {
        let s = String(line)
        _ = try? Rational(parsing: s)
        _ = try? TimePoint(parsing: Substring(s))
        _ = try? RetimeSpec.parseRate(Substring(s), context: "fuzz")
        if let seg = try? SegmentSpec(parsing: s, allowRamp: true) {
            _ = try? RetimeSpec(rate: .one, segments: [seg]).resolve(duration: Rational(3600), frameRate: Rational(240))
        }
        _ = try? ShardSpec(parsing: s, base: 0)
        _ = try? OptionValues.size(s, option: "--size")
        _ = try? OptionValues.bytes(s, option: "--ring-memory")
        _ = try? ControlRequests.parse(shutter: s, gain: s, controls: [s])
        _ = try? ControlRequests.parse(shutterAngle: s, whiteBalance: s, zoom: s)
    }
    return 0
}

// SwiftPM links an executable's entry point as `fuzz_values_main`: hand it to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
               _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("fuzz_values_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc, argv = argv
    return runDriver(&argc, &argv) { fuzz($0, $1) }
}
