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

    /// `compensating`: resample even at equal rates, so `compensate` can stretch or squeeze the
    /// stream by a few samples (a sound card's clock followed against another clock).
    public init(
        channels: Int, inRate: Int, inFormat: SampleFormat, outRate: Int, outFormat: SampleFormat, soxr: Bool = false,
        compensating: Bool = false
    ) throws(FFmpegError) {
        self.channels = channels
        self.inRate = inRate
        self.outRate = outRate
        self.inFormat = inFormat.raw
        self.outFormat = outFormat.raw
        var outLayout = AVChannelLayout(), inLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Int32(channels))
        av_channel_layout_default(&inLayout, Int32(channels))
        defer {
            av_channel_layout_uninit(&outLayout)
            av_channel_layout_uninit(&inLayout)
        }
        try ffcall("resampler", "swr_alloc_set_opts2") {
            swr_alloc_set_opts2(&swr, &outLayout, outFormat.raw, Int32(outRate), &inLayout, inFormat.raw, Int32(inRate), 0, nil)
        }
        if soxr {
            av_opt_set_int(UnsafeMutableRawPointer(swr), "resampler", Int64(SWR_ENGINE_SOXR.rawValue), 0)
            av_opt_set_double(UnsafeMutableRawPointer(swr), "precision", 28, 0)
        }
        if compensating { av_opt_set_int(UnsafeMutableRawPointer(swr), "flags", Int64(SWR_FLAG_RESAMPLE), 0) }
        try ffcall("resampler", "swr_init") { swr_init(swr) }
    }

    /// Spreads `delta` more (or, negative, fewer) output samples over the next `distance` output
    /// samples (`swr_set_compensation`; the converter must be `compensating`).
    public func compensate(delta: Int, distance: Int) throws(FFmpegError) {
        try ffcall("resampler", "swr_set_compensation") { swr_set_compensation(swr, Int32(delta), Int32(distance)) }
    }

    /// Output samples held inside the resampler (not yet returned).
    public var delayedOutputSamples: Int { Int(swr_get_delay(swr, Int64(outRate))) }

    deinit { swr_free(&swr) }

    /// Converts a decoded frame to planar Float (this converter's out format must be FLTP).
    public func planarFloat(from frame: Frame) throws(FFmpegError) -> [[Float]] {
        let n = Int32(frame.sampleCount)
        let inputs = UnsafeMutableRawPointer(frame.raw.pointee.extended_data!).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        return try converting(
            capacity: Int(swr_get_out_samples(swr, n)) + 16,
            { outs, capacity in
                swr_convert(swr, outs, capacity, inputs, n)
            }, deliver: { planes, got in planes.map { Array(UnsafeBufferPointer(start: $0, count: got)) } })
    }

    /// Converts planar Float samples (`planes[c][0..<count]`, not copied) and hands `body` the
    /// output planes and their length, valid only inside `body` (so the caller copies once, to
    /// where it keeps them).
    public func convert<R>(
        fromPlanes planes: [UnsafePointer<Float>], count: Int,
        _ body: ([UnsafePointer<Float>], Int) -> R
    ) throws(FFmpegError) -> R {
        precondition(planes.count == channels)
        let ins = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: Swift.max(1, channels))
        defer { ins.deallocate() }
        for c in 0..<channels { ins[c] = UnsafeRawPointer(planes[c]).assumingMemoryBound(to: UInt8.self) }
        return try converting(
            capacity: Int(swr_get_out_samples(swr, Int32(count))) + 64,
            { outs, capacity in
                swr_convert(swr, outs, capacity, ins, Int32(count))
            }, deliver: body)
    }

    /// Writes `count` planar Float samples per channel (the first `count` of each of `input`'s
    /// arrays) into `frame` (allocated in this converter's out format, same rate).
    public func fill(_ frame: Frame, from input: [[Float]], count: Int) throws(FFmpegError) {
        precondition(input.count == channels && input.allSatisfy { $0.count >= count })
        let r = Self.withPlanes(of: input) { ins -> Int32 in
            let dst = UnsafeMutableRawPointer(frame.raw.pointee.extended_data!).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
            return swr_convert(swr, dst, Int32(count), ins, Int32(count))
        }
        if r < 0 { throw FFmpegError(path: "resampler", operation: "swr_convert", code: r) }
    }

    /// Runs `convert` with one output plane of `capacity` floats per channel (swresample writes
    /// into them) and hands `deliver` the planes and how many frames were written.
    private func converting<R>(
        capacity: Int, _ convert: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, Int32) -> Int32,
        deliver: ([UnsafePointer<Float>], Int) -> R
    ) throws(FFmpegError) -> R {
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: Swift.max(1, capacity * channels))
        let planes = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: Swift.max(1, channels))
        defer {
            block.deallocate()
            planes.deallocate()
        }
        for c in 0..<channels {
            planes[c] = UnsafeMutableRawPointer(block.baseAddress! + c * capacity).assumingMemoryBound(to: UInt8.self)
        }
        let got = convert(planes, Int32(capacity))
        if got < 0 { throw FFmpegError(path: "resampler", operation: "swr_convert", code: got) }
        return deliver((0..<channels).map { UnsafePointer(block.baseAddress! + $0 * capacity) }, Int(got))
    }

    /// Calls `body` with plane pointers into `arrays` (one per channel), without copying them.
    private static func withPlanes<R, E: Error>(of arrays: [[Float]], _ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>) throws(E) -> R) throws(E) -> R {
        let planes = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: Swift.max(1, arrays.count))
        defer { planes.deallocate() }
        // each array's storage is pinned by its own closure; the innermost level sees them all
        func nest(_ c: Int) throws(E) -> R {
            if c == arrays.count { return try body(planes) }
            return try arrays[c].withUnsafeBufferPointer { (b: UnsafeBufferPointer<Float>) throws(E) -> R in
                planes[c] = b.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }
                return try nest(c + 1)
            }
        }
        return try nest(0)
    }
}
