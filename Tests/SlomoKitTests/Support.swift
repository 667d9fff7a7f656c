import Foundation
import SlomoSystem
import Testing
@testable import SlomoKit

/// A fresh directory under the system temp dir, removed when the test ends.
final class TemporaryDirectory {
    let path: String
    init() {
        ProcessSignals.own()  // the test runner is the application: it owns the signals (SIGUSR1 triggers)
        SlomoSetup.configure()  // FFmpeg's own log off, as in the CLI
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("slomo-test-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        path = p
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}

/// `parse` refuses `text` with an error at `line`:`column` whose message contains `message`.
func expectSyntaxError(
    _ text: String, line: Int, column: Int, message: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ parse: ([UInt8]) throws(ManifestJSON.SyntaxError) -> ManifestJSON.Node
) {
    do throws(ManifestJSON.SyntaxError) {
        _ = try parse(Array(text.utf8))
        Issue.record("\(text) parsed", sourceLocation: sourceLocation)
    } catch {
        #expect(error.line == line && error.column == column, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(message), "\(error.message)", sourceLocation: sourceLocation)
    }
}

/// What the ffmpeg CLI writes on stdout with `arguments` (the independent decoder of many tests).
func ffmpegOutput(_ arguments: [String]) throws -> Data {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    p.arguments = ["-v", "error"] + arguments
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return data
}
