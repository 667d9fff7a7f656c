/// One capture mode: a format, a size and a frame duration (seconds per frame, exact).
public struct CaptureMode: Hashable, Sendable, Codable {
    public var pixelFormat: FourCC
    public var width: Int
    public var height: Int
    public var frameDuration: Rational
    public var compressed: Bool
    /// A raw mode whose bytes per second exceed what USB 2.0 carries in practice (see
    /// ``FormatSelection/usb2BytesPerSecond``). A flag, not a verdict: a listing's bus is unknown,
    /// and USB 3, PCIe and CSI cameras carry such modes fine.
    public var exceedsUSB2Budget: Bool
    /// The device advertises no frame interval for this size: `frameDuration` was measured by
    /// streaming (``ModeMeasurement``), and applying the mode leaves the rate to the driver.
    public var rateMeasured = false

    public init(pixelFormat: FourCC, width: Int, height: Int, frameDuration: Rational, compressed: Bool, exceedsUSB2Budget: Bool = false) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.frameDuration = frameDuration
        self.compressed = compressed
        self.exceedsUSB2Budget = exceedsUSB2Budget
    }

    public var fps: Rational { Rational.one / frameDuration }
    public var area: Int { width * height }

    enum CodingKeys: String, CodingKey { case pixelFormat, width, height, frameDuration, compressed, exceedsUSB2Budget, rateMeasured }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pixelFormat = try c.decode(FourCC.self, forKey: .pixelFormat)
        width = try c.decode(Int.self, forKey: .width)
        height = try c.decode(Int.self, forKey: .height)
        frameDuration = try c.decode(Rational.self, forKey: .frameDuration)
        compressed = try c.decode(Bool.self, forKey: .compressed)
        exceedsUSB2Budget = try c.decodeIfPresent(Bool.self, forKey: .exceedsUSB2Budget) ?? false
        rateMeasured = try c.decodeIfPresent(Bool.self, forKey: .rateMeasured) ?? false
    }
}

/// What the user asks for (`--format`, `--size`, `--min-size`, `--fps`, `--prefer`).
public struct ModeRequest: Sendable, Equatable {
    /// Only this fourcc (case-insensitive; trailing spaces of `Y10 ` need not be typed).
    public var format: FourCC?
    /// Exactly this size.
    public var size: (Int, Int)?
    /// At least this width and this height.
    public var minSize: (Int, Int)?
    /// The rate nearest at or above this; modes that cannot reach it are out.
    public var fps: Rational?
    /// For stepwise/continuous sizes without `size`: the size to use when it is in range (the
    /// device's current size, e.g. an HDMI signal's); otherwise the entry's probed or largest size.
    public var stepwiseSize: (Int, Int)?
    /// Storage preference for ties: default H.264, then MJPEG, then raw.
    public var prefer: [String] = ["h264", "mjpeg", "raw"]
    /// Leave out raw modes flagged as over the USB 2.0 budget (used to offer an alternative).
    public var withinUSB2Budget = false

    public init() {}

    public static func == (a: ModeRequest, b: ModeRequest) -> Bool {
        a.format == b.format && a.size?.0 == b.size?.0 && a.size?.1 == b.size?.1 && a.minSize?.0 == b.minSize?.0
            && a.minSize?.1 == b.minSize?.1 && a.fps == b.fps && a.prefer == b.prefer
            && a.stepwiseSize?.0 == b.stepwiseSize?.0 && a.stepwiseSize?.1 == b.stepwiseSize?.1
            && a.withinUSB2Budget == b.withinUSB2Budget
    }
}

