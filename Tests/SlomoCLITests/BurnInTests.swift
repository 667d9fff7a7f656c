import Foundation
import SlomoCore
import Testing

/// `export --burn-in` on a triggered synthetic capture, read back by OCR (Debian's tesseract-ocr):
/// each sampled output frame's label is the source frame and time the exact time map says it shows,
/// counted from the trigger frame; where the frame is a source frame, the calibration code the
/// synthetic camera painted into it says the same.
@Suite(.enabled(if: CLI.which("tesseract") != nil, "tesseract-ocr is not installed (scripts/dev.sh deps test)"))
struct BurnInTests {
    static let width = 320, height = 240

    /// A shot of 21 frames at 250 fps, 10 before the trigger frame (gray, FFV1: exact times).
    static let shot: TempDir = {
        let d = TempDir()
        // a driver queue of 64 frames: the camera drops none while a loaded machine holds the reader
        let r = try! triggeredShot(size: "\(width)x\(height)", format: "gray,buffers=64", output: d.file("shot.mkv"), extra: "--codec ffv1")
        precondition(r.status == 0, r.stderr)
        return d
    }()

    /// What the test knows of the source without slomo: frame times in µs, the trigger frame,
    /// `creation_time`, and the calibration index painted into the trigger frame.
    struct Source {
        let pts: [Int64]
        let trigger: Int
        let creation: String
        let triggerCode: Int

        /// The video's frame times in µs, in order.
        static func pts(_ path: String) throws -> [Int64] {
            let p = try CLI.tool(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
            return p.stdout.split(separator: "\n").map { Self.micros(String($0)) }.sorted()
        }

        init(_ path: String) throws {
            pts = try Self.pts(path)
            func tag(_ name: String) throws -> String {
                try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "format_tags=\(name)", "-of", "default=nw=1:nk=1", path])
                    .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            trigger = try #require(Int(try tag("SLOMO_TRIGGER_FRAME")))
            creation = try tag("creation_time")
            let frame = try BurnInTests.frames(path, [trigger])[0]
            triggerCode = try #require(BurnInTests.code(frame))
        }

        /// "0.004000" → 4000.
        static func micros(_ t: String) -> Int64 {
            let parts = t.split(separator: ".")
            let frac = String((parts.count > 1 ? String(parts[1]) : "").prefix(6)).padding(toLength: 6, withPad: "0", startingAt: 0)
            return Int64(parts[0])! * 1_000_000 + (t.hasPrefix("-") ? -1 : 1) * Int64(frac)!
        }

        /// The frame shown at source time `s` µs: the last at or before it; a made frame: the
        /// nearer of it and the next, the earlier at halfway.
        func shown(atMicros s: Int64, made: Bool) -> Int { shown(at: Rational(s, 1_000_000), made: made) }

        func shown(at s: Rational, made: Bool) -> Int {
            let t = pts.map { Rational($0, 1_000_000) }
            let k = Swift.max(0, (t.lastIndex { $0 <= s }) ?? 0)
            guard made, k + 1 < t.count else { return k }
            return s - t[k] > t[k + 1] - s ? k + 1 : k
        }

        /// The label's numbers for frame `k`: frame from the trigger, ms with three decimals.
        func expected(_ k: Int) -> [String] {
            let us = pts[k] - pts[trigger]
            let ms = "\(us < 0 ? "-" : "")\(abs(us) / 1000).\(String(abs(us) % 1000).leftPadded(3))"
            return ["\(k - trigger)", ms]
        }
    }

