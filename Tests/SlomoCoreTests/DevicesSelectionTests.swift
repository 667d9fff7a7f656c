import Testing
@testable import SlomoCore

/// `FormatSelection` rules as tables over small hand-made catalogs, plus the listing parser's
/// odd inputs that the 18 real listings do not cover.
@Suite struct DevicesSelectionTests {
    static func fmt(_ fourcc: FourCC, compressed: Bool = false, _ sizes: [SizeEntry]) -> PixelFormatEntry {
        PixelFormatEntry(index: 0, fourcc: fourcc, description: fourcc, compressed: compressed, emulated: false, sizes: sizes)
    }

    static func size(_ w: Int, _ h: Int, _ fps: [Int]) -> SizeEntry {
        SizeEntry(size: .discrete(width: w, height: h), intervals: .discrete(fps.map { Rational(1, Int64($0)) }))
    }

    static func describe(_ m: CaptureMode?) -> String {
        m.map { "\($0.pixelFormat) \($0.width)x\($0.height) \($0.fps)" } ?? "none"
    }

    /// Same rate and area in three storage classes, in the driver's order raw, MJPEG, H.264.
    static let tie = DeviceCatalog(formats: [
        fmt("YUYV", [size(640, 480, [30, 60]), size(320, 240, [60])]),
        fmt("MJPG", compressed: true, [size(640, 480, [60]), size(1280, 720, [30])]),
        fmt("H264", compressed: true, [size(640, 480, [60])]),
        fmt("NV12", [size(640, 480, [60])]),
    ])

    @Test(arguments: [
        // (prefer, constraints, expected)
        ([String]?.none, "", "H264 640x480 60"),  // fastest, largest, then H.264 > MJPEG > raw
        (["mjpeg", "h264", "raw"], "", "MJPG 640x480 60"),
        (["raw"], "", "YUYV 640x480 60"),  // raw tie: the driver's first raw format
        (nil, "format=NV12", "NV12 640x480 60"),
        (nil, "format=mjpg", "MJPG 640x480 60"),
        (nil, "min=1280x720", "MJPG 1280x720 30"),
        (nil, "size=320x240", "YUYV 320x240 60"),
        (nil, "fps=45", "H264 640x480 60"),  // nearest at or above 45
        (nil, "fps=30", "MJPG 1280x720 30"),  // exactly 30: the larger 30 fps mode
        (nil, "fps=61", "none"),  // nothing reaches 61
        (nil, "format=YUYV,fps=30", "YUYV 640x480 30"),
    ])
    func selectionTable(prefer: [String]?, constraints: String, expected: String) {
        var r = ModeRequest()
        if let prefer { r.prefer = prefer }
        for c in constraints.split(separator: ",") {
            let kv = c.split(separator: "=").map(String.init)
            let wh = kv[1].split(separator: "x").compactMap { Int($0) }
            switch kv[0] {
            case "format": r.format = kv[1].uppercased()
            case "min": r.minSize = (wh[0], wh[1])
            case "size": r.size = (wh[0], wh[1])
            case "fps": r.fps = Rational(Int64(kv[1])!)
            default: Issue.record("bad table row")
            }
        }
        #expect(Self.describe(FormatSelection.best(in: Self.tie, for: r)) == expected)
    }

    @Test func stepwiseAndContinuousIntervalsGiveTheShortestAtTheChosenSize() {
        let range = FrameSize.stepwise(minWidth: 16, minHeight: 16, maxWidth: 1920, maxHeight: 1080, stepWidth: 2, stepHeight: 2)
        let probed = DeviceCatalog(formats: [
            Self.fmt(
                "YUYV",
                [
                    SizeEntry(
                        size: range, intervals: .stepwise(min: Rational(1, 100), max: Rational(1), step: Rational(1, 1000)),
                        intervalsSize: Dimensions(width: 640, height: 480))
                ])
        ])
        #expect(Self.describe(FormatSelection.best(in: probed)) == "YUYV 640x480 100")
        var r = ModeRequest()
        r.fps = Rational(50)  // 1/50 s is on the 1 ms grid
        #expect(FormatSelection.best(in: probed, for: r)?.frameDuration == Rational(1, 50))
        r.fps = Rational(30000, 1001)  // grid point at or below 1001/30000 s
        #expect(FormatSelection.best(in: probed, for: r)?.frameDuration == Rational(33, 1000))
        // no probed size: the current size if in range, else the largest
        let unprobed = DeviceCatalog(formats: [Self.fmt("GREY", [SizeEntry(size: range, intervals: .continuous(min: Rational(1, 60), max: Rational(1)))])])
        var s = ModeRequest()
        s.stepwiseSize = (1280, 720)
        #expect(Self.describe(FormatSelection.best(in: unprobed, for: s)) == "GREY 1280x720 60")
        s.stepwiseSize = (1281, 720)  // off the step grid
        #expect(Self.describe(FormatSelection.best(in: unprobed, for: s)) == "GREY 1920x1080 60")
        s.size = (800, 600)  // --size inside the range wins
        #expect(Self.describe(FormatSelection.best(in: unprobed, for: s)) == "GREY 800x600 60")
    }

