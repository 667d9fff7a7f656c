import Foundation
import Testing

/// `scripts/check-size.py` (run by the test command): this repository keeps the house's limits
/// (350 lines a file, 60 a function), and a tree that breaks either is caught and named.
@Suite struct SizeCheckTests {
    static var script: String { CLI.repository + "/scripts/check-size.py" }

    @Test func thisRepositoryKeepsTheLimits() throws {
        let r = try CLI.tool(["python3", Self.script, CLI.repository])
        #expect(r.status == 0 && r.stdout.contains("size check: ok"), "\(r.stderr)")
    }

    /// A function of `body` lines between its braces, inside a type.
    static func function(_ name: String, body: Int, braceInString: Bool = false) -> String {
        var lines = ["    func \(name)() -> Int {"]
        for k in 0..<body { lines.append(braceInString && k == 0 ? "        _ = \"{ not a brace {\"  // nor this {" : "        _ = \(k)") }
        return (lines + ["        return 0", "    }"]).joined(separator: "\n")
    }

    @Test func aLongFileAndALongFunctionAreCaught() throws {
        let d = TempDir()
        let tree = d.file("tree"), dir = tree + "/Sources/SlomoKit"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // 58 lines between the braces: 60 with them; braces inside a string or a comment do not count
        let fits = "struct A {\n" + Self.function("fits", body: 57, braceInString: true) + "\n}\n"
        try fits.write(toFile: dir + "/A.swift", atomically: true, encoding: .utf8)
        let ok = try CLI.tool(["python3", Self.script, tree])
        #expect(ok.status == 0, "\(ok.stderr)")

        let long = "struct B {\n" + Self.function("tooLong", body: 58) + "\n}\n"
        try long.write(toFile: dir + "/B.swift", atomically: true, encoding: .utf8)
        let filler = (0..<351).map { "// line \($0)" }.joined(separator: "\n") + "\n"
        try filler.write(toFile: dir + "/C.swift", atomically: true, encoding: .utf8)
        let r = try CLI.tool(["python3", Self.script, tree])
        #expect(r.status == 1)
        #expect(r.stderr.contains("Sources/SlomoKit/B.swift:2: tooLong has 61 lines (at most 60)"), "\(r.stderr)")
        #expect(r.stderr.contains("Sources/SlomoKit/C.swift: 351 lines (at most 350)"), "\(r.stderr)")
        #expect(!r.stderr.contains("A.swift"), "\(r.stderr)")
    }
}