/// Picks the mode to capture in — AVFoundation's "highest-rate format, then its minimum frame
/// duration". Pure, so it is tested on recorded catalogs.
///
/// * Order: highest frame rate (shortest interval) first; ties → larger frame area; ties → the
///   storage preference (H.264/HEVC, then MJPEG/JPEG, then raw; `--prefer` reorders); ties → the
///   driver's format order (the first listed wins).
/// * `--fps R`: each mode's rate is its nearest at or above R (modes that cannot reach R are out),
///   and the closest such rate wins, then area and preference as above.
/// * Discrete sizes are candidates as listed. A stepwise/continuous size entry gives one candidate:
///   `--size` when inside the range, else the size its intervals were probed at, else the current
///   size, else the largest; its stepwise/continuous intervals give their shortest interval (or, with
///   `--fps`, the grid point nearest at or above R).
/// * Sizes without intervals are never selected: no rate is known (v4l2-ctl prints none under
///   stepwise sizes, and some drivers enumerate none).
/// * Link budget: raw modes whose bytes per second exceed ``usb2BytesPerSecond`` are flagged
///   (`exceedsUSB2Budget`), not skipped — the bus is unknown for listings and many such cameras
///   are USB 3 or CSI. Callers show the flag and offer ``best(in:for:)`` with `withinUSB2Budget`
///   as the alternative, so such a mode is never chosen silently.
public enum FormatSelection {
    /// USB 2.0 high speed signals 480 Mbit/s; isochronous video gets at most 3 × 1024 bytes per
    /// 125 µs microframe = 24.576 MB/s. slomo uses 24 MB/s.
    public static let usb2BytesPerSecond = Rational(24_000_000)

    /// Every mode the catalog offers under the request's constraints (unordered).
    public static func candidates(in catalog: DeviceCatalog, for request: ModeRequest = ModeRequest()) -> [CaptureMode] {
        var out: [CaptureMode] = []
        for f in catalog.formats {
            if let want = request.format, want.uppercased().trimmingTrailingSpaces != f.fourcc.uppercased().trimmingTrailingSpaces { continue }
            for s in f.sizes {
                guard let intervals = s.intervals, let size = candidateSize(s, request) else { continue }
                let (w, h) = (size.width, size.height)
                if let (rw, rh) = request.size, rw != w || rh != h { continue }
                if let (mw, mh) = request.minSize, w < mw || h < mh { continue }
                let duration = request.fps.map { intervals.nearest(atOrAbove: $0) } ?? intervals.shortest
                guard let d = duration, d.isPositive else { continue }
                var over = false
                if !f.compressed, let bpp = FourCCKind.bytesPerPixel(f.fourcc) {
                    over = Rational(Int64(w * h)) * bpp / d > usb2BytesPerSecond
                }
                if over && request.withinUSB2Budget { continue }
                out.append(
                    CaptureMode(
                        pixelFormat: f.fourcc, width: w, height: h, frameDuration: d,
                        compressed: f.compressed, exceedsUSB2Budget: over))
            }
        }
        return out
    }

    /// The size a size entry stands for (see the type's notes).
    static func candidateSize(_ s: SizeEntry, _ request: ModeRequest) -> Dimensions? {
        if case .discrete(let w, let h) = s.size { return Dimensions(width: w, height: h) }
        if let (w, h) = request.size, s.size.contains(width: w, height: h) { return Dimensions(width: w, height: h) }
        if let probed = s.intervalsSize { return probed }
        if let (w, h) = request.stepwiseSize, s.size.contains(width: w, height: h) { return Dimensions(width: w, height: h) }
        return s.size.largest
    }

    /// The storage class used for ties: `h264`, `mjpeg` or `raw`.
    public static func storageKind(_ m: CaptureMode) -> String {
        switch m.pixelFormat {
        case "H264", "HEVC", "H265": return "h264"
        case "MJPG", "JPEG": return "mjpeg"
        default: return m.compressed ? "other" : "raw"
        }
    }

    /// The selected mode, or nil when nothing is selectable under the constraints.
    public static func best(in catalog: DeviceCatalog, for request: ModeRequest = ModeRequest()) -> CaptureMode? {
        func pref(_ m: CaptureMode) -> Int { request.prefer.firstIndex(of: storageKind(m)) ?? request.prefer.count }
        var best: CaptureMode?
        for m in candidates(in: catalog, for: request) {
            guard let b = best else {
                best = m
                continue
            }
            let better: Bool
            if m.frameDuration != b.frameDuration {
                // with --fps the closest rate at or above wins (longer duration); otherwise the fastest
                better = request.fps != nil ? m.frameDuration > b.frameDuration : m.frameDuration < b.frameDuration
            } else if m.area != b.area {
                better = m.area > b.area
            } else {
                better = pref(m) < pref(b)
            }
            if better { best = m }
        }
        return best
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
