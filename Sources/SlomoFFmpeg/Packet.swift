internal import CFFmpeg
import SlomoCore

/// One compressed packet; owns its `AVPacket` (freed in `deinit`).
/// Not `Sendable`: a packet belongs to the stage that holds it.
public final class Packet {
    let raw: UnsafeMutablePointer<AVPacket>

    public init() {
        guard let p = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        raw = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = raw
        av_packet_free(&p)
    }

    public var streamIndex: Int {
        get { Int(raw.pointee.stream_index) }
        set { raw.pointee.stream_index = Int32(newValue) }
    }

    /// Presentation timestamp in the stream's time base; nil when unknown.
    public var pts: Int64? {
        get { raw.pointee.pts == noPTS ? nil : raw.pointee.pts }
        set { raw.pointee.pts = newValue ?? noPTS }
    }

    /// Decoding timestamp in the stream's time base; nil when unknown.
    public var dts: Int64? {
        get { raw.pointee.dts == noPTS ? nil : raw.pointee.dts }
        set { raw.pointee.dts = newValue ?? noPTS }
    }

    public var duration: Int64 {
        get { raw.pointee.duration }
        set { raw.pointee.duration = newValue }
    }

    public var size: Int { Int(raw.pointee.size) }
    public var isKeyframe: Bool { raw.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    public var isCorrupt: Bool { raw.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }
    /// Decoded but not shown: before an MP4/MOV edit list's start (the pre-roll of a copy cut
    /// inside a GOP). Decoders drop its frame.
    public var isDiscarded: Bool { raw.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }

    /// The packet carries `AV_PKT_DATA_SKIP_SAMPLES` side data: samples of its decoded frame are to
    /// be dropped (AAC's priming at a stream's start, padding at its end).
    public var hasSkipSamples: Bool {
        guard let sd = raw.pointee.side_data else { return false }
        return (0..<Int(raw.pointee.side_data_elems)).contains { sd[$0].type == AV_PKT_DATA_SKIP_SAMPLES }
    }

    /// The payload bytes, valid only inside `body`.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: raw.pointee.data, count: Int(raw.pointee.size)))
    }

    /// `av_packet_rescale_ts`: converts pts, dts and duration between time bases (nearest, exact ties away).
    public func rescaleTimestamps(from: Rational, to: Rational) {
        guard let a = from.avRational, let b = to.avRational else { return }
        av_packet_rescale_ts(raw, a, b)
    }

    /// Copies `count` bytes into a new payload (`av_new_packet`).
    public func setPayload(_ bytes: UnsafeRawPointer, count: Int) throws(FFmpegError) {
        av_packet_unref(raw)
        try ffcall("packet", "av_new_packet", category: .internalError) { av_new_packet(raw, Int32(count)) }
        raw.pointee.data.update(from: bytes.assumingMemoryBound(to: UInt8.self), count: count)
    }

    public func markKeyframe(_ key: Bool) {
        if key { raw.pointee.flags |= AV_PKT_FLAG_KEY } else { raw.pointee.flags &= ~AV_PKT_FLAG_KEY }
    }

    /// Drops the payload so the packet can be reused.
    public func unref() { av_packet_unref(raw) }
}
