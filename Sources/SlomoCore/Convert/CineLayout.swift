/// A Phantom Cine file's layout, as Vision Research's published "Cine file format" gives it, for
/// uncompressed 8- or 16-bit gray or CFA (undebayered Bayer) images (pure: bytes out, no I/O).
///
/// In file order: `CINEFILEHEADER` (44 bytes) at 0, `BITMAPINFOHEADER` (40) at 44, `SETUP`
/// (`setupLength` bytes) at 84, the tagged blocks (time only, 1002: a TIME64 per image; exposure
/// only, 1003: a 0.32 fixed-point second per image), the array of 64-bit image offsets, then each
/// image: its annotation (only its size, 8, and the image's size) and its rows bottom-up, as a DIB's.
/// Docs/LabFormats.md lists every field written.
public struct CineLayout: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 8 or 16 (`biBitCount`).
    public var bitsPerSample: Int
    /// Bits the camera filled (`RealBPP`; 10 for 10-bit samples held in 16); `WhiteLevel` is 2^realBits − 1.
    public var realBits: Int
    /// The colour filter (`RGGB` or `GBRG`), nil for gray.
    public var mosaic: String?
    /// The image number of the first image: frames from the trigger frame (negative: pre-trigger).
    public var firstImageNumber: Int
    /// The frames' rate, rounded to a whole number for `FrameRate` (the time block holds the exact times).
    public var frameRate: Rational?
    /// `SETUP.Description`: free text, at most 4095 bytes.
    public var description: String

    public init(
        width: Int, height: Int, bitsPerSample: Int, realBits: Int, mosaic: String?, firstImageNumber: Int, frameRate: Rational?,
        description: String
    ) {
        self.width = width
        self.height = height
        self.bitsPerSample = bitsPerSample
        self.realBits = realBits
        self.mosaic = mosaic
        self.firstImageNumber = firstImageNumber
        self.frameRate = frameRate
        self.description = description
    }

    /// The `SETUP` block's size as written in its `Length` (the readers' structure, whose tail is zeros).
    public static let setupLength = 12432
    /// `SETUP.SoftwareVersion`: 702, the version whose structure ends with `CineName` (the whole
    /// structure, every field up to 7240 bytes; readers drop the fields an older version lacks).
    static let softwareVersion = 702
    static let headerSize = 44, bitmapSize = 40, setupOffset = 84
    /// `SETUP.CFA` for the patterns FFmpeg's and Phantom's readers name: 3 (GB/RG), 4 (RG/GB).
    public static let cfaCodes = ["GBRG": 3, "RGGB": 4]

    /// Bytes of one image's samples.
    public var imageBytes: Int { width * height * bitsPerSample / 8 }
    /// Bytes of one image record: its 8-byte annotation, then its samples.
    public var recordBytes: Int { 8 + imageBytes }

    /// Where the images start when the blocks and offsets are reserved for `count` images.
    public static func imagesOffset(reserving count: Int) -> Int { setupOffset + setupLength + (8 + 8 * count) + (8 + 4 * count) + 8 * count }

    /// Everything before the images, for `times.count` images whose records lie one after
    /// another from `imagesStart`: headers, setup, time and exposure blocks, image offsets.
    /// `times` are seconds since 1970 UTC; `exposures` seconds; `trigger` the trigger frame's time.
    public func prefix(times: [Rational], exposures: [Rational], trigger: Rational, imagesStart: Int) throws(RationalError) -> [UInt8] {
        let n = times.count
        var b = LittleEndianBytes(count: Self.setupOffset + Self.setupLength)
        let offImageOffsets = Self.setupOffset + Self.setupLength + (8 + 8 * n) + (8 + 4 * n)
        // CINEFILEHEADER
        b.put(UInt16(0x4943), at: 0)  // "CI"
        b.put(UInt16(Self.headerSize), at: 2)
        b.put(UInt16(mosaic == nil ? 0 : 2), at: 4)  // CC_RGB (gray) or CC_UNINT (uninterpolated CFA)
        b.put(UInt16(1), at: 6)  // Version
        b.put(UInt32(bitPattern: Int32(firstImageNumber)), at: 8)  // FirstMovieImage
        b.put(UInt32(n), at: 12)  // TotalImageCount
        b.put(UInt32(bitPattern: Int32(firstImageNumber)), at: 16)  // FirstImageNo
        b.put(UInt32(n), at: 20)  // ImageCount
        b.put(UInt32(Self.headerSize), at: 24)  // OffImageHeader
        b.put(UInt32(Self.setupOffset), at: 28)  // OffSetup
        b.put(UInt32(offImageOffsets), at: 32)
        b.put(try Self.time64(trigger), at: 36)  // TriggerTime
        // BITMAPINFOHEADER: bottom-up rows (positive height), uncompressed (BI_RGB)
        let bmp = Self.headerSize
        b.put(UInt32(Self.bitmapSize), at: bmp)
        b.put(UInt32(width), at: bmp + 4)
        b.put(UInt32(height), at: bmp + 8)
        b.put(UInt16(1), at: bmp + 12)  // biPlanes
        b.put(UInt16(bitsPerSample), at: bmp + 14)
        b.put(UInt32(imageBytes), at: bmp + 20)  // biSizeImage
        try setup(&b, exposure: exposures.first ?? .zero, lastImage: firstImageNumber + n - 1)
        // tagged blocks: BlockSize (with its 8-byte head), Type, Reserved (1 when another block
        // follows, as readers take it: pims stops at a 0), then the data
        b.append(UInt32(8 + 8 * n))
        b.append(UInt16(1002))
        b.append(UInt16(1))
        for t in times { b.append(try Self.time64(t)) }
        b.append(UInt32(8 + 4 * n))
        b.append(UInt16(1003))
        b.append(UInt16(0))
        for e in exposures { b.append(try Self.fraction32(e)) }
        for i in 0..<n { b.append(UInt64(imagesStart + i * recordBytes)) }
        return b.bytes
    }

    /// The `SETUP` fields readers use (offsets in `SETUP`, from the published structure).
    private func setup(_ b: inout LittleEndianBytes, exposure: Rational, lastImage: Int) throws(RationalError) {
        let s = Self.setupOffset
        let fps = frameRate.map { Swift.max(0, $0.rounded(.nearest)) } ?? 0
        let exposureUs = try exposure.ticks(in: Rational(1, 1_000_000), rounding: .nearest)
        let exposureNs = try exposure.ticks(in: Rational(1, 1_000_000_000), rounding: .nearest)
        b.put(UInt16(clamping: fps), at: s + 0)  // FrameRate16
        b.put(UInt16(clamping: exposureUs), at: s + 2)  // Shutter16 (µs)
        b.put(UInt16(0x5453), at: s + 140)  // Mark "ST"
        b.put(UInt16(Self.setupLength), at: s + 142)  // Length
        b.put(UInt16(clamping: width), at: s + 737)  // ImWidth
        b.put(UInt16(clamping: height), at: s + 739)  // ImHeight
        b.put(UInt32(0), at: s + 760)  // bFlipV: rows bottom-up, as stored
        b.put(UInt32(clamping: fps), at: s + 768)  // FrameRate
        b.put(UInt32(clamping: exposureUs), at: s + 772)  // Shutter (µs)
        b.put(UInt32(clamping: Swift.max(0, lastImage)), at: s + 780)  // PostTrigger: images after the trigger frame
        b.put(UInt32(mosaic == nil ? 0 : 1), at: s + 788)  // bEnableColor
        b.put(UInt32(Self.softwareVersion), at: s + 800)  // SoftwareVersion: which fields the SETUP has
        b.put(UInt32(mosaic.flatMap { Self.cfaCodes[$0] } ?? 0), at: s + 808)  // CFA
        b.put(UInt32(realBits), at: s + 896)  // RealBPP
        b.put(UInt32(clamping: exposureNs), at: s + 1568)  // ShutterNs
        b.put(Array(description.utf8.prefix(4095)), at: s + 1596)  // Description, NUL-terminated
        b.put(UInt32(0), at: s + 5732)  // BlackLevel
        b.put(UInt32((1 << realBits) - 1), at: s + 5736)  // WhiteLevel
    }

    /// TIME64: 32-bit fractions of a second (×2^32, nearest) then 32-bit seconds since 1970 (UTC).
    public static func time64(_ t: Rational) throws(RationalError) -> UInt64 {
        var seconds = t.floor
        var fraction = try (t - Rational(seconds)).ticks(in: Rational(1, 1 << 32), rounding: .nearest)
        if fraction == 1 << 32 {
            fraction = 0
            seconds += 1
        }
        return UInt64(UInt32(truncatingIfNeeded: fraction)) | UInt64(UInt32(truncatingIfNeeded: seconds)) << 32
    }

    /// A duration under a second as a 0.32 fixed-point number (nearest; a second or more: the largest).
    public static func fraction32(_ t: Rational) throws(RationalError) -> UInt32 {
        UInt32(clamping: try t.ticks(in: Rational(1, 1 << 32), rounding: .nearest))
    }
}

