/// The encoded spans of an `AudioSplicePlan`: what each renders, from where, and how its length is
/// made a whole number of frames.
extension AudioSplicePlan.Geometry {
    /// A piece of the map between two joins: its source range, the target duration it plays over
    /// and whether its rate changes (a pass-through piece keeps rate 1 and absorbs nothing).
    private struct Piece {
        var source: TimeRange
        var duration: Rational
        var changed: Bool
    }

    /// The span from `start` to `end`, or nil when its audio cannot be made exactly as long as the
    /// frames between them (no rate change to absorb the difference, a rate that would leave its
    /// algorithm's range or be snapped by it, arithmetic past 64 bits).
    func encode(from start: AudioSplicePlan.Start, to end: AudioSplicePlan.End) -> AudioSplicePlan.Encode? {
        var span = AudioSplicePlan.Encode(
            keepFrom: nil, keepUntil: nil, feedStart: 0, feedEnd: total, leadSilence: 0,
            map: map, sourceStart: .zero, skip: 0)
        switch end {
        case .copyStart(let b, _):
            span.keepUntil = b
            span.feedEnd = b + AudioSplicePlan.postRoll * frame
        case .outputEnd: break
        }
        var s0: Rational
        switch start {
        case .copyEnd(let a, let offset):
            span.keepFrom = a
            span.feedStart = a - AudioSplicePlan.preRoll * frame
            s0 = Rational(span.feedStart - offset) / sr
        case .outputStart:
            // the encoder starts on the grid of the first copy: up to a frame of silence before 0
            let b = span.keepUntil ?? 0
            let r = (b % frame + frame) % frame
            span.feedStart = r == 0 ? 0 : r - frame
            span.leadSilence = -span.feedStart
            // from the window's start when it is played at rate 1 (no warm-up needed), else from 0
            let w = Rational(first) / sr
            let m = map.mappings[map.mappingIndex(target: w)]
            if first > 0, passesThrough(m) {
                s0 = Rational((map.sourceTime(forTarget: w) * sr).rounded(.nearest)) / sr
            } else {
                s0 = .zero
                span.skip = first
            }
        }
        let s1: Rational
        switch end {
        case .copyStart(_, let offset): s1 = Rational(span.feedEnd - offset) / sr
        case .outputEnd: s1 = window.map { map.sourceTime(forTarget: Rational.min($0.end, map.target.end)) } ?? map.source.end
        }
        guard s0 >= map.source.start, s0 < s1, s1 <= map.source.end else { return nil }
        let length = Rational(span.renderFrames) / sr
        guard var pieces = self.pieces(from: s0, to: s1), fit(&pieces, to: length, tailMayMove: { if case .outputEnd = end { true } else { false } }()),
            let rendered = subMap(pieces, from: s0)
        else { return nil }
        span.map = rendered
        span.sourceStart = s0
        return span
    }

    /// The map's mappings clipped to source `[s0, s1)`.
    private func pieces(from s0: Rational, to s1: Rational) -> [Piece]? {
        var out: [Piece] = []
        for m in map.mappings where m.source.end > s0 && m.source.start < s1 {
            let range = TimeRange(start: Rational.max(m.source.start, s0), end: Rational.min(m.source.end, s1))
            guard let d = try? range.duration.checkedDividing(m.rate) else { return nil }
            out.append(Piece(source: range, duration: d, changed: !passesThrough(m)))
        }
        return out.isEmpty ? nil : out
    }

    /// Makes the pieces' target durations add up to `length`: the changed pieces scaled alike, or
    /// (`tailMayMove`, at the output's end) the last piece, when it passes through, lengthened or
    /// shortened in source and target alike.
    private func fit(_ pieces: inout [Piece], to length: Rational, tailMayMove: Bool) -> Bool {
        do {
            var sum = Rational.zero, changed = Rational.zero
            for p in pieces {
                sum = try sum.checkedAdding(p.duration)
                if p.changed { changed = try changed.checkedAdding(p.duration) }
            }
            let delta = try length.checkedSubtracting(sum)
            if delta.isZero { return true }
            if changed.isPositive {
                let scale = try (try changed.checkedAdding(delta)).checkedDividing(changed)
                guard scale.isPositive else { return false }
                for i in pieces.indices where pieces[i].changed { pieces[i].duration = try pieces[i].duration.checkedMultiplying(scale) }
                return true
            }
            guard tailMayMove, let last = pieces.last, !last.changed else { return false }
            let d = try last.duration.checkedAdding(delta)
            guard d.isPositive else { return false }
            pieces[pieces.count - 1] = Piece(source: TimeRange(start: last.source.start, duration: d), duration: d, changed: false)
            return true
        } catch {
            return false
        }
    }

    /// The pieces as a map from time 0 (source shifted by `s0`, glides kept), when its algorithm
    /// plays it as it is (rates in range, none snapped).
    private func subMap(_ pieces: [Piece], from s0: Rational) -> RetimeMap? {
        var mappings: [TimeMapping] = []
        var t = Rational.zero
        for p in pieces {
            mappings.append(
                TimeMapping(
                    source: TimeRange(start: p.source.start - s0, duration: p.source.duration),
                    target: TimeRange(start: t, duration: p.duration)))
            t = t + p.duration
        }
        guard var sub = try? RetimeMap(mappings: mappings) else { return nil }
        let end = pieces.last!.source.end
        let glides = (map.glides ?? []).compactMap { g -> TimeRange? in
            let a = Rational.max(g.start, s0), b = Rational.min(g.end, end)
            return a < b ? TimeRange(start: a - s0, end: b - s0) : nil
        }
        sub.glides = glides.isEmpty ? nil : glides
        guard let played = try? algorithm.playedMap(sub), played.mappings == sub.mappings else { return nil }
        return sub
    }
}
