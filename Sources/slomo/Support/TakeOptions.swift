import ArgumentParser
import SlomoCore
import SlomoKit

/// How a triggered capture keeps its shots until they are saved: straight from the camera's ring
/// as each fills (the default), or held in RAM as takes and saved in the background.
struct TakeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "auto (each shot saved as it fills, in order) or lifo (shots held in RAM as takes, saved in the background, newest first).",
            valueName: "mode")) var save = "auto"
    @Option(
        parsing: .unconditional,
        help:
            "Hold shots in RAM as this many takes (each a shot long) and save them in the background (default with --save lifo: as many as half the free memory holds, at most 100)."
    ) var takes: Int?
    @Flag(help: "With every take held unsaved, a trigger reuses the oldest take (its shot lost, and said) instead of being refused.") var overwriteUnsaved =
        false

    /// Which of these options were given (each needs --trigger).
    var given: [(Setting, Bool)] { [(.save, save != "auto"), (.takes, takes != nil), (.overwriteUnsaved, overwriteUnsaved)] }

    /// The save mode and takes (exit 64 on a mode slomo cannot serve).
    func settings() throws -> TakeSettings {
        guard let mode = SaveMode(rawValue: save) else {
            let review = save == "review" ? " (review, takes kept until saved or discarded from a page, is not available yet)" : ""
            throw CommandLineError("\(Setting.save) '\(save)': expected auto or lifo\(review)", .badRequest)
        }
        if let takes, !(1...1000).contains(takes) {
            throw CommandLineError("\(Setting.takes) \(takes): must be in 1...1000", .badRequest)
        }
        if overwriteUnsaved && mode == .auto && takes == nil {
            throw CommandLineError("\(Setting.overwriteUnsaved) is for shots held in RAM: give \(Setting.takes) N or \(Setting.save) lifo", .badRequest)
        }
        var t = TakeSettings()
        t.save = mode
        t.takes = takes
        t.overwriteUnsaved = overwriteUnsaved
        return t
    }
}
