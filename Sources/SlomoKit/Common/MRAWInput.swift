import Foundation
import SlomoCore
import SlomoFFmpeg

/// A Photron `.mraw` opened for every command that reads media: FFmpeg has no MRAW demuxer, so the
/// frames are read by its rawvideo demuxer with the size, sample layout and rate the `.cihx` beside
/// them gives (``MRAWLayout/init(cihx:)``), each frame at its place on that rate (MRAW stores no
/// frame's own time). The trigger frame, colour filter, camera and first frame's date become the
/// tags a slomo recording carries, so trims from the trigger, DNG and burn-in work alike.
enum MRAWInput {
    /// Whether `path` is read as an MRAW take (its extension).
    static func isMRAW(_ path: String) -> Bool { (path as NSString).pathExtension.lowercased() == "mraw" }

    static func open(_ path: String) throws -> Demuxer {
        let cihx = LabOutput.cihxPath(path)
        guard let bytes = FileManager.default.contents(atPath: cihx) else {
            throw MediaError.damaged(path: path, "open: no \((cihx as NSString).lastPathComponent) beside it: a Photron .mraw is read with its .cihx header")
        }
        let layout: MRAWLayout
        do { layout = try MRAWLayout(cihx: String(decoding: bytes, as: UTF8.self)) } catch {
            throw MediaError.damaged(path: path, "open: \((cihx as NSString).lastPathComponent): \(error)")
        }
        guard let rate = layout.frameRate else {
            throw MediaError.damaged(path: path, "open: \((cihx as NSString).lastPathComponent) gives no frame rate (recordRate 0)")
        }
        let pixels = pixelFormat(layout)
        let d = try Demuxer(
            path: path, format: "rawvideo",
            options: ["video_size": "\(layout.width)x\(layout.height)", "pixel_format": pixels, "framerate": "\(rate.numerator)/\(rate.denominator)"])
        if let v = d.bestStream(.video) { d.declareFrameRate(rate, stream: v) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let frames = layout.frameBytes > 0 ? size / layout.frameBytes : 0
        if -layout.startFrame >= 0, -layout.startFrame < frames { d.setMetadata(SlomoTag.triggerFrame.rawValue, "\(-layout.startFrame)") }
        if let m = layout.mosaic { d.setMetadata(SlomoTag.cfaPattern.rawValue, m) }
        if !layout.deviceName.isEmpty { d.setMetadata(SlomoTag.device.rawValue, layout.deviceName) }
        if let t = layout.date { d.setMetadata("creation_time", StoredFrameTimes.iso8601(t)) }
        d.setMetadata("slomo_mraw_record_rate", "\(rate)")
        d.setMetadata("slomo_mraw_start_frame", "\(layout.startFrame)")
        d.setMetadata("slomo_mraw_total_frame", "\(layout.totalFrames)")
        d.setMetadata("slomo_mraw_effective_bits", "\(layout.effectiveBits)")
        if frames != layout.totalFrames {
            d.setMetadata("slomo_mraw_frames_present", "\(frames)")
        }
        return d
    }

    /// FFmpeg's name for the samples: gray, 8 bits or 16-bit little-endian words. A Bayer mosaic
    /// is read as gray with its pattern in `slomo_cfa_pattern`, as slomo records mosaics, so every
    /// command treats it alike (export demosaics it, convert keeps it undebayered).
    static func pixelFormat(_ l: MRAWLayout) -> String { l.bitsPerSample > 8 ? "gray16le" : "gray" }
}
