/// One plane of a raw frame as the driver lays it out: `bytesPerLine` may exceed the visible
/// width (padded rows), `size` is the plane's whole buffer (V4L2 `sizeimage`).
public struct CapturePlane: Sendable, Equatable, Codable {
    public var bytesPerLine: Int
    public var size: Int
    public init(bytesPerLine: Int, size: Int) {
        self.bytesPerLine = bytesPerLine
        self.size = size
    }
}

/// The shape of a captured stream: what the ring and the writer need to store it.
public struct CaptureFormat: Sendable, Equatable, Codable {
    /// V4L2 fourcc as text: `MJPG`, `H264`, `YUYV`, `UYVY`, `NV12`, `YU12`, `GREY`, `NM12`…
    public var fourcc: String
    public var width: Int
    public var height: Int
    /// Bytes per line of a raw format's first plane (0 for compressed formats).
    public var bytesPerLine: Int
    /// The frame duration the driver reported (1/fps), if any.
    public var frameDuration: Rational?
    /// The driver's buffer planes: one on single-planar nodes (all of a frame's planes in one
    /// buffer), one per plane on multi-planar nodes (`NM12`: luma and chroma apart).
    public var planes: [CapturePlane]

    public init(
        fourcc: String, width: Int, height: Int, bytesPerLine: Int = 0, frameDuration: Rational? = nil,
        planes: [CapturePlane] = []
    ) {
        self.fourcc = fourcc
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.frameDuration = frameDuration
        self.planes = planes
    }

    /// Formats stored as they arrive (no re-encode).
    public var isCompressed: Bool { pixels?.codec != nil }

    /// H.264 or HEVC from the camera: frames predicted from others, so keyframes matter (a shot
    /// starts at one, the preview cannot show a frame alone); the units to read them with.
    public var nalCodec: NALUnits.Codec? {
        guard case .nal(let codec) = pixels?.keyframes else { return nil }
        return codec
    }

    /// An 8-bit raw sensor mosaic (BA81, GBRG, GRBG, RGGB): stored and previewed as gray samples.
    public var isSensor8: Bool { pixels.map { $0.mosaic != nil && $0.bitsPerPixel == 8 } ?? false }

    /// The most bytes one frame can take: the sum of the planes' buffer sizes.
    public var maxFrameBytes: Int { planes.reduce(0) { $0 + $1.size } }

    /// Bayer (raw sensor) formats: the colour filter pattern, else nil.
    public var bayerPattern: String? { pixels?.mosaic }

    enum CodingKeys: String, CodingKey { case fourcc, width, height, bytesPerLine, frameDuration, planes }
}

/// One frame as the source hands it over: borrowed bytes, valid only during the
/// `CaptureSource.next` call that passes it (the driver gets the buffer back right after).
public struct BorrowedFrame {
    /// The frame's planes, each as many bytes as the driver filled (`bytesused`).
    public var planes: [UnsafeRawBufferPointer]
    /// Presentation time in seconds on the source's clock (V4L2: the buffer's timestamp).
    public var timestamp: Rational
    /// The camera's frame number (V4L2's sequence, a GenICam frame id), counted as the source's
    /// `frameCounter` says: gaps are frames the camera or driver lost.
    public var sequence: UInt64
    /// Why the frame is not good (nil: it is): counted, never stored.
    public var damage: FrameDamage?

    public init(planes: [UnsafeRawBufferPointer], timestamp: Rational, sequence: UInt64, damage: FrameDamage? = nil) {
        self.planes = planes
        self.timestamp = timestamp
        self.sequence = sequence
        self.damage = damage
    }

    public var byteCount: Int { planes.reduce(0) { $0 + $1.count } }
}

/// Why a source stopped giving frames.
public enum CaptureEnd: Error, Sendable, Equatable {
    /// The source has no more frames (synthetic source done).
    case finished
    /// The device went away (unplugged, driver error); `reason` names it.
    case disconnected(String)
    /// No frame yet, nothing wrong (a camera waiting for its trigger): call `next` again; the
    /// capture thread sees a stop request in between.
    case idle
}

/// A camera (or the synthetic stand-in) as the capture thread sees it. `next` blocks until a frame
/// is there, lends it to `body` and returns the buffer to the driver as soon as `body` returns:
/// `body` copies and does nothing else, so the driver always has its buffers back.
public protocol CaptureSource: AnyObject {
    var format: CaptureFormat { get }
    /// Human-readable name for metadata and messages (`/dev/video0 (vivid)`, `synthetic`).
    var name: String { get }
    /// The clock the timestamps come from and where in the frame they are taken, as the
    /// buffers' flags say. Nil until the first frame.
    var timestampClock: TimestampClock? { get }
    /// False for a source that never waits for its frames (a benchmark's unpaced synthetic camera):
    /// its thread must not get real-time priority, or it would hold a core.
    var isPaced: Bool { get }
    /// How the frames are numbered (wraps, width): drops are counted by it.
    var frameCounter: FrameCounter { get }
    /// Settings the driver changed on its own (asked 35 fps, got 40), for the report.
    var adjustments: [String] { get }
    /// The camera controls set for this capture (`--gain lock`, `--shutter`…) as written and read
    /// back; `atEnd` filled once the camera has stopped.
    func cameraControls() -> [AppliedControl]
    /// Gets everything costly ready (buffers allocated and mapped) without streaming yet.
    func prepare() throws
    /// Starts streaming (`VIDIOC_STREAMON`); frames arrive from here on.
    func start() throws
    /// The next frame lent to `body`, or why the stream ended (nil: a frame was delivered).
    func next(_ body: (BorrowedFrame) -> Void) throws -> CaptureEnd?
    func stop()
    /// A networked camera's transport (GenICam): buffers, packets, stream statistics, frame ids,
    /// its clock's fit; nil for V4L2 and the synthetic source. Read once the source has stopped.
    func transportReport() -> TransportReport?
}

extension CaptureSource {
    public var adjustments: [String] { [] }
    public func cameraControls() -> [AppliedControl] { [] }
    public var isPaced: Bool { true }
    public var frameCounter: FrameCounter { .v4l2 }
    public func prepare() throws {}
    public func transportReport() -> TransportReport? { nil }
}

/// The clock a source's timestamps come from and the instant of the frame they mark, as the
/// driver's buffer flags say (V4L2_BUF_FLAG_TIMESTAMP_*, V4L2_BUF_FLAG_TSTAMP_SRC_*).
public struct TimestampClock: Sendable, Equatable, CustomStringConvertible {
    public enum Clock: String, Sendable {
        case monotonic = "CLOCK_MONOTONIC"
        /// Copied from the output buffer that produced the frame (a mem-to-mem device).
        case copy
        case unknown
    }
    public enum Instant: String, Sendable {
        case endOfFrame = "end of frame"
        case startOfExposure = "start of exposure"
    }
    public var clock: Clock
    public var instant: Instant
    public init(_ clock: Clock, _ instant: Instant) {
        self.clock = clock
        self.instant = instant
    }
    /// `CLOCK_MONOTONIC, end of frame`: the report's `timestampClock`.
    public var description: String { "\(clock.rawValue), \(instant.rawValue)" }
}
