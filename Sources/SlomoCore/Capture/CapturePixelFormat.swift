/// The capture pixel formats slomo stores, one row each: the one place that says how a camera's
/// frame lies in memory, which frames stand alone, what FFmpeg calls its samples and how many bytes
/// a pixel takes. The recorder, the shot placer, the preview, serve's pictures, GenICam and the
/// device listing all ask this table (`CaptureFormat.pixels`), never a list of their own.
public struct CapturePixelFormat: Sendable, Equatable {
    /// Which frames of a stream decode alone.
    public enum Keyframes: Sendable, Equatable {
        /// Every frame (raw samples, MJPEG).
        case everyFrame
        /// H.264 or HEVC from the camera (Annex B): a frame stands alone when its first picture
        /// unit is an IDR/IRAP picture or a sequence header comes first (`isKeyframe`).
        case nal(NALUnits.Codec)
    }

    /// The V4L2 fourcc (`YUYV`, `Y16 `, `MJPG`): the name the ring, the writer and reports use.
    public let fourcc: String
    /// The samples as FFmpeg names them (`yuyv422`, `gray16le`); nil for compressed formats.
    public let ffmpeg: String?
    /// The decoder of a compressed format (`mjpeg`, `h264`, `hevc`); nil for raw samples.
    public let codec: String?
    /// Bits a pixel takes, over every plane (YUYV 16, NV12 12); 0 for compressed formats.
    public let bitsPerPixel: Int
    /// Planes in memory order (NV12: 2, YU12: 3); 1 for packed and compressed formats.
    public let planes: Int
    /// The colour filter of an undebayered sensor format (`RGGB`), stored as the sensor's samples.
    public let mosaic: String?
    /// The GenICam PixelFormat names (PFNC) with this memory layout (unpacked, little-endian).
    public let genicam: [String]
    public let keyframes: Keyframes

    /// Bytes a pixel takes in its first plane's rows (packed formats: the whole pixel).
    public var bytesPerPixel: Int {
        guard codec == nil else { return 0 }
        return planes == 1 ? bitsPerPixel / 8 : 1  // every planar row is 8-bit luma first
    }

    /// The samples the lossless recorder, the preview and serve's pictures read: an 8-bit mosaic
    /// as gray samples (swscale would demosaic a `bayer_*` input), every other raw format as itself.
    /// 10/12/16-bit mosaics already read as gray10/12/16 (samples in 16-bit words).
    public var sensorSamples: String? { mosaic != nil && bitsPerPixel == 8 ? "gray" : ffmpeg }

    /// The row of a fourcc; nil when slomo does not store it.
    public static func row(_ fourcc: String) -> CapturePixelFormat? { byFourCC[fourcc] }

    /// The row of a GenICam PixelFormat name (`Mono8`, `BayerRG16`); nil when slomo does not store it.
    public static func genicam(_ name: String) -> CapturePixelFormat? { byGenICam[name] }

    public static let table: [CapturePixelFormat] = compressed + packed + planar + sensor

