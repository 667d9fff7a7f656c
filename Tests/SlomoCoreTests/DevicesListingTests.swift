import Foundation
import Testing
@testable import SlomoCore

/// The 18 real `v4l2-ctl --list-formats-ext` listings and the max-fps mode a person read from
/// each (line 3 of every file, `# max fps:`), under slomo's tie-break rules.
///
/// The listings are read from this package's copy (`Fixtures/v4l2-listings`, so the tests do not
/// depend on a sibling checkout); when the copy is missing, from `../shared/fixtures/v4l2-listings`.
@Suite struct ListingSelectionTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let copy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/v4l2-listings")
    static let shared = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/v4l2-listings")
    static let dir = FileManager.default.fileExists(atPath: copy.path) ? copy : shared

    static func text(_ name: String) throws -> String {
        try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
    }

    static func catalog(_ name: String) throws -> DeviceCatalog {
        try ListingParser.parse(try text(name))
    }

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".txt") }.sorted()
    }

    /// (file, format, width, height, fps) — nil format: nothing selectable.
    static let expected: [(String, FourCC?, Int, Int, Rational)] = [
        ("alliedvision-alvium-1800-c240c-continuous.txt", nil, 1936, 1216, Rational(34715, 1000)),
        ("bluerobotics-lowlight-h264-usb-camera.txt", "H264", 1920, 1080, Rational(30)),
        ("dji-osmo-action4-webcam-mode.txt", "H264", 1920, 1080, Rational(30)),
        ("elgato-camlink-4k.txt", "NV12", 3840, 2160, Rational(30000, 1001)),
        ("elp-stereo-3d-usb-camera.txt", "MJPG", 1600, 600, Rational(120)),
        ("elp-usbfhd01m-120fps-partial.txt", "MJPG", 640, 480, Rational(120101, 1000)),
        ("ezcap331-camlink4k-capture.txt", "NV12", 1920, 1080, Rational(120)),
        ("genius-widecam-f100-2016-old-v4l2ctl.txt", "MJPG", 1920, 1080, Rational(30)),
        ("hdmi-usb2-capture-dongle-ms2109.txt", "MJPG", 1280, 720, Rational(60)),
        ("insta360-air-uvc.txt", "MJPG", 3008, 1504, Rational(30)),
        ("jetson-imx219-tegra-vi.txt", "RG10", 1280, 720, Rational(60)),
        ("kodak-pixpro-4k360-uvc.txt", "MJPG", 1280, 720, Rational(30)),
        ("logitech-brio.txt", "MJPG", 640, 480, Rational(120)),
        ("logitech-c525-2016-old-v4l2ctl.txt", "MJPG", 1920, 1080, Rational(30)),
        ("orbbec-astra-stereo-s-u3-color.txt", "MJPG", 640, 480, Rational(60)),
        ("rp2040-tinyusb-uvc-ov2640.txt", "YUYV", 320, 240, Rational(25)),
        ("withrobot-ocam-5cro-u.txt", "YUYV", 640, 480, Rational(120)),
    ]

    @Test func everyListingParses() throws {
        #expect(Self.files.count == 18)
        for f in Self.files {
            let c = try Self.catalog(f)
            #expect(!c.formats.isEmpty && c.formats.allSatisfy { !$0.sizes.isEmpty }, "\(f)")
        }
        #expect(Set(Self.expected.map(\.0)).union(["rpi-camera-v1-ov5647-bcm2835-v4l2.txt"]) == Set(Self.files))
    }

    /// The package's copy is the shared set, byte for byte (checked when the shared set is there).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: shared.path), "skipped: no ../shared/fixtures beside this clone to compare the copy with"))
    func theCopyIsTheSharedSet() throws {
        for f in Self.files {
            let a = try Data(contentsOf: Self.copy.appendingPathComponent(f)), b = try Data(contentsOf: Self.shared.appendingPathComponent(f))
            #expect(a == b, "\(f) differs from ../shared")
        }
    }

    /// The selected mode, read against each file's own `# max fps:` header: its fourcc (when the
    /// header names formats), its size and its rate (as printed there, 3 decimals) all appear in it.
    @Test(arguments: files)
    func selectionAgreesWithTheHeader(file: String) throws {
        let header = try #require(try Self.text(file).split(separator: "\n").first { $0.hasPrefix("# max fps:") }).lowercased()
        guard let best = FormatSelection.best(in: try Self.catalog(file)) else {
            #expect(header.contains("none"), "\(file): nothing selected, header says: \(header)")
            return
        }
        #expect(header.contains("\(best.width)x\(best.height)"), "\(file): \(best.width)x\(best.height) not in header")
        let words = header.split { !($0.isNumber || $0 == ".") }
        let rates = words.compactMap { try? Rational(parsing: $0) }.map { ($0 * Rational(1000)).rounded(.nearest) }
        #expect(rates.contains((best.fps * Rational(1000)).rounded(.nearest)), "\(file): \(best.fps) fps not in header")
        let fourccs = ["mjpg", "yuyv", "h264", "nv12", "rg10", "grey"]
        if fourccs.contains(where: { header.contains($0) }) && !header.contains("every format") {
            #expect(header.contains(best.pixelFormat.lowercased()), "\(file): \(best.pixelFormat) not in header")
        }
    }

    @Test(arguments: expected)
    func maxFpsModeMatchesTheHeader(file: String, format: FourCC?, width: Int, height: Int, fps: Rational) throws {
        let best = try #require(FormatSelection.best(in: try Self.catalog(file)), "\(file): nothing selected")
        if let format { #expect(best.pixelFormat == format, "\(file)") }
        #expect(best.width == width && best.height == height, "\(file): \(best)")
        #expect(best.fps == fps, "\(file): \(best.fps)")
    }

    @Test func stepwiseSizesWithoutIntervalsSelectNothing() throws {
        let c = try Self.catalog("rpi-camera-v1-ov5647-bcm2835-v4l2.txt")
        #expect(c.formats.count >= 13)
        #expect(FormatSelection.best(in: c) == nil)
    }

    @Test func oldLayoutNamesAndDuplicates() throws {
        let g = try Self.catalog("genius-widecam-f100-2016-old-v4l2ctl.txt")
        #expect(g.formats.map(\.fourcc) == ["YUYV", "MJPG"])
        #expect(g.formats[1].compressed)
        // Cam Link lists NV12 twice: both kept, as the driver enumerates them
        #expect(try Self.catalog("elgato-camlink-4k.txt").formats.filter { $0.fourcc == "NV12" }.count == 2)
        // Orbbec repeats 640x480 and its interval run: merged into one size with unique intervals
        let o = try Self.catalog("orbbec-astra-stereo-s-u3-color.txt")
        let mjpg = try #require(o.formats.first { $0.fourcc == "MJPG" })
        let vga = mjpg.sizes.filter { $0.size == .discrete(width: 640, height: 480) }
        #expect(vga.count == 1)
        if case .discrete(let list)? = vga.first?.intervals { #expect(Set(list).count == list.count) } else { Issue.record("no intervals") }
    }

    @Test func stepwiseAndContinuousIntervals() throws {
        let rp = try Self.catalog("rp2040-tinyusb-uvc-ov2640.txt")
        #expect(rp.formats[0].sizes[0].intervals == .stepwise(min: Rational(1, 25), max: Rational(1), step: Rational(40, 1000)))
        let av = try Self.catalog("alliedvision-alvium-1800-c240c-continuous.txt")
        guard case .continuous(let min, _)? = av.formats[0].sizes[0].intervals else {
            Issue.record("not continuous")
            return
        }
        #expect(min == Rational(1000, 34715))
    }

    @Test func constraintsAndPreference() throws {
        let brio = try Self.catalog("logitech-brio.txt")
        var r = ModeRequest()
        r.minSize = (1280, 720)
        #expect(FormatSelection.best(in: brio, for: r).map { "\($0.pixelFormat) \($0.width)x\($0.height) \($0.fps)" } == "MJPG 1280x720 90")
        r = ModeRequest()
        r.format = "YUYV"
        let y = try #require(FormatSelection.best(in: brio, for: r))
        #expect(y.pixelFormat == "YUYV" && y.fps == Rational(30))
        r = ModeRequest()
        r.size = (1920, 1080)
        r.fps = Rational(45)
        #expect(FormatSelection.best(in: brio, for: r)?.fps == Rational(60))  // nearest at or above 45
        // prefer raw over compressed on a tie (same rate and size)
        let blue = try Self.catalog("bluerobotics-lowlight-h264-usb-camera.txt")
        r = ModeRequest()
        r.prefer = ["mjpeg", "h264", "raw"]
        #expect(FormatSelection.best(in: blue, for: r)?.pixelFormat == "MJPG")
        // stepwise: --fps 10 gives the step at or below 1/10 s: 0.080 s = 12.5 fps
        r = ModeRequest()
        r.fps = Rational(10)
        #expect(FormatSelection.best(in: try Self.catalog("rp2040-tinyusb-uvc-ov2640.txt"), for: r)?.frameDuration == Rational(2, 25))
    }

    @Test func usb2BudgetIsFlagged() throws {
        let ez = try Self.catalog("ezcap331-camlink4k-capture.txt")
        let best = try #require(FormatSelection.best(in: ez))
        #expect(best.exceedsUSB2Budget)  // NV12 1080p120 is ~373 MB/s
        #expect(FormatSelection.best(in: try Self.catalog("logitech-brio.txt"))?.exceedsUSB2Budget == false)
    }

    @Test func notAListing() {
        #expect(throws: ListingParser.Failure.self) { try ListingParser.parse("hello\nworld\n") }
        #expect(throws: ListingParser.Failure.self) { try ListingParser.parse("") }
        #expect(throws: ListingParser.Failure.self) { try ListingParser.parse("\tSize: Discrete 640x480\n") }
    }

    /// Found by fuzz-listing (Tests/Fuzz/Regressions/fuzz-listing-crash-4f66a2bb): a size line with a
    /// number past Int's range trapped on a forced unwrap. Now the line is refused with its number.
    @Test func anOverlongNumberIsRefusedNotTrusted() {
        let text = "ioctl: VIDIOC_ENUM_FMT\n\t[0]: 'YUYV' (YUYV 4:2:2)\n\t\tSize: Discrete 640x4 -9223372036854775808999\n"
        #expect(throws: ListingParser.Failure(line: 3, reason: "cannot read size ' Discrete 640x4 -9223372036854775808999'")) {
            try ListingParser.parse(text)
        }
        #expect(ListingParser.integers("99999999 640") == [] && ListingParser.integers("640x480") == [640, 480])
        // Regressions/fuzz-listing-crash-193b39f1: a rate with 16 decimals overflowed; it is not a rate
        #expect(ListingParser.decimalRate("21.0055555555555555") == nil && ListingParser.decimalRate("29.970") == Rational(30000, 1001))
    }
}
