import Foundation
import SlomoCore

/// Draws a capture's frame intervals as an SVG: the interval of every frame over time (top) and
/// their histogram (bottom), with the nominal interval marked. People read this faster than numbers.
public enum StatsPlot {
    public static func svg(_ stats: CaptureStats, nominal: Rational?, title: String) -> String {
        let w = 900.0, h = 560.0, left = 70.0, right = 20.0
        let iv = stats.intervalsMicros.map { Double($0) / 1000 }         // ms
        guard !iv.isEmpty else {
            return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"60\"><text x=\"10\" y=\"30\">no intervals</text></svg>"
        }
        let nominalMs = nominal.map { 1000 / $0.doubleValue }
        let maxY = Swift.max(iv.max()!, (nominalMs ?? 0) * 1.5) * 1.1
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"\(left)\" y=\"20\" font-size=\"14\">\(escape(title))</text>\n"
        // timeline
        let top = 40.0, th = 250.0, pw = w - left - right
        s += axis(x: left, y: top, w: pw, h: th, maxY: maxY, label: "frame interval (ms)")
        var path = ""
        for (i, v) in iv.enumerated() {
            let x = left + pw * Double(i) / Double(Swift.max(1, iv.count - 1))
            let y = top + th - th * v / maxY
            path += (i == 0 ? "M" : "L") + String(format: "%.1f,%.1f ", x, y)
        }
        s += "<path d=\"\(path)\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1\"/>\n"
        if let n = nominalMs {
            let y = top + th - th * n / maxY
            s += "<line x1=\"\(left)\" y1=\"\(y)\" x2=\"\(left + pw)\" y2=\"\(y)\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n"
            s += String(format: "<text x=\"%.0f\" y=\"%.1f\" fill=\"#d62728\">nominal %.3f ms</text>\n", left + pw - 130, y - 4, n)
        }
        s += "<text x=\"\(left + pw / 2 - 30)\" y=\"\(top + th + 30)\">frame</text>\n"
        // histogram
        let hy = 340.0, hh = 180.0, bins = 60
        let lo = iv.min()!, hi = Swift.max(iv.max()!, lo + 0.001)
        var counts = [Int](repeating: 0, count: bins)
        for v in iv { counts[Swift.min(bins - 1, Int((v - lo) / (hi - lo) * Double(bins)))] += 1 }
        let maxC = Double(counts.max()!)
        s += axis(x: left, y: hy, w: pw, h: hh, maxY: maxC, label: "frames")
        for (i, c) in counts.enumerated() where c > 0 {
            let bw = pw / Double(bins), bh = hh * Double(c) / maxC
            s += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2ca02c\"/>\n", left + Double(i) * bw, hy + hh - bh, bw - 1, bh)
        }
        s += String(format: "<text x=\"%.0f\" y=\"%.0f\">%.3f ms</text><text x=\"%.0f\" y=\"%.0f\">%.3f ms</text>\n", left, hy + hh + 16, lo, left + pw - 60, hy + hh + 16, hi)
        let i = stats.intervals!
        s += String(format: "<text x=\"%.0f\" y=\"%.0f\">%lld frames, dropped %lld (driver) + %lld (slomo); interval mean %.3f ms, p50 %.3f, p99 %.3f, max %.3f ms</text>\n",
                    left, h - 8, stats.framesCaptured, stats.droppedByDriver, stats.droppedBySlomo,
                    i.meanMicros / 1000, Double(i.p50Micros) / 1000, Double(i.p99Micros) / 1000, Double(i.maxMicros) / 1000)
        return s + "</svg>\n"
    }

    static func axis(x: Double, y: Double, w: Double, h: Double, maxY: Double, label: String) -> String {
        var s = "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(w)\" height=\"\(h)\" fill=\"none\" stroke=\"#999\"/>\n"
        for k in 0...4 {
            let v = maxY * Double(k) / 4, yy = y + h - h * Double(k) / 4
            s += String(format: "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>\n", x - 6, yy + 4, v)
        }
        s += String(format: "<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\">%@</text>\n", y + h / 2 + 40, y + h / 2 + 40, label)
        return s
    }

    static func escape(_ t: String) -> String {
        t.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
