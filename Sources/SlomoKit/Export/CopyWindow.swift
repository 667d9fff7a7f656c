import SlomoCore
import SlomoFFmpeg

/// `retime --start/--end`: the packets a copy carries, exact to the frame. A copy cannot cut a frame
/// in two nor decode from anywhere but a keyframe, so:
/// - the part kept runs from the frame on screen at `--start` to the end of the last frame that
///   starts before `--end` (whole frames; export, which re-encodes, cuts anywhere);
/// - the copy begins at the keyframe before it: the frames between (the pre-roll) are decoded but
///   not shown, placed before time 0, where an MP4 or MOV edit list hides them (FFmpeg writes one
///   for a track that starts before 0). Other containers cannot hide them: a start there must be a
///   keyframe, or the cut is refused with the nearest keyframes;
/// - a frame shown after `--end` that an earlier one needs (a B-frame's forward reference) cannot
///   be left out: such an end is refused with the nearest ends a copy can make.
/// Leading pictures of an open GOP (after the keyframe in the file, before it on screen: they
/// refer to the previous GOP) are left out; they precede the part kept.
struct CopyWindow {
    /// The part kept, in source time (0 = the first frame), and its image on the output timeline.
    let source: TimeRange
    let target: TimeRange
    /// The packets copied, by file index among the video's packets, in file order.
    let packets: [Int]
    /// How many of them are the pre-roll (before `source.start` on screen).
    let preroll: Int
    /// Where the copy starts: the keyframe's source time.
    let keyframe: Rational

    /// The window for `trim`, or nil without `--start`/`--end`, for an output in `container` (FFmpeg's
    /// muxer name: MP4 and MOV hide frames before time 0 with an edit list).
    static func make(_ timeline: MediaTimeline, trim: SourceTrim, map: RetimeMap, container: String) throws -> CopyWindow? {
        let editList = Muxer.isISOMedia(container)
        guard let asked = try trim.window(timeline: timeline, map: map) else { return nil }
        let frames = timeline.frameTimes
        let s = frames.last(where: { $0 <= asked.source.start }) ?? frames[0]
        let e = frames.first(where: { $0 >= asked.source.end }) ?? timeline.duration
        let origin = try timeline.originTicks()
        let t = timeline.packetTimes.map { timeline.time(ofTicks: $0.pts, originTicks: origin) }
        let cuts = Cuts(t, keys: timeline.packetTimes.map(\.key))
        guard let lo = t.indices.first(where: { t[$0] >= s && t[$0] < e }),
            let hi = t.indices.last(where: { t[$0] >= s && t[$0] < e })
        else {
            throw ExportError.copyCannotCut(
                path: timeline.path, setting: .start, value: trim.start?.description ?? "0",
                why: "no frame of the source lies in the part asked for")
        }
        guard let k = cuts.keyframe(before: lo, startingAt: s) else {
            throw ExportError.copyCannotCut(
                path: timeline.path, setting: .start, value: trim.start?.description ?? "0",
                why: "the video has no keyframe at or before it to start a copy from; use export, which re-encodes")
        }
        let packets = (k...hi).filter { $0 == k || t[$0] >= t[k] }
        let preroll = packets.filter { t[$0] < s }.count
        if preroll > 0 && !editList {
            throw ExportError.copyCannotCut(
                path: timeline.path, setting: .start, value: trim.start?.description ?? "0",
                why:
                    "a copy starts at a keyframe and this container cannot hide the \(preroll) frames before the cut (an MP4 or MOV edit list can): \(cuts.starts.near(s, "the nearest keyframes", frames: frames)); or use export, which re-encodes and cuts anywhere",
                nearest: cuts.starts.nearest(to: s, frames: frames))
        }
        if let late = packets.first(where: { t[$0] >= e }) {
            throw ExportError.copyCannotCut(
                path: timeline.path, setting: .end, value: trim.end?.description ?? "",
                why:
                    "the frame at \(Seconds(t[late])) s is needed to decode frames before it (a B-frame's reference) and a copy cannot leave it out: \((cuts.ends + [timeline.duration]).near(e, "the nearest ends a copy can make", frames: frames)); or use export, which re-encodes and cuts anywhere (or --nearest-cut)",
                nearest: (cuts.ends + [timeline.duration]).nearest(to: e, frames: frames))
        }
        let window = TimeRange(start: s, end: e)
        return CopyWindow(
            source: window, target: TimeRange(start: map.targetTime(forSource: s), end: map.targetTime(forSource: e)),
            packets: packets, preroll: preroll, keyframe: t[k])
    }

    /// Where a copy can start and end in a stream.
    struct Cuts {
        /// Keyframes that no earlier packet is shown after: a copy starting there needs no pre-roll.
        var starts: [Rational] = []
        /// Frame times before which every frame shown earlier is also earlier in the file, and the end.
        var ends: [Rational] = []
        private let t: [Rational], keys: [Bool], shownBefore: [Rational?]

        init(_ t: [Rational], keys: [Bool]) {
            self.t = t
            self.keys = keys
            // the latest time shown by a packet before each index
            var latest: Rational? = nil, shown: [Rational?] = []
            for x in t {
                shown.append(latest)
                latest = latest.map { Swift.max($0, x) } ?? x
            }
            shownBefore = shown
            starts = t.indices.filter { i in keys[i] && (shown[i].map { $0 < t[i] } ?? true) }.map { t[$0] }.sorted()
            // in display order: a cut before position i is clean when no frame before it comes later in the file
            let order = t.indices.sorted { t[$0] < t[$1] }
            var maxIndex = -1, suffixMin = Array(repeating: Int.max, count: order.count + 1)
            for i in order.indices.reversed() { suffixMin[i] = Swift.min(suffixMin[i + 1], order[i]) }
            for (i, p) in order.enumerated() {
                if i > 0, maxIndex < suffixMin[i] { ends.append(t[p]) }
                maxIndex = Swift.max(maxIndex, p)
            }
        }

        /// The last keyframe at or before file index `lo` that no earlier packet is shown at or after `s`.
        func keyframe(before lo: Int, startingAt s: Rational) -> Int? {
            var k = lo
            while k >= 0 {
                if keys[k], t[k] <= s, shownBefore[k].map({ $0 < s }) ?? true { return k }
                k -= 1
            }
            return nil
        }
    }
}

private extension [Rational] {
    /// The value of this sorted array nearest to `x` other than `x` (the earlier one on a tie), as
    /// `--start`/`--end` take it: a frame of `frames`, else seconds (the media's end).
    func nearest(to x: Rational, frames: [Rational]) -> TimePoint? {
        let before = last(where: { $0 < x }), after = first(where: { $0 > x })
        let pick: Rational? =
            switch (before, after) {
            case let (b?, a?): (x - b) <= (a - x) ? b : a
            case let (b, a): b ?? a
            }
        return pick.map { v in frames.firstIndex(of: v).map { .frame(Int64($0)) } ?? .seconds(v) }
    }

    /// The nearest values before and after `x` (a sorted array), as a phrase for a refusal: each
    /// in seconds and as a frame number of `frames` (what `--start`/`--end` take exactly).
    func near(_ x: Rational, _ what: String, frames: [Rational]) -> String {
        let values = [last(where: { $0 < x }), first(where: { $0 > x })].compactMap { $0 }.map { v in
            frames.firstIndex(of: v).map { "\(Seconds(v)) s (f\($0))" } ?? "\(Seconds(v)) s (the end)"
        }
        return values.isEmpty ? "there are none" : "\(what) are at \(values.joined(separator: " and "))"
    }
}
