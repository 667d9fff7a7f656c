/// A V4L2 fourcc as text (`MJPG`, `YUYV`, `Y10 ` — trailing spaces kept).
public typealias FourCC = String

/// A set of frame intervals (seconds per frame) as the driver enumerates them.
public enum FrameIntervals: Hashable, Sendable, Codable {
    case discrete([Rational])
    case stepwise(min: Rational, max: Rational, step: Rational)
    case continuous(min: Rational, max: Rational)

    /// The shortest interval (highest rate); nil when empty.
    public var shortest: Rational? {
        switch self {
        case .discrete(let list): return list.min()
        case .stepwise(let min, _, _), .continuous(let min, _): return min.isPositive ? min : nil
        }
    }

    /// The interval whose rate is nearest at or above `fps`, if any reaches it.
    public func nearest(atOrAbove fps: Rational) -> Rational? {
        guard let target = try? fps.reciprocal() else { return nil }
        switch self {
        case .discrete(let list): return list.filter { $0 <= target }.max()
        case .continuous(let min, let max):
            return target >= min ? Swift.min(target, max) : nil
        case .stepwise(let min, let max, let step):
            guard target >= min else { return nil }
            guard step.isPositive else { return min }
            let k = ((Swift.min(target, max) - min) / step).floor
            return min + Rational(k) * step
        }
    }
}

/// A width and a height in pixels.
public struct Dimensions: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var area: Int { width * height }
    /// `1280x720`
    public var description: String { "\(width)x\(height)" }
}

/// Frame sizes of one pixel format (`VIDIOC_ENUM_FRAMESIZES`): one size, or a range of them.
public enum FrameSize: Hashable, Sendable, Codable {
    case discrete(width: Int, height: Int)
    case stepwise(minWidth: Int, minHeight: Int, maxWidth: Int, maxHeight: Int, stepWidth: Int, stepHeight: Int)
    case continuous(minWidth: Int, minHeight: Int, maxWidth: Int, maxHeight: Int)

    /// The largest size this entry allows.
    public var largest: Dimensions {
        switch self {
        case .discrete(let w, let h), .stepwise(_, _, let w, let h, _, _), .continuous(_, _, let w, let h):
            return Dimensions(width: w, height: h)
        }
    }

    /// Whether `width`x`height` is one of this entry's sizes (inside the range and on the step grid).
    public func contains(width: Int, height: Int) -> Bool {
        switch self {
        case .discrete(let w, let h): return w == width && h == height
        case .continuous(let mw, let mh, let xw, let xh):
            return (mw...max(mw, xw)).contains(width) && (mh...max(mh, xh)).contains(height)
        case .stepwise(let mw, let mh, let xw, let xh, let sw, let sh):
            guard (mw...max(mw, xw)).contains(width), (mh...max(mh, xh)).contains(height) else { return false }
            return (sw <= 0 || (width - mw) % sw == 0) && (sh <= 0 || (height - mh) % sh == 0)
        }
    }
}

/// One size entry of a format with the intervals it offers (nil: the driver gave none).
public struct SizeEntry: Hashable, Sendable, Codable {
    public var size: FrameSize
    public var intervals: FrameIntervals?
    /// For stepwise/continuous sizes: the size the intervals were enumerated at (intervals
    /// depend on the size; a live probe asks at the current or requested size). nil for discrete sizes.
    public var intervalsSize: Dimensions?
    public init(size: FrameSize, intervals: FrameIntervals?, intervalsSize: Dimensions? = nil) {
        self.size = size
        self.intervals = intervals
        self.intervalsSize = intervalsSize
    }
}

public struct PixelFormatEntry: Hashable, Sendable, Codable {
    public var index: Int
    public var fourcc: FourCC
    public var description: String
    public var compressed: Bool
    public var emulated: Bool
    public var sizes: [SizeEntry]
    public init(index: Int, fourcc: FourCC, description: String, compressed: Bool, emulated: Bool, sizes: [SizeEntry]) {
        self.index = index
        self.fourcc = fourcc
        self.description = description
        self.compressed = compressed
        self.emulated = emulated
        self.sizes = sizes
    }
}

/// Everything a capture node offers: formats → sizes → frame intervals, exact.
public struct DeviceCatalog: Hashable, Sendable, Codable {
    public var formats: [PixelFormatEntry]
    public init(formats: [PixelFormatEntry]) { self.formats = formats }
}

/// Compressed-format detection by fourcc (for listings whose names omit "compressed").
public enum FourCCKind {
    public static let compressed: Set<FourCC> = ["MJPG", "JPEG", "H264", "HEVC", "H263", "MPG4", "MPG2", "VP80", "VP90", "AV1F", "dvsd"]
    public static func isCompressed(_ f: FourCC) -> Bool { compressed.contains(f) }

