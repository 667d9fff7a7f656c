import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// The YAML manifest reader: the styles people write (block and flow, quoted and plain, comments,
/// a list at its key's indentation), the same jobs as the JSON manifest, YAML 1.2's plain-value
/// types, and what it refuses, at the right line and column.
@Suite struct ManifestYAMLTests {
    func write(_ dir: TemporaryDirectory, _ name: String, _ text: String) -> String {
        let path = dir.file(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    static let yaml = """
        # retime the practice clips
        ---
        defaults:
          rate: 1/2
          pitch: spectral
        jobs:
        - input: clips/a.mp4
          output: out/a.mp4
          segments: [2-4@1/4, "5-6@1/8"]
          crf: 18
        -   input: 'clips/b c.mp4'   # a space in the name
            output: out/b.mkv
            command: retime
            ramps:
              - 1-2@1/4:0.25
            noAudio: true
        - {input: clips/c.wav, output: out/c.flac, command: stretch, rate: 0.5}
        ...

        """
    static let json = """
        {"defaults": {"rate": "1/2", "pitch": "spectral"},
         "jobs": [
          {"input": "clips/a.mp4", "output": "out/a.mp4", "segments": ["2-4@1/4", "5-6@1/8"], "crf": 18},
          {"input": "clips/b c.mp4", "output": "out/b.mkv", "command": "retime", "ramps": ["1-2@1/4:0.25"], "noAudio": true},
          {"input": "clips/c.wav", "output": "out/c.flac", "command": "stretch", "rate": "0.5"}
         ]}
        """

    @Test func theSameJobsAsTheJSONManifest() throws {
        let dir = TemporaryDirectory()
        let fromYAML = try Manifest.load(path: write(dir, "m.yaml", Self.yaml))
        let fromJSON = try Manifest.load(path: write(dir, "m.json", Self.json))
        #expect(fromYAML == fromJSON)
        #expect(fromYAML.count == 3)
        #expect(fromYAML[0].segments == ["2-4@1/4", "5-6@1/8"] && fromYAML[0].crf == 18 && fromYAML[0].rate == "1/2")
        #expect(fromYAML[1].input == "clips/b c.mp4" && fromYAML[1].ramps == ["1-2@1/4:0.25"] && fromYAML[1].noAudio)
        #expect(fromYAML[2].command == .stretch && fromYAML[2].rate == "0.5")
        // the sample manifests: the YAML one is the JSON one
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Samples/batch").path
        let sampleYAML = try Manifest.load(path: samples + "/manifest.yaml")
        let sampleJSON = try Manifest.load(path: samples + "/manifest.json")
        #expect(sampleYAML.count == 4 && sampleYAML == sampleJSON)
        // a bare list, indented under nothing, in a .yml file
        let bare = try Manifest.load(path: write(dir, "m.yml", "  - input: x.mp4\n    rate: 1/4\n  - input: y.mp4\n"))
        #expect(bare.map(\.input) == ["x.mp4", "y.mp4"] && bare[0].rate == "1/4" && bare[1].rate == nil)
    }

    @Test func plainValuesResolveAsYAMLCore() throws {
        let root = try ManifestYAML.parse(
            Array(
                """
                a: 1/2
                b: 0.5
                c: -3
                d: true
                e: ~
                f:
                g: yes
                h: "true"
                i: 'it''s'
                j: C:\\clips\\a.mp4
                k: 2-4@1/4 # comment
                l: "tab\\there \\u00e9"
                m: 1e3
                """.utf8))
        let d = try #require(root.any as? [String: Any])
        #expect(d["a"] as? String == "1/2" && d["b"] as? Double == 0.5 && d["c"] as? Int == -3 && d["d"] as? Bool == true)
        #expect(d["e"] == nil && d["f"] == nil)  // null is absent
        #expect(d["g"] as? String == "yes")  // YAML 1.2: not a boolean
        #expect(d["h"] as? String == "true" && d["i"] as? String == "it's")
        #expect(d["j"] as? String == "C:\\clips\\a.mp4")  // plain values have no escapes
        #expect(d["k"] as? String == "2-4@1/4" && d["l"] as? String == "tab\there é" && d["m"] as? Double == 1000)
        #expect(root["k"]?.line == 11)
        // tabs after the indentation separate as spaces do: not part of a value, and a comment after one is a comment
        let tabs = try #require(try ManifestYAML.parse(Array("a:\tx.mp4\t# note\nb: \ty.mp4\t\nc:\t1/2\n".utf8)).any as? [String: Any])
        #expect(tabs["a"] as? String == "x.mp4" && tabs["b"] as? String == "y.mp4" && tabs["c"] as? String == "1/2")
    }

    /// Manifests saved on Windows: "\r\n" is one Character in Swift, so both line readers used to
    /// see one long line (the CSV reader took the whole file as its header).
    @Test func windowsLineEndings() throws {
        let dir = TemporaryDirectory()
        let yaml = try Manifest.load(
            path: write(dir, "w.yaml", "jobs:\r\n  - input: a.mp4\r\n    output: o.mp4\r\n    segments:\r\n    - 1-2@1/2\r\n    rate: 1\r\n"))
        #expect(yaml.count == 1 && yaml[0].segments == ["1-2@1/2"] && yaml[0].rate == "1")
        let csv = try Manifest.load(path: write(dir, "w.csv", "input,output,rate\r\na.mp4,o.mp4,1/2\r\nb.mp4,p.mp4,1/4\r\n"))
        #expect(csv.map(\.rate) == ["1/2", "1/4"] && csv.map(\.output) == ["o.mp4", "p.mp4"])
    }

    /// A bad field names the job's own line, as in JSON manifests.
    @Test func fieldErrorsNameTheJobsLine() throws {
        let dir = TemporaryDirectory()
        let path = write(dir, "bad.yaml", "jobs:\n  - input: a.mp4\n  - input: b.mp4\n    pitch: warble\n")
        #expect {
            _ = try Manifest.load(path: path)
        } throws: { error in
            "\(error)".contains("bad.yaml:3: jobs[1]: pitch 'warble'")
        }
    }

    /// Refusals and libyaml's errors, each at a line and column with words for the author (`hint`).
    @Test(arguments: [
        ("jobs:\n\t- input: a.mp4\n", 2, 1, "tab"),
        ("jobs:\n  - input: &a a.mp4\n", 2, 12, "anchors"),
        ("jobs:\n  - input: *a\n", 2, 12, "undefined alias"),
        ("jobs:\n  - input: !!str a.mp4\n", 2, 12, "tags"),
        ("jobs:\n  - input: |\n      a.mp4\n", 2, 12, "block scalars"),
        ("jobs:\n  - input: \"a.mp4\n", 2, 12, "no closing quote"),
        ("jobs:\n  - segments: [1-2@1/2, 3-4@1/4\n", 2, 15, "no closing ]"),
        ("jobs:\n  - input: a.mp4\n    input: b.mp4\n", 2, 5, "'input' is given twice"),
        ("jobs: []\n---\njobs: []\n", 2, 1, "a second YAML document"),
        ("defaults:\n  rate: 1/2\n   pitch: spectral\n", 3, 9, "indented deeper"),
        ("jobs:\n  - input: a.mp4\n output: b.mp4\n", 3, 2, "unexpected indentation"),
        ("jobs:\n  - input: \"C:\\clips\"\n", 2, 15, "unknown escape"),
        ("jobs:\n  - input: a.mp4 output: b.mp4\n", 2, 24, "a second key on one line"),
        ("jobs:\n  - segments: - 1-2@1/2\n", 2, 15, "a list item"),
        ("", 1, 1, "empty"),
    ])
    func syntaxErrorsHaveLineAndColumn(text: String, line: Int, column: Int, message: String) {
        expectSyntaxError(text, line: line, column: column, message: message) { b throws(ManifestJSON.SyntaxError) in try ManifestYAML.parse(b) }
    }

    /// What YAML itself allows, and the subset reader this replaced refused: a plain value folded
    /// over two lines, and a document that starts on the `---` line.
    @Test func validYAMLTheSubsetReaderRefused() throws {
        let folded = try #require(try ManifestYAML.parse(Array("jobs:\n  - input: a\n      b.mp4\n".utf8)).any as? [String: Any])
        #expect(((folded["jobs"] as? [[String: Any]])?.first?["input"] as? String) == "a b.mp4")
        let inline = try #require(try ManifestYAML.parse(Array("--- {jobs: []}\n".utf8)).any as? [String: Any])
        #expect((inline["jobs"] as? [Any])?.isEmpty == true)
    }
}
