import Foundation
import SlomoSystem

/// All output goes through here: stdout is data (tables, JSON), stderr is diagnostics and progress.
enum Console {
    static func out(_ line: String) {
        print(line)
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static var stderrIsTerminal: Bool { FileDescriptor.standardError.isTerminal }
}
