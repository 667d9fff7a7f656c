import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// The manifest JSON reader: values as JSON defines them, each with its line, and syntax errors
/// at the right line and column.
@Suite struct ManifestJSONTests {
    func parse(_ text: String) throws -> ManifestJSON.Node { try ManifestJSON.parse(Array(text.utf8)) }

    @Test func valuesAndLines() throws {
        let root = try parse(
            "{\n \"s\": \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" a\\\\b\\/c\\n\",\n \"i\": -42, \"d\": 2.5e-1,\n \"l\": [true, false, null,],\n \"o\": {}\n}")
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
        ("{\"a\": \"\\ud800\\u0041\"}", 1, 8, "not a valid UTF-16 surrogate pair"),  // used to trap
        ("\u{FEFF}{\"a\" 1}", 1, 6, "expected ':'"),  // columns after a byte order mark
    ])
    func syntaxErrorsSayWhereAndWhat(text: String, line: Int, column: Int, message: String) throws {
        expectSyntaxError(text, line: line, column: column, message: message) { b throws(ManifestJSON.SyntaxError) in try ManifestJSON.parse(b) }
    }
}
