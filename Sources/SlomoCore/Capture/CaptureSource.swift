/// The shape of a captured stream: what the writer needs to store it.
public struct CaptureFormat: Sendable, Equatable, Codable {
    /// V4L2 fourcc as text: `MJPG`, `H264`, `YUYV`, `UYVY`, `NV12`, `YU12`, `GREY`…
    public var fourcc: String
    public var width: Int
    public var height: Int
    /// Bytes per line of a raw format's first plane (0 for compressed formats).
    public var bytesPerLine: Int
    /// The frame duration the driver reported (1/fps), if any.
    public var frameDuration: Rational?

    public init(fourcc: String, width: Int, height: Int, bytesPerLine: Int = 0, frameDuration: Rational? = nil) {
        self.fourcc = fourcc; self.width = width; self.height = height
        self.bytesPerLine = bytesPerLine; self.frameDuration = frameDuration
    }

    /// Formats stored as they arrive (no re-encode).
    public var isCompressed: Bool { ["MJPG", "JPEG", "H264", "HEVC"].contains(fourcc) }
}

/// One frame as it came from the camera: its bytes (owned), the kernel's timestamp and the
/// driver's sequence number (gaps are frames the driver dropped).
public final class CapturedFrame: @unchecked Sendable {
    // Safe: the buffer is written once by the producer before the frame is handed over, and
    // only read afterwards; ownership moves through the capture queue.
    public let bytes: UnsafeMutableRawBufferPointer
    public let count: Int
    /// Presentation time in seconds on the source's monotonic clock (CLOCK_MONOTONIC for V4L2).
    public let timestamp: Rational
    public let sequence: UInt32

    /// Copies `count` bytes from `source`.
    public init(copying source: UnsafeRawPointer, count: Int, timestamp: Rational, sequence: UInt32) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(count, 1), alignment: 64)
        bytes.baseAddress!.copyMemory(from: source, byteCount: count)
        self.count = count
        self.timestamp = timestamp
        self.sequence = sequence
    }

    /// A frame whose bytes the caller fills through `fill` before handing it over.
    public init(count: Int, timestamp: Rational, sequence: UInt32, fill: (UnsafeMutableRawBufferPointer) -> Void) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(count, 1), alignment: 64)
        self.count = count
        self.timestamp = timestamp
        self.sequence = sequence
        fill(bytes)
    }

    deinit { bytes.deallocate() }
}

/// Why a source stopped giving frames.
public enum CaptureEnd: Error, Sendable, Equatable {
    /// The source has no more frames (synthetic source done).
    case finished
    /// The device went away (unplugged, driver error); `reason` names it.
    case disconnected(String)
}

/// A camera (or the synthetic stand-in) as the capture session sees it. Implementations block in
/// `nextFrame` until a frame is there; they must return each driver buffer to the driver before
/// returning (copying the bytes), so a slow writer can never stall the device.
public protocol CaptureSource: AnyObject {
    var format: CaptureFormat { get }
    /// Human-readable name for metadata and messages (`/dev/video0 (vivid)`, `synthetic`).
    var name: String { get }
    func start() throws
    /// The next frame, or the reason the stream ended.
    func nextFrame() throws -> Result<CapturedFrame, CaptureEnd>
    func stop()
}
