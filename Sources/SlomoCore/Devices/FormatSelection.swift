/// One capture mode: a format, a size and a frame duration.
public struct CaptureMode: Hashable, Sendable, Codable {
    public var pixelFormat: FourCC
    public var width: Int
    public var height: Int
    public var frameDuration: Rational
    public var compressed: Bool
    /// Raw modes whose bytes per second exceed what USB 2.0 carries in practice (flag, not a verdict:
    /// the bus of a listing is unknown, and USB 3 or CSI cameras are fine).
    public var exceedsUSB2Budget: Bool

    public var fps: Rational { Rational.one / frameDuration }
    public var area: Int { width * height }
}

/// What the user asks for (`--format`, `--size`, `--min-size`, `--fps`, `--prefer`).
public struct ModeRequest: Sendable, Equatable {
    public var format: FourCC?
    public var size: (Int, Int)?
    public var minSize: (Int, Int)?
    public var fps: Rational?
    /// For stepwise/continuous sizes (scalers, HDMI inputs): the size to use when it is in range,
    /// e.g. the device's current size; otherwise the largest size is the candidate.
    public var stepwiseSize: (Int, Int)?
    /// Storage preference for ties: default H.264, then MJPEG, then raw.
    public var prefer: [String] = ["h264", "mjpeg", "raw"]
    public init() {}
    public static func == (a: ModeRequest, b: ModeRequest) -> Bool {
        a.format == b.format && a.size?.0 == b.size?.0 && a.size?.1 == b.size?.1 && a.minSize?.0 == b.minSize?.0
            && a.minSize?.1 == b.minSize?.1 && a.fps == b.fps && a.prefer == b.prefer
    }
}

/// Picks the mode to capture in. Pure, so it is tested on recorded catalogs.
///
/// Order: highest frame rate (shortest interval) first; ties → larger frame area; ties → the storage
/// preference (H.264, then MJPEG, then raw; `--prefer` reorders); ties → the driver's format order.
/// With `--fps R`, modes that reach R are ranked by how close their nearest rate at or above R is.
/// Discrete sizes are candidates; for stepwise/continuous sizes the largest size is the candidate.
/// Sizes without intervals cannot be selected (no rate is known).
public enum FormatSelection {
    /// USB 2.0 high speed carries ~480 Mbit/s raw; isochronous video gets at most ~24 MB/s in practice.
    public static let usb2BytesPerSecond = Rational(24_000_000)

    public static func candidates(in catalog: DeviceCatalog, for request: ModeRequest = ModeRequest()) -> [CaptureMode] {
        var out: [CaptureMode] = []
        for f in catalog.formats {
            if let want = request.format, want.uppercased() != f.fourcc.uppercased().trimmingTrailingSpaces { continue }
            for s in f.sizes {
                guard let intervals = s.intervals else { continue }
                let (w, h): (Int, Int)
                switch s.size {
                case .discrete(let a, let b): (w, h) = (a, b)
                case .stepwise(let mw, let mh, let a, let b, _, _), .continuous(let mw, let mh, let a, let b):
                    if let (pw, ph) = request.size ?? request.stepwiseSize, pw >= mw, pw <= a, ph >= mh, ph <= b { (w, h) = (pw, ph) } else { (w, h) = (a, b) }
                }
                if let (rw, rh) = request.size, rw != w || rh != h { continue }
                if let (mw, mh) = request.minSize, w < mw || h < mh { continue }
                let duration: Rational?
                if let fps = request.fps { duration = intervals.nearest(atOrAbove: fps) } else { duration = intervals.shortest }
                guard let d = duration, d.isPositive else { continue }
                var over = false
                if !f.compressed, let bpp = FourCCKind.bytesPerPixel(f.fourcc) {
                    over = Rational(Int64(w * h)) * bpp / d > usb2BytesPerSecond
                }
                out.append(CaptureMode(pixelFormat: f.fourcc, width: w, height: h, frameDuration: d, compressed: f.compressed, exceedsUSB2Budget: over))
            }
        }
        return out
    }

    public static func best(in catalog: DeviceCatalog, for request: ModeRequest = ModeRequest()) -> CaptureMode? {
        let c = candidates(in: catalog, for: request)
        func pref(_ m: CaptureMode) -> Int {
            let kind = m.pixelFormat == "H264" || m.pixelFormat == "HEVC" ? "h264" : (m.pixelFormat == "MJPG" || m.pixelFormat == "JPEG") ? "mjpeg" : "raw"
            return request.prefer.firstIndex(of: kind) ?? request.prefer.count
        }
        var best: (CaptureMode, Int)?
        for (i, m) in c.enumerated() {
            guard let (b, _) = best else { best = (m, i); continue }
            let better: Bool
            if m.frameDuration != b.frameDuration {
                // with --fps the closest rate at or above wins; otherwise the fastest
                better = request.fps != nil ? m.frameDuration > b.frameDuration : m.frameDuration < b.frameDuration
            } else if m.area != b.area {
                better = m.area > b.area
            } else {
                better = pref(m) < pref(b)
            }
            if better { best = (m, i) }
        }
        return best?.0
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