    @Test func intervalArithmetic() {
        let c = FrameIntervals.continuous(min: Rational(1, 120), max: Rational(1, 10))
        #expect(c.shortest == Rational(1, 120) && c.nearest(atOrAbove: Rational(200)) == nil)
        #expect(c.nearest(atOrAbove: Rational(5)) == Rational(1, 10))  // below the range: its slowest rate
        let d = FrameIntervals.discrete([Rational(1, 30), Rational(1001, 30000), Rational(1, 60)])
        #expect(d.shortest == Rational(1, 60) && d.nearest(atOrAbove: Rational(30000, 1001)) == Rational(1001, 30000))
        #expect(d.nearest(atOrAbove: Rational(30)) == Rational(1, 30))
    }

    @Test func linkBudgetFlagsRawModesAndCanLeaveThemOut() {
        let cat = DeviceCatalog(formats: [
            Self.fmt("YUYV", [Self.size(1280, 720, [60]), Self.size(640, 480, [60])]),  // 110.6 / 36.9 MB/s
            Self.fmt("MJPG", compressed: true, [Self.size(320, 240, [60])]),
            Self.fmt("GREY", [Self.size(640, 480, [60])]),  // 18.4 MB/s
        ])
        let best = FormatSelection.best(in: cat)
        #expect(Self.describe(best) == "YUYV 1280x720 60" && best?.exceedsUSB2Budget == true)
        var r = ModeRequest()
        r.withinUSB2Budget = true
        let within = FormatSelection.best(in: cat, for: r)
        #expect(Self.describe(within) == "GREY 640x480 60" && within?.exceedsUSB2Budget == false)
    }

    @Test func parserOddities() throws {
        // an interval printed as a fraction, no fps; a trimmed Pixel Format at column 0; an NTSC rate
        let text = """
            Pixel Format: 'Y10 '
            \tSize: Discrete 640x480
            \t\tInterval: Discrete 1001/30000
            \t\tInterval: Discrete 0.017s (59.940 fps)
            \t\tInterval: Discrete 0.017s (59.940 fps)
            """
        let c = try ListingParser.parse(text)
        #expect(c.formats[0].fourcc == "Y10 ")
        #expect(c.formats[0].sizes[0].intervals == .discrete([Rational(1001, 30000), Rational(1001, 60000)]))
        var r = ModeRequest()
        r.format = "Y10"  // trailing space need not be typed
        #expect(FormatSelection.best(in: c, for: r)?.fps == Rational(60000, 1001))
        #expect(DecimalText.fps(Rational(1001, 60000)) == "59.94" && DecimalText.fps(Rational(2, 25)) == "12.5")

        #expect(throws: ListingParser.Failure(line: 3, reason: "no '(N fps)' or N/M interval in 'Interval: Discrete soon'")) {
            try ListingParser.parse("[0]: 'MJPG' (Motion-JPEG, compressed)\n\tSize: Discrete 640x480\n\t\tInterval: Discrete soon\n")
        }
        do {
            _ = try ListingParser.parse("just some text\n")
            Issue.record("parsed")
        } catch {
            #expect(error.description == "not a 'v4l2-ctl --list-formats-ext' listing (no pixel format with sizes found)")
            #expect(error.kind == .badData)
        }
    }
}
