import Foundation
import SlomoCore

/// Reads batch manifests: JSON (`{"defaults": {...}, "jobs": [...]}` or a bare array), the same
/// in YAML (`.yaml`/`.yml`, the subset `ManifestYAML` reads), and CSV (header row of field names;
/// `segments`/`ramps` cells hold several values separated by `;`).
/// Every error names the file, the line or job, and the field.
public enum Manifest {
    /// File extensions read as manifests (by `load`; `slomo batch` takes a lone such input as one).
    public static let extensions: Set<String> = ["json", "yaml", "yml", "csv"]

    /// A manifest's bytes as `load` reads them, by its extension (`json`, `yaml`/`yml`, `csv`); `path`
    /// names it in messages. For the fuzz targets (Tests/Fuzz) and callers that hold the text.
    public static func parse(_ data: Data, format: String, path: String = "manifest", defaults: [String: Any] = [:]) throws -> [BatchJob] {
        switch format {
        case "json": return try json(data, path: path, defaults: defaults)
        case "yaml", "yml": return try yaml(data, path: path, defaults: defaults)
        default: return try csv(data, path: path, defaults: defaults)
        }
    }

    public static func load(path: String, defaults: [String: Any] = [:]) throws -> [BatchJob] {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
                throw InputError(path, .manifest, isDir.boolValue ? .isDirectory : .notReadable)
            }
            throw InputError(path, .manifest, .missing)
        }
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "csv": return try csv(data, path: path, defaults: defaults)
        case "yaml", "yml": return try yaml(data, path: path, defaults: defaults)
        default: return try json(data, path: path, defaults: defaults)
        }
    }

    static func json(_ data: Data, path: String, defaults: [String: Any]) throws -> [BatchJob] {
        let root: ManifestJSON.Node
        do { root = try ManifestJSON.parse(Array(data)) } catch {
            throw ManifestError.content(at: "\(path):\(error.line):\(error.column)", "not valid JSON: \(error.message)")
        }
        return try jobs(root, path: path, defaults: defaults, syntax: "JSON")
    }

    static func yaml(_ data: Data, path: String, defaults: [String: Any]) throws -> [BatchJob] {
        let root: ManifestJSON.Node
        do { root = try ManifestYAML.parse(Array(data)) } catch {
            throw ManifestError.content(at: "\(path):\(error.line):\(error.column)", "not a YAML manifest: \(error.message)")
        }
        return try jobs(root, path: path, defaults: defaults, syntax: "YAML")
    }

    /// The jobs of a JSON or YAML manifest's tree.
    static func jobs(_ root: ManifestJSON.Node, path: String, defaults: [String: Any], syntax: String) throws -> [BatchJob] {
        var fileDefaults = defaults
        let items: [ManifestJSON.Node]
        switch root.value {
        case .array(let array):
            items = array
        case .object(let fields):
            for (k, node) in fields where k != "jobs" && k != "defaults" {
                let near = Suggestion.nearest(to: k, in: ["jobs", "defaults"]).map { "did you mean '\($0)'? " } ?? ""
                throw ManifestError.content(at: "\(path):\(node.line)", "unknown top-level field '\(k)' (\(near)expected jobs, defaults)")
            }
            guard let jobs = root["jobs"], case .array(let array) = jobs.value else {
                throw ManifestError.content(at: "\(path):\(root["jobs"]?.line ?? root.line)", "jobs: expected a list of jobs")
            }
            if let d = root["defaults"] {
                guard let fields = d.any as? [String: Any] else {
                    throw ManifestError.content(at: "\(path):\(d.line)", "defaults: expected \(syntax == "JSON" ? "an object" : "a mapping")")
                }
                // the defaults alone first: a mistake there is blamed on its own line, once, not on every job
                try checkDefaults(
                    fields, merged: fileDefaults.merging(fields) { _, new in new },
                    place: { k in
                        "\(path):\(d[k]?.line ?? d.line): defaults" + (k.isEmpty ? "" : ".\(k)")
                    })
                fileDefaults.merge(fields) { _, new in new }
            }
            items = array
        default:
            throw ManifestError.content(
                at: "\(path):\(root.line)", "expected a list of jobs or \(syntax == "JSON" ? "{\"jobs\": [...]}" : "'jobs:' with a list")")
        }
        return try collect(
            items.enumerated().map { i, item in
                { () throws -> BatchJob in
                    guard let fields = item.any as? [String: Any] else {
                        throw ManifestError.content(at: "\(path):\(item.line)", "jobs[\(i)]: expected \(syntax == "JSON" ? "an object" : "a mapping")")
                    }
                    // a field's problem is placed on the field's own line
                    return try job(merge(fields, defaults: fileDefaults), place: "\(path):\(item.line): jobs[\(i)]") { k in
                        item[k].map { "\(path):\($0.line): jobs[\(i)].\(k)" }
                    }
                }
            })
    }

    /// Runs every job's reading and returns the jobs, or throws every problem found
    /// (`ManifestErrors`; a single one as itself).
    static func collect(_ readers: [() throws -> BatchJob]) throws -> [BatchJob] {
        var jobs: [BatchJob] = [], errors: [ManifestError] = []
        for read in readers {
            do { jobs.append(try read()) } catch let e as ManifestError { errors.append(e) } catch let e as ManifestErrors { errors += e.errors }
        }
        if errors.count == 1 { throw errors[0] }
        if !errors.isEmpty { throw ManifestErrors(errors) }
        return jobs
    }

    /// A manifest's `defaults` read and checked alone, each problem placed by `place(field)`
    /// (`""`: the entry as a whole): as a job would take them, with a stand-in input and output.
    static func checkDefaults(_ own: [String: Any], merged: [String: Any], place: (String) -> String) throws {
        var fields = merged
        fields["input"] = fields["input"] ?? "-"
        fields["output"] = fields["output"] ?? "-"
        // the values as an export takes them (every option applies to export): whether a field
        // applies to a job's own command is that job's question (`merge` drops what it does not take)
        if let c = fields["command"] as? String, BatchJob.Command(rawValue: c) == nil {
            throw ManifestError.content(at: place("command"), "command: unknown command '\(c)' (\(OptionValues.expected(BatchJob.Command.self)))")
        }
        fields["command"] = BatchJob.Command.export.rawValue
        _ = try job(fields, place: place(""), fieldPlace: { k in own[k] == nil ? nil : place(k) })
    }

    static func csv(_ data: Data, path: String, defaults: [String: Any]) throws -> [BatchJob] {
        let text = String(decoding: data, as: UTF8.self)
        var rows: [(Int, [String])] = []
        for (n, line) in lines(text).enumerated() {
            let l = String(line)
            if l.trimmingCharacters(in: .whitespaces).isEmpty || l.hasPrefix("#") { continue }
            rows.append((n + 1, try cells(l, place: "\(path):\(n + 1)")))
        }
        guard let header = rows.first else { throw ManifestError.content(at: path, "empty manifest") }
        for name in header.1 where !BatchJob.fields.contains(name) {
            let near = Suggestion.nearest(to: name, in: BatchJob.fields.sorted()).map { " (did you mean '\($0)'?)" } ?? ""
            throw ManifestError.content(at: "\(path):\(header.0)", "unknown column '\(name)'\(near)")
        }
        return try collect(
            rows.dropFirst().map { line, values in
                { () throws -> BatchJob in
                    guard values.count == header.1.count else {
                        throw ManifestError.content(at: "\(path):\(line)", "\(values.count) cells, the header has \(header.1.count)")
                    }
                    var fields: [String: Any] = [:]
                    for (name, value) in zip(header.1, values) where !value.isEmpty {
                        switch name {
                        case "segments", "segment", "ramps", "ramp":
                            fields[name] = value.split(separator: ";").map { String($0).trimmingCharacters(in: .whitespaces) }
                        case "crf", "gop", "burnInSize":
                            guard let v = Int(value) else { throw ManifestError.content(at: "\(path):\(line)", "\(name): '\(value)' is not a whole number") }
                            fields[name] = v
                        case "noAudio", "realTime", "burnIn": fields[name] = ["1", "true", "yes"].contains(value.lowercased())
                        case "audioStreams", "audioStream":
                            let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                            guard parts.allSatisfy({ Int($0) != nil }) else {
                                throw ManifestError.content(at: "\(path):\(line)", "\(name): '\(value)' is not a list of stream numbers (1;2)")
                            }
                            fields[name] = parts.map { Int($0)! }
                        default: fields[name] = value
                        }
                    }
                    return try job(merge(fields, defaults: defaults), place: "\(path):\(line)")
                }
            })
    }

    /// A job's own fields over the defaults, without the defaults its command does not take
    /// (`BatchJob.fieldsNotTaken`: fps, codec… for retime and stretch, audioCodec for stretch).
    static func merge(_ own: [String: Any], defaults: [String: Any]) -> [String: Any] {
        // one name per field: a job's `audioStream` replaces a default `audioStreams`, not adds to it
        func canonical(_ d: [String: Any]) -> [String: Any] {
            var d = d
            if let v = d.removeValue(forKey: "audioStream") { d["audioStreams"] = d["audioStreams"] ?? v }
            return d
        }
        let own = canonical(own), defaults = canonical(defaults)
        let name = (own["command"] ?? defaults["command"]) as? String ?? "export"
        // (an unknown command fails in `job`; give it every default meanwhile)
        let notTaken = BatchJob.Command(rawValue: name).map(BatchJob.fieldsNotTaken(by:)) ?? []
        var out = own
        for (k, v) in defaults where out[k] == nil && !notTaken.contains(k) { out[k] = v }
        return out
    }

    /// A manifest's lines, "\n" or "\r\n" ended ("\r\n" is one Character in Swift: a split on
    /// "\n" alone would not see Windows line ends).
    static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    /// Splits one CSV line (RFC 4180 quotes).
    static func cells(_ line: String, place: String) throws -> [String] {
        var out: [String] = [], cur = "", quoted = false
        var it = Array(line).makeIterator()
        var pendingQuote = false
        while let c = it.next() {
            if quoted {
                if c == "\"" {
                    pendingQuote = true
                    quoted = false
                } else {
                    cur.append(c)
                }
            } else if c == "\"" {
                if pendingQuote { cur.append("\"") }
                quoted = true
                pendingQuote = false
            } else if c == "," {
                out.append(cur.trimmingCharacters(in: .whitespaces))
                cur = ""
                pendingQuote = false
            } else {
                cur.append(c)
                pendingQuote = false
            }
        }
        guard !quoted else { throw ManifestError.content(at: place, "unterminated quote") }
        out.append(cur.trimmingCharacters(in: .whitespaces))
        return out
    }

    /// One job from its fields (manifest entry or command-line defaults), validated.
    /// `fieldPlace(k)`: where field `k` was written (its own line), nil: the job's `place`.
    /// `commandLine`: the fields are `slomo batch`'s flags (refusals name the flags, exit 64).
    public static func job(
        _ f: [String: Any], place: String, commandLine: Bool = false,
        fieldPlace: (String) -> String? = { _ in nil }
    ) throws -> BatchJob {
        func at(_ k: String) -> String { fieldPlace(k) ?? place }
        for k in f.keys.sorted() where !BatchJob.fields.contains(k) {
            let near = Suggestion.nearest(to: k, in: BatchJob.fields.sorted()).map { " (did you mean '\($0)'?)" } ?? ""
            throw ManifestError.content(at: at(k), "unknown field '\(k)'\(near)")
        }
        func string(_ k: String) throws -> String? {
            guard let v = f[k] else { return nil }
            if let s = v as? String { return s }
            if v is Bool { throw ManifestError.content(at: at(k), "\(k): expected a string, not true/false") }
            if let n = v as? Int { return String(n) }
            if let d = v as? Double { return String(d) }
            throw ManifestError.content(at: at(k), "\(k): expected a string")
        }
        func list(_ k: String) throws -> [String] {
            guard let v = f[k] else { return [] }
            if let s = v as? String { return [s] }
            guard let a = v as? [Any], a.allSatisfy({ $0 is String }) else {
                throw ManifestError.content(at: at(k), "\(k): expected a string or a list of strings")
            }
            return a as! [String]
        }
        guard let input = try string("input") else { throw ManifestError.content(at: place, "input: missing") }
        var command = BatchJob.Command.export
        if let c = try string("command") {
            guard let parsed = BatchJob.Command(rawValue: c) else {
                throw ManifestError.content(at: at("command"), "command: unknown command '\(c)' (\(OptionValues.expected(BatchJob.Command.self)))")
            }
            command = parsed
        }
        var job = BatchJob(input: input, output: try string("output") ?? "", command: command)
        for o in JobOption.allCases {
            // the field, then its singular alias (`segment`, `ramp`, `audioStream`), each once
            for k in [o.field] + (o.alias.map { [$0] } ?? []) {
                guard let v = f[k] else { continue }
                switch o.kind {
                case .text: job.set(o, .text(try string(k)!))
                case .texts:
                    var have: [String] = []
                    if case .texts(let a)? = job.options[o] { have = a }
                    job.set(o, .texts(have + (try list(k))))
                case .number:
                    guard let n = v as? Int, !(v is Bool) else { throw ManifestError.content(at: at(k), "\(k): expected a whole number") }
                    job.set(o, .number(n))
                case .numbers:
                    var have: [Int] = []
                    if case .numbers(let a)? = job.options[o] { have = a }
                    if let n = v as? Int, !(v is Bool) {
                        job.set(o, .numbers(have + [n]))
                        continue
                    }
                    guard let a = v as? [Any], a.allSatisfy({ $0 is Int && !($0 is Bool) }) else {
                        throw ManifestError.content(at: at(k), "\(k): expected a stream number or a list of them")
                    }
                    job.set(o, .numbers(have + (a as! [Int])))
                case .flag:
                    guard let b = v as? Bool else { throw ManifestError.content(at: at(k), "\(k): expected true or false") }
                    job.set(o, .flag(b))
                }
            }
        }
        try job.validate(where: commandLine ? nil : place)
        return job
    }
}
