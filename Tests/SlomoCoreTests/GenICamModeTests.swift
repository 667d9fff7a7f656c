import Testing
@testable import SlomoCore

/// The pure parts of a GenICam mode: the region on the camera's grid, the trigger option, the
/// pixel formats stored.
@Suite struct GenICamModeTests {
    let w = GenICamRange(min: 16, max: 2048, increment: 16), h = GenICamRange(min: 8, max: 1536, increment: 8)
    let ox = GenICamRange(min: 0, max: 2032, increment: 4), oy = GenICamRange(min: 0, max: 1528, increment: 2)

    @Test func aSizeIsCentredOnTheOffsetGrid() throws {
        let r = try GenICamRegion.plan(size: (640, 480), offset: nil, sensor: (2048, 1536), width: w, height: h, offsetX: ox, offsetY: oy)
        // (2048-640)/2 = 704 (a multiple of 4), (1536-480)/2 = 528 (even)
        #expect(r == GenICamRegion(x: 704, y: 528, width: 640, height: 480))
        let odd = try GenICamRegion.plan(
            size: (656, 488), offset: nil, sensor: (2048, 1536), width: w, height: h,
            offsetX: GenICamRange(min: 0, max: 2032, increment: 8), offsetY: oy)
        // 696 is on the grid of 8; (1536-488)/2 = 524
        #expect(odd.x == 696 && odd.y == 524)
    }

    @Test func noSizeIsTheWholeSensor() throws {
        let r = try GenICamRegion.plan(size: nil, offset: nil, sensor: (2048, 1536), width: w, height: h, offsetX: ox, offsetY: oy)
        #expect(r == GenICamRegion(x: 0, y: 0, width: 2048, height: 1536))
    }

    @Test func anOffsetIsTakenAsGivenOrRefused() throws {
        let r = try GenICamRegion.plan(size: (320, 240), offset: (8, 4), sensor: (2048, 1536), width: w, height: h, offsetX: ox, offsetY: oy)
        #expect(r == GenICamRegion(x: 8, y: 4, width: 320, height: 240))
        #expect(throws: SettingError.self) {  // off the offset grid
            try GenICamRegion.plan(size: (320, 240), offset: (6, 4), sensor: (2048, 1536), width: w, height: h, offsetX: ox, offsetY: oy)
        }
        #expect(throws: SettingError.self) {  // past the sensor's edge
            try GenICamRegion.plan(size: (320, 240), offset: (1800, 0), sensor: (2048, 1536), width: w, height: h, offsetX: ox, offsetY: oy)
        }
    }

    @Test func aSizeOffTheGridIsRefusedNotShrunk() {
        do {
            _ = try GenICamRegion.plan(size: (650, 480), offset: nil, sensor: (2048, 1536), width: w, height: h, offsetX: ox, offsetY: oy)
            Issue.record("650 is not on a width grid of 16")
        } catch {
            #expect(error.description.contains("steps of 16"), "\(error)")
        }
    }

    @Test func rangesRoundDownOntoTheirGrid() {
        #expect(w.floor(650) == 640 && w.floor(5000) == 2048 && w.floor(1) == 16)
        #expect(w.contains(640) && !w.contains(650) && !w.contains(4096))
    }

    /// A feature without a minimum reports Int64.min, and an offset can be anything a user types:
    /// neither traps (both did once).
    @Test func extremeValuesAreRefusedNotTrapped() {
        let open = GenICamRange(min: .min, max: .max, increment: 4)
        #expect(open.contains(0) == (Int128(0) - Int128(Int64.min)).isMultiple(of: 4))
        #expect(open.floor(5) <= 5)
        #expect(throws: SettingError.self) {
            try GenICamRegion.plan(size: (320, 240), offset: (.max, 0), sensor: (2048, 1536), width: w, height: h, offsetX: ox, offsetY: oy)
        }
    }

    @Test func cameraTriggers() throws {
        #expect(try CameraTrigger(parsing: "line0") == .line("Line0"))
        #expect(try CameraTrigger(parsing: "Line1").source == "Line1")
        #expect(try CameraTrigger(parsing: "software") == .software)
        #expect(throws: SettingError.self) { try CameraTrigger(parsing: "lineX") }
        #expect(throws: SettingError.self) { try CameraTrigger(parsing: "pulse") }
    }

    @Test func storedPixelFormatsHaveTheirLayout() {
        #expect(GenICamPixelFormat.fourccs["Mono8"] == "GREY" && GenICamPixelFormat.bytesPerPixel("Mono8") == 1)
        #expect(GenICamPixelFormat.fourccs["BayerRG8"] == "RGGB")
        #expect(GenICamPixelFormat.bytesPerPixel("Mono16") == 2 && GenICamPixelFormat.bytesPerPixel("RGB8") == 3)
        #expect(!GenICamPixelFormat.isStored("Mono12Packed"))
    }
}