/// A growing little-endian byte buffer with writes at fixed offsets (headers of binary formats).
struct LittleEndianBytes {
    var bytes: [UInt8]
    init(count: Int) { bytes = [UInt8](repeating: 0, count: count) }

    mutating func put<T: FixedWidthInteger>(_ v: T, at offset: Int) {
        withUnsafeBytes(of: v.littleEndian) { for (i, byte) in $0.enumerated() { bytes[offset + i] = byte } }
    }
    mutating func put(_ raw: [UInt8], at offset: Int) { bytes.replaceSubrange(offset..<offset + raw.count, with: raw) }
    mutating func append<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
}

/// `creation_time` as MP4/MOV/Matroska and slomo write it (`2026-11-28T02:33:57.123456Z`): seconds
/// since 1970 UTC, exactly; nil for any other text (pure, no time zone database).
public func utcSeconds(iso8601 text: String) -> Rational? {
    let s = Array(text.utf8)
    guard s.count >= 20, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"), s[10] == UInt8(ascii: "T"),
        s[13] == UInt8(ascii: ":"), s[16] == UInt8(ascii: ":"), s.last == UInt8(ascii: "Z")
    else { return nil }
    func number(_ r: Range<Int>) -> Int64? {
        var v: Int64 = 0
        for i in r {
            guard s[i] >= 48, s[i] <= 57 else { return nil }
            v = v * 10 + Int64(s[i] - 48)
        }
        return v
    }
    guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), let hh = number(11..<13), let mm = number(14..<16),
        let ss = number(17..<19), (1...12).contains(m), (1...31).contains(d), hh < 24, mm < 60, ss < 61
    else { return nil }
    var fraction = Rational.zero
    if s.count > 20 {
        guard s[19] == UInt8(ascii: "."), s.count - 21 <= 9, let f = number(20..<s.count - 1) else { return nil }
        var unit: Int64 = 1
        for _ in 20..<s.count - 1 { unit *= 10 }
        fraction = Rational(f, unit)
    } else if s[19] != UInt8(ascii: "Z") {
        return nil
    }
    // days from 1970-01-01 in the proleptic Gregorian calendar (civil-from-days, inverted)
    let yy = m <= 2 ? y - 1 : y
    let era = yy / 400, yoe = yy - era * 400
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
    return Rational(days * 86_400 + hh * 3600 + mm * 60 + ss) + fraction
}
