import Foundation
import SlomoCore

/// What `slomo serve` is asked to run: how to open the camera, how shots are stored, the
/// pre/post-trigger window and the live pictures. The camera options are capture's.
public struct RigConfig: Sendable {
    /// Opens the camera (called again when a setting that needs a new ring is changed while idle).
    public var openSource: @Sendable () throws -> CaptureSource
    /// A rig of several cameras (`slomo serve CAM1 CAM2 …`): the second camera's on, each named as
    /// given (`cameraNames`, the first camera's first). One arm and one trigger for all of them.
    public var moreSources: [@Sendable () throws -> CaptureSource] = []
    /// The cameras as the operator named them (`/dev/video2`, `genicam:127.0.0.2`,
    /// `synthetic:fps=240`); empty: each by its source's own name.
    public var cameraNames: [String] = []
    /// How many cameras the rig runs.
    public var cameraCount: Int { 1 + moreSources.count }
    /// Opens camera `k` (0: the first).
    func open(camera k: Int) throws -> CaptureSource { try (k == 0 ? openSource : moreSources[k - 1])() }
    /// Where shots and exports go; nothing is read or written outside it.
    public var outDir: String
    /// The recording's codec and options (its `output` is replaced by each shot's name).
    public var recording: RecordingSettings
    public var limits: CaptureLimits
    public var audio: AudioSettings?
    public var settings: RigSettings
    /// Shots fired by the world beside the API: a GPIO line or signed network messages (`kind`,
    /// `holdoff`, `debounce`, `key`), taken only while armed.
    public var trigger: TriggerSettings?
    /// `--trigger-out`: raised for every shot, whatever fired it; requested once, for the rig's life.
    public var triggerOutput: TriggerOutputLine?
    /// `--max-export-frames`: an export whose output would have more frames is refused.
    public var maxExportFrames: Int64 = RigConfig.defaultMaxExportFrames
    /// `--shot-format`: the shots' files, `cine` (Phantom Cine from the camera's samples); nil: MP4 for
    /// x264 and compressed cameras, Matroska for FFV1 and raw.
    public var shotFormat: String?
    /// The shots' extension.
    public var shotExtension: String { shotFormat ?? (recording.rawCodec == .x264 ? "mp4" : "mkv") }
    /// The extensions a rig's shots take (a restarted rig lists and numbers after all of them).
    public static let shotExtensions = ["mp4", "mkv", "cine"]
    /// `--preview-burn-in`: each live picture labelled with its frame's sequence number and time.
    public var previewBurnIn = false
    /// `--takes`, `--save lifo`: shots held in RAM until saved, in the background.
    public var takes = TakeSettings()
    /// `--min-free`: below this many free bytes in the output directory, a warning (at each arm and saved shot).
    public var minFree: Int64?
    /// Ten minutes at 30 fps.
    public static let defaultMaxExportFrames: Int64 = 18_000
    public init(
        openSource: @escaping @Sendable () throws -> CaptureSource, outDir: String, recording: RecordingSettings,
        limits: CaptureLimits, audio: AudioSettings?, settings: RigSettings, trigger: TriggerSettings? = nil,
        triggerOutput: TriggerOutputLine? = nil
    ) {
        self.openSource = openSource
        self.outDir = outDir
        self.recording = recording
        self.limits = limits
        self.audio = audio
        self.settings = settings
        self.trigger = trigger
        self.triggerOutput = triggerOutput
    }
}

/// The settings the API reads and changes (`GET`/`PATCH /api/v1/settings`). `preTrigger` and
/// `postTrigger` size the ring: they change only while the rig is idle.
public struct RigSettings: Codable, Sendable, Equatable {
    public var preTrigger: Rational
    public var postTrigger: Rational
    /// Shots one arm takes before the rig goes idle again (0: until disarmed).
    public var shots: Int
    public var previewFps: Rational
    public var previewWidth: Int
    public init(
        preTrigger: Rational = TriggerSettings.defaultWindow, postTrigger: Rational = TriggerSettings.defaultWindow, shots: Int = 1,
        previewFps: Rational = Rational(10), previewWidth: Int = 640
    ) {
        self.preTrigger = preTrigger
        self.postTrigger = postTrigger
        self.shots = shots
        self.previewFps = previewFps
        self.previewWidth = previewWidth
    }

