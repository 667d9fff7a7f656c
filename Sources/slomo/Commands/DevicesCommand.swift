import ArgumentParser
import SlomoCore

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List V4L2 video-capture devices.")
    func run() throws { throw SimpleFailure("devices: not implemented yet", .software) }
}

struct FormatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "formats", abstract: "List a device's formats, sizes and frame intervals.")
    func run() throws { throw SimpleFailure("formats: not implemented yet", .software) }
}