    private static let compressed: [CapturePixelFormat] = [
        .init("MJPG", codec: "mjpeg"), .init("JPEG", codec: "mjpeg"),
        .init("H264", codec: "h264", keyframes: .nal(.h264)), .init("HEVC", codec: "hevc", keyframes: .nal(.hevc)),
    ]
    private static let packed: [CapturePixelFormat] = [
        .init("YUYV", "yuyv422", bits: 16, genicam: ["YUV422_8", "YUV422_YUYV_Packed"]),
        .init("UYVY", "uyvy422", bits: 16, genicam: ["YUV422_8_UYVY", "YUV422Packed"]),
        .init("YVYU", "yvyu422", bits: 16),
        .init("GREY", "gray", bits: 8, genicam: ["Mono8"]),
        .init("Y10 ", "gray10le", bits: 16, genicam: ["Mono10"]),
        .init("Y12 ", "gray12le", bits: 16, genicam: ["Mono12"]),
        .init("Y16 ", "gray16le", bits: 16, genicam: ["Mono16"]),
        .init("RGB3", "rgb24", bits: 24, genicam: ["RGB8", "RGB8Packed"]),
        .init("BGR3", "bgr24", bits: 24, genicam: ["BGR8", "BGR8Packed"]),
        .init("XR24", "bgr0", bits: 32), .init("AR24", "bgra", bits: 32), .init("RGBP", "rgb565le", bits: 16),
    ]
    /// Several planes one after another; the multi-planar variants (`NM12`…) hold the same samples,
    /// each plane in its own buffer (the capture thread copies them into this layout).
    private static let planar: [CapturePixelFormat] = [
        .init("NV12", "nv12", bits: 12, planes: 2), .init("NV21", "nv21", bits: 12, planes: 2),
        .init("NV16", "nv16", bits: 16, planes: 2), .init("NV24", "nv24", bits: 24, planes: 2),
        .init("YU12", "yuv420p", bits: 12, planes: 3), .init("422P", "yuv422p", bits: 16, planes: 3),
        .init("NM12", "nv12", bits: 12, planes: 2), .init("NM21", "nv21", bits: 12, planes: 2),
        .init("NM16", "nv16", bits: 16, planes: 2), .init("YM12", "yuv420p", bits: 12, planes: 3),
        .init("YM16", "yuv422p", bits: 16, planes: 3), .init("YM24", "yuv444p", bits: 24, planes: 3),
    ]
    /// Undebayered sensor samples: 8-bit mosaics as FFmpeg's bayer formats (read as gray where the
    /// samples are kept), 10/12/16-bit ones right-aligned in 16-bit little-endian words, as gray.
    private static let sensor: [CapturePixelFormat] = [
        .init("BA81", "bayer_bggr8", bits: 8, mosaic: "BGGR", genicam: ["BayerBG8"]),
        .init("GBRG", "bayer_gbrg8", bits: 8, mosaic: "GBRG", genicam: ["BayerGB8"]),
        .init("GRBG", "bayer_grbg8", bits: 8, mosaic: "GRBG", genicam: ["BayerGR8"]),
        .init("RGGB", "bayer_rggb8", bits: 8, mosaic: "RGGB", genicam: ["BayerRG8"]),
        .init("BG10", "gray10le", bits: 16, mosaic: "BGGR"), .init("GB10", "gray10le", bits: 16, mosaic: "GBRG"),
        .init("BA10", "gray10le", bits: 16, mosaic: "GRBG"), .init("RG10", "gray10le", bits: 16, mosaic: "RGGB"),
        .init("BG12", "gray12le", bits: 16, mosaic: "BGGR"), .init("GB12", "gray12le", bits: 16, mosaic: "GBRG"),
        .init("BA12", "gray12le", bits: 16, mosaic: "GRBG"), .init("RG12", "gray12le", bits: 16, mosaic: "RGGB"),
        .init("BG16", "gray16le", bits: 16, mosaic: "BGGR", genicam: ["BayerBG16"]),
        .init("GB16", "gray16le", bits: 16, mosaic: "GBRG", genicam: ["BayerGB16"]),
        .init("GR16", "gray16le", bits: 16, mosaic: "GRBG", genicam: ["BayerGR16"]),
        .init("RG16", "gray16le", bits: 16, mosaic: "RGGB", genicam: ["BayerRG16"]),
    ]

    private static let byFourCC = Dictionary(uniqueKeysWithValues: table.map { ($0.fourcc, $0) })
    private static let byGenICam = Dictionary(uniqueKeysWithValues: table.flatMap { row in row.genicam.map { ($0, row) } })

    private init(
        _ fourcc: String, _ ffmpeg: String? = nil, codec: String? = nil, bits: Int = 0, planes: Int = 1, mosaic: String? = nil,
        genicam: [String] = [], keyframes: Keyframes = .everyFrame
    ) {
        self.fourcc = fourcc
        self.ffmpeg = ffmpeg
        self.codec = codec
        self.bitsPerPixel = bits
        self.planes = planes
        self.mosaic = mosaic
        self.genicam = genicam
        self.keyframes = keyframes
    }
}

extension CapturePixelFormat.Keyframes {
    /// Whether a frame of this stream decodes alone. H.264/HEVC (Annex B): the first picture unit
    /// decides (an IDR or IRAP picture), or a sequence header (SPS/VPS) before it, which cameras
    /// send only with a keyframe; parameter sets, SEI and delimiters before it are skipped (x264's
    /// first SEI alone is ~700 bytes), up to 64 KiB.
    public func isKeyframe(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard case .nal(let codec) = self else { return true }
        var key = false
        NALUnits(codec, framing: .annexB).forEach(in: bytes, limit: 65_536) { u in
            if u.isSequenceHeader {
                key = true
                return false
            }
            if u.isPicture {
                key = u.isKeyPicture
                return false
            }
            return true
        }
        return key
    }
}

extension CaptureFormat {
    /// This format's row of the capture pixel-format table; nil when slomo does not store it.
    public var pixels: CapturePixelFormat? { CapturePixelFormat.row(fourcc) }
}
