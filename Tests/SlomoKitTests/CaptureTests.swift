import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// Capture through the real writer path with the synthetic camera.
@Suite(.serialized) struct CaptureTests {
    func capture(_ spec: String, _ dir: TemporaryDirectory, name: String = "cap.mp4", limits: CaptureLimits,
                 map: RetimeMap? = nil) throws -> (CaptureReport, ProbeReport) {
        var settings = RecordingSettings(output: dir.file(name))
        settings.map = map
        let session = CaptureSession(source: try SyntheticSource(spec: spec), settings: settings, limits: limits)
        let report = try session.run()
        return (report, try Prober.probe(path: settings.output, frames: true))
    }

    @Test func mjpegIsStoredAsArrivedWithKernelTimes() throws {
        let dir = TemporaryDirectory()
        let (r, p) = try capture("synthetic:fps=120,size=320x180,format=mjpeg", dir, limits: CaptureLimits(frames: 60))
        #expect(r.framesCaptured == 60 && r.framesWritten == 60 && r.stopReason == "frames")
        #expect(r.droppedByDriver == 0 && r.droppedBySlomo == 0)
        let v = try #require(p.streams.first)
        #expect(v.codec == "mjpeg" && v.timeBase == Rational(1, 1_000_000))
        #expect(p.frames?.map(\.calibrationIndex) == (0..<60).map { Optional($0) })
        // the file's times are the capture timestamps from the first frame, to the microsecond
        #expect(v.duration.map { $0 >= r.duration } == true)
        // the report is next to the recording
        let side = try Data(contentsOf: URL(fileURLWithPath: dir.file("cap.mp4.capture.json")))
        let json = try JSONSerialization.jsonObject(with: side) as! [String: Any]
        #expect(json["framesWritten"] as? Int == 60)
    }

    @Test func rawIsEncodedWithAReferenceFrameEveryThirtiethOfASecond() throws {
        let dir = TemporaryDirectory()
        let (r, p) = try capture("synthetic:fps=240,size=320x180,format=yuyv,pace=0", dir, limits: CaptureLimits(frames: 96))
        #expect(r.framesWritten == 96)
        #expect(p.frames?.map(\.calibrationIndex) == (0..<96).map { Optional($0) })
        // export at rate 1 to 30 fps decodes only the reference frames (1 in 8)
        let e = try Exporter.export(ExportRequest(input: dir.file("cap.mp4"), output: dir.file("e.mp4"), spec: RetimeSpec()))
        // (the last partial GOP ends on P-frames x264 adds, so a few more than the 12 shown)
        #expect(e.outputFrames == 12 && e.decodedPackets <= 12 + 7 && e.skippedPackets >= 72)
    }

    @Test func driverDropsAreCountedFromSequenceGaps() throws {
        let dir = TemporaryDirectory()
        let (r, _) = try capture("synthetic:fps=240,size=320x180,pace=0,drop-every=10", dir, limits: CaptureLimits(frames: 50))
        // a sequence number is skipped at 10, 20, 30, 40, 50: 50 delivered frames span 5 gaps
        #expect(r.droppedByDriver == 5 && r.framesCaptured == 50)
    }

    @Test func segmentsAreSlowedWhileRecordingAndTheOriginalTimingIsKept() throws {
        let dir = TemporaryDirectory()
        let map = try RetimeSpec(segments: [try SegmentSpec(parsing: "0.1-0.2@1/4")]).resolve(duration: Rational(3600), frameRate: nil)
        let (r, p) = try capture("synthetic:fps=100,size=320x180,pace=0", dir, limits: CaptureLimits(frames: 40), map: map)
        // 40 frames at ideal 1/100 s: 0.39 s of source; 0.1 s of it slowed 4x
        #expect(r.duration == Rational(39, 100))
        let t = (p.frames ?? []).compactMap { $0.ptsTicks }
        try #require(t.count == 40)
        #expect(t[10] - t[9] == 10_000 && t[11] - t[10] == 40_000 && t[21] - t[20] == 10_000)
        // retiming from the original timing with no segments restores the capture times exactly
        let back = try Retimer.retime(RetimeRequest(input: dir.file("cap.mp4"), output: dir.file("orig.mp4"), spec: RetimeSpec()))
        #expect(back.outputDuration == Rational(39, 100) + Rational(1, 100))
        let o = try Prober.probe(path: back.output, frames: true).frames?.compactMap(\.ptsTicks) ?? []
        #expect(zip(o.dropFirst(), o).allSatisfy { $0 - $1 == o[1] - o[0] })
    }

    @Test func fullQueueDropsInsteadOfWaiting() throws {
        let dir = TemporaryDirectory()
        var settings = RecordingSettings(output: dir.file("q.mp4"))
        settings.preset = "veryslow"           // a writer much slower than an unpaced source
        var limits = CaptureLimits(frames: 200)
        limits.queueCapacity = 2
        let session = CaptureSession(source: try SyntheticSource(spec: "synthetic:fps=1000,size=640x360,format=yuv420p,pace=0"),
                                     settings: settings, limits: limits)
        let r = try session.run()
        #expect(r.framesCaptured == 200)
        #expect(r.droppedBySlomo > 0 && r.framesWritten + r.droppedBySlomo == 200)
    }

    @Test func svgPlotShowsTheIntervals() {
        var s = CaptureStats()
        for k in 0..<100 { s.record(sequence: UInt32(k), timestamp: Rational(Int64(k), 240)) }
        let svg = StatsPlot.svg(s, nominal: Rational(240), title: "t")
        #expect(svg.hasPrefix("<svg") && svg.contains("<path") && svg.contains("nominal 4.167 ms"))
        #expect(s.intervals?.p50Micros == 4167 && s.achievedFrameRate == Rational(240))
    }
}
