import Testing
@testable import SlomoCore

/// The image trigger's score: exact means over the sampled luma of a region.
struct MotionDetectorTests {
    /// A YUYV frame (luma at even bytes) whose luma is `value(x, y)`; chroma bytes are 255 so a
    /// reader that took chroma for luma would see it.
    func yuyv(width: Int, height: Int, bytesPerLine: Int, _ value: (Int, Int) -> UInt8) -> [UInt8] {
        var b = [UInt8](repeating: 255, count: bytesPerLine * height)
        for y in 0..<height { for x in 0..<width { b[y * bytesPerLine + 2 * x] = value(x, y) } }
        return b
    }

    @Test func firstFrameHasNoScoreAndAStillPictureScoresZero() {
        var d = MotionDetector(region: PixelRegion(x: 0, y: 0, width: 8, height: 4), layout: LumaLayout.of(fourcc: "YUYV")!, bytesPerLine: 16, step: 1)
        let f = yuyv(width: 8, height: 4, bytesPerLine: 16) { x, y in UInt8(x * 10 + y) }
        #expect(f.withUnsafeBytes { d.score($0) } == nil)
        let s = f.withUnsafeBytes { d.score($0) }
        #expect(s?.sum == 0 && s?.samples == 32)
    }

    @Test func scoreIsTheMeanAbsoluteDifferenceOverTheSampledRegion() {
        // padded rows (bytes per line 40 for 8 pixels) and a region in the middle, every 2nd pixel
        var d = MotionDetector(region: PixelRegion(x: 2, y: 1, width: 4, height: 2), layout: LumaLayout.of(fourcc: "YUYV")!, bytesPerLine: 40, step: 2)
        let a = yuyv(width: 8, height: 4, bytesPerLine: 40) { _, _ in 100 }
        let b = yuyv(width: 8, height: 4, bytesPerLine: 40) { x, y in x >= 2 && x < 6 && y >= 1 && y < 3 ? (x == 2 ? 60 : 130) : 0 }
        _ = a.withUnsafeBytes { d.score($0) }
        let s = b.withUnsafeBytes { d.score($0) }
        // samples (2,1) (4,1): |60-100| + |130-100| = 70 for one row; rows 1 only (step 2 of height 2): 2 samples
        #expect(d.samplesPerFrame == 2 && s?.sum == 70 && s?.samples == 2)
    }

    @Test func layoutsReadTheBrightnessSample() {
        #expect(LumaLayout.of(fourcc: "UYVY") == LumaLayout(offset: 1, pixelStride: 2))
        #expect(LumaLayout.of(fourcc: "GREY") == LumaLayout(offset: 0, pixelStride: 1))
        #expect(LumaLayout.of(fourcc: "Y16 ") == LumaLayout(offset: 1, pixelStride: 2))  // high byte of LE 16-bit
        #expect(LumaLayout.of(fourcc: "MJPG") == nil)
    }

    @Test func regionsParseAndMustFit() throws {
        let r = try PixelRegion(parsing: "10, 20,30,40")
        #expect(r == PixelRegion(x: 10, y: 20, width: 30, height: 40))
        #expect(r.fits(width: 40, height: 60) && !r.fits(width: 39, height: 60))
        #expect(throws: SettingError(.triggerRegion, "1,2,3", "expected X,Y,WIDTH,HEIGHT in pixels")) { try PixelRegion(parsing: "1,2,3") }
        #expect(throws: SettingError(.triggerRegion, "1,2,0,3", "offsets must be ≥ 0 and sizes > 0")) { try PixelRegion(parsing: "1,2,0,3") }
    }
}
