import Foundation
import SlomoCore

/// One saved shot, as the report and the recording's metadata tell it.
public struct ShotReport: Codable, Sendable {
    public var shot: Int
    public var output: String
    public var trigger: String
    /// The trigger frame's position in the file (= `leadInFrames` + `preFrames`): frame 0 of the shot's own time.
    public var triggerFrame: Int
    /// H.264/HEVC cameras: frames saved before the first pre-trigger frame, from the keyframe it
    /// needs to decode (0 when it is a keyframe); nil for raw and MJPEG cameras, whose every frame decodes.
    public var leadInFrames: Int?
    public var preFrames: Int
    public var postFrames: Int
    public var preFramesAsked: Int
    public var postFramesAsked: Int
    public var framesWritten: Int64
    public var triggerSequence: UInt64
    public var firstSequence: UInt64
    public var lastSequence: UInt64
    /// Sequence gaps inside the shot (frames the driver dropped).
    public var sequenceGaps: Int64
    /// When the trigger happened (CLOCK_MONOTONIC; for the image trigger, the frame's time).
    public var triggerTime: Rational
    public var triggerWallTime: String
    /// The trigger frame's kernel timestamp.
    public var triggerFrameTime: Rational
    /// From the trigger event to the frame it selects (stdin/signal: the frame's timestamp minus the
    /// event time; motion: from the frame's timestamp to the moment the detector decided).
    public var latency: Rational
    public var latencyMs: Double
    /// slomo's own latency: from the event to the moment it decided the shot (a scheduled network
    /// trigger: includes the wait for its instant).
    public var decisionLatency: Rational
    public var decisionLatencyMs: Double
    /// `--trigger-out`: when the line was raised, against the event.
    public var triggerOut: TriggerOutputReport?
    public var motionScore: Double?
    /// False when the capture ended before all post-trigger frames arrived, or the ring no longer
    /// held all pre-trigger frames.
    public var complete: Bool
    public var bytesWritten: Int64
    /// What the shot lacks, one sentence each, joined by "; " (no keyframe to decode its first
    /// frames from; fewer frames before the trigger than asked).
    public var warning: String?
}

public struct RingReport: Codable, Sendable {
    public var slots: Int
    public var slotBytes: Int
    public var bytes: Int64
    public var mebibytes: Double
    public var locked: Bool
    public var note: String?
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
    /// Frames the ring had no free slot for (a writer or shot saver too far behind).
    public var droppedBySlomo: Int64
    public var repeatedSequence: Int64
    public var driverErrors: Int64
    public var shortFrames: Int64
    public var duration: Rational
    public var durationSeconds: Double
    /// The first frame's CLOCK_MONOTONIC time (the clock of the file's timestamps) and its
    /// wall-clock time (ISO 8601 UTC, as the file's `creation_time`); nil without frames.
    public var firstFrameTime: Rational?
    public var firstFrameWallTime: String?
    public var intervals: CaptureStats.Intervals?
    public var stopReason: StopReason
    public var message: String?
    public var bytesWritten: Int64
    /// The buffers' clock as the driver flags it.
    public var timestampClock: String
    /// What the driver changed of the request (asked 35 fps, got 40).
    public var driverAdjustments: [String]
    public var ring: RingReport
    /// The capture thread's scheduling (`SCHED_FIFO 50`, `nice -10`, or `normal` with the reason).
    public var captureThread: String
    /// The writer's and encoder's scheduling (`nice 10`: below the camera's threads).
    public var writerThreads: String
    /// The most frames the writer was behind the camera, and how long it took to catch up after
    /// the camera stopped.
    public var writerBacklogMax: Int64
    public var catchUpSeconds: Double
    public var warnings: [String]
    /// Pre/post-trigger captures: the trigger, and each shot saved.
    public var trigger: String?
    public var shots: [ShotReport]?
    /// `--takes`/`--save lifo`: the shots held in RAM as takes, and the order they were saved in.
    public var takes: TakesReport?
    /// The image trigger: frames evaluated, frames it could not read in time, CPU per frame.
    public var motionFramesEvaluated: Int64?
    public var motionFramesSkipped: Int64?
    public var motionCpuMicrosPerFrame: Double?
    /// `--audio`: the sound card, its clock against the camera's and what was written.
    public var audio: AudioReport?
    /// `--preview`: where the live picture went and how many were sent.
    public var preview: PreviewReport?
    /// `--shutter`, `--gain`, `--control`…: each control as written, read back, and read again at the end.
    public var controls: [AppliedControl]?
    /// `fdatasync`s of the recording (each second and at the end; absent with `--no-sync`).
    public var fileSyncs: FileSyncs?
    /// GenICam cameras: the stream's transport (buffers, packet size, socket buffer), Aravis's
    /// statistics, the frame ids missing, damaged frames by status, the device clock's fit.
    public var transport: TransportReport?
}

/// Why a capture ended (`stopReason` in its report; the same words in its JSON).
public enum StopReason: String, Codable, Sendable, CaseIterable {
    /// `--duration` reached.
    case duration
    /// `--frames` reached, or a finite source (the synthetic one) ended.
    case frames
    /// SIGINT or SIGTERM (or no other reason yet).
    case signal
    /// `quit` on stdin.
    case quit
    /// stdin closed without `quit` while waiting for a trigger.
    case inputEnded
    /// `--shots N` taken.
    case shots
    /// The camera went away (unplugged, or the driver ended the stream).
    case disconnected
    /// A buffer call failed mid-stream.
    case driverError
    /// The recording could not be written.
    case writeError
    /// The capture could not start.
    case error
}
