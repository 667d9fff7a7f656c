import Foundation
import SlomoCore

/// When a capture stops.
public struct CaptureLimits: Sendable {
    /// Stop before the first frame at or after this much time from the first frame.
    public var duration: Rational?
    public var frames: Int64?
    /// Frames the queue between the dequeue thread and the writer may hold before dropping.
    public var queueCapacity = 128
    public init(duration: Rational? = nil, frames: Int64? = nil) { self.duration = duration; self.frames = frames }
}

public struct CaptureReport: Codable, Sendable {
    public var output: String
    public var device: String
    public var format: CaptureFormat
    public var nominalFrameRate: Rational?
    public var achievedFrameRate: Rational?
    public var achievedFps: Double?
    public var framesCaptured: Int64
    public var framesWritten: Int64
    public var droppedByDriver: Int64
    public var droppedBySlomo: Int64
    public var repeatedSequence: Int64
    public var duration: Rational
    public var durationSeconds: Double
    public var intervals: CaptureStats.Intervals?
    /// duration, frames, signal, disconnected, writeError.
    public var stopReason: String
    public var message: String?
    public var bytesWritten: Int64
}

/// SIGINT/SIGTERM as a flag: a capture finishes its file cleanly instead of dying.
public enum StopFlag {
    nonisolated(unsafe) static var raised: sig_atomic_t = 0
    public static var isRaised: Bool { raised != 0 }
    public static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in StopFlag.raised = 1 }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }
}

/// Capture: a dequeue thread takes frames from the source as fast as they come and hands them to
/// the writer through a bounded queue; when the queue is full the frame is dropped and counted,
/// never waited for, so the driver is never stalled by the disk or the encoder.
public final class CaptureSession: @unchecked Sendable {
    // Safe: `queue`, `stats`, `ended`, `endReason` are only touched under `cond`'s lock.
    let source: CaptureSource
    let settings: RecordingSettings
    let limits: CaptureLimits
    private let cond = NSCondition()
    private var queue: [CapturedFrame] = []
    private var ended = false
    private var endReason = "signal"
    private var endMessage: String?
    private var stats = CaptureStats()
    private var writerFailed = false

    public init(source: CaptureSource, settings: RecordingSettings, limits: CaptureLimits) {
        self.source = source
        self.settings = settings
        self.limits = limits
    }

    public func run(progress: ((Int64) -> Void)? = nil) throws -> CaptureReport {
        let writer = try RecordingWriter(settings: settings, format: source.format, sourceName: source.name)
        try source.start()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            dequeueLoop()
            done.signal()
        }
        var writeError: Error?
        while true {
            cond.lock()
            while queue.isEmpty && !ended { cond.wait() }
            if queue.isEmpty && ended { cond.unlock(); break }
            let frame = queue.removeFirst()
            cond.unlock()
            do { try writer.write(frame) } catch {
                writeError = error
                cond.lock(); writerFailed = true; ended = true; endReason = "writeError"; queue.removeAll(); cond.unlock()
                break
            }
            progress?(writer.framesWritten)
        }
        done.wait()
        source.stop()
        var finishError: Error?
        do { try writer.finish() } catch { finishError = error }
        cond.lock(); let s = stats; let reason = endReason; let message = endMessage; cond.unlock()
        let report = CaptureReport(
            output: settings.output, device: source.name, format: source.format,
            nominalFrameRate: source.format.frameDuration.flatMap { try? $0.reciprocal() },
            achievedFrameRate: s.achievedFrameRate, achievedFps: s.achievedFrameRate.map { ($0.doubleValue * 1000).rounded() / 1000 },
            framesCaptured: s.framesCaptured, framesWritten: writer.framesWritten, droppedByDriver: s.droppedByDriver,
            droppedBySlomo: s.droppedBySlomo, repeatedSequence: s.repeatedSequence, duration: s.duration,
            durationSeconds: (s.duration.doubleValue * 1e6).rounded() / 1e6, intervals: s.intervals,
            stopReason: reason, message: message ?? writeError.map { "\($0)" }, bytesWritten: writer.bytesWritten)
        lastStats = s
        try writeSidecar(report)
        if let e = writeError ?? finishError {
            let text = "\(e)"
            let full = text.contains("No space") || text.contains("ENOSPC")
            throw SimpleFailure("\(settings.output): recording stopped after \(writer.framesWritten) frames: \(full ? "disk full" : text); the file is playable up to its last fragment", .ioError)
        }
        return report
    }

    /// The statistics of the last run (intervals for the plot).
    public private(set) var lastStats = CaptureStats()

    private func dequeueLoop() {
        var firstTime: Rational?
        while true {
            if StopFlag.isRaised { finish("signal"); return }
            cond.lock(); let stop = ended; cond.unlock()
            if stop { return }
            let next: Result<CapturedFrame, CaptureEnd>
            do { next = try source.nextFrame() } catch { finish("disconnected", "\(error)"); return }
            switch next {
            case .failure(.finished): finish("frames"); return
            case .failure(.disconnected(let why)): finish("disconnected", why); return
            case .success(let frame):
                if firstTime == nil { firstTime = frame.timestamp }
                if let d = limits.duration, frame.timestamp - firstTime! >= d { finish("duration"); return }
                cond.lock()
                stats.record(sequence: frame.sequence, timestamp: frame.timestamp)
                if queue.count >= limits.queueCapacity {
                    stats.droppedBySlomo += 1
                } else {
                    queue.append(frame)
                    cond.signal()
                }
                let count = stats.framesCaptured
                cond.unlock()
                if let n = limits.frames, count >= n { finish("frames"); return }
            }
        }
    }

    private func finish(_ reason: String, _ message: String? = nil) {
        cond.lock()
        if !ended { endReason = reason; endMessage = message }
        ended = true
        cond.broadcast()
        cond.unlock()
    }

    /// `OUTPUT.capture.json`: the report, written atomically at the end. Its absence next to a
    /// recording means the capture did not end cleanly (the recording is still playable).
    private func writeSidecar(_ report: CaptureReport) throws {
        let path = settings.output + ".capture.json"
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try enc.encode(report).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
