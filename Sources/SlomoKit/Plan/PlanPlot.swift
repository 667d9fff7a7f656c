import SlomoCore

/// `slomo plan --plot FILE.svg`: two panels over source time, speed (the rate the map plays at each
/// source instant) above, output time below, with round ticks, labelled axes and seconds on the
/// time axes; key points of a curve marked. Drawing only (`Double` is fine here).
public enum PlanPlot {
    static let width = 760.0, panel = 220.0, left = 70.0, right = 20.0, top = 60.0, gap = 70.0

    public static func svg(_ r: PlanReport) -> String {
        let end = r.sourceDuration.doubleValue
        var speed: [(Double, Double)] = []
        for m in r.mappings {
            speed.append((m.sourceStart.doubleValue, m.rate.doubleValue))
            speed.append((m.sourceEnd.doubleValue, m.rate.doubleValue))
        }
        let output = [(0.0, 0.0)] + r.mappings.map { ($0.sourceEnd.doubleValue, $0.targetEnd.doubleValue) }
        let maxRate = max(speed.map(\.1).max() ?? 1, 1)
        let height = top + 2 * panel + gap + 50
        var s = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="20" font-size="14">\(StatsPlot.escape(r.path)): \(Seconds(r.sourceDuration, decimals: 3)) s source → \(Seconds(r.targetDuration, decimals: 3)) s output\(r.curve.map { ", curve \(StatsPlot.escape($0.text))" } ?? "")</text>

            """
        s += panelSVG(
            y0: top, title: "speed (rate; 1 = real time)", xMax: end, yMax: maxRate, points: speed, colour: "#1f77b4",
            keys: r.curve?.keys.map { ($0.sourceTime.doubleValue, $0.rate.doubleValue) } ?? [])
        s += panelSVG(
            y0: top + panel + gap, title: "output time (s)", xMax: end, yMax: r.targetDuration.doubleValue, points: output, colour: "#d62728",
            keys: r.curve?.keys.map { ($0.sourceTime.doubleValue, $0.targetTime.doubleValue) } ?? [])
        s += "<text x=\"\(left + (width - left - right) / 2)\" y=\"\(height - 12)\" text-anchor=\"middle\">source time (s)</text>\n</svg>\n"
        return s
    }

    static func panelSVG(
        y0: Double, title: String, xMax: Double, yMax: Double, points: [(Double, Double)], colour: String,
        keys: [(Double, Double)]
    ) -> String {
        let w = width - left - right
        let xt = StatsPlot.Ticks(upTo: xMax), yt = StatsPlot.Ticks(upTo: yMax)
        let xTicks = xt.values, yTicks = yt.values
        let xTop = xt.end, yTop = yt.end
        func x(_ v: Double) -> Double { left + v / xTop * w }
        func y(_ v: Double) -> Double { y0 + panel - v / yTop * panel }
        var s = "<text x=\"\(left)\" y=\"\(y0 - 8)\" font-weight=\"bold\">\(title)</text>\n"
        for t in yTicks {
            s += "<line x1=\"\(left)\" x2=\"\(left + w)\" y1=\"\(f(y(t)))\" y2=\"\(f(y(t)))\" stroke=\"#ddd\"/>"
            s += "<text x=\"\(left - 6)\" y=\"\(f(y(t) + 4))\" text-anchor=\"end\">\(yt.label(t))</text>\n"
        }
        for t in xTicks {
            s += "<line x1=\"\(f(x(t)))\" x2=\"\(f(x(t)))\" y1=\"\(y0)\" y2=\"\(y0 + panel)\" stroke=\"#eee\"/>"
            s += "<text x=\"\(f(x(t)))\" y=\"\(f(y0 + panel + 16))\" text-anchor=\"middle\">\(xt.label(t))</text>\n"
        }
        s += "<rect x=\"\(left)\" y=\"\(y0)\" width=\"\(f(w))\" height=\"\(panel)\" fill=\"none\" stroke=\"#333\"/>\n"
        let path = points.map { "\(f(x($0.0))),\(f(y($0.1)))" }.joined(separator: " ")
        s += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
        for k in keys { s += "<circle cx=\"\(f(x(k.0)))\" cy=\"\(f(y(k.1)))\" r=\"4\" fill=\"\(colour)\"/>\n" }
        return s
    }

    static func f(_ v: Double) -> String { String((v * 10).rounded() / 10) }
}
