import SlomoCore

/// WAV headers and the samples after them, through the same reads a file gets (`WAV.layout` with a
/// read closure over the bytes), then up to 4096 frames decoded where the layout says they are.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let read = { (offset: Int64, count: Int) -> [UInt8] in
        guard offset >= 0, offset < Int64(size), count > 0 else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<min(size, start + count)])
    }
    guard let layout = WAV.layout(fileSize: Int64(size), read: read), layout.channels > 0, layout.channels <= 64 else { return 0 }
    let frameBytes = layout.channels * layout.format.bytes
    guard frameBytes > 0, layout.dataOffset >= 0, layout.dataOffset <= Int64(size) else { return 0 }
    let available = (size - Int(layout.dataOffset)) / frameBytes
    let frames = min(4096, available, Int(clamping: max(0, layout.frames)))
    guard frames > 0 else { return 0 }
    let planes = (0..<layout.channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames) }
    defer { planes.forEach { $0.deallocate() } }
    WAV.decode(UnsafeRawBufferPointer(start: data + Int(layout.dataOffset), count: frames * frameBytes),
               format: layout.format, channels: layout.channels, frames: frames, into: planes)
    return 0
}

// SwiftPM links an executable's entry point as `fuzz_wav_main`: hand it to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
               _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("fuzz_wav_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc, argv = argv
    return runDriver(&argc, &argv) { fuzz($0, $1) }
}
