/// `--flow-quality`: how hard the optical flow of `--frame-blend flow` looks, OpenCV DIS's presets
/// ultrafast, fast and medium (Docs/Interpolation.md gives their cost and quality). The one type
/// for it: the job options, the export request and the flow library's interpolator take it.
public enum FlowQuality: String, Sendable, CaseIterable { case fast, medium, fine }
