import ArgumentParser
import SlomoCore

struct StretchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stretch", abstract: "Time-stretch an audio file.")
    func run() throws { throw SimpleFailure("stretch: not implemented yet", .software) }
}
