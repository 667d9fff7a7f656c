internal import CAravis
import Foundation
import SlomoCore
import SlomoSystem
import Synchronization

/// A GenICam camera as a capture producer: Aravis's stream thread fills preallocated buffers; the
/// capture thread pops each one, lends it to the ring, and pushes it back at once. Per frame: the
/// frame id (16-bit on GigE Vision 1.x, wrapping 65535 → 1; 64-bit otherwise) gives the drops and
/// the missing ids; the buffer status gives damaged frames (never stored as good); the camera's
/// timestamps are put on CLOCK_MONOTONIC by a least-squares fit against the host's arrival times
/// (`AudioClock`, the sound cards' fit), its residual in the report.
public final class GenICamSource: CaptureSource {
    public let camera: GenICamCamera
    public let format: CaptureFormat
    public let applied: GenICamApplied
    let request: GenICamRequest
    public var name: String { camera.name }
    public var adjustments: [String] { applied.adjustments }
    public let timestampClock: TimestampClock? = TimestampClock(.monotonic, .endOfFrame)
    public var frameCounter: FrameCounter
    /// The camera's rate while streaming only on triggers: no frame for a while is not a failure.
    private let waitsForTriggers: Bool

    private var stream: UnsafeMutablePointer<ArvStream>?
    private var acquiring = false
    private let controlLost = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    private var packetSize: Int?
    private var socketBuffer: Int?
    // per-frame state, on the capture thread only
    /// Positions in µs of the camera's clock; the window spans about 8 s of frames (at most 4096
    /// pairs): the fit's 128-bit sums stay bounded at any rate.
    private var fit: AudioClock
    /// One frame period in whole microseconds (a damaged frame's place), and how long without a
    /// frame means the camera is gone (never less than 5 s, three periods plus the exposure).
    private let stepMicros: Int64
    private let stallSeconds: Double
    private var firstDeviceMicros: Int64?
    private var lastDeviceMicros: Int64 = 0
    private var signalHandler: gulong = 0
    private var lastPlaced: Rational?
    private var lastId: UInt64?
    private var lastFrameAt = 0.0
    private var report: TransportReport
    private var residuals: [Int64] = []
    private var residualCount = 0
    private var statusCounts = [Int64](repeating: 0, count: 8)
    private var triggerThread: Thread?
    private let triggers = SoftwareTriggerState()

    public init(camera: GenICamCamera, request: GenICamRequest) throws(GenICamError) {
        self.camera = camera
        self.request = request
        applied = try camera.apply(request)
        let bpp = GenICamPixelFormat.bytesPerPixel(applied.pixelFormat) ?? 1
        let w = Int(applied.region.width), h = Int(applied.region.height)
        let duration = applied.fps.flatMap { Rational.approximating(1 / $0, maxDenominator: 10_000_000) }
        format = CaptureFormat(
            fourcc: applied.fourcc, width: w, height: h, bytesPerLine: w * bpp, frameDuration: duration,
            planes: [CapturePlane(bytesPerLine: w * bpp, size: w * h * bpp)])
        // GigE Vision 1.x block ids are 16 bits (and Aravis's fake numbers its frames so); GEV 2
        // cameras in extended-id mode and USB3 Vision send 64
        frameCounter = camera.info.protocol == "USB3Vision" || camera.text("GevGVSPExtendedIDMode") == "On" ? .wide : .gigEVision16
        waitsForTriggers = request.cameraTrigger != nil
        let fps = applied.fps ?? request.fps?.doubleValue ?? 30
        fit = AudioClock(nominalRate: 1_000_000, window: Int(min(4096, max(16, (fps * 8).rounded()))))
        stepMicros = Int64((1e6 / max(fps, 1e-3)).rounded())
        let exposure =
            (camera.isAvailable("ExposureTime") ? try? camera.float("ExposureTime") : nil)
            ?? (camera.isAvailable("ExposureTimeAbs") ? try? camera.float("ExposureTimeAbs") : nil) ?? 0
        stallSeconds = max(5, 3 / max(fps, 1e-3) + exposure / 1e6)
        controlLost.initialize(to: 0)
        report = TransportReport(protocol: camera.info.protocol, buffers: max(2, request.buffers))
        report.missingFrameIds.reserveCapacity(256)
        residuals = [Int64](repeating: 0, count: 65_536)
        signalHandler = slomo_arv_watch_control_lost(camera.camera, controlLost)
    }

