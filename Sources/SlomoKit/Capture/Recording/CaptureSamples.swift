import SlomoCore
import SlomoFFmpeg

/// How FFmpeg reads a ring frame: the capture pixel-format table's answer, in FFmpeg's types. The
/// recorder, the live pictures (preview and serve's viewers) and the capture thread ask here.
extension CaptureFormat {
    /// The samples a raw frame holds as FFmpeg names them: an 8-bit mosaic as gray (kept
    /// undebayered), or with `demosaic` as its `bayer_*` format (swscale then makes colour, as
    /// x264 needs); nil for compressed or unknown formats.
    func samples(demosaic: Bool = false) -> PixelFormat? {
        guard let row = pixels, let name = demosaic ? row.ffmpeg : row.sensorSamples else { return nil }
        return PixelFormat(name: name)
    }

    /// Where a raw frame's planes lie in the ring: each buffer plane's bytes per line, planes one
    /// after another (multi-planar buffers are copied into this layout by the capture thread);
    /// nil for compressed or unknown formats.
    func planeLayout(as samples: PixelFormat? = nil) throws -> PlaneLayout? {
        guard let px = samples ?? self.samples() else { return nil }
        let lines = planes.count > 1 ? planes.map(\.bytesPerLine) : [bytesPerLine]
        return try PlaneLayout(pixelFormat: px, width: width, height: height, bytesPerLine: lines)
    }
}
