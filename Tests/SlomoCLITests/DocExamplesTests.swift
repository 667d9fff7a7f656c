import Foundation
import Testing

/// The documentation's examples run as written (scripts/doc-examples.sh): every ```sh block of
/// README.md and Docs/*.md and every `--help` example, on the fixtures README's own block makes.
/// The camera examples run in the vivid VM (`VividDocExamplesTests`).
@Suite struct DocExamplesTests {
    @Test func everyExampleWithoutACameraRuns() throws {
        let script = CLI.repository + "/scripts/doc-examples.sh"
        let r = try CLI.run(executable: "/bin/bash", [script, "local"], environment: ["SLOMO": CLI.binary])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        for name in ["README.md", "Docs/Export.md", "Docs/Batch.md", "Docs/Capture.md", "Docs/CLI.md", "--help examples"] {
            #expect(r.stdout.contains("ran \(name)"), "no examples ran from \(name):\n\(r.stdout)")
        }
        for line in r.stdout.split(separator: "\n") where line.hasPrefix("SKIPPED") { print("DocExamplesTests: \(line)") }
        let summary = r.stdout.split(separator: "\n").last { $0.hasPrefix("doc-examples") } ?? ""
        let ran = summary.split(separator: " ").dropFirst(2).first.flatMap { Int($0) } ?? 0
        #expect(ran >= 40, "\(summary)")
    }
}