    /// Output frames `ns` of `path` as 8-bit gray pictures.
    static func frames(_ path: String, _ ns: [Int], size: (Int, Int) = (width, height)) throws -> [[UInt8]] {
        let select = ns.map { "eq(n\\,\($0))" }.joined(separator: "+")
        let r = try CLI.tool(["ffmpeg", "-v", "error", "-i", path, "-vf", "select=\(select)", "-vsync", "0", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let size = size.0 * size.1
        try #require(r.output.count == size * ns.count, "\(r.stderr)")
        let bytes = [UInt8](r.output)
        return (0..<ns.count).map { Array(bytes[$0 * size..<($0 + 1) * size]) }
    }

    /// The synthetic camera's frame index in the picture's top band (nil where unreadable: a blend).
    static func code(_ picture: [UInt8]) -> Int? {
        picture.withUnsafeBufferPointer { CalibrationCode.read(luma: $0.baseAddress!, width: width, height: height, stride: width) }
    }

    /// The label in the picture's bottom-left quarter read by tesseract: the bright text as ink,
    /// everything darker (the box, the picture) as paper, the synthetic picture's sweeping bar left out.
    /// `scale`: the label read at that many times its size (tesseract reads a few-pixel glyph
    /// better larger, a thin one better as it is).
    static func ocr(_ picture: [UInt8], in d: TempDir, size: (Int, Int) = (width, height), box: Bool = false, scale: Int = 1) throws -> String {
        let (width, height) = size
        var rows = height / 2..<height, cols = 0..<width * 3 / 4
        if box {
            // a top-left label (the live pictures': a twelfth of the height): from the top edge (the
            // code band's white cells touch it and are left out below), the left half
            rows = 0..<height * 3 / 10
            cols = 0..<width / 2
        }
        var ink = [[Bool]](repeating: [Bool](repeating: false, count: cols.count), count: rows.count)
        // ink: bright, with the label's black box close by (a bright part of the picture behind it,
        // with no black near, once read as digits)
        func boxNear(_ y: Int, _ x: Int) -> Bool {
            var dark = 0
            for yy in Swift.max(0, y - 3)...Swift.min(height - 1, y + 3) {
                for xx in Swift.max(0, x - 3)...Swift.min(width - 1, x + 3) where picture[yy * width + xx] < 48 { dark += 1 }
            }
            return dark >= 3
        }
        for (i, y) in rows.enumerated() { for (j, x) in cols.enumerated() { ink[i][j] = picture[y * width + x] > 210 && boxNear(y, x) } }
        // the bar comes down from the top edge to the box; the text, in its box, never reaches the edge
        for j in 0..<cols.count {
            var i = 0
            while i < rows.count && ink[i][j] {
                ink[i][j] = false
                i += 1
            }
        }
        let k = scale
        var pgm = Data("P5 \(cols.count * k) \(rows.count * k) 255\n".utf8)
        for row in ink {
            let wide = row.flatMap { Array(repeating: $0 ? UInt8(0) : 255, count: k) }
            for _ in 0..<k { pgm.append(contentsOf: wide) }
        }
        let file = d.file("label-\(UUID().uuidString).pgm")
        try pgm.write(to: URL(fileURLWithPath: file))
        let r = try CLI.tool(["tesseract", file, "stdout", "--psm", "6", "-c", "tessedit_char_whitelist=0123456789-.: framesupq"])
        return r.stdout
    }

    /// The numbers in an OCR'd label (`f rame -10\n-40.000 m` → ["-10", "-40.000"]).
    static func numbers(_ text: String) -> [String] {
        text.matches(of: #/-?[0-9]+(\.[0-9]+)?/#).map { String($0.output.0) }
    }

    /// Exports with `args` and checks output frames `ns`: the label read back is each frame's
    /// source frame and time from the trigger (`sourceMicros`: the time map, output frame → µs),
    /// and a frame that is a source frame shows that frame.
    func check(_ args: [String], frames ns: [Int], made: Bool = false, sourceMicros: (Int) -> Int64) throws {
        try check(args, frames: ns, made: made) { Rational(sourceMicros($0), 1_000_000) }
    }

    func check(_ args: [String], frames ns: [Int], made: Bool = false, sourceTime: (Int) throws -> Rational) throws {
        let d = TempDir(), src = Self.shot.file("shot.mkv"), out = d.file("out.mp4")
        let source = try Source(src)
        let r = try CLI.run(["export", src, "-o", out, "--fps", "250", "--crf", "12", "--progress", "none", "--burn-in-size", "36"] + args)
        #expect(r.status == 0, "\(r.stderr)")
        for (n, picture) in zip(ns, try Self.frames(out, ns)) {
            let k = source.shown(at: try sourceTime(n), made: made)
            // read as it is, and at three times its size when that reading is not the label's: tesseract
            // misread small glyphs now and then (`-20.000` as `20-000` at 1×, `-1` as `-` at 3×); a
            // wrong label is read wrong at both
            var text = try Self.ocr(picture, in: d)
            if Array(Self.numbers(text).suffix(source.expected(k).count)) != source.expected(k) { text = try Self.ocr(picture, in: d, scale: 3) }
            // the label's numbers end the text (it is the lowest ink): a mark of the picture above it
            // read as a digit (a blended frame's bright edge, once) comes before them
            let expected = source.expected(k)
            #expect(Array(Self.numbers(text).suffix(expected.count)) == expected, "output frame \(n): read '\(text)', source frame \(k)")
            if !made { #expect(Self.code(picture).map { $0 - source.triggerCode } == k - source.trigger, "output frame \(n)") }
        }
    }

    /// `--rate 0.25` at the source's own 250 fps: output frame n shows source time n ms.
    @Test func quarterSpeedLabelsEachFrameWithItsSourceFrame() throws {
        try check(["--rate", "0.25", "--burn-in", "--burn-in-corner", "bottom-left"], frames: [0, 3, 4, 7, 39, 40, 41, 43, 44, 61, 83]) { n in
            Int64(n) * 1000
        }
    }

    /// A segment at 1/4 between full-speed parts: the time map's three pieces, exactly.
    @Test func aSegmentLabelsEachFrameWithItsSourceFrame() throws {
        try check(["--segment", "0.02-0.06@1/4", "--burn-in-corner", "bottom-left"], frames: [0, 4, 5, 6, 7, 20, 30, 39, 44, 45, 46, 50]) { n in
            Self.segmentMicros(n)
        }
    }

    /// A ramp (eased in and out): the time map as `slomo plan --json` publishes it (exact pieces,
    /// each a source and a target range), inverted here for each output frame's time n/250.
    @Test func aRampLabelsEachFrameWithItsSourceFrame() throws {
        let ramp = ["--ramp", "0.02-0.06@1/4:0.01"]
        let plan = try CLI.run(["plan", Self.shot.file("shot.mkv"), "--fps", "250", "--json"] + ramp)
        let json = try #require(try JSONSerialization.jsonObject(with: plan.output) as? [String: Any])
        let mappings = try #require(json["mappings"] as? [[String: [String: Int64]]])
        func r(_ m: [String: [String: Int64]], _ key: String) -> Rational { Rational(m[key]!["numerator"]!, m[key]!["denominator"]!) }
        let pieces = mappings.map { (r($0, "sourceStart"), r($0, "sourceEnd"), r($0, "targetStart"), r($0, "targetEnd")) }
        #expect(pieces.count > 3)
        try check(ramp + ["--burn-in-corner", "bottom-left"], frames: Array(stride(from: 0, to: 42, by: 3))) { n in
            let t = Rational(Int64(n), 250)
            let p = try #require(pieces.first { $0.2 <= t && t < $0.3 } ?? pieces.last)
            return p.0 + (t - p.2) * (p.1 - p.0) / (p.3 - p.2)
        }
    }

    /// The same segment with `--frame-blend blend`: a blended frame is labelled with the nearer
    /// source frame (at exactly halfway, the earlier).
    @Test func aBlendedFrameIsLabelledWithTheNearerSourceFrame() throws {
        try check(
            ["--segment", "0.02-0.06@1/4", "--frame-blend", "blend", "--burn-in-corner", "bottom-left"], frames: [5, 6, 7, 8, 9, 10, 11, 12],
            made: true
        ) { n in Self.segmentMicros(n) }
    }

    /// A batch manifest's export job takes the same options (the `JobOption` table): the label read
    /// back is the source frame's; bad values are refused in one line naming the flag.
    @Test func aManifestJobBurnsInAndBadValuesAreRefused() throws {
        let d = TempDir(), src = Self.shot.file("shot.mkv"), out = d.file("m.mp4")
        let source = try Source(src)
        let manifest = d.file("jobs.json")
        try Data(
            """
            {"jobs": [{"input": "\(src)", "output": "\(out)", "rate": "1/4", "fps": "250", "crf": 12,
              "burnIn": true, "burnInCorner": "bottom-left", "burnInSize": 36}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: manifest))
        let b = try CLI.run(["batch", manifest, "--jobs", "1", "--progress", "none"])
        #expect(b.status == 0, "\(b.stderr)")
        let picture = try Self.frames(out, [42])[0]
        #expect(Self.numbers(try Self.ocr(picture, in: d)) == source.expected(source.shown(atMicros: 42_000, made: false)))
        let before = d.entries
        expectOneLine(
            try CLI.run(["export", src, "-o", d.file("x.mp4"), "--burn-in-fields", "frame,sec"]), status: 64, contains: ["--burn-in-fields", "'sec'"])
        expectOneLine(
            try CLI.run(["export", src, "-o", d.file("x.mp4"), "--burn-in-corner", "middle"]), status: 64, contains: ["--burn-in-corner", "top-left"])
        expectOneLine(try CLI.run(["export", src, "-o", d.file("x.mp4"), "--burn-in-size", "2"]), status: 64, contains: ["--burn-in-size", "8...512"])
        #expect(d.entries == before)
    }

    /// `capture --preview-burn-in`: each live picture's label is its camera frame's sequence number
    /// and time on the capture clock, as the recording made beside it has them (its capture start
    /// plus the frame's pts; the synthetic camera numbers frames from 0 and drops none).
    @Test func previewPicturesAreLabelledWithTheirFrame() throws {
        let d = TempDir(), rec = d.file("rec.mkv"), preview = d.file("preview.nut")
        let r = try CLI.run([
            "capture", "--source", "synthetic:fps=100,size=640x480,format=gray", "--codec", "ffv1", "--frames", "100",
            "-o", rec, "--preview", preview, "--preview-fps", "10", "--preview-burn-in",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let pts = try Source.pts(rec)
        let start = try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "format_tags=SLOMO_CAPTURE_START", "-of", "default=nw=1:nk=1", rec])
        let startMicros = try Rational(parsing: start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) * Rational(1_000_000)
        // about ten pictures in the second; fewer on a loaded machine (the preview runs at the lowest
        // priority and makes a picture only when it can): up to four of those made
        let counted = try CLI.tool([
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", preview,
        ])
        let made = Int(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let picks = Array(stride(from: made > 1 ? 1 : 0, to: made, by: 2).prefix(4))
        try #require(!picks.isEmpty, "\(made) preview pictures")
        var read = 0
        for picture in try Self.frames(preview, picks, size: (640, 480)) {
            let text = try Self.ocr(picture, in: d, size: (640, 480), box: true)
            // the picture is a small JPEG: its decimal point is read or not, so the digits are compared;
            // the line after "seq", up to its unit, is the time
            let lines = text.split(separator: "\n").map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
            let at = lines.firstIndex { $0.hasPrefix("se") }
            guard let at, at + 1 < lines.count, let seq = Int(lines[at].split(separator: " ").last?.filter(\.isNumber) ?? ""),
                pts.indices.contains(seq)
            else {
                Issue.record("read '\(text)'")
                continue
            }
            let joined = lines[at + 1].replacingOccurrences(of: " .", with: ".").replacingOccurrences(of: ". ", with: ".")
            let time = (joined.split(separator: " ").first ?? "").filter(\.isNumber)
            let micros = (startMicros + Rational(pts[seq])).rounded(.nearest)
            #expect(time == "\(micros / 1_000_000)\(String((micros % 1_000_000 + 500) / 1000).leftPadded(3))", "read '\(text)'")
            read += 1
        }
        #expect(read == picks.count)
    }

    /// Source µs of output frame n (at 250 fps) under `--segment 0.02-0.06@1/4`.
    static func segmentMicros(_ n: Int) -> Int64 {
        let t = Int64(n) * 4000
        return t < 20_000 ? t : t < 180_000 ? 20_000 + (t - 20_000) / 4 : t - 120_000
    }

    /// `--burn-in-fields us,rate,date` on an output scaled to 640x480: microseconds from the trigger, the
    /// capture rate, and the UTC date and time from `creation_time` plus the frame's time.
    @Test func microsecondsRateAndDateFields() throws {
        let d = TempDir(), src = Self.shot.file("shot.mkv"), out = d.file("out.mp4")
        let source = try Source(src)
        let r = try CLI.run([
            "export", src, "-o", out, "--fps", "250", "--rate", "0.5", "--crf", "12", "--progress", "none",
            "--size", "640x480", "--burn-in-fields", "us,rate,date", "--burn-in-corner", "bottom-left", "--burn-in-size", "30",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        // creation_time's whole seconds by Foundation, its microseconds and the frame's time exactly
        let parts = source.creation.dropLast().split(separator: ".")
        let whole = try #require(ISO8601DateFormatter().date(from: parts[0] + "Z"))
        let fraction = Int64(String(parts.count > 1 ? parts[1] : "").padding(toLength: 6, withPad: "0", startingAt: 0))!
        let shown = DateFormatter()
        shown.timeZone = TimeZone(identifier: "UTC")
        shown.dateFormat = "yyyy-MM-ddHH:mm:ss"
        for (n, picture) in zip([2, 21, 40], try Self.frames(out, [2, 21, 40], size: (640, 480))) {
            let k = source.shown(atMicros: Int64(n) * 2000, made: false)
            let total = fraction + source.pts[k]
            let carry = total >= 0 ? total / 1_000_000 : -((-total + 999_999) / 1_000_000)
            let ms = (total - carry * 1_000_000) / 1000
            let date = shown.string(from: whole.addingTimeInterval(TimeInterval(carry))) + "." + String(ms).leftPadded(3)
            let us = source.pts[k] - source.pts[source.trigger]
            // read as it is, and at twice its size when that reading is not the label's (as `check`)
            var text = try Self.ocr(picture, in: d, size: (640, 480))
            if Self.numbers(text).prefix(2) != ["\(us)", "250"] { text = try Self.ocr(picture, in: d, size: (640, 480), scale: 2) }
            #expect(Self.numbers(text).prefix(2) == ["\(us)", "250"], "output frame \(n): read '\(text)'")
            #expect(text.filter { $0 != " " }.contains(date), "output frame \(n): read '\(text)', expected \(date)")
        }
    }
}

extension String {
    fileprivate func leftPadded(_ n: Int) -> String { String(repeating: "0", count: Swift.max(0, n - count)) + self }
}