    deinit {
        stop()
        slomo_arv_unwatch(camera.camera, signalHandler)
        controlLost.deallocate()
    }

    public func cameraControls() -> [AppliedControl] {
        applied.controls.map { c in
            var c = c
            if !acquiring, let now = camera.text(c.name), now != c.readBackText { c.note = "read \(now) at the end" }
            return c
        }
    }

    public func prepare() throws {
        guard stream == nil else { return }
        if camera.info.protocol == "GigEVision" {
            // the packet size explicitly: the largest the path takes (or the one asked)
            if let p = request.packetSize {
                try camera.call("GevSCPSPacketSize \(p)", kind: .badRequest) { arv_camera_gv_set_packet_size(camera.camera, gint(p), $0) }
            } else {
                _ = try? camera.call("negotiate the packet size") { arv_camera_gv_auto_packet_size(camera.camera, $0) }
            }
            packetSize = (try? camera.call("read the packet size") { arv_camera_gv_get_packet_size(camera.camera, $0) }).map(Int.init)
        }
        if camera.info.protocol == "USB3Vision" {
            // asynchronous bulk transfers: Debian's 0.8.26 leaves them off (upstream's default from 0.8.28)
            arv_camera_uv_set_usb_mode(camera.camera, ARV_UV_USB_MODE_ASYNC)
        }
        let s = try camera.call("create the stream", kind: .unavailable) { arv_camera_create_stream(camera.camera, nil, nil, $0) }
        guard let s else { throw GenICamError(camera: camera.id, operation: "create the stream", reason: "Aravis gave no stream", kind: .unavailable) }
        stream = s
        let payload = try camera.call("PayloadSize") { arv_camera_get_payload(camera.camera, $0) }
        // a fixed socket buffer (Debian's 0.8.26 times out on small frames in auto mode: aravis#865):
        // the asked size, else room for 4 frames and at least 4 MiB
        let wanted = request.socketBufferBytes ?? max(4 << 20, 4 * Int(payload))
        if slomo_arv_gv_stream_configure(s, gint(min(wanted, Int(Int32.max))), 1) != 0 {
            socketBuffer = wanted
        }
        for _ in 0..<report.buffers { arv_stream_push_buffer(s, arv_buffer_new_allocate(Int(payload))) }
        report.packetSize = packetSize
        report.socketBufferBytes = socketBuffer
        if socketBuffer != nil, let cap = try? String(contentsOfFile: "/proc/sys/net/core/rmem_max", encoding: .utf8) {
            report.socketBufferCap = Int(cap.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        report.cameraTrigger = request.cameraTrigger?.source
    }

    public func start() throws {
        try prepare()
        try camera.call("AcquisitionMode Continuous") { arv_camera_set_acquisition_mode(camera.camera, ARV_ACQUISITION_MODE_CONTINUOUS, $0) }
        try camera.call("AcquisitionStart", kind: .unavailable) { arv_camera_start_acquisition(camera.camera, $0) }
        acquiring = true
        lastFrameAt = Self.now()
        if request.cameraTrigger == .software, let fps = applied.fps ?? request.fps?.doubleValue, fps > 0 {
            startSoftwareTrigger(fps: request.fps?.doubleValue ?? fps)
        }
    }

    /// `--camera-trigger software`: TriggerSoftware at the asked rate from a thread of its own
    /// (the control channel; the capture thread only pops buffers, which Aravis allows from
    /// another thread).
    private func startSoftwareTrigger(fps: Double) {
        let cam = camera.camera, period = 1 / fps
        let state = triggers
        nonisolated(unsafe) let c = cam
        let t = Thread {
            var next = Self.now()
            while !state.stop.load(ordering: .acquiring) {
                var e: UnsafeMutablePointer<GError>?
                arv_camera_software_trigger(c, &e)
                if e == nil { state.sent.add(1, ordering: .relaxed) } else { g_clear_error(&e) }
                next += period
                let wait = next - Self.now()
                if wait > 0 {
                    // in slices, so that stop() never waits a whole period at a slow rate
                    var left = wait
                    while left > 0 && !state.stop.load(ordering: .acquiring) {
                        CurrentProcess.sleep(microseconds: Int(min(left, 0.05) * 1e6))
                        left = next - Self.now()
                    }
                } else {
                    next = Self.now()
                }
            }
        }
        t.name = "slomo-genicam-trigger"
        t.start()
        triggerThread = t
    }

    /// CLOCK_MONOTONIC in seconds, for pacing and the stall timeout (never a frame's time).
    static func now() -> Double {
        let t = Clock.now(Clock.monotonic)
        return Double(t.seconds) + Double(t.nanoseconds) / 1e9
    }

    /// When the frame's first packet arrived, on CLOCK_MONOTONIC to the µs: Aravis stamps it with
    /// the wall clock (`system_timestamp`, CLOCK_REALTIME in 0.8), moved by the two clocks' offset
    /// now; the moment it was popped when Aravis gave none.
    static func arrival(of buffer: OpaquePointer) -> Rational {
        let monoMicros = Clock.microseconds(Clock.monotonic)
        let realMicros = Clock.microseconds(Clock.realTime)
        let system = Int64(truncatingIfNeeded: UInt64(arv_buffer_get_system_timestamp(buffer)) / 1000)
        // a stamp from the future or more than a minute old is not one to trust
        guard system > 0, system <= realMicros, realMicros - system < 60_000_000 else { return Rational(monoMicros, 1_000_000) }
        return Rational(monoMicros - (realMicros - system), 1_000_000)
    }

    public func next(_ body: (BorrowedFrame) -> Void) throws -> CaptureEnd? {
        guard let s = stream else { return .disconnected("the stream is not open") }
        guard let buffer = arv_stream_timeout_pop_buffer(s, 100_000) else {
            if slomo_atomic_load(controlLost) != 0 {
                return .disconnected("the camera's control channel was lost (heartbeat failed: camera gone or link down)")
            }
            if !waitsForTriggers && Self.now() - lastFrameAt > stallSeconds { return .disconnected("no frame for \(Int(stallSeconds.rounded())) s") }
            return .idle
        }
        defer { arv_stream_push_buffer(s, buffer) }
        let host = Self.arrival(of: buffer)
        lastFrameAt = Self.now()
        let status = arv_buffer_get_status(buffer)
        var id = UInt64(arv_buffer_get_frame_id(buffer))
        // a damaged frame whose leader never came has no id (0, which GigE Vision never uses):
        // it is the frame after the last one
        if !frameCounter.contains(id) { id = lastId.map { frameCounter.advanced($0, by: 1) } ?? frameCounter.first }
        let deviceNanos = UInt64(arv_buffer_get_timestamp(buffer))
        count(id: id)
        var placed: Rational
        if status == ARV_BUFFER_STATUS_SUCCESS && deviceNanos != 0 {
            // the device clock on CLOCK_MONOTONIC
            let micros = Int64(truncatingIfNeeded: deviceNanos / 1000)
            let d0 = firstDeviceMicros ?? micros
            if firstDeviceMicros == nil { firstDeviceMicros = micros }
            let position = micros &- d0
            lastDeviceMicros = position
            fit.add(position: position, time: host)
            placed = fit.time(ofPosition: position) ?? host
            let residual = ((host - placed) * Rational(1_000_000)).rounded(.nearest)
            residuals[residualCount % residuals.count] = residual
            residualCount += 1
        } else if status == ARV_BUFFER_STATUS_SUCCESS {
            placed = host  // a good frame without a camera time: its arrival
        } else {
            // a damaged frame's timestamp may be missing (its leader lost): one period after the
            // last frame (it is counted, never stored)
            placed = lastPlaced.map { $0 + Rational(stepMicros, 1_000_000) } ?? host
        }
        if let last = lastPlaced, placed <= last { placed = last + Rational(1, 1_000_000) }
        lastPlaced = placed

        var damage: FrameDamage?
        var size = 0
        let data = arv_buffer_get_image_data(buffer, &size)
        switch status {
        case ARV_BUFFER_STATUS_SUCCESS:
            if size < format.maxFrameBytes { damage = .sizeMismatch(expected: format.maxFrameBytes, got: size) }
        case ARV_BUFFER_STATUS_SIZE_MISMATCH: damage = .sizeMismatch(expected: format.maxFrameBytes, got: size)
        default: damage = .incomplete(missingPackets: 0)
        }
        let k = Int(status.rawValue)
        if damage != nil, k >= 0, k < statusCounts.count { statusCounts[k] += 1 }
        let plane = UnsafeRawBufferPointer(start: data, count: damage == nil ? format.maxFrameBytes : 0)
        body(BorrowedFrame(planes: [plane], timestamp: placed, sequence: id, damage: damage))
        return nil
    }

    /// Frame ids: the first and last, wraps, and the ids missing between consecutive frames.
    private func count(id: UInt64) {
        if report.firstFrameId == nil { report.firstFrameId = id }
        if let last = lastId {
            let lost = frameCounter.lost(from: last, to: id)
            if lost > 0 && report.missingFrameIds.count < 256 {
                report.missingFrameIds.append([frameCounter.advanced(last, by: 1), frameCounter.advanced(last, by: lost)])
            }
            if id < last, frameCounter.steps(from: last, to: id) != nil { report.frameIdWraps += 1 }
        }
        lastId = id
        report.lastFrameId = id
    }

    public func stop() {
        triggers.stop.store(true, ordering: .releasing)
        while let t = triggerThread, !t.isFinished { CurrentProcess.sleep(microseconds: 1000) }
        triggerThread = nil
        if acquiring {
            var e: UnsafeMutablePointer<GError>?
            arv_camera_stop_acquisition(camera.camera, &e)
            _ = takeError(&e)
            acquiring = false
        }
        if let s = stream {
            readStatistics(s)
            g_object_unref(s)
            stream = nil
        }
    }

    private func readStatistics(_ s: UnsafeMutablePointer<ArvStream>) {
        var completed: guint64 = 0, failures: guint64 = 0, underruns: guint64 = 0
        arv_stream_get_statistics(s, &completed, &failures, &underruns)
        report.completed = UInt64(completed)
        report.failures = UInt64(failures)
        report.underruns = UInt64(underruns)
        for i in 0..<arv_stream_get_n_infos(s) {
            guard let n = arv_stream_get_info_name(s, i), arv_stream_get_info_type(s, i) == slomo_g_type_uint64() else { continue }
            report.counters[String(cString: n)] = UInt64(arv_stream_get_info_uint64(s, i))
        }
    }

    /// The stream's transport and statistics, the frame ids and the device clock (once stopped).
    public func transportReport() -> TransportReport? {
        var r = report
        let names = [
            Int(ARV_BUFFER_STATUS_MISSING_PACKETS.rawValue): "missingPackets", Int(ARV_BUFFER_STATUS_SIZE_MISMATCH.rawValue): "sizeMismatch",
            Int(ARV_BUFFER_STATUS_TIMEOUT.rawValue): "timeout", Int(ARV_BUFFER_STATUS_WRONG_PACKET_ID.rawValue): "wrongPacketId",
            Int(ARV_BUFFER_STATUS_ABORTED.rawValue): "aborted", Int(ARV_BUFFER_STATUS_SUCCESS.rawValue): "short",
        ]
        for (k, n) in statusCounts.enumerated() where n > 0 { r.damagedByStatus[names[k] ?? "status\(k)", default: 0] += n }
        // the slope is fitted once the pairs span AudioClock.slopeSpanSeconds (before: the nominal one)
        if fit.pairs >= 2, lastDeviceMicros >= Int64(AudioClock.slopeSpanSeconds) * 1_000_000 { r.deviceClockPpm = (fit.ppm * 10).rounded() / 10 }
        let n = min(residualCount, residuals.count)
        if n > 0 {
            let sorted = residuals[0..<n].map { abs($0) }.sorted()
            r.clockResidualP50Micros = sorted[n / 2]
            r.clockResidualMaxMicros = sorted[n - 1]
        }
        if request.cameraTrigger == .software { r.softwareTriggersSent = triggers.sent.load(ordering: .relaxed) }
        return r
    }
}

/// The software trigger thread's count and stop flag, shared with the source.
final class SoftwareTriggerState: Sendable {
    let sent = Atomic<Int64>(0)
    let stop = Atomic<Bool>(false)
}
