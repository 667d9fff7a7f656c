import Foundation
import SlomoCore

/// Draws a capture's frame intervals as an SVG: the interval of every frame over time (top) and
/// their histogram (bottom), with the nominal interval marked. People read this faster than numbers.
public enum StatsPlot {
    public static func svg(_ stats: CaptureStats, nominal: Rational?, title: String) -> String {
        let w = 900.0, h = 580.0, left = 70.0, right = 20.0
        let iv = stats.intervalsMicros.map { Double($0) / 1000 }  // ms
        guard !iv.isEmpty else {
            return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"60\"><text x=\"10\" y=\"30\">no intervals</text></svg>"
        }
        let nominalMs = nominal.map { 1000 / $0.doubleValue }
        let yTicks = Ticks(upTo: Swift.max(iv.max()!, (nominalMs ?? 0) * 1.5) * 1.05)
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"\(left)\" y=\"20\" font-size=\"14\">\(escape(title))</text>\n"
        // timeline: each frame's interval at its time since the first frame (s)
        let top = 50.0, th = 250.0, pw = w - left - right
        var times: [Double] = []
        var t = 0.0
        for v in iv {
            t += v / 1000
            times.append(t)
        }
        let xTicks = Ticks(upTo: Swift.max(times.last!, 0.001))
        s += frame(x: left, y: top, w: pw, h: th, x: xTicks, y: yTicks, xLabel: "time since the first frame (s)", yLabel: "frame interval (ms)")
        var path = ""
        for (i, v) in iv.enumerated() {
            let x = left + pw * times[i] / xTicks.end
            let y = top + th - th * v / yTicks.end
            path += (i == 0 ? "M" : "L") + String(format: "%.1f,%.1f ", x, y)
        }
        s += "<path class=\"intervals\" d=\"\(path)\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1\"/>\n"
        // the legend sits above the plot, so it never covers the line
        s += String(format: "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" fill=\"#1f77b4\">— interval of each frame</text>\n", left + pw, top - 24)
        if let n = nominalMs {
            let y = top + th - th * n / yTicks.end
            s += "<line x1=\"\(left)\" y1=\"\(y)\" x2=\"\(left + pw)\" y2=\"\(y)\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n"
            s += String(format: "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" fill=\"#d62728\">- - nominal %.3f ms</text>\n", left + pw, top - 8, n)
        }
        // histogram of the intervals (ms)
        let hy = 370.0, hh = 150.0, bins = 60
        let lo = iv.min()!, hi = Swift.max(iv.max()!, lo + 0.001)
        let hx = Ticks(from: lo, to: hi)
        var counts = [Int](repeating: 0, count: bins)
        for v in iv { counts[Swift.min(bins - 1, Int((v - hx.start) / (hx.end - hx.start) * Double(bins)))] += 1 }
        let hyTicks = Ticks(upTo: Double(counts.max()!))
        s += frame(x: left, y: hy, w: pw, h: hh, x: hx, y: hyTicks, xLabel: "frame interval (ms)", yLabel: "frames")
        for (i, c) in counts.enumerated() where c > 0 {
            let bw = pw / Double(bins), bh = hh * Double(c) / hyTicks.end
            s += String(
                format: "<rect class=\"bin\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2ca02c\"/>\n", left + Double(i) * bw, hy + hh - bh,
                bw - 1, bh)
        }
        let i = stats.intervals!
        s += String(
            format:
                "<text x=\"%.0f\" y=\"%.0f\">%lld frames, dropped %lld (driver) + %lld (slomo); interval mean %.3f ms, p50 %.3f, p99 %.3f, max %.3f ms</text>\n",
            left, h - 8, stats.framesCaptured, stats.droppedByDriver, stats.droppedBySlomo,
            i.meanMicros / 1000, Double(i.p50Micros) / 1000, Double(i.p99Micros) / 1000, Double(i.maxMicros) / 1000)
        return s + "</svg>\n"
    }

    /// Round axis ticks: a step of 1, 2 or 5 × 10^k giving about five intervals, from a multiple of
    /// the step at or below the start to one at or above the end.
    struct Ticks {
        let start: Double, end: Double, step: Double
        init(upTo end: Double) { self.init(from: 0, to: end) }
        init(from lo: Double, to hi: Double) {
            let raw = Swift.max(hi - lo, 1e-9) / 5
            let mag = pow(10, (log10(raw)).rounded(.down))
            let norm = raw / mag
            step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag
            start = (lo / step).rounded(.down) * step
            end = Swift.max((hi / step).rounded(.up) * step, start + step)
        }
        var values: [Double] { stride(from: start, through: end + step / 2, by: step).map { $0 } }
        /// Decimals enough for the step (0 for steps of 1 and more).
        func label(_ v: Double) -> String {
            let d = step >= 1 ? 0 : Int((-log10(step)).rounded(.up))
            return String(format: "%.\(d)f", v)
        }
    }

    /// A plot area with its ticks and labelled axes.
    static func frame(x: Double, y: Double, w: Double, h: Double, x xt: Ticks, y yt: Ticks, xLabel: String, yLabel: String) -> String {
        var s = "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(w)\" height=\"\(h)\" fill=\"none\" stroke=\"#999\"/>\n"
        for v in yt.values {
            let yy = y + h - h * (v - yt.start) / (yt.end - yt.start)
            s += String(format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", x, yy, x + w, yy)
            s += String(format: "<text class=\"ytick\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%@</text>\n", x - 6, yy + 4, yt.label(v))
        }
        for v in xt.values {
            let xx = x + w * (v - xt.start) / (xt.end - xt.start)
            s += String(format: "<text class=\"xtick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%@</text>\n", xx, y + h + 16, xt.label(v))
        }
        s += String(format: "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%@</text>\n", x + w / 2, y + h + 34, xLabel)
        s += String(format: "<text x=\"14\" y=\"%.0f\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.0f)\">%@</text>\n", y + h / 2, y + h / 2, yLabel)
        return s
    }

    static func escape(_ t: String) -> String {
        t.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
