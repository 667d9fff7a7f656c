import Foundation
import Testing

/// Docs/JSON.md is the schema of every JSON output: each section's table is compared with the real
/// output of its command, both ways. A key the output has and the table lacks fails; so does a key
/// the table lists without `?` that an object of its parent lacks; so does a value of another type.
@Suite struct JSONDocsTests {
    struct Row {
        var type: String
        var optional: Bool
        var nullable: Bool
    }
    struct Section {
        var rows: [String: Row] = [:]
        var examples: [String] = []
    }

    static var repository: String { CLI.repository }

    /// Sections by heading (the text after `## `).
    static let sections: [String: Section] = {
        let text = try! String(contentsOfFile: repository + "/Docs/JSON.md", encoding: .utf8)
        var out: [String: Section] = [:]
        var heading: String?
        var inExample = false, example: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("## ") {
                heading = String(line.dropFirst(3))
                out[heading!] = Section()
                continue
            }
            guard let h = heading else { continue }
            if inExample {
                if line.hasPrefix("```") {
                    out[h]!.examples.append(example.joined(separator: "\n"))
                    inExample = false
                } else {
                    example.append(line)
                }
            } else if line.hasPrefix("```json") {
                inExample = true
                example = []
            } else if line.hasPrefix("| `") {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count >= 5 else { continue }
                var type = cells[2]
                let optional = type.hasSuffix("?")
                if optional { type.removeLast() }
                let nullable = type.hasSuffix(" or null")
                if nullable { type.removeLast(8) }
                out[h]!.rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = Row(type: type, optional: optional, nullable: nullable)
            }
        }
        return out
    }()

    /// Each object met (its path and keys) and each value by path, as the table names them.
    static func flatten(
        _ value: Any, _ path: String, maps: Set<String>,
        objects: inout [(String, Set<String>)], values: inout [String: [Any]]
    ) {
        guard let object = value as? [String: Any], !maps.contains(path) else { return }
        objects.append((path, Set(object.keys)))
        for (key, v) in object {
            var p = path.isEmpty ? key : path + "." + key
            if let array = v as? [Any] {
                p += "[]"
                values[p, default: []].append(v)
                for e in array { flatten(e, p, maps: maps, objects: &objects, values: &values) }
            } else {
                if maps.contains(p + "{}") { p += "{}" }
                values[p, default: []].append(v)
                flatten(v, p, maps: maps, objects: &objects, values: &values)
            }
        }
    }

    static func typeMatches(_ row: Row, _ v: Any) -> Bool {
        switch v {
        case is NSNull: return row.nullable
        case is JSONBool: return row.type == "boolean"
        case is Int: return row.type == "integer" || row.type == "number"
        case is Double: return row.type == "number"
        case is String: return row.type == "string" || row.type == "rational string"
        case is [String: Any]: return row.type == "object"
        case is [Any]: return row.type.hasPrefix("array")
        default: return false
        }
    }

    /// JSON as `Any` with booleans kept apart from numbers (Foundation's JSONSerialization gives
    /// both as NSNumber on Linux).
    struct JSONBool { var value: Bool }
    enum JSONValue: Decodable {
        case null, bool(Bool), int(Int), double(Double), string(String), array([JSONValue]), object([String: JSONValue])
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else if let i = try? c.decode(Int.self) {
                self = .int(i)
            } else if let d = try? c.decode(Double.self) {
                self = .double(d)
            } else if let s = try? c.decode(String.self) {
                self = .string(s)
            } else if let a = try? c.decode([JSONValue].self) {
                self = .array(a)
            } else {
                self = .object(try c.decode([String: JSONValue].self))
            }
        }
        var any: Any {
            switch self {
            case .null: return NSNull()
            case .bool(let b): return JSONBool(value: b)
            case .int(let i): return i
            case .double(let d): return d
            case .string(let s): return s
            case .array(let a): return a.map(\.any)
            case .object(let o): return o.mapValues(\.any)
            }
        }
    }

    static func parse(_ data: Data) -> Any? { (try? JSONDecoder().decode(JSONValue.self, from: data))?.any }

    /// The table's disagreements with `outputs` (JSON objects).
    static func problems(_ heading: String, _ outputs: [Any]) -> [String] {
        guard let section = sections[heading] else { return ["Docs/JSON.md has no section '\(heading)'"] }
        let maps = Set(section.rows.keys.filter { $0.hasSuffix("{}") })
        var objects: [(String, Set<String>)] = [], values: [String: [Any]] = [:]
        for o in outputs { flatten(o, "", maps: maps, objects: &objects, values: &values) }
        var out: [String] = []
        for (path, vs) in values.sorted(by: { $0.key < $1.key }) {
            guard let row = section.rows[path] else {
                out.append("undocumented: \(path)")
                continue
            }
            if let bad = vs.first(where: { !typeMatches(row, $0) }) { out.append("\(path): documented \(row.type), found \(bad)") }
        }
        for (field, row) in section.rows.sorted(by: { $0.key < $1.key }) where !row.optional {
            let key = field.hasSuffix("[]") || field.hasSuffix("{}") ? String(field.dropLast(2)) : field
            let parent = key.contains(".") ? String(key[..<key.lastIndex(of: ".")!]) : ""
            let name = key.contains(".") ? String(key[key.index(after: key.lastIndex(of: ".")!)...]) : key
            let missing = objects.filter { $0.0 == parent && !$0.1.contains(name) }.count
            if missing > 0 { out.append("\(field) (not marked ?) is missing from \(missing) object(s)") }
        }
        if !outputs.isEmpty, section.rows["version"] == nil { out.append("no version row") }
        return out
    }

    static func document(_ r: CLI.Result) -> [Any] {
        parse(r.output).map { [$0] } ?? []
    }

    static func lines(_ text: String) -> [Any] {
        text.split(separator: "\n").compactMap { parse(Data($0.utf8)) }
    }

    /// The inputs: a 240 fps calibration clip with sound, a shorter one, a retimed file, an odd-sized FFV1 file.
    static let fixtures: TempDir = {
        let d = TempDir()
        _ = CLI.generated(d, "clip.mp4", ["--fps", "240", "--duration", "1", "--size", "320x180"])
        _ = CLI.generated(d, "short.mp4", ["--fps", "240", "--duration", "0.0125", "--size", "320x180", "--sample-rate", "8000"])
        _ = try! CLI.run(["retime", d.file("clip.mp4"), "-o", d.file("retimed.mp4"), "--segment", "0.25-0.5@1/4"])
        return d
    }()

    /// Every documented output this machine can produce without a camera, each run as a user would.
    static let runnable: [String] = [
        "`slomo probe FILE --json`", "`slomo probe FILE --json --frames`", "`slomo plan FILE … --json`",
        "`slomo export … --json`", "`slomo export … --progress json` lines", "`slomo retime … --json`",
        "`slomo stretch … --json`", "`slomo generate … --json`", "`slomo capture … --json`",
        "`slomo capture … -o OUTPUT` sidecar `OUTPUT.capture.json`", "`slomo devices --json`", "`slomo formats --json`",
        "`slomo controls --json`", "`slomo batch` job lines", "`slomo batch` summary line", "`slomo batch --dry-run` job lines",
        "`slomo batch` refusal line", "`slomo batch … --progress json` lines", "`slomo play` events", "`slomo job` lines",
        "`slomo capture --trigger … --json` events", "`slomo trigger … --json`",
        "`slomo formats genicam:ID --json`", "`slomo controls genicam:ID --json`", "`slomo convert … --json`",
    ]

    static func outputs(_ heading: String) throws -> [Any] {
        let f = fixtures, d = TempDir()
        let clip = f.file("clip.mp4")
        switch heading {
        case "`slomo probe FILE --json`":
            return try [clip, f.file("retimed.mp4")].flatMap { document(try CLI.run(["probe", $0, "--json"])) }
        case "`slomo probe FILE --json --frames`":
            return document(try CLI.run(["probe", f.file("short.mp4"), "--json", "--frames"]))
        case "`slomo plan FILE … --json`":
            return try [
                ["--rate", "1/2"], ["--segment", "0.25-0.5@1/4", "--frames"], ["--curve", "0@1,0.25@1,0.5@1/4,0.75@1"],
                ["--ramp", "0.2-0.8@1/4:0.1"], ["--rate", "1/4", "--frame-blend", "flow"],
            ].flatMap { document(try CLI.run(["plan", clip, "--json"] + $0)) }
        case "`slomo export … --json`":
            return try [["--rate", "1/4"], ["--rate", "1/16", "--end", "0.1", "--frame-blend", "flow"]].flatMap {
                document(try CLI.run(["export", clip, "-o", d.file("e.mp4"), "--json", "--overwrite"] + $0))
            }
        case "`slomo export … --progress json` lines":
            // the second repeats frames: a note event
            return try [["--rate", "1/4"], ["--rate", "1/16", "--end", "0.1"]].flatMap {
                lines(try CLI.run(["export", clip, "-o", d.file("e.mp4"), "--progress", "json", "--overwrite"] + $0).stderr)
            }
        case "`slomo retime … --json`":
            return document(try CLI.run(["retime", clip, "-o", d.file("r.mp4"), "--segment", "0.25-0.5@1/4", "--start", "0.1", "--json"]))
        case "`slomo convert … --json`":
            return try [["-o", d.file("frames") + "/", "--end", "f3"], ["-o", d.file("c_%03d.tiff"), "--start", "0.5"]].flatMap {
                document(try CLI.run(["convert", clip, "--json"] + $0))
            }
        case "`slomo stretch … --json`":
            return document(try CLI.run(["stretch", clip, "-o", d.file("s.wav"), "--rate", "1/2", "--json"]))
        case "`slomo generate … --json`":
            return document(try CLI.run(["generate", "--fps", "60", "--duration", "0.5", "--size", "160x90", "-o", d.file("g.mp4"), "--json"]))
        case "`slomo capture … --json`", "`slomo capture … -o OUTPUT` sidecar `OUTPUT.capture.json`":
            let r = try CLI.run(["capture", "--source", "synthetic:fps=240,size=320x180", "--duration", "0.5", "-o", d.file("c.mp4"), "--json"])
            // and a GenICam camera (Aravis's in-process fake: no network), for `transport`
            let g = try CLI.run([
                "capture", "genicam:Fake_1", "--format", "Mono8", "--size", "160x120", "--fps", "200", "--duration", "0.5",
                "--codec", "ffv1", "-o", d.file("g.mkv"), "--json",
            ])
            #expect(g.status == 0, "the GenICam capture failed: \(g.stderr)")
            #expect(g.stdout.contains("\"transport\""), "no transport in the GenICam report")
            if heading.contains("sidecar") {
                return ["c.mp4", "g.mkv"].compactMap { parse((try? Data(contentsOf: URL(fileURLWithPath: d.file($0 + ".capture.json")))) ?? Data()) }
            }
            return document(r) + document(g)
        case "`slomo capture --trigger … --json` events":
            let r = try CLI.triggered(
                "'\(CLI.binary)' capture --source synthetic:fps=50,size=160x96 --codec ffv1 --pre-trigger 0.2 --post-trigger 0.2 --trigger stdin -o '\(d.file("ev.mkv"))' --json",
                linger: 2)
            return lines(r.stderr)
        case "`slomo trigger … --json`":
            try Data("0123456789abcdef-key\n".utf8).write(to: URL(fileURLWithPath: d.file("rig.key")))
            return document(try CLI.run(["trigger", "udp://127.0.0.1:9", "--at", "-0.2", "--trigger-key", d.file("rig.key"), "--json"]))
        case "`slomo formats genicam:ID --json`":
            return try [["--format", "Mono8", "--size", "320x240"], ["--measure", "--measure-seconds", "0.3", "--size", "64x64"]].flatMap {
                document(try CLI.run(["formats", "genicam:Fake_1", "--json"] + $0))
            }
        case "`slomo controls genicam:ID --json`":
            return document(try CLI.run(["controls", "genicam:Fake_1", "--json"]))
        case "`slomo devices --json`":
            return document(try CLI.run(["devices", "--json"]))
        case "`slomo formats --json`":
            return document(try CLI.run(["formats", "--listing", repository + "/Samples/library-tour/camera-listing.txt", "--json"]))
        case "`slomo controls --json`":
            let listing = repository + "/Tests/SlomoCoreTests/Fixtures/v4l2-controls/vivid-webcam.txt"
            return document(try CLI.run(["controls", "--listing", listing, "--json"]))
        case let h where h.hasPrefix("`slomo batch"):
            return try batchOutputs(h, clip: clip, d)
        case "`slomo play` events":
            let commands = Data("rate 1/2\npitch time-domain\nseek 0.5\npause\nresume\nbogus\nquit\n".utf8)
            return lines(try CLI.run(["play", clip, "-o", d.file("p.nut"), "--pitch", "time-domain"], stdin: commands).stderr)
        case "`slomo job` lines":
            let request =
                #"{"job": {"input": "\#(clip)", "output": "\#(d.file("j.mp4"))", "command": "export", "rate": "1/2", "segments": [], "ramps": [], "noAudio": false}, "threads": 1, "key": "k"}"#
            let ok = try CLI.run(["job"], stdin: Data(request.utf8))
            let bad = try CLI.run(["job"], stdin: Data(request.replacingOccurrences(of: clip, with: d.file("missing.mp4")).utf8))
            return lines(ok.stdout) + lines(bad.stdout)
        default:
            return []
        }
    }

    /// The batch headings' outputs (one batch run per heading).
    static func batchOutputs(_ heading: String, clip: String, _ d: TempDir) throws -> [Any] {
        switch heading {
        case "`slomo batch` job lines", "`slomo batch` summary line", "`slomo batch … --progress json` lines":
            try FileManager.default.copyItem(atPath: clip, toPath: d.file("a.mp4"))
            try Data("not media".utf8).write(to: URL(fileURLWithPath: d.file("b.mp4")))
            let r = try CLI.run(["batch", d.file("*.mp4"), "--out-dir", d.file("out"), "--rate", "1/2", "--progress", "json"])
            let all = lines(heading.contains("progress") ? r.stderr : r.stdout)
            let summary = all.filter { ($0 as? [String: Any])?["summary"] != nil }
            return heading.contains("summary") ? summary : heading.contains("progress") ? all : all.filter { ($0 as? [String: Any])?["summary"] == nil }
        case "`slomo batch --dry-run` job lines":
            return lines(try CLI.run(["batch", clip, "--out-dir", d.file("out"), "--command", "retime", "--dry-run"]).stdout)
        case "`slomo batch` refusal line":
            return lines(try CLI.run(["batch", d.file("none/*.mp4"), "--out-dir", d.file("out")]).stdout)
        default:
            return []
        }
    }

    @Test(arguments: runnable)
    func documentedFieldsMatchTheOutput(heading: String) throws {
        let outputs = try Self.outputs(heading)
        #expect(!outputs.isEmpty, "\(heading): the command printed no JSON")
        let found = Self.problems(heading, outputs)
        #expect(found.isEmpty, "\(heading):\n\(found.joined(separator: "\n"))")
    }

    /// Each section's example is valid JSON and agrees with its own table; every section but the
    /// closing one has a table whose first row is `version`.
    @Test func examplesAgreeWithTheirTables() throws {
        for (heading, section) in Self.sections where heading != "Compatibility" {
            #expect(section.rows["version"] != nil, "\(heading): no version row")
            #expect(!section.examples.isEmpty, "\(heading): no example")
            for example in section.examples {
                let parsed = Self.parse(Data(example.utf8)).map { [$0] } ?? Self.lines(example)
                #expect(!parsed.isEmpty, "\(heading): the example is not JSON")
                let found = Self.problems(heading, parsed)
                #expect(found.isEmpty, "\(heading) example:\n\(found.joined(separator: "\n"))")
            }
        }
    }
}
