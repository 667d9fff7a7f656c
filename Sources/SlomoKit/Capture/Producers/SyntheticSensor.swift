import SlomoCore

/// The synthetic camera's sensor formats, as machine-vision and high-speed cameras give them: gray
/// (`gray10`, `gray12`, `gray16`) and undebayered Bayer mosaics (`bayer-rggb8` … `bayer-bggr16`),
/// 8 bits a sample or 10, 12 and 16 right-aligned in 16-bit little-endian words (V4L2's `Y16 `,
/// `RG16`, `RG10`…, the capture pixel-format table's rows). Each sample is a known function of the
/// frame's sequence number and its place (`sample`), so every output of a capture can be checked
/// sample by sample against the formula, whatever format it was converted to.
struct SyntheticSensor: Equatable {
    /// The V4L2 fourcc the frames carry (`Y16 `, `RGGB`, `RG12`).
    let fourcc: String
    /// Bits filled in each sample: 8, 10, 12 or 16.
    let bits: Int
    /// The colour filter (`RGGB`), nil for gray.
    let mosaic: String?

    var bytesPerSample: Int { bits > 8 ? 2 : 1 }

    /// The `format=` names, for the spec's refusal.
    static let names = "gray10, gray12, gray16, bayer-rggb8|10|12|16 (or bggr, gbrg, grbg)"

    /// `gray16`, `bayer-rggb12`…; nil for any other name (the calibration-picture formats).
    init?(_ name: String) {
        let gray = ["gray10": "Y10 ", "gray12": "Y12 ", "gray16": "Y16 "]
        if let fourcc = gray[name] {
            self.fourcc = fourcc
            bits = Int(name.dropFirst(4))!
            mosaic = nil
            return
        }
        guard name.hasPrefix("bayer-"), name.count > 10 else { return nil }
        let pattern = String(name.dropFirst(6).prefix(4)).uppercased()
        guard let depth = Int(name.dropFirst(10)), [8, 10, 12, 16].contains(depth) else { return nil }
        let samples = depth == 8 ? nil : "gray\(depth)le"
        guard
            let row = CapturePixelFormat.table.first(where: {
                $0.mosaic == pattern && (depth == 8 ? $0.bitsPerPixel == 8 : $0.ffmpeg == samples)
            })
        else { return nil }
        fourcc = row.fourcc
        bits = depth
        mosaic = pattern
    }

    /// Sample (x, y) of the frame with sequence number `s`: `(s·1031 + x·37 + y·613) mod 2^bits`
    /// (Docs/Capture.md), the same formula at every depth, so a sample moved, swapped or shifted shows.
    static func sample(x: Int, y: Int, sequence s: UInt64, bits: Int) -> UInt16 {
        let mask: UInt64 = (1 << UInt64(bits)) - 1
        return UInt16((s &* 1031 &+ UInt64(x) &* 37 &+ UInt64(y) &* 613) & mask)
    }

    /// Paints the frame with sequence number `s` into `out` (`width·height·bytesPerSample` bytes,
    /// rows packed); returns its byte count.
    func render(sequence s: UInt64, width: Int, height: Int, into out: UnsafeMutableRawPointer) -> Int {
        let mask: UInt64 = (1 << UInt64(bits)) - 1
        for y in 0..<height {
            // along a row the value steps by 37: one addition a sample
            var v = s &* 1031 &+ UInt64(y) &* 613
            if bits > 8 {
                let row = (out + y * width * 2).assumingMemoryBound(to: UInt16.self)
                for x in 0..<width {
                    row[x] = UInt16(v & mask).littleEndian
                    v &+= 37
                }
            } else {
                let row = (out + y * width).assumingMemoryBound(to: UInt8.self)
                for x in 0..<width {
                    row[x] = UInt8(v & mask)
                    v &+= 37
                }
            }
        }
        return width * height * bytesPerSample
    }
}
