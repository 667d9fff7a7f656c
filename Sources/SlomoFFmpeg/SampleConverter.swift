internal import CFFmpeg
import SlomoCore

/// Sample format and rate conversion (`SwrContext`), planar Float in or out.
/// With `soxr`, resampling uses the SoX resampler (high quality, used for varispeed).
public final class SampleConverter {
    private var swr: OpaquePointer?
    public let channels: Int
    let outFormat: AVSampleFormat
    let inFormat: AVSampleFormat
    public let inRate: Int
    public let outRate: Int

    public init(channels: Int, inRate: Int, inFormat: SampleFormat, outRate: Int, outFormat: SampleFormat, soxr: Bool = false) throws(FFmpegError) {
        self.channels = channels
        self.inRate = inRate; self.outRate = outRate
        self.inFormat = inFormat.raw; self.outFormat = outFormat.raw
        var outLayout = AVChannelLayout(), inLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Int32(channels))
        av_channel_layout_default(&inLayout, Int32(channels))
        defer { av_channel_layout_uninit(&outLayout); av_channel_layout_uninit(&inLayout) }
        try ffcall("resampler", "swr_alloc_set_opts2") {
            swr_alloc_set_opts2(&swr, &outLayout, outFormat.raw, Int32(outRate), &inLayout, inFormat.raw, Int32(inRate), 0, nil)
        }
        if soxr {
            av_opt_set_int(UnsafeMutableRawPointer(swr), "resampler", Int64(SWR_ENGINE_SOXR.rawValue), 0)
            av_opt_set_double(UnsafeMutableRawPointer(swr), "precision", 28, 0)
        }
        try ffcall("resampler", "swr_init") { swr_init(swr) }
    }

    deinit { swr_free(&swr) }

    /// Converts a decoded frame to planar Float (this converter's out format must be FLTP).
    public func planarFloat(from frame: Frame) throws(FFmpegError) -> [[Float]] {
        let n = frame.sampleCount
        let capacity = Int(swr_get_out_samples(swr, Int32(n))) + 16
        var out = Array(repeating: [Float](repeating: 0, count: capacity), count: channels)
        let got = try withPlanes(&out) { outs throws(FFmpegError) -> Int32 in
            let inputs = UnsafeMutableRawPointer(frame.raw.pointee.extended_data!).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            let r = swr_convert(swr, outs, Int32(capacity), inputs, Int32(n))
            if r < 0 { throw FFmpegError(path: "resampler", operation: "swr_convert", code: r) }
            return r
        }
        for c in 0..<channels { out[c].removeLast(capacity - Int(got)) }
        return out
    }

    /// Converts planar Float samples (`input[c][0..<count]`) to planar Float at the out rate;
    /// `nil` input drains what the resampler still holds.
    public func planarFloat(from input: [[Float]]?, count: Int) throws(FFmpegError) -> [[Float]] {
        let capacity = Int(swr_get_out_samples(swr, Int32(count))) + 64
        var out = Array(repeating: [Float](repeating: 0, count: capacity), count: channels)
        var inCopy = input ?? []
        let got = try withPlanes(&out) { outs throws(FFmpegError) -> Int32 in
            let r: Int32
            if input == nil {
                r = swr_convert(swr, outs, Int32(capacity), nil, 0)
            } else {
                r = try withPlanes(&inCopy) { ins throws(FFmpegError) -> Int32 in
                    swr_convert(swr, outs, Int32(capacity), UnsafeMutableRawPointer(ins).assumingMemoryBound(to: UnsafePointer<UInt8>?.self), Int32(count))
                }
            }
            if r < 0 { throw FFmpegError(path: "resampler", operation: "swr_convert", code: r) }
            return r
        }
        for c in 0..<channels { out[c].removeLast(capacity - Int(got)) }
        return out
    }

    /// Writes planar Float samples into `frame` (allocated in this converter's out format, same rate).
    public func fill(_ frame: Frame, from input: [[Float]], count: Int) throws(FFmpegError) {
        var inCopy = input
        let r = withPlanes(&inCopy) { ins -> Int32 in
            let dst = UnsafeMutableRawPointer(frame.raw.pointee.extended_data!).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
            return swr_convert(swr, dst, Int32(count), UnsafeMutableRawPointer(ins).assumingMemoryBound(to: UnsafePointer<UInt8>?.self), Int32(count))
        }
        if r < 0 { throw FFmpegError(path: "resampler", operation: "swr_convert", code: r) }
    }

    /// Calls `body` with an array of plane pointers into `arrays` (one per channel).
    private func withPlanes<R, E: Error>(_ arrays: inout [[Float]], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) throws(E) -> R) throws(E) -> R {
        let ptrs = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: Swift.max(1, arrays.count))
        defer { ptrs.deallocate() }
        var buffers: [UnsafeMutableBufferPointer<Float>] = []
        for c in arrays.indices {
            let b = UnsafeMutableBufferPointer<Float>.allocate(capacity: Swift.max(1, arrays[c].count))
            _ = b.initialize(from: arrays[c])
            buffers.append(b)
            ptrs[c] = UnsafeMutableRawPointer(b.baseAddress!).assumingMemoryBound(to: UInt8.self)
        }
        defer { for b in buffers { b.deallocate() } }
        let result = try body(ptrs)
        for c in arrays.indices { arrays[c] = Array(buffers[c].prefix(arrays[c].count)) }
        return result
    }
}
