import ArgumentParser
import SlomoCore

/// The camera-control options, declared once for `capture` and `formats --apply`.
struct ControlOptions: ParsableArguments {
    @Option(help: "Exposure time in seconds, e.g. 1/2000 (manual exposure; at most one frame).") var shutter: String?
    @Option(help: "Exposure as degrees of the frame duration, e.g. 180 (1/480 s at 240 fps).") var shutterAngle: String?
    @Option(help: "auto, or lock: keep the value automatic exposure settled on (manual from then on).") var exposure: String?
    @Option(help: "Gain: a value, auto or lock.") var gain: String?
    @Option(help: "Focus: a value, auto or lock.") var focus: String?
    @Option(help: "White balance: kelvin, auto or lock.") var whiteBalance: String?
    @Option(help: "Zoom: the camera's zoom units where it has a zoom control; else a crop factor (2: the middle half).") var zoom: String?
    @Option(name: .customLong("control"), help: "Set any control NAME=VALUE (names and values as 'slomo controls' lists them), repeatable.")
    var controls: [String] = []

    /// The options as values (exit 64 on a malformed one); empty when none is given.
    func requests() throws(ControlError) -> ControlRequests {
        try ControlRequests.parse(
            shutter: shutter, shutterAngle: shutterAngle, exposure: exposure, gain: gain, focus: focus,
            whiteBalance: whiteBalance, zoom: zoom, controls: controls)
    }
}
