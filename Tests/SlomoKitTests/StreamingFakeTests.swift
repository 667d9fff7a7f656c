import Foundation
import Testing
import SlomoCore
import SlomoTestSupport
@testable import SlomoKit
@testable import SlomoV4L2

/// Streaming against the fake driver: what vivid cannot be made to do on demand — short buffers,
/// sizes without advertised frame intervals (some CSI drivers), a mode that delivers less than it
/// advertises — and the measurement that `formats --measure` and `capture --max-fps` rely on.
@Suite struct StreamingFakeTests {
    /// YUYV at two sizes without intervals (one streams at 90 fps, one at 30), MJPG advertising 120 fps
    /// at 640x480 but delivering 50.
    func camera() -> FakeV4L2 {
        let fake = FakeV4L2()
        fake.formats = [
            ("MJPG", true, .discrete([(640, 480, [(1, 120)])])),
            ("YUYV", false, .discrete([(640, 480, []), (320, 240, [])])),
        ]
        let st = FakeV4L2.Stream()
        st.interval = { fourcc, w, _ in fourcc == "MJPG" ? 20_000 : w == 320 ? 11_111 : 33_333 }
        fake.stream = st
        return fake
    }

    @Test func sizesWithoutIntervalsAreMeasuredAndTheFastestIsChosen() throws {
        let fake = camera()
        var request = ModeRequest()
        request.format = "YUYV"
        let report = try DeviceService.formats(device: "/dev/video0", request: request, measure: Rational(1, 2), limit: 12, syscalls: fake)
        let m = try #require(report.measured)
        #expect(m.map { "\($0.width)x\($0.height)" } == ["640x480", "320x240"])  // unadvertised first, larger first
        #expect(m.allSatisfy { $0.advertisedFrameDuration == nil && $0.error == nil && $0.drops == 0 })
        // (frames − 1) / span of the virtual timestamps: 11.111 ms → 90.0 fps, snapped to 1/90 s
        #expect(m[1].achievedFrameRate == Rational(m[1].frames - 1) / m[1].seconds)
        #expect(m[1].nominalFrameDuration == Rational(1, 90))
        #expect(m[0].nominalFrameDuration == Rational(1, 30))
        #expect(m[1].seconds >= Rational(1, 2))
        // nothing advertised → the measured fastest is maxFps
        #expect(report.maxFps?.width == 320 && report.maxFps?.frameDuration == Rational(1, 90))
        #expect(fake.log.filter { $0.hasPrefix("S_PARM") }.isEmpty)  // a measured rate is never set
        // the JSON: exact fractions, display rates, and unknowns as null (never absent)
        let enc = JSONEncoder()
        enc.outputFormatting = .sortedKeys
        let json = String(decoding: try enc.encode(m[1]), as: UTF8.self)
        #expect(
            json.contains("\"advertisedFps\":null") && json.contains("\"advertisedFrameDuration\":null") && json.contains("\"error\":null")
                && json.contains("\"nominalFrameDuration\":{\"denominator\":90,\"numerator\":1}") && json.contains("\"achievedFps\":90"), "\(json)")
    }

    @Test func aModeBelowItsAdvertisedRateIsShownAsSuch() throws {
        let fake = camera()
        var request = ModeRequest()
        request.format = "MJPG"
        let report = try DeviceService.formats(device: "/dev/video0", request: request, measure: Rational(1, 2), limit: 12, syscalls: fake)
        let m = try #require(report.measured?.first)
        #expect(m.advertisedFrameDuration == Rational(1, 120))
        #expect(m.nominalFrameDuration == Rational(1, 50))
        #expect(m.deliveredFraction.map { $0 < Rational(1, 2) } == true)
        #expect(report.maxFps?.frameDuration == Rational(1, 120))  // the advertised selection is unchanged
    }

    @Test func captureOnADeviceWithoutIntervalsMeasuresInsteadOfGivingUp() throws {
        let fake = camera()
        fake.formats.removeFirst()  // YUYV only: nothing advertised
        var r = DeviceCaptureRequest(device: "/dev/video0")
        r.format = "YUYV"
        let source = try DeviceCapture.open(r, syscalls: fake)
        #expect(source.format.width == 320 && source.format.frameDuration == Rational(1, 90))
        #expect(source.adjustments.first?.hasPrefix("no frame intervals advertised: 2 mode(s) measured by streaming; YUYV 320x240 delivered 90") == true)
        #expect(fake.stream?.started == ["YUYV 640x480", "YUYV 320x240"])  // each candidate streamed once to measure
    }

    @Test func shortDamagedAndSkippedBuffersAreCountedNeverReadPast() throws {
        let fake = camera()
        fake.stream?.frame = { i in
            switch i {
            case 3: return (100, false, 0)  // 100 bytes of a 614,400-byte frame
            case 5: return (nil, true, 0)  // V4L2_BUF_FLAG_ERROR
            case 7: return (nil, false, 2)  // two sequence numbers skipped
            default: return (nil, false, 0)
            }
        }
        let dev = try VideoDevice(path: "/dev/video0", syscalls: fake)
        let c = MeasurementCandidate(pixelFormat: "YUYV", width: 640, height: 480, compressed: false, advertised: nil)
        let m = DeviceService.measure(dev, c, seconds: Rational(1, 2))
        #expect(m.shortFrames == 1 && m.damaged == 1 && m.drops == 2 && m.error == nil)
        // skipped frames lower the achieved rate, not the rate the camera runs at (33.333 ms: 30 fps)
        #expect(m.sequenceRate == Rational(m.frames - 1 + 2) / m.seconds && m.achievedFrameRate! < m.sequenceRate!)
        #expect(m.nominalFrameDuration == Rational(1, 30))

        // the source lends exactly bytesused, so a reader cannot run past a short buffer
        let source = try V4L2StreamingSource(device: dev, mode: c.mode(), buffers: 4)
        defer { source.stop() }
        try source.start()
        var sizes: [Int] = []
        for _ in 0..<5 { _ = try source.next { sizes.append($0.byteCount) } }
        #expect(sizes == [614_400, 614_400, 614_400, 100, 614_400])
    }

    @Test func aDisconnectEndsTheMeasurementWithItsReason() throws {
        let fake = camera()
        fake.stream?.endAfter = (10, ENODEV)
        let dev = try VideoDevice(path: "/dev/video0", syscalls: fake)
        let c = MeasurementCandidate(pixelFormat: "YUYV", width: 640, height: 480, compressed: false, advertised: nil)
        let m = DeviceService.measure(dev, c, seconds: Rational(1))
        #expect(m.frames == 10 && m.error == "VIDIOC_DQBUF: No such device")
    }

    @Test func nominalRatesSnapToStandardRates() {
        #expect(NominalRate.frameDuration(measuredRate: Rational(5994, 100)) == Rational(1001, 60000))
        #expect(NominalRate.frameDuration(measuredRate: Rational(5999, 100)) == Rational(1, 60))
        #expect(NominalRate.frameDuration(measuredRate: Rational(2403, 10)) == Rational(1, 240))
        #expect(NominalRate.frameDuration(measuredRate: Rational(1233, 10)) == Rational(1, 123))  // within 1 %
        #expect(NominalRate.frameDuration(measuredRate: Rational(33, 10)) == Rational(1000, 3300))  // 3.3: no standard rate near
        #expect(NominalRate.frameDuration(measuredRate: .zero) == nil)
    }
}
