internal import CFFmpeg
import SlomoCore

/// A pixel-format/size converter (`SwsContext`), reused while the input stays the same.
public final class Scaler {
    private var ctx: OpaquePointer?
    private var key: (Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0, 0)

    public init() {}
    deinit { sws_freeContext(ctx) }

    /// Converts `source` into a new frame of `width`×`height` in `pixelFormat` (`sws_scale`).
    public func convert(_ source: Frame, width: Int, height: Int, pixelFormat: PixelFormat) throws(FFmpegError) -> Frame {
        let s = source.raw.pointee
        let k = (s.width, s.height, s.format, Int32(width), Int32(height), pixelFormat.raw.rawValue)
        if ctx == nil || k != key {
            sws_freeContext(ctx)
            ctx = sws_getContext(
                s.width, s.height, AVPixelFormat(s.format), Int32(width), Int32(height), pixelFormat.raw,
                Int32(SWS_BILINEAR), nil, nil, nil)
            key = k
            guard ctx != nil else {
                throw FFmpegError(
                    path: "scaler", operation: "sws_getContext", message: "cannot convert \(source.pixelFormat) to \(pixelFormat)", category: .unsupported)
            }
        }
        let out = try Frame(width: width, height: height, pixelFormat: pixelFormat)
        let src = source.raw
        let dst = out.raw
        let rc = withUnsafePointer(to: &src.pointee.data) { sd in
            withUnsafePointer(to: &src.pointee.linesize) { sl in
                withUnsafeMutablePointer(to: &dst.pointee.data) { dd in
                    withUnsafeMutablePointer(to: &dst.pointee.linesize) { dl in
                        sws_scale(
                            ctx,
                            UnsafeRawPointer(sd).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                            UnsafeRawPointer(sl).assumingMemoryBound(to: Int32.self),
                            0, s.height,
                            UnsafeMutableRawPointer(dd).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                            UnsafeMutableRawPointer(dl).assumingMemoryBound(to: Int32.self))
                    }
                }
            }
        }
        if rc < 0 { throw FFmpegError(path: "scaler", operation: "sws_scale", code: rc) }
        return out
    }
}
