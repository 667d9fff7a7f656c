/// slomo's own tags in the files it writes (container metadata), each named once: the writer and
/// every reader (a server listing shots it finds, probe, a second retime, batch's resume) use the
/// same value. Docs/JSON.md ("slomo metadata") says what each holds.
public enum SlomoTag: String, CaseIterable, Sendable {
    // a recording's: where it came from and on which clock
    case device = "slomo_device", audioDevice = "slomo_audio_device", controls = "slomo_controls"
    case captureFormat = "slomo_capture_format", captureFps = "slomo_capture_fps", captureClock = "slomo_capture_clock"
    case captureStart = "slomo_capture_start", cfaPattern = "slomo_cfa_pattern", timestampSource = "slomo_timestamp_source"
    // a shot's place around its trigger (pre/post-trigger capture, serve), written from its first byte
    case shot = "slomo_shot", triggerSource = "slomo_trigger_source", triggerFrame = "slomo_trigger_frame"
    case leadInFrames = "slomo_lead_in_frames", preFrames = "slomo_pre_frames"
    case preFramesAsked = "slomo_pre_frames_asked", postFramesAsked = "slomo_post_frames_asked"
    case triggerTime = "slomo_trigger_time", triggerFrameTime = "slomo_trigger_frame_time"
    case triggerDecisionLatency = "slomo_trigger_decision_latency", triggerOutRaised = "slomo_trigger_out_raised"
    case triggerWallTime = "slomo_trigger_wall_time"
    // an export's or retime's: the map, the part kept, the source, the batch job
    case retime = "slomo_retime", trim = "slomo_trim", source = "slomo_source", sourceFrameRate = "slomo_source_frame_rate"
    case sourceCaptureFps = "slomo_source_capture_fps", job = "slomo_job"

    /// Its value in `tags`, whatever case the container gave the key (Matroska's are capitals).
    public func value(in tags: [String: String]) -> String? {
        tags[rawValue] ?? tags.first { $0.key.lowercased() == rawValue }?.value
    }
}
