/// The machine-readable frame index that `slomo generate` paints into every frame, and its reader.
///
/// Layout: a band across the top 12 % of the picture, split into 40 equal cells, each black
/// (luma 16) or white (luma 235):
///
///     [1 0 1 0] [24-bit index, MSB first] [8-bit CRC of the index] [0 1 0 1]
///
/// Cells are proportional to the frame, so the code survives any scaling that keeps the
/// aspect of the top band; each cell is read as the mean of its inner half, so it survives
/// lossy compression and chroma subsampling. A frame whose cells are not clearly black or
/// white (a blended frame, a different video), whose guard patterns are wrong, or whose CRC
/// fails, reads as `nil`: the reader never guesses.
public enum CalibrationCode {
    public static let cellCount = 40
    public static let indexBits = 24
    public static let maxIndex = (1 << indexBits) - 1
    static let head: [Bool] = [true, false, true, false]
    static let tail: [Bool] = [false, true, false, true]
    public static let black: UInt8 = 16
    public static let white: UInt8 = 235

    /// The band's height for a picture of `height` rows.
    public static func bandHeight(_ height: Int) -> Int { Swift.max(4, height * 12 / 100) }

    /// The 40 cell values for `index` (true = white).
    public static func cells(for index: Int) -> [Bool] {
        precondition(index >= 0 && index <= maxIndex)
        var bits = head
        for b in stride(from: indexBits - 1, through: 0, by: -1) { bits.append(index >> b & 1 == 1) }
        let crc = crc8(index)
        for b in stride(from: 7, through: 0, by: -1) { bits.append(crc >> b & 1 == 1) }
        return bits + tail
    }

    /// CRC-8 (polynomial 0x07) of the index's three bytes, big-endian.
    static func crc8(_ index: Int) -> Int {
        var crc = 0
        for shift in [16, 8, 0] {
            crc ^= index >> shift & 0xFF
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1 ^ 0x07) & 0xFF : crc << 1 & 0xFF }
        }
        return crc
    }

    /// Decodes cell means (0…255). Nil unless every cell is clearly black or white and both
    /// guards and the CRC agree.
    public static func decode(cellMeans: [Int]) -> Int? {
        guard cellMeans.count == cellCount else { return nil }
        var bits: [Bool] = []
        bits.reserveCapacity(cellCount)
        for m in cellMeans {
            if m >= 170 { bits.append(true) } else if m <= 80 { bits.append(false) } else { return nil }
        }
        guard Array(bits[0..<4]) == head, Array(bits[36..<40]) == tail else { return nil }
        var index = 0
        for b in bits[4..<28] { index = index << 1 | (b ? 1 : 0) }
        var crc = 0
        for b in bits[28..<36] { crc = crc << 1 | (b ? 1 : 0) }
        return crc == crc8(index) ? index : nil
    }

    /// Horizontal extent of cell `i` in a picture `width` pixels wide.
    static func cellSpan(_ i: Int, width: Int) -> Range<Int> {
        (i * width / cellCount)..<((i + 1) * width / cellCount)
    }

    /// Paints the code for `index` into an 8-bit luma plane.
    public static func paint(index: Int, luma: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int) {
        let band = bandHeight(height)
        let values = cells(for: index)
        for y in 0..<Swift.min(band, height) {
            let row = luma + y * stride
            for (i, white) in values.enumerated() {
                let span = cellSpan(i, width: width)
                (row + span.lowerBound).update(repeating: white ? CalibrationCode.white : CalibrationCode.black, count: span.count)
            }
        }
    }

    /// Reads the code from an 8-bit luma plane (nil when there is none).
    public static func read(luma: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> Int? {
        guard width >= cellCount * 2, height >= 16 else { return nil }
        let band = bandHeight(height)
        let y0 = band / 4, y1 = Swift.max(y0 + 1, band * 3 / 4)
        var means: [Int] = []
        means.reserveCapacity(cellCount)
        for i in 0..<cellCount {
            let span = cellSpan(i, width: width)
            let inset = span.count / 4
            let x0 = span.lowerBound + inset, x1 = Swift.max(x0 + 1, span.upperBound - inset)
            var sum = 0, n = 0
            for y in y0..<y1 {
                let row = luma + y * stride
                for x in x0..<x1 {
                    sum += Int(row[x])
                    n += 1
                }
            }
            means.append(sum / n)
        }
        return decode(cellMeans: means)
    }
}
