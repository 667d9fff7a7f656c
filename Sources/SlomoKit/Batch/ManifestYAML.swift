import Foundation
import Yams

/// Batch manifests written in YAML, read by Yams (libyaml) into the same tree as `ManifestJSON`
/// (every value with its line), so the rest of `Manifest` does not care which syntax a file used.
///
/// YAML itself is libyaml's: block and flow collections, every quoting style, comments, one
/// document. Plain scalars resolve as YAML 1.2's core schema does (`true`/`false`,
/// `null`/`~`/nothing, integers, decimals; anything else is a string), so `1/2`, `2-4@1/4` and `yes`
/// are strings and need no quotes. Refused with line and column, because a manifest that uses them
/// is more likely wrong than meant: anchors and aliases, tags on values, block scalars (`|`, `>`),
/// a key given twice (libyaml's composer), several documents. Error quality against the
/// hand-written subset reader this replaced: `Docs/Architecture.md`, "Manifests".
enum ManifestYAML {
    typealias Node = ManifestJSON.Node
    typealias SyntaxError = ManifestJSON.SyntaxError

    /// The tag slomo's resolver gives every untagged plain scalar, so that an explicit tag stands out.
    private static let plain = Tag.Name(rawValue: "tag:slomo,2026:plain")
    private static let resolver: Resolver = try! Resolver.basic.appending(plain, "^")

    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> Node {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }  // a UTF-8 byte order mark
        let text = String(decoding: body, as: UTF8.self)
        let parser: Parser
        let root: Yams.Node?
        do {
            parser = try Parser(yaml: text, resolver: resolver, constructor: .default, encoding: .utf8)
            root = try parser.singleRoot()
        } catch let e as YamlError {
            throw syntaxError(e, text)
        } catch {
            throw SyntaxError(line: 1, column: 1, message: "\(error)")
        }
        guard let root else { throw SyntaxError(line: 1, column: 1, message: "the manifest is empty") }
        return try withExtendedLifetime(parser) { () throws(SyntaxError) -> Node in try node(root) }  // anchors are weak
    }

    private static func node(_ n: Yams.Node) throws(SyntaxError) -> Node {
        let mark = n.mark.map { (line: $0.line, column: $0.column) } ?? (line: 1, column: 1)
        if n.anchor != nil {
            throw SyntaxError(line: mark.line, column: mark.column, message: "anchors and aliases (&, *) are not supported in manifests")
        }
        switch n {
        case .scalar(let s):
            return Node(value: try value(s, tag: n.tag.description, at: mark), line: mark.line)
        case .sequence(let seq):
            var items: [Node] = []
            for item in seq { items.append(try node(item)) }
            return Node(value: .array(items), line: mark.line)
        case .mapping(let map):
            var fields: [(key: String, node: Node)] = []
            for (k, v) in map {
                let km = k.mark.map { (line: $0.line, column: $0.column) } ?? mark
                guard case .scalar(let key) = k, key.style != .literal && key.style != .folded else {
                    throw SyntaxError(line: km.line, column: km.column, message: "a key must be a plain or quoted name")
                }
                fields.append((key.string, try node(v)))
            }
            return Node(value: .object(fields), line: mark.line)
        case .alias:
            throw SyntaxError(line: mark.line, column: mark.column, message: "anchors and aliases (&, *) are not supported in manifests")
        }
    }

    private static func value(_ s: Yams.Node.Scalar, tag: String, at mark: (line: Int, column: Int)) throws(SyntaxError) -> ManifestJSON.Value {
        switch s.style {
        case .literal, .folded:
            throw SyntaxError(
                line: mark.line, column: mark.column,
                message: "block scalars (| and >) are not supported in manifests: write the value on the key's line")
        case .plain:
            guard tag == plain.rawValue else { throw tagged(tag, mark) }
            return resolve(s.string)
        default:
            guard tag == Tag.Name.str.rawValue else { throw tagged(tag, mark) }
            return .string(s.string)
        }
    }

    private static func tagged(_ tag: String, _ mark: (line: Int, column: Int)) -> SyntaxError {
        SyntaxError(line: mark.line, column: mark.column, message: "tags (!) are not supported in manifests: '\(tag)'")
    }

    /// libyaml's problem at its mark, in the words a manifest's author needs where libyaml's own are
    /// about its parser's state (`hint`); an unclosed quote or bracket is marked where it opened.
    private static func syntaxError(_ e: YamlError, _ text: String) -> SyntaxError {
        switch e {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _):
            if let context, let opened = unclosed(problem, context.text) {
                return SyntaxError(line: context.mark.line, column: context.mark.column, message: opened)
            }
            let message =
                hint(problem, at: mark, in: text)
                ?? problem + (context.map { "; \($0.text) that started at \($0.mark.line):\($0.mark.column)" } ?? "")
            return SyntaxError(line: mark.line, column: mark.column, message: message)
        case .composer(let context, let problem, let mark, _):
            if context?.text.hasPrefix("expected a single document") == true {
                return SyntaxError(line: mark.line, column: mark.column, message: "a second YAML document: a manifest is one document")
            }
            return SyntaxError(line: mark.line, column: mark.column, message: problem + (context.map { " (\($0.text))" } ?? ""))
        case .duplicatedKeysInMapping(let keys, let context):
            let names = keys.map { "'\($0)'" }.joined(separator: ", ")
            return SyntaxError(
                line: context.mark.line, column: context.mark.column,
                message: "\(names) \(keys.count == 1 ? "is" : "are") given twice in this mapping (the first is here)")
        case .reader(let problem, _, _, _):
            return SyntaxError(line: 1, column: 1, message: problem)
        default:
            return SyntaxError(line: 1, column: 1, message: "\(e)")
        }
    }

    private static func unclosed(_ problem: String, _ context: String) -> String? {
        switch (problem, context) {
        case ("found unexpected end of stream", "while scanning a quoted scalar"): return "no closing quote for the value that opens here"
        case (_, "while parsing a flow sequence"): return "no closing ] for the list that opens here"
        case (_, "while parsing a flow mapping"): return "no closing } for the mapping that opens here"
        default: return nil
        }
    }

    private static func hint(_ problem: String, at mark: Mark, in text: String) -> String? {
        switch problem {
        case "found character that cannot start any token":
            let line = text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(mark.line - 1).first ?? ""
            if line.dropFirst(mark.column - 1).first == "\t" { return "a tab in the indentation (YAML indents with spaces)" }
            return nil
        case "mapping values are not allowed in this context":
            return
                "a ': ' where no key can start: a second key on one line, or a key indented deeper than the one above; break the line, align the key, or quote the value"
        case "did not find expected key":
            return "unexpected indentation: this line lines up with no key above it"
        case "block sequence entries are not allowed in this context":
            return "a list item ('- ') cannot follow a key on its line: start it on the next line"
        case "found unknown escape character":
            return "unknown escape in a double-quoted value: write '\\\\' for a backslash, or use single quotes (no escapes)"
        default:
            return nil
        }
    }

    /// YAML 1.2 core schema for plain scalars.
    static func resolve(_ s: String) -> ManifestJSON.Value {
        switch s {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        let digits = s.first == "-" || s.first == "+" ? s.dropFirst() : s[...]
        if !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let i = Int(s) { return .int(i) }
        if isDecimal(digits), let d = Double(s) { return .double(d) }
        return .string(s)
    }

    /// `[0-9]+(.[0-9]*)?` or `.[0-9]+`, with an optional exponent (no inf/nan spellings).
    static func isDecimal(_ s: Substring) -> Bool {
        var mantissa = s, exponent: Substring?
        if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = s[..<e]
            exponent = s[s.index(after: e)...]
        }
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }), parts.contains(where: { !$0.isEmpty }),
            parts.count == 2 || exponent != nil
        else { return false }
        if let exponent {
            let d = exponent.first == "-" || exponent.first == "+" ? exponent.dropFirst() : exponent
            return !d.isEmpty && d.allSatisfy(\.isASCIIDigit)
        }
        return true
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
