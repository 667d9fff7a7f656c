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
}
