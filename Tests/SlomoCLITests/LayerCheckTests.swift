import Foundation
import Testing

/// `scripts/check-layers.sh` (run by the test command) on this repository, and on small trees that
/// each break one rule: every rule must be caught, named, and fail the check.
@Suite struct LayerCheckTests {
    static var repository: String { CLI.repository }
    static var script: String { repository + "/scripts/check-layers.sh" }

    @Test func thisRepositoryKeepsTheRule() throws {
        let r = try CLI.tool(["bash", Self.script, Self.repository])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("layer check: ok"))
    }

    /// (file, the import it gains, the rule's words in the message)
    static let violations: [(String, String, String)] = [
        ("Sources/SlomoKit/Export/X.swift", "import CFFmpeg", "C module imported above the wrapper layer"),
        ("Sources/slomo/Commands/X.swift", "internal import CV4L2", "C module imported above the wrapper layer"),
        ("Sources/slomo/Commands/X.swift", "import SlomoFFmpeg", "the CLI imports a wrapper"),
        ("Sources/SlomoAudio/X.swift", "@testable import SlomoKit", "a wrapper imports the use-case layer"),
        ("Sources/SlomoV4L2/X.swift", "import SlomoKit", "a wrapper imports the use-case layer"),
        ("Sources/SlomoCore/Time/X.swift", "import Foundation", "SlomoCore imports something"),
        ("Tests/SlomoCoreTests/X.swift", "import SlomoFFmpeg", "core tests depend on a layer above"),
        ("Tests/SlomoAudioTests/X.swift", "import SlomoKit", "wrapper tests depend on SlomoKit"),
        ("Tests/SlomoV4L2Tests/X.swift", "@testable import SlomoKit", "wrapper tests depend on SlomoKit"),
        ("Tests/TestSupport/X.swift", "import SlomoKit", "wrapper tests depend on SlomoKit"),
        ("Sources/SlomoServe/X.swift", "import SlomoFFmpeg", "the server imports a wrapper"),
        ("Sources/SlomoServe/X.swift", "import CFFmpeg", "a C module imported above the wrapper layer"),
        ("Sources/SlomoKit/X.swift", "import SlomoServe", "a layer below the server imports it"),
    ]

    @Test(arguments: violations)
    func eachBrokenRuleIsCaught(file: String, line: String, rule: String) throws {
        let dir = TempDir()
        let tree = dir.file("tree")
        let good = "import Foundation\nimport SlomoCore\n"
        for (path, text) in [
            ("Sources/SlomoKit/A.swift", good), ("Sources/slomo/A.swift", "import SlomoKit\n"),
            ("Sources/SlomoCore/A.swift", "public struct A {}\n"), ("Tests/SlomoAudioTests/A.swift", good),
        ] {
            try write(text, to: tree + "/" + path)
        }
        let clean = try CLI.tool(["bash", Self.script, tree])
        #expect(clean.status == 0, "\(clean.stderr)")
        try write("import Foundation\n\(line)\n\nstruct X {}\n", to: tree + "/" + file)
        let r = try CLI.tool(["bash", Self.script, tree])
        #expect(r.status == 1)
        #expect(r.stderr.contains(rule), "\(r.stderr)")
        #expect(r.stderr.contains(file + ":2:"), "the offending line is named: \(r.stderr)")
    }

    private func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
