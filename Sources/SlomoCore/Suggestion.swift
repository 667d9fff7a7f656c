/// "Did you mean …?": the known name nearest to what the user typed. One rule for every place
/// that suggests (commands, encoders, manifest fields, camera controls).
public enum Suggestion {
    /// Levenshtein distance over UTF-8 bytes.
    public static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        if x.isEmpty { return y.count }
        var row = Array(0...y.count)
        for i in 1...x.count {
            var prev = row[0]
            row[0] = i
            for j in stride(from: 1, through: y.count, by: 1) {
                let keep = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (x[i - 1] == y[j - 1] ? 0 : 1))
                prev = keep
            }
        }
        return row[y.count]
    }

    /// The candidate nearest to `typed` (case-insensitive), when it is close enough to be a typo:
    /// at most `max(2, length / 3)` edits. Ties go to the earlier candidate.
    public static func nearest(to typed: String, in candidates: [String]) -> String? {
        let t = typed.lowercased()
        var best: (name: String, d: Int)?
        for c in candidates {
            let d = distance(t, c.lowercased())
            if best == nil || d < best!.d { best = (c, d) }
        }
        guard let best, best.d <= max(2, typed.count / 3), best.d < typed.count else { return nil }
        return best.name
    }
}