    /// The settings that need the camera idle (a new ring).
    public static let needIdle: Set<String> = Set(RigOption.allCases.filter(\.needsIdle).map(\.field))

    /// The ranges each setting takes (`RigOption`), naming the field that is out of range.
    public func check() throws(RigRefusal) {
        for o in RigOption.allCases where !o.accepts(o.value(in: self)) { throw .badField(o.field, o.rangeWords) }
        guard preTrigger.isPositive || postTrigger.isPositive else { throw .badField("postTrigger", "preTrigger and postTrigger cannot both be 0") }
    }
}

/// Why the rig refused a request: a `SlomoFailure` like every other of the library's, so a front
/// end acts on its `kind` (the server's one table from kind to HTTP status, `HTTPResponse.Status(_:)`
/// in SlomoServe; the command line's exit statuses) and shows its `wording`, one sentence that
/// names the field it refuses (`field`, also sent beside the sentence).
public struct RigRefusal: SlomoFailure, Sendable, Equatable {
    public var kind: FailureKind
    public var wording: Wording
    public var field: String?
    public init(_ kind: FailureKind, _ wording: Wording, field: String? = nil) {
        self.kind = kind
        self.wording = wording
        self.field = field
    }
    /// A sentence already written (another error's text, a body's decoding).
    public init(_ kind: FailureKind, _ message: String, field: String? = nil) { self.init(kind, Wording(verbatim: message), field: field) }
    public static func badField(_ field: String, _ why: String) -> RigRefusal {
        let w: Wording = "\(Setting(field)): \(why)"
        return RigRefusal(.badRequest, w, field: field)
    }
    /// The sentence, fields named as the API names them.
    public var message: String { description }
}

/// The rig's state: `idle → armed → triggered → saving → armed…`; `stopped` once the camera is gone
/// (the files are finished; the server keeps answering).
public enum RigState: String, Codable, Sendable, CaseIterable { case starting, idle, armed, triggered, saving, stopped }

/// `GET /api/v1/status`, and the body of every `state` event.
public struct RigStatus: Codable, Sendable {
    public var state: RigState
    public var camera: String
    public var format: CaptureFormat?
    public var nominalFrameRate: Rational?
    /// Frames per second over the last second or more (display).
    public var achievedFps: Double?
    public var framesCaptured: Int64
    public var droppedByDriver: Int64
    public var droppedBySlomo: Int64
    public var damagedFrames: Int64
    /// How full the pre-trigger window is (0...1), when armed.
    public var preTriggerFill: Double?
    /// How much of the post-trigger window has arrived (0...1), when triggered.
    public var postTriggerFill: Double?
    /// The shot being saved and how far (0...1).
    public var savingShot: Int?
    public var savingProgress: Double?
    /// Shots this arm still takes (nil: until disarmed).
    public var shotsLeft: Int?
    public var shotsSaved: Int
    public var ringFrames: Int
    public var preFrames: Int
    public var postFrames: Int
    public var live: LivePictures.Counts
    /// Why the camera stopped (state `stopped`), or the last warning.
    public var message: String?
    /// What fires shots: `api`, and `gpio` or `udp` when the server was started with `--trigger`.
    public var triggers: [String]
    /// A rig of several cameras: each camera (the counts above are their sums); nil for a rig of one.
    public var cameras: [RigCameraStatus]?
    /// `--takes`/`--save lifo`: the takes shots are held in until saved (a rig of several: the
    /// camera with the fewest free); nil when shots are saved straight from the ring.
    public var takes: RigTakes?
}

/// The takes of a rig's camera (`GET /api/v1/status`'s `takes`).
public struct RigTakes: Codable, Sendable, Equatable {
    public var save: SaveMode
    /// Takes the memory is split into, and each one's frames and bytes.
    public var takes: Int
    public var framesEach: Int
    public var bytesEach: Int64
    /// Takes holding a shot not yet saved (filling ones too), being saved, and free: how many more shots fit now.
    public var held: Int
    public var saving: Int
    public var free: Int
}

