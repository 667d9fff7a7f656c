/// Where a raw format keeps a brightness sample for each pixel: the image trigger reads that
/// plane only (luma, or green for RGB, or the raw sensor value for Bayer).
public struct LumaLayout: Sendable, Equatable {
    /// Byte offset of the first pixel's sample within a row.
    public var offset: Int
    /// Bytes from one pixel's sample to the next in a row.
    public var pixelStride: Int

    /// The layout of `fourcc`'s brightness samples, or nil for formats the trigger cannot read
    /// (compressed ones: MJPEG, H.264).
    public static func of(fourcc: String) -> LumaLayout? {
        switch fourcc {
        case "YUYV", "YVYU": return LumaLayout(offset: 0, pixelStride: 2)
        case "UYVY", "VYUY": return LumaLayout(offset: 1, pixelStride: 2)
        case "GREY", "YU12", "YV12", "NV12", "NV21", "NV16", "NV61", "NV24", "NV42", "422P",
            "NM12", "NM21", "NM16", "NM61", "YM12", "YM21", "YM16", "YM61", "YM24", "YM42",
            "BA81", "GBRG", "GRBG", "RGGB":
            return LumaLayout(offset: 0, pixelStride: 1)
        // 16-bit little-endian containers (10/12/16-bit gray and Bayer): the high byte
        case "Y10 ", "Y12 ", "Y16 ", "BG10", "GB10", "BA10", "RG10", "BG12", "GB12", "BA12", "RG12",
            "BG16", "GB16", "GR16", "RG16":
            return LumaLayout(offset: 1, pixelStride: 2)
        case "RGB3", "BGR3": return LumaLayout(offset: 1, pixelStride: 3)
        // 32-bit RGB: green's byte in memory order (BGRA, BGRX, RGBA, RGBX: 1; ABGR, XBGR, ARGB, XRGB: 2)
        case "XR24", "AR24", "XB24", "AB24": return LumaLayout(offset: 1, pixelStride: 4)
        case "RX24", "RA24", "BX24", "BA24": return LumaLayout(offset: 2, pixelStride: 4)
        default: return nil
        }
    }
}

/// A rectangle of the picture in pixels.
public struct PixelRegion: Sendable, Equatable, Codable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `X,Y,W,H`.
    public init(parsing text: String) throws(SettingError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingSpaces) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else {
            throw SettingError(.triggerRegion, text, "expected X,Y,WIDTH,HEIGHT in pixels")
        }
        guard x >= 0, y >= 0, w > 0, h > 0 else { throw SettingError(.triggerRegion, text, "offsets must be ≥ 0 and sizes > 0") }
        self.init(x: x, y: y, width: w, height: h)
    }

    public func fits(width: Int, height: Int) -> Bool { x + self.width <= width && y + self.height <= height }
    public var description: String { "\(x),\(y),\(width),\(height)" }
}

/// The image trigger: the mean absolute difference of brightness between a frame and the one
/// before it, over a region, read every `step`-th pixel of every `step`-th row (step 2: a quarter
/// of the pixels), in 8-bit units (0–255). Keeps its own copy of the previous samples, so it never
/// holds a frame of the ring.
public struct MotionDetector: Sendable {
    public let region: PixelRegion
    public let layout: LumaLayout
    public let bytesPerLine: Int
    public let step: Int
    private var previous: [UInt8] = []

    public init(region: PixelRegion, layout: LumaLayout, bytesPerLine: Int, step: Int = 2) {
        self.region = region
        self.layout = layout
        self.bytesPerLine = bytesPerLine
        self.step = Swift.max(1, step)
    }

    /// Samples read per frame.
    public var samplesPerFrame: Int { ((region.width + step - 1) / step) * ((region.height + step - 1) / step) }

    /// The frame's score against the previous frame (nil for the first frame, which has none).
    /// The score is the exact mean as a fraction: `sum / samples`.
    public mutating func score(_ frame: UnsafeRawBufferPointer) -> (sum: Int, samples: Int)? {
        let n = samplesPerFrame
        let lastByte = (region.y + region.height - 1) * bytesPerLine + layout.offset + (region.x + region.width - 1) * layout.pixelStride
        guard lastByte < frame.count, let base = frame.baseAddress else { return nil }
        let first = previous.isEmpty  // a short frame never becomes the reference
        if first { previous = [UInt8](repeating: 0, count: n) }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var sum = 0
        let (step, stride, off, bpl) = (self.step, layout.pixelStride, layout.offset, bytesPerLine)
        previous.withUnsafeMutableBufferPointer { prev in
            var i = 0
            var row = region.y
            while row < region.y + region.height {
                let line = bytes + row * bpl + off + region.x * stride
                var col = 0
                while col < region.width {
                    let v = line[col * stride]
                    let p = prev[i]
                    sum &+= v > p ? Int(v - p) : Int(p - v)
                    prev[i] = v
                    i += 1
                    col += step
                }
                row += step
            }
        }
        return first ? nil : (sum, n)
    }
}
