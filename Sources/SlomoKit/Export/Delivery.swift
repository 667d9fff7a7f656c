import SlomoCore
import SlomoFFmpeg

/// How an export is delivered beyond its codec: the picture size, the pixel format, a target bit
/// rate and the keyframe interval (`--size`, `--pix-fmt`, `--bitrate`, `--gop`). Checked against
/// the encoder before anything opens.
public struct Delivery: Sendable, Equatable {
    /// The upright output size; 0 on one side: from the other, the source's aspect kept (even).
    public var width: Int?
    public var height: Int?
    public var pixelFormat: String?
    public var bitRate: Int64?
    public var gop: Int?
    public init() {}

    /// The delivery a job asks for, checked: a size `WxH` (0 on one side for "keep the aspect"),
    /// a pixel format the encoder writes, a bit rate from 10k to 1G, a GOP of 1 to 10,000 frames;
    /// `--crf` and `--bitrate` together are refused (each is a rate control).
    /// `encoder` nil: not known yet (a batch job's output has no name yet); the pixel format is
    /// then checked when the export opens (`checkPixelFormat`).
    static func parse(size: String?, pixFmt: String?, bitrate: String?, gop: Int?, crf: Int?, encoder: String?) throws(SettingError) -> Delivery {
        var d = Delivery()
        if let size {
            let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 0, h >= 0, w + h > 0, w <= 16384, h <= 16384 else {
                throw SettingError(.size, size, "expected WIDTHxHEIGHT (e.g. 1280x720; 1280x0 keeps the aspect), at most 16384")
            }
            d.width = w
            d.height = h
        }
        if let pixFmt {
            guard PixelFormat(name: pixFmt) != nil else { throw SettingError(.pixFmt, pixFmt, "not a pixel format FFmpeg knows (e.g. yuv420p, yuv420p10le)") }
            d.pixelFormat = pixFmt
            if let encoder { try d.checkPixelFormat(encoder: encoder) }
        }
        if let bitrate {
            guard crf == nil else { throw SettingError(.bitrate, bitrate, "give --crf or --bitrate, not both (each sets the rate control)") }
            let units: [Character: Int64] = ["K": 1000, "M": 1_000_000, "G": 1_000_000_000]
            var body = bitrate.uppercased()
            var scale: Int64 = 1
            if let u = body.last, let m = units[u] {
                scale = m
                body.removeLast()
            }
            guard let r = try? Rational(parsing: body), r.isPositive, r <= Rational(1_000_000_000), case let b = r * Rational(scale),
                b >= Rational(10_000), b <= Rational(1_000_000_000)
            else {
                throw SettingError(.bitrate, bitrate, "expected a bit rate such as 8M or 2500k, from 10k to 1G")
            }
            d.bitRate = b.floor
        }
        if let gop {
            guard (1...10_000).contains(gop) else { throw SettingError(.gop, String(gop), "must be in 1...10000 frames") }
            d.gop = gop
        }
        return d
    }

    /// The pixel format asked for, against what `encoder` writes.
    func checkPixelFormat(encoder: String) throws(SettingError) {
        guard let pixFmt = pixelFormat, let f = PixelFormat(name: pixFmt) else { return }
        let offered = Encoder.pixelFormats(codec: encoder)
        guard offered.isEmpty || offered.contains(f) else {
            throw SettingError(.pixFmt, pixFmt, "\(encoder) writes \(offered.map(\.description).prefix(12).joined(separator: ", "))")
        }
    }

    /// The encoded size for a source of `width`×`height` (upright): the asked size, a 0 side
    /// from the other with the aspect kept and rounded to even, or the source's.
    func size(source width: Int, _ height: Int) -> (Int, Int) {
        switch (self.width, self.height) {
        case let (w?, h?) where w > 0 && h > 0: return (w, h)
        case let (w?, _) where w > 0: return (w, Swift.max(2, Int((Double(height) * Double(w) / Double(width) / 2).rounded()) * 2))
        case let (_, h?) where h > 0: return (Swift.max(2, Int((Double(width) * Double(h) / Double(height) / 2).rounded()) * 2), h)
        default: return (width, height)
        }
    }
}
