/// Decode timestamps for video packets copied with new presentation times (retime).
///
/// Mapping the source's own decode times through the retime map keeps its structure exactly, and is
/// used whenever the source has them in full. Some containers do not: Matroska stores only
/// presentation times, so FFmpeg's demuxer gives B-frame streams no dts on the first packets and
/// guessed ones after, and the guesses run backwards (pts 0, 17, 8, 4 ms arrive with dts —, —, 0, 4).
/// Pushing those forward to make them increase also pushed presentation times past later frames
/// (frames 1 and 2 of a retimed HEVC MKV played swapped). For such input the decode times are
/// rebuilt from the presentation times alone: the i-th smallest pts, moved back by the smallest
/// constant that keeps every packet's dts at or before its pts (the reorder delay).
public enum DecodeTimestamps {
    /// `pts`: each packet's new presentation time in output ticks, in file (decode) order;
    /// `mappedDTS`: the source's decode times mapped and rounded the same way, nil where it stored none.
    /// (`mappedDTS` may be lazy: an hour of packets need not be held twice.)
    public static func make(pts: [Int64], mappedDTS: some Collection<Int64?>) -> [Int64] {
        precondition(pts.count == mappedDTS.count)
        if usable(pts: pts, dts: mappedDTS) { return mappedDTS.map { $0! } }
        let sorted = pts.sorted()
        var delay: Int64 = 0
        for i in pts.indices { delay = Swift.max(delay, sorted[i] - pts[i]) }
        return sorted.map { $0 - delay }
    }

    /// Complete, strictly increasing, and never after the packet's own pts.
    static func usable(pts: [Int64], dts: some Collection<Int64?>) -> Bool {
        var last = Int64.min
        for (p, d) in zip(pts, dts) {
            guard let d, d > last, d <= p else { return false }
            last = d
        }
        return true
    }
}
