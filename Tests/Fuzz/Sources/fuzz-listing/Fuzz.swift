import SlomoCore

/// Saved v4l2-ctl listings: `--list-formats-ext` (formats, sizes, intervals) and
/// `--list-ctrls-menus` (controls), both read from the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let catalog = try? ListingParser.parse(text) { _ = FormatSelection.best(in: catalog, for: ModeRequest()) }
    if let controls = try? ControlListing.parse(text) {
        for c in controls { _ = c.describe(c.value ?? 0); _ = c.refusal(of: c.defaultValue) }
    }
    return 0
}

// SwiftPM links an executable's entry point as `fuzz_listing_main`: hand it to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
               _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("fuzz_listing_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc, argv = argv
    return runDriver(&argc, &argv) { fuzz($0, $1) }
}
