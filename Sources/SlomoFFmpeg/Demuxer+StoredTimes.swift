internal import CFFmpeg
import SlomoCore

/// Times stored beside the images, given to the demuxer by a reader that knows the format (a
/// Phantom Cine's time block): stream `stream`'s packet whose demuxed pts is `k` (the image index,
/// as FFmpeg's cine demuxer numbers them) is given `ticks[k]` in `timeBase` instead.
public struct StoredPacketTimes: Sendable {
    public var stream: Int
    public var ticks: [Int64]
    public var timeBase: Rational
    /// Ticks of the last image's duration (the usual interval).
    public var lastDuration: Int64
    public init(stream: Int, ticks: [Int64], timeBase: Rational, lastDuration: Int64) {
        self.stream = stream
        self.ticks = ticks
        self.timeBase = timeBase
        self.lastDuration = lastDuration
    }

    func apply(to p: Packet) {
        guard p.streamIndex == stream, let k = p.pts, k >= 0, k < Int64(ticks.count) else { return }
        let i = Int(k)
        p.pts = ticks[i]
        p.dts = ticks[i]
        p.duration = i + 1 < ticks.count ? ticks[i + 1] - ticks[i] : lastDuration
    }

    /// The index of the last image at or before `ticks` (seeking).
    func index(atOrBefore t: Int64) -> Int64 { Int64(Swift.max(0, (ticks.lastIndex { $0 <= t } ?? 0))) }
}

extension Demuxer {
    /// Adds (or replaces) a container tag, as if the file held it (`av_dict_set`).
    public func setMetadata(_ key: String, _ value: String) {
        _ = av_dict_set(&context.pointee.metadata, key, value, 0)
    }
}

extension Demuxer {
    /// Declares stream `i`'s rate (`r_frame_rate`, `avg_frame_rate`) where the file's header knows
    /// it and FFmpeg guesses (rawvideo reading a Photron .mraw: a guess from a short take's few frames).
    public func declareFrameRate(_ rate: Rational, stream i: Int) {
        guard let r = rate.avRational else { return }
        stream(i).pointee.avg_frame_rate = r
        stream(i).pointee.r_frame_rate = r
    }
}
