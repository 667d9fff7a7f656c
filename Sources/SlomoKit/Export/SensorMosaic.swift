import SlomoCore
import SlomoFFmpeg

/// Debayering at export. A capture of a raw-sensor format is stored as the sensor's samples —
/// gray, 8 or 10/12/16 bits, with the colour filter pattern as `slomo_cfa_pattern` metadata —
/// so the master stays exact. Export reads those samples back as the Bayer mosaic they are and
/// lets swscale demosaic them (bilinear) to RGB, which the export then converts like any picture.
/// 10- and 12-bit samples are first widened to 16 bits (FFmpeg's Bayer formats are 8 or 16-bit).
/// Always through RGB: swscale's direct 8-bit Bayer → YUV 4:2:0 path (FFmpeg 5.1) gives wrong
/// colours — measured, a flat R 200 G 120 B 40 mosaic came out as 179/81/21, through RGB as 200/120/40.
final class SensorMosaic {
    let pattern: String
    private let widen = Scaler()
    private let demosaic = Scaler()

    /// Nil when the input carries no (known) pattern.
    init?(pattern: String?) {
        guard let pattern, PixelFormat.bayer(pattern, sixteenBit: false) != nil else { return nil }
        self.pattern = pattern
    }

    /// The decoded gray frame demosaiced: RGB24 from 8-bit samples, RGB48 from deeper ones.
    func colour(_ f: Frame, input: String) throws -> Frame {
        let bits = f.pixelFormat.bitDepth
        guard bits >= 8 && bits <= 16 else {
            throw MediaError.sensorMismatch(path: input, pattern: pattern, pixelFormat: "\(f.pixelFormat)")
        }
        let m = try mosaic(f, input: input)
        return try demosaic.convert(m, width: m.width, height: m.height, pixelFormat: bits > 8 ? .rgb48 : .rgb24)
    }

    /// The decoded gray frame as its mosaic (the same frame relabelled, or a widened copy).
    func mosaic(_ f: Frame, input: String) throws -> Frame {
        let bits = f.pixelFormat.bitDepth
        var samples = f
        if bits > 8 && bits < 16 {
            samples = try widen.convert(f, width: f.width, height: f.height, pixelFormat: .gray16)
        }
        guard let mosaic = PixelFormat.bayer(pattern, sixteenBit: bits > 8), samples.relabel(as: mosaic) else {
            throw MediaError.sensorMismatch(path: input, pattern: pattern, pixelFormat: "\(f.pixelFormat)")
        }
        return samples
    }
}