/// One camera of a rig of several (`GET /api/v1/status`'s `cameras`).
public struct RigCameraStatus: Codable, Sendable {
    /// Its number (1 first): the `camera` the shots, the live pictures and exports take.
    public var camera: Int
    /// As the operator named it (`/dev/video2`, `genicam:127.0.0.2`, `synthetic:fps=240`).
    public var name: String
    /// `streaming`, `lost` (its session ended by itself while the others run: `message` says
    /// why), or `stopped` (the rig's cameras are stopped).
    public var state: State
    public enum State: String, Codable, Sendable { case streaming, lost, stopped }
    public var message: String?
    public var format: CaptureFormat?
    public var nominalFrameRate: Rational?
    /// Frames per second over the last second or more (display).
    public var achievedFps: Double?
    public var framesCaptured: Int64
    public var droppedByDriver: Int64
    public var droppedBySlomo: Int64
    public var damagedFrames: Int64
    public var live: LivePictures.Counts
}

/// One saved shot (`GET /api/v1/shots`): frames are numbered from its trigger frame (0), negative before it.
public struct RigShot: Codable, Sendable {
    public var id: Int
    /// The file's name in the output directory.
    public var file: String
    public var bytes: Int64
    public var frames: Int64
    /// The first and last frame numbers (first ≤ 0 ≤ last when the trigger frame was kept).
    public var firstFrame: Int
    public var lastFrame: Int
    public var preFrames: Int
    public var postFrames: Int
    public var complete: Bool
    public var triggerWallTime: String
    public var warning: String?
    public var report: ShotReport
    /// A rig of several cameras: this file's camera (1, 2, …) and its name.
    public var camera: Int?
    public var cameraName: String?
    /// A rig of several cameras: every camera's file of this event, in the same form, by camera
    /// (the fields above are the first camera's); nil for a rig of one.
    public var cameras: [RigShot]?
    /// A rig of several cameras: how far apart the cameras' trigger frames are, in milliseconds
    /// (latest minus earliest, display; from exact times).
    public var triggerFrameSpreadMs: Double?

    /// Camera `k`'s file of this shot (1 first; the shot itself in a rig of one).
    public func file(camera k: Int?) throws(RigRefusal) -> RigShot {
        guard let cameras else {
            if let k, k != 1 { throw RigRefusal(.missing, "shot \(id) has one camera, not camera \(k)") }
            return self
        }
        let k = k ?? cameras.first?.camera ?? 1
        guard let c = cameras.first(where: { $0.camera == k }) else {
            let have = cameras.compactMap(\.camera).map(String.init).joined(separator: ", ")
            throw RigRefusal(.missing, "shot \(id) has no file from camera \(k) (it has camera \(have))")
        }
        return c
    }
}

/// `POST /api/v1/shots/{id}/export`: frames `from`...`to` (from the trigger frame), and the export
/// as a batch manifest's job gives it (`rate`, `fps`, `codec`, `frameBlend`…; its input and output
/// are the rig's).
public struct RigExportAsk: Sendable {
    public var from: Int?
    public var to: Int?
    /// A rig of several cameras: whose file (1 first; the first camera's when nil).
    public var camera: Int?
    public var job = BatchJob(input: "-", output: "")
    public init() {}
}

/// An export job (`GET /api/v1/jobs/{id}`).
public struct RigJob: Codable, Sendable {
    public enum State: String, Codable, Sendable, CaseIterable { case queued, running, done, failed, cancelled }
    public var id: Int
    public var shot: Int
    /// A rig of several cameras: whose file it exports (1 first).
    public var camera: Int?
    public var state: State
    /// 0...1.
    public var progress: Double
    public var file: String
    public var from: Int
    public var to: Int
    public var rate: Rational
    public var pitch: String
    public var fps: Rational
    public var error: String?
    public var outputFrames: Int64?
}

/// What the rig tells its clients as it happens (`GET /api/v1/events`, Server-Sent Events):
/// `seq` numbers them in the order they happened.
public struct RigEvent: Codable, Sendable {
    /// `ignored`: a trigger from the GPIO line or the network that fired no shot (not armed, the
    /// arm's shots taken, a message wrongly signed…), `message` says why.
    public enum Kind: String, Codable, Sendable { case state, trigger, progress, shot, job, drops, warning, ignored }
    public var seq: Int64
    public var event: Kind
    public var state: RigState
    public var shot: Int?
    /// `trigger` and `ignored`: what fired it (`api`, `gpio`, `udp`).
    public var source: String?
    public var job: Int?
    public var progress: Double?
    public var message: String?
    public var droppedByDriver: Int64?
    public var droppedBySlomo: Int64?
}