    /// Bytes per pixel of common raw formats (for the USB 2.0 link budget); nil when unknown: the
    /// capture pixel-format table's for the formats slomo stores, these for the others a camera may list.
    public static func bytesPerPixel(_ f: FourCC) -> Rational? {
        if let row = CapturePixelFormat.row(f), row.codec == nil { return Rational(Int64(row.bitsPerPixel), 8) }
        switch f {
        case "YUYV", "UYVY", "YVYU", "VYUY", "422P", "NV16", "NV61", "RGBP", "RGBR", "Y16 ", "Y10 ", "Y12 ", "RG10", "BG10", "GB10", "BA10", "RG12":
            return Rational(2)
        case "NV12", "NV21", "YU12", "YV12", "M420": return Rational(3, 2)
        case "GREY", "BA81", "GBRG", "GRBG", "RGGB": return Rational(1)
        case "RGB3", "BGR3": return Rational(3)
        case "XR24", "AR24", "BX24", "BGR4", "RGB4", "XB24", "AB24", "RX24": return Rational(4)
        default: return nil
        }
    }
}

// JSON: a designed shape with a `type` field instead of Swift's synthesized enum coding
// (`{"discrete": {"_0": [...]}}`, issue #18): `{"type": "discrete", "intervals": [...]}`,
// `{"type": "stepwise", "min": …, "max": …, "step": …}`, `{"type": "continuous", "min": …, "max": …}`.
extension FrameIntervals {
    private enum Key: String, CodingKey { case type, intervals, min, max, step }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .discrete(let list):
            try c.encode("discrete", forKey: .type)
            try c.encode(list, forKey: .intervals)
        case .stepwise(let lo, let hi, let step):
            try c.encode("stepwise", forKey: .type)
            try c.encode(lo, forKey: .min)
            try c.encode(hi, forKey: .max)
            try c.encode(step, forKey: .step)
        case .continuous(let lo, let hi):
            try c.encode("continuous", forKey: .type)
            try c.encode(lo, forKey: .min)
            try c.encode(hi, forKey: .max)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        switch try c.decode(String.self, forKey: .type) {
        case "discrete": self = .discrete(try c.decode([Rational].self, forKey: .intervals))
        case "stepwise":
            self = .stepwise(
                min: try c.decode(Rational.self, forKey: .min), max: try c.decode(Rational.self, forKey: .max),
                step: try c.decode(Rational.self, forKey: .step))
        case "continuous": self = .continuous(min: try c.decode(Rational.self, forKey: .min), max: try c.decode(Rational.self, forKey: .max))
        case let other: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown interval type '\(other)'")
        }
    }
}

// `{"type": "discrete", "width": …, "height": …}`; stepwise and continuous name their bounds.
extension FrameSize {
    private enum Key: String, CodingKey { case type, width, height, minWidth, minHeight, maxWidth, maxHeight, stepWidth, stepHeight }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .discrete(let w, let h):
            try c.encode("discrete", forKey: .type)
            try c.encode(w, forKey: .width)
            try c.encode(h, forKey: .height)
        case .stepwise(let mw, let mh, let xw, let xh, let sw, let sh):
            try c.encode("stepwise", forKey: .type)
            for (k, v) in [(Key.minWidth, mw), (.minHeight, mh), (.maxWidth, xw), (.maxHeight, xh), (.stepWidth, sw), (.stepHeight, sh)] {
                try c.encode(v, forKey: k)
            }
        case .continuous(let mw, let mh, let xw, let xh):
            try c.encode("continuous", forKey: .type)
            for (k, v) in [(Key.minWidth, mw), (.minHeight, mh), (.maxWidth, xw), (.maxHeight, xh)] { try c.encode(v, forKey: k) }
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func i(_ k: Key) throws -> Int { try c.decode(Int.self, forKey: k) }
        switch try c.decode(String.self, forKey: .type) {
        case "discrete": self = .discrete(width: try i(.width), height: try i(.height))
        case "stepwise":
            self = .stepwise(
                minWidth: try i(.minWidth), minHeight: try i(.minHeight), maxWidth: try i(.maxWidth),
                maxHeight: try i(.maxHeight), stepWidth: try i(.stepWidth), stepHeight: try i(.stepHeight))
        case "continuous":
            self = .continuous(minWidth: try i(.minWidth), minHeight: try i(.minHeight), maxWidth: try i(.maxWidth), maxHeight: try i(.maxHeight))
        case let other: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown size type '\(other)'")
        }
    }
}
