import Testing
@testable import SlomoCore

@Suite struct CaptureRateTests {
    @Test func androidsTagGivesTheRealTimeSpeed() throws {
        let c = try #require(CaptureRate(metadata: ["COM.ANDROID.CAPTURE.FPS": " 240.000000"], storedFrameRate: Rational(30)))
        #expect(c.captureFrameRate == Rational(240) && c.realTimeSpeed == Rational(1, 8))
        #expect(c.fileRate(forRealTime: Rational(1, 2)) == Rational(4))
        let spec = c.fileSpec(RetimeSpec(rate: Rational(1), segments: [try SegmentSpec(parsing: "1-2@1/8")]))
        #expect(spec.rate == Rational(8) && spec.segments[0].rate == Rational(1))
        #expect(CaptureRate(metadata: ["com.android.capture.fps": "119.88"], storedFrameRate: Rational(30))?.captureFrameRate == Rational(2997, 25))
    }

    @Test func noUsableTagIsNoCaptureRate() {
        #expect(CaptureRate(metadata: [:], storedFrameRate: Rational(30)) == nil)
        #expect(CaptureRate(metadata: ["com.android.capture.fps": "0"], storedFrameRate: Rational(30)) == nil)
        #expect(CaptureRate(metadata: ["com.android.capture.fps": "fast"], storedFrameRate: Rational(30)) == nil)
        #expect(CaptureRate(metadata: ["com.android.capture.fps": "240"], storedFrameRate: nil) == nil)
    }

    /// The capture rate an output stands for: the output's rate over its speed against real time,
    /// where the map has one rate; none where it varies.
    @Test func theOutputsCaptureRate() throws {
        let c = try #require(CaptureRate(metadata: ["com.android.capture.fps": "240"], storedFrameRate: Rational(30)))
        let fourTimes = try RetimeSpec(rate: Rational(4)).resolve(duration: Rational(2), frameRate: Rational(30))
        #expect(c.outputCaptureRate(map: fourTimes, window: nil, outputFrameRate: Rational(30)) == Rational(60))
        #expect(c.outputCaptureRate(map: fourTimes, window: nil, outputFrameRate: nil) == Rational(240))
        let varied = try RetimeSpec(rate: Rational(1), segments: [try SegmentSpec(parsing: "0.5-1@1/2")]).resolve(
            duration: Rational(2), frameRate: Rational(30))
        #expect(c.outputCaptureRate(map: varied, window: nil, outputFrameRate: Rational(30)) == nil)
        // a window inside one part of the map: that part's rate alone
        let inside = TimeRange(start: Rational(0), duration: Rational(1, 4))
        #expect(c.outputCaptureRate(map: varied, window: inside, outputFrameRate: Rational(30)) == Rational(240))
    }
}
