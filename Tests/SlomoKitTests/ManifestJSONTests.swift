import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// The manifest JSON reader: values as JSON defines them, each with its line, and syntax errors
/// at the right line and column.
@Suite struct ManifestJSONTests {
    func parse(_ text: String) throws -> ManifestJSON.Node { try ManifestJSON.parse(Array(text.utf8)) }

    @Test func valuesAndLines() throws {
        let root = try parse("{\n \"s\": \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" a\\\\b\\/c\\n\",\n \"i\": -42, \"d\": 2.5e-1,\n \"l\": [true, false, null,],\n \"o\": {}\n}")
        let d = try #require(root.any as? [String: Any])
        #expect(d["s"] as? String == "café 😀 \"q\" a\\b/c\n")
        #expect(d["i"] as? Int == -42)
        #expect(d["d"] as? Double == 0.25)
        let l = try #require(d["l"] as? [Any])
        #expect(l.count == 3 && l[0] as? Bool == true && l[1] as? Bool == false)
        #expect((d["o"] as? [String: Any])?.isEmpty == true)
        #expect(root.line == 1 && root["s"]?.line == 2 && root["i"]?.line == 3 && root["l"]?.line == 4 && root["o"]?.line == 5)
        // a null field counts as absent
        #expect((try parse("{\"a\": null}").any as? [String: Any])?.isEmpty == true)
    }

    @Test(arguments: [
        ("{\"a\": 1", 1, 8, "a '}' is missing"),
        ("[1 2]", 1, 4, "expected ',' or ']' after list item 0"),
        ("{\n  a: 1}", 2, 3, "expected a field name in double quotes"),
        ("{\"a\": tru}", 1, 7, "expected true"),
        ("{\"a\": 'x'}", 1, 7, "a string in double quotes"),
        ("{\"a\": \"x\n\"}", 1, 9, "closing '\"' is missing"),
        ("{\"a\": \"C:\\clips\"}", 1, 10, "unknown escape '\\c'"),
        ("{\"a\": 1, \"a\": 2}", 1, 10, "appears twice"),
        ("[] []", 1, 4, "after the end of the manifest"),
        ("{\"rate\": 1/8}", 1, 10, "1/8 is not a JSON number"),
        ("", 1, 1, "the file ends where the manifest should be"),
        ("{\"a\": \"\\ud800\\u0041\"}", 1, 8, "not a valid UTF-16 surrogate pair"),   // used to trap
        ("\u{FEFF}{\"a\" 1}", 1, 6, "expected ':'"),                                      // columns after a byte order mark
    ])
    func syntaxErrorsSayWhereAndWhat(text: String, line: Int, column: Int, message: String) throws {
        expectSyntaxError(text, line: line, column: column, message: message) { b throws(ManifestJSON.SyntaxError) in try ManifestJSON.parse(b) }
    }

    /// A batch job's fingerprint: fields added later enter it only when set, so outputs written
    /// before they existed are still recognised as finished (FNV-1a 64 of the original fields).
    @Test func jobKeysOfOlderJobsStayTheSame() {
        var job = BatchJob(input: "/nonexistent/clip.mp4", output: "/tmp/o.mp4", command: .export)
        job.rate = "1/2"; job.pitch = "spectral"
        let canonical = ["export", "/nonexistent/clip.mp4", "-1", "0.0", "1/2", "", "", "spectral", "", "", "", "", "", "false"].joined(separator: "|")
        var h: UInt64 = 0xcbf29ce484222325
        for b in canonical.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        #expect(job.key() == String(h, radix: 16))
        var flac = job
        flac.audioCodec = "flac"
        #expect(flac.key() != job.key())
        var turned = job
        turned.rotation = "pixels"
        #expect(turned.key() != job.key() && turned.key() != flac.key())
    }

    /// `rotation` is an export option: checked, and refused for the commands that copy video or have none.
    @Test func rotationIsValidatedAndExportOnly() throws {
        var job = BatchJob(input: "in.mp4", output: "o.mkv", command: .export)
        job.rotation = "pixels"
        try job.validate(where: "m:1")
        #expect(job.arguments(threads: 1, jobKey: "k").contains("--rotation"))
        job.rotation = "sideways"
        #expect(throws: SimpleFailure.self) { try job.validate(where: "m:1") }
        for command in [BatchJob.Command.retime, .stretch] {
            var other = BatchJob(input: "in.mp4", output: "o.mkv", command: command)
            other.rotation = "auto"
            #expect(throws: SimpleFailure.self) { try other.validate(where: "m:1") }
        }
    }
}

/// `parse` refuses `text` with an error at `line`:`column` whose message contains `message`.
func expectSyntaxError(_ text: String, line: Int, column: Int, message: String,
                       sourceLocation: SourceLocation = #_sourceLocation,
                       _ parse: ([UInt8]) throws(ManifestJSON.SyntaxError) -> ManifestJSON.Node) {
    do throws(ManifestJSON.SyntaxError) {
        _ = try parse(Array(text.utf8))
        Issue.record("\(text) parsed", sourceLocation: sourceLocation)
    } catch {
        #expect(error.line == line && error.column == column, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(message), "\(error.message)", sourceLocation: sourceLocation)
    }
}
