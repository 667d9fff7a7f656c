import Foundation
import SlomoKit

/// A fresh directory under the system temp dir, removed when the test ends.
final class TemporaryDirectory {
    let path: String
    init() {
        SlomoSetup.configure()      // FFmpeg's own log off, as in the CLI
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("slomo-test-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        path = p
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}
