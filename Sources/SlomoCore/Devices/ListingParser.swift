/// Reads the text `v4l2-ctl --list-formats-ext` prints (current and 2016-era layouts, hand-trimmed
/// copies, `--all` blocks before the list) into a ``DeviceCatalog``.
///
/// Rates come from the `(… fps)` value, never from the seconds (printed with only 3 decimals):
/// it is read as the simplest fraction within its printed precision, so `29.970` is 30000/1001 and
/// `120.101` is 120101/1000. Duplicate formats are kept (the driver lists them), duplicate sizes and
/// intervals within a format are merged.
public enum ListingParser {
    public struct Failure: SlomoFailure, Equatable {
        public var kind: FailureKind { .badData }
        public var line: Int?
        public var reason: String
        public var wording: Wording { Wording(verbatim: line.map { "line \($0): \(reason)" } ?? reason) }
    }

    public static func parse(_ text: String) throws(Failure) -> DeviceCatalog {
        var formats: [PixelFormatEntry] = []
        var pending: [Int: [Rational]] = [:]  // discrete intervals per size of the current format
        var current = -1  // the size interval lines belong to
        func closeFormat() {
            guard !formats.isEmpty else { return }
            let f = formats.count - 1
            for (i, list) in pending where formats[f].sizes[i].intervals == nil {
                var unique: [Rational] = []
                for r in list where !unique.contains(r) { unique.append(r) }
                formats[f].sizes[i].intervals = .discrete(unique)
            }
            pending = [:]
            current = -1
        }
        var sawListing = false
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("#") { continue }
            let newLayout = newLayoutFormat(line)
            if let (fourcc, desc) = newLayout ?? (line.hasPrefix("Pixel Format") ? oldLayoutFormat(line) : nil) {
                closeFormat()
                formats.append(
                    PixelFormatEntry(
                        index: formats.count, fourcc: fourcc, description: desc.name,
                        compressed: desc.compressed || FourCCKind.isCompressed(fourcc), emulated: desc.emulated, sizes: []))
                if newLayout != nil { sawListing = true }
            } else if line.hasPrefix("Name"), let colon = line.firstIndex(of: ":"), !formats.isEmpty,
                formats[formats.count - 1].description.isEmpty
            {
                formats[formats.count - 1].description = String(line[line.index(after: colon)...].drop { $0 == " " })
            } else if line.hasPrefix("Size:") {
                guard !formats.isEmpty else { throw Failure(line: n + 1, reason: "a size before any pixel format") }
                let size = try parseSize(line.dropFirst(5), line: n + 1)
                let f = formats.count - 1
                if let dup = formats[f].sizes.firstIndex(where: { $0.size == size }) {
                    current = dup  // a repeated size: its intervals merge into the first
                } else {
                    formats[f].sizes.append(SizeEntry(size: size, intervals: nil))
                    current = formats[f].sizes.count - 1
                }
                sawListing = true
            } else if line.hasPrefix("Interval:") {
                guard !formats.isEmpty, current >= 0 else {
                    throw Failure(line: n + 1, reason: "an interval before any size")
                }
                switch try interval(line, number: n + 1) {
                case .discrete(let d): pending[current, default: []].append(d)
                case .range(let r): formats[formats.count - 1].sizes[current].intervals = r
                }
            }
        }
        closeFormat()
        return try catalog(formats, sawListing: sawListing)
    }

    /// The formats that have sizes, numbered anew; a text with none is no listing.
    static func catalog(_ formats: [PixelFormatEntry], sawListing: Bool) throws(Failure) -> DeviceCatalog {
        let kept = formats.filter { !$0.sizes.isEmpty }
        guard sawListing, !kept.isEmpty else {
            throw Failure(line: nil, reason: "not a 'v4l2-ctl --list-formats-ext' listing (no pixel format with sizes found)")
        }
        return DeviceCatalog(
            formats: kept.enumerated().map { i, f in
                var g = f
                g.index = i
                return g
            })
    }

    /// What an `Interval:` line holds.
    enum IntervalLine { case discrete(Rational), range(FrameIntervals) }

    /// One `Interval:` line: a discrete interval (`Discrete 0.033s (30.000 fps)` or `Discrete 1/30`),
    /// or a stepwise or continuous range of them; `n` is its line number for errors.
    static func interval(_ line: Substring, number n: Int) throws(Failure) -> IntervalLine {
        let body = line.dropFirst(9).drop { $0 == " " }
        if body.hasPrefix("Discrete") {
            if let fps = fpsValues(body).first, fps.isPositive { return .discrete(Rational.one / fps) }
            if let interval = fraction(body), interval.isPositive { return .discrete(interval) }  // `Discrete 1/30` style, no fps printed
            throw Failure(line: n, reason: "no '(N fps)' or N/M interval in '\(line)'")
        }
        guard body.hasPrefix("Stepwise") || body.hasPrefix("Continuous") else {
            throw Failure(line: n, reason: "unknown interval kind in '\(line)'")
        }
        let rates = fpsValues(body)
        guard rates.count == 2 else { throw Failure(line: n, reason: "expected '(MIN-MAX fps)' in '\(line)'") }
        let maxFps = Swift.max(rates[0], rates[1]), minFps = Swift.min(rates[0], rates[1])
        let shortest = Rational.one / maxFps
        let longest = minFps.isPositive ? Rational.one / minFps : seconds(body, at: 1) ?? shortest
        if body.hasPrefix("Stepwise") { return .range(.stepwise(min: shortest, max: longest, step: seconds(body, at: 2) ?? .zero)) }
        return .range(.continuous(min: shortest, max: longest))
    }

    /// `[0]: 'MJPG' (Motion-JPEG, compressed)`
    static func newLayoutFormat(_ line: Substring) -> (FourCC, (name: String, compressed: Bool, emulated: Bool))? {
        guard line.first == "[", let close = line.firstIndex(of: "]"),
            line[line.index(after: line.startIndex)..<close].allSatisfy({ $0.isNumber }),
            let fourcc = quoted(line[close...])
        else { return nil }
        return (fourcc, description(line[close...]))
    }

    /// `Pixel Format: 'MJPG' (compressed)` / `Pixel Format      : 'YUYV'`
    static func oldLayoutFormat(_ line: Substring) -> (FourCC, (name: String, compressed: Bool, emulated: Bool))? {
        guard let fourcc = quoted(line) else { return nil }
        return (fourcc, description(line))
    }

    static func quoted(_ s: Substring) -> FourCC? {
        guard let a = s.firstIndex(of: "'") else { return nil }
        let rest = s[s.index(after: a)...]
        guard let b = rest.firstIndex(of: "'") else { return nil }
        let f = String(rest[..<b])
        return f.count == 4 || (f.count == 7 && f.hasSuffix("-BE")) ? f : nil
    }

    static func description(_ s: Substring) -> (name: String, compressed: Bool, emulated: Bool) {
        guard let open = s.firstIndex(of: "("), let close = s.lastIndex(of: ")"), open < close else { return ("", false, false) }
        let inside = String(s[s.index(after: open)..<close])
        let parts = inside.split(separator: ",").map { String($0).trimmingSpacesAround }
        let compressed = parts.contains("compressed"), emulated = parts.contains("emulated")
        let name = parts.filter { $0 != "compressed" && $0 != "emulated" }.joined(separator: ", ")
        return (name, compressed, emulated)
    }

    /// `Discrete 640x480` / `Stepwise 32x32 - 2592x1944 with step 2/2` / `Continuous 16x16 - 1920x1080`
    static func parseSize(_ s: Substring, line: Int) throws(Failure) -> FrameSize {
        let body = s.drop { $0 == " " }
        let nums = integers(body)
        if body.hasPrefix("Discrete"), nums.count >= 2 { return .discrete(width: nums[0], height: nums[1]) }
        if body.hasPrefix("Stepwise"), nums.count >= 6 {
            return .stepwise(minWidth: nums[0], minHeight: nums[1], maxWidth: nums[2], maxHeight: nums[3], stepWidth: nums[4], stepHeight: nums[5])
        }
        if body.hasPrefix("Continuous"), nums.count >= 4 {
            return .continuous(minWidth: nums[0], minHeight: nums[1], maxWidth: nums[2], maxHeight: nums[3])
        }
        throw Failure(line: line, reason: "cannot read size '\(s)'")
    }

    /// The decimal numbers in `s`, in order. A number past 1,000,000 (no sensor is that wide; a
    /// damaged or hostile listing) makes the whole list empty, so the line is refused, never trusted.
    static func integers(_ s: Substring) -> [Int] {
        var out: [Int] = [], cur = ""
        func take() -> Bool {
            defer { cur = "" }
            guard cur.count <= 7, let v = Int(cur), v <= 1_000_000 else { return false }
            out.append(v)
            return true
        }
        for c in s {
            if c.isASCII && c.isNumber { cur.append(c) } else if !cur.isEmpty { guard take() else { return [] } }
        }
        if !cur.isEmpty { guard take() else { return [] } }
        return out
    }

    /// The numbers inside `( … fps)`: one for discrete, two (MIN-MAX) for ranges.
    static func fpsValues(_ s: Substring) -> [Rational] {
        guard let open = s.lastIndex(of: "("), let close = s.lastIndex(of: ")"), open < close else { return [] }
        var inside = s[s.index(after: open)..<close]
        if inside.hasSuffix("fps") { inside = inside.dropLast(3) }
        return inside.split(separator: "-").compactMap { decimalRate($0.trimmingSpaces) }
    }

    /// The rate printed as `text`: an NTSC-style N×1000/1001 rate when one prints that way
    /// (29.970 → 30000/1001, 59.940 → 60000/1001), otherwise the printed decimal itself
    /// (120.101 → 120101/1000). v4l2-ctl prints 3 decimals; the exact driver fraction is only
    /// available from a live device.
    static func decimalRate(_ text: Substring) -> Rational? {
        guard let exact = try? Rational(parsing: text) else { return nil }
        let decimals = text.firstIndex(of: ".").map { text.distance(from: $0, to: text.endIndex) - 1 } ?? 0
        // no camera rate needs more: an overlong number is not a rate (it overflowed; found by fuzz-listing)
        guard decimals <= 9, exact.numerator.magnitude <= 1_000_000_000_000, exact.denominator <= 1_000_000_000 else { return nil }
        guard decimals > 0, !exact.isInteger else { return exact }
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let halfUlp = Rational(1, 2 * scale)
        let n = (exact * Rational(1001, 1000)).rounded(.nearest)
        let ntsc = Rational(n * 1000, 1001)
        if ntsc - exact < halfUlp && exact - ntsc < halfUlp && !ntsc.isInteger { return ntsc }
        return exact
    }

    /// An interval printed as a fraction of seconds (`1/30`, `1001/30000s`), if any word is one.
    static func fraction(_ s: Substring) -> Rational? {
        for word in s.split(separator: " ") {
            var w = word
            if w.hasSuffix("s") { w = w.dropLast() }
            guard w.contains("/"), w.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "/") }) else { continue }
            if let r = try? Rational(parsing: w) { return r }
        }
        return nil
    }

    /// The i-th `N.NNNs` value.
    static func seconds(_ s: Substring, at i: Int) -> Rational? {
        var values: [Rational] = []
        for word in s.split(separator: " ") where word.hasSuffix("s") && word.first?.isNumber == true {
            if let r = try? Rational(parsing: word.dropLast()) { values.append(r) }
        }
        return i < values.count ? values[i] : nil
    }
}

extension String {
    var trimmingSpacesAround: String { String(Substring(self).trimmingSpaces) }
}
