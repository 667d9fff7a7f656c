/// A reader for batch manifests written in YAML: the part of YAML that manifests use, read into
/// the same tree as `ManifestJSON` (every value with its line), so the rest of `Manifest` does not
/// care which syntax a file used.
///
/// Taken: block mappings and sequences nested by indentation (spaces), a mapping's sequence at
/// the key's own indentation (`jobs:` then `- input: …`), one-line flow collections (`[a, b]`,
/// `{k: v}`), plain, 'single' and "double" quoted scalars, `#` comments, one document (an opening
/// `---` and a closing `...` are allowed). Plain scalars resolve as YAML 1.2's core schema does:
/// `true`/`false`, `null`/`~`/nothing, integers, decimals; anything else is a string, so `1/2`
/// and `2-4@1/4` need no quotes.
///
/// Refused with line and column, not misread: anchors and aliases (`&`, `*`), tags (`!`), block
/// scalars (`|`, `>`), a value continued on the next line, complex keys (`?`), tabs in
/// indentation, a key given twice, several documents.
struct ManifestYAML {
    typealias Node = ManifestJSON.Node
    typealias SyntaxError = ManifestJSON.SyntaxError

    /// One non-blank, non-comment line: its number, indentation (spaces) and text after them.
    private struct Line {
        var number: Int
        var indent: Int
        var text: Substring
    }

    private var lines: [Line] = []
    private var k = 0

    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> Node {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }   // a UTF-8 byte order mark
        var p = ManifestYAML()
        let text = String(decoding: body, as: UTF8.self)
        var documentStarted = false, documentEnded = false
        for (n, l) in Manifest.lines(text).enumerated() {
            let indent = l.prefix { $0 == " " }.count
            let rest = l.dropFirst(indent)
            if rest.allSatisfy({ $0 == " " || $0 == "\t" }) || rest.first == "#" { continue }
            if rest.first == "\t" {
                throw SyntaxError(line: n + 1, column: indent + 1, message: "a tab in the indentation (YAML indents with spaces)")
            }
            if indent == 0 && (rest == "---" || rest.hasPrefix("--- ") || rest.hasPrefix("---\t")) {
                if documentStarted || !p.lines.isEmpty {
                    throw SyntaxError(line: n + 1, column: 1, message: "a second YAML document: a manifest is one document")
                }
                let after = rest.dropFirst(3).drop(while: \.isBlank)
                if !after.isEmpty && after.first != "#" {
                    throw SyntaxError(line: n + 1, column: 5, message: "content on the '---' line: start the manifest on the next line")
                }
                documentStarted = true
                continue
            }
            if indent == 0 && (rest == "..." || rest.hasPrefix("... ")) { documentEnded = true; continue }
            if documentEnded { throw SyntaxError(line: n + 1, column: indent + 1, message: "text after the end of the document ('...')") }
            if rest.first == "%" && indent == 0 {
                throw SyntaxError(line: n + 1, column: 1, message: "YAML directives (%) are not supported in manifests")
            }
            p.lines.append(Line(number: n + 1, indent: indent, text: rest))
        }
        guard let first = p.lines.first else { throw SyntaxError(line: 1, column: 1, message: "the manifest is empty") }
        let root = try p.block(indent: first.indent)
        if p.k < p.lines.count {
            throw p.unexpectedIndentation(p.lines[p.k])
        }
        return root
    }

    // MARK: block structure

    private func isSequenceItem(_ l: Line) -> Bool { l.text == "-" || l.text.hasPrefix("- ") || l.text.hasPrefix("-\t") }

    /// The block node whose lines start at `indent`.
    private mutating func block(indent: Int) throws(SyntaxError) -> Node {
        let l = lines[k]
        if isSequenceItem(l) { return try sequence(indent: indent) }
        if try keyEnd(l) != nil { return try mapping(indent: indent) }
        // a lone scalar or flow collection as the whole block
        k += 1
        let node = try inline(l.text, line: l.number, column: l.indent + 1)
        if k < lines.count && lines[k].indent > indent {
            throw continued(lines[k])
        }
        return node
    }

    private mutating func sequence(indent: Int) throws(SyntaxError) -> Node {
        let startLine = lines[k].number
        var items: [Node] = []
        while k < lines.count, lines[k].indent == indent, isSequenceItem(lines[k]) {
            let l = lines[k]
            let afterDash = l.text.dropFirst(1)
            let spaces = afterDash.prefix(while: \.isBlank).count
            let rest = afterDash.dropFirst(spaces)
            if rest.isEmpty || rest.first == "#" {
                // the item is the block below, or null
                k += 1
                if k < lines.count && lines[k].indent > indent {
                    items.append(try block(indent: lines[k].indent))
                } else {
                    items.append(Node(value: .null, line: l.number))
                }
            } else {
                // "- key: value" starts a mapping whose keys line up after the dash; "- - x" a
                // nested sequence: read the rest of the line as a line of its own at that column
                lines[k] = Line(number: l.number, indent: indent + 1 + spaces, text: rest)
                let nested = lines[k]
                var startsBlock = isSequenceItem(nested)
                if !startsBlock { startsBlock = try keyEnd(nested) != nil }
                if startsBlock {
                    items.append(try block(indent: nested.indent))
                } else {
                    k += 1
                    items.append(try inline(rest, line: l.number, column: nested.indent + 1))
                    if k < lines.count && lines[k].indent > indent { throw continued(lines[k]) }
                }
            }
        }
        if k < lines.count && lines[k].indent > indent { throw unexpectedIndentation(lines[k]) }
        return Node(value: .array(items), line: startLine)
    }

    private mutating func mapping(indent: Int) throws(SyntaxError) -> Node {
        let startLine = lines[k].number
        var fields: [(key: String, node: Node)] = []
        while k < lines.count, lines[k].indent == indent, !isSequenceItem(lines[k]) {
            let l = lines[k]
            guard let (key, valueStart) = try keyEnd(l) else {
                throw SyntaxError(line: l.number, column: l.indent + 1, message: "expected 'key: value' in this mapping, found '\(l.text)'")
            }
            if fields.contains(where: { $0.key == key }) {
                throw SyntaxError(line: l.number, column: l.indent + 1, message: "'\(key)' is given twice in this mapping")
            }
            let rest = l.text[valueStart...].drop(while: \.isBlank)
            let column = l.indent + 1 + l.text.distance(from: l.text.startIndex, to: rest.startIndex)
            k += 1
            let node: Node
            if rest.isEmpty || rest.first == "#" {
                if k < lines.count && lines[k].indent > indent {
                    node = try block(indent: lines[k].indent)
                } else if k < lines.count && lines[k].indent == indent && isSequenceItem(lines[k]) {
                    node = try sequence(indent: indent)      // "key:" then "- item" at the key's indentation
                } else {
                    node = Node(value: .null, line: l.number)
                }
            } else {
                node = try inline(rest, line: l.number, column: column)
                if k < lines.count && lines[k].indent > indent { throw continued(lines[k]) }
            }
            fields.append((key, node))
        }
        if k < lines.count && lines[k].indent > indent { throw unexpectedIndentation(lines[k]) }
        return Node(value: .object(fields), line: startLine)
    }

    private func unexpectedIndentation(_ l: Line) -> SyntaxError {
        SyntaxError(line: l.number, column: l.indent + 1, message: "unexpected indentation")
    }

    private func continued(_ l: Line) -> SyntaxError {
        SyntaxError(line: l.number, column: l.indent + 1,
                    message: "a value continued on the next line is not supported in manifests: put it on one line (quote it if it has ': ' or ' #')")
    }

    /// When `l` is `key: …`, the key and the index after its colon.
    private func keyEnd(_ l: Line) throws(SyntaxError) -> (String, Substring.Index)? {
        let t = l.text
        if t.first == "?" && (t.count == 1 || t.dropFirst().first?.isBlank == true) {
            throw SyntaxError(line: l.number, column: l.indent + 1, message: "complex keys ('? ') are not supported in manifests")
        }
        if t.first == "\"" || t.first == "'" {
            var s = Scanner(text: t, line: l.number, column: l.indent + 1)
            let key = try s.quoted()
            s.skipSpaces()
            guard s.peek == ":" else { return nil }
            s.advance()
            guard s.atEnd || s.peek?.isBlank == true else { return nil }
            return (key, s.index)
        }
        if t.first == "[" || t.first == "{" { return nil }
        var i = t.startIndex
        while i < t.endIndex {
            if t[i] == "#" && i > t.startIndex && t[t.index(before: i)].isBlank { return nil }
            if t[i] == ":" {
                let next = t.index(after: i)
                if next == t.endIndex || t[next].isBlank {
                    let key = t[..<i].trimmingSuffixSpaces
                    return key.isEmpty ? nil : (String(key), next)
                }
            }
            i = t.index(after: i)
        }
        return nil
    }

    // MARK: inline values

    /// A scalar or a one-line flow collection, and nothing but a comment after it.
    private func inline(_ text: Substring, line: Int, column: Int) throws(SyntaxError) -> Node {
        var s = Scanner(text: text, line: line, column: column)
        let node = try s.value(flow: false)
        s.skipSpaces()
        if !s.atEnd && s.peek != "#" { throw s.error("unexpected '\(s.rest)' after the value") }
        return node
    }

    /// Reads one line's text left to right.
    private struct Scanner {
        let text: Substring
        let line: Int
        let column: Int
        var index: Substring.Index

        init(text: Substring, line: Int, column: Int) {
            self.text = text; self.line = line; self.column = column; index = text.startIndex
        }

        var atEnd: Bool { index == text.endIndex }
        var peek: Character? { atEnd ? nil : text[index] }
        var rest: Substring { text[index...] }
        mutating func advance() { index = text.index(after: index) }
        mutating func skipSpaces() { while peek?.isBlank == true { advance() } }
        func error(_ message: String) -> SyntaxError {
            SyntaxError(line: line, column: column + text.distance(from: text.startIndex, to: index), message: message)
        }

        /// A value; inside `[…]`/`{…}` (`flow`) a plain scalar also ends at `,`, `]`, `}`.
        mutating func value(flow: Bool) throws(SyntaxError) -> Node {
            skipSpaces()
            switch peek {
            case "\""?, "'"?: return Node(value: .string(try quoted()), line: line)
            case "["?: return try flowSequence()
            case "{"?: return try flowMapping()
            case "&"?, "*"?: throw error("anchors and aliases (& and *) are not supported in manifests")
            case "!"?: throw error("tags (!) are not supported in manifests")
            case "|"?, ">"?: throw error("block scalars (| and >) are not supported in manifests: put the value on one line")
            case "@"?, "`"?: throw error("a plain value cannot start with '\(peek!)' in YAML: quote it")
            default:
                let start = self
                let text = plain(flow: flow)
                if !flow, let problem = Self.misplaced(text) { throw start.error(problem) }
                return Node(value: Self.resolve(text), line: line)
            }
        }

        /// A plain scalar up to a comment (` #`), the end of the line, or in flow context a `,`, `]`, `}`.
        mutating func plain(flow: Bool) -> String {
            let start = index
            while let c = peek {
                if c == "#" && index > text.startIndex && text[text.index(before: index)].isBlank { break }
                if flow && (c == "," || c == "]" || c == "}") { break }
                if flow && c == ":" {
                    let next = text.index(after: index)
                    if next == text.endIndex || text[next].isBlank || text[next] == "," { break }
                }
                advance()
            }
            return String(text[start..<index].trimmingSuffixSpaces)
        }

        mutating func quoted() throws(SyntaxError) -> String {
            let q = peek!
            let open = self
            advance()
            var out = ""
            while true {
                guard let c = peek else {
                    throw open.error("a \(q == "\"" ? "double" : "single")-quoted value must end on its line: no closing \(q)")
                }
                advance()
                if c == q {
                    if q == "'" && peek == "'" { out.append("'"); advance(); continue }   // '' is a quote
                    return out
                }
                if c == "\\" && q == "\"" {
                    var escape = self
                    escape.index = text.index(before: index)   // errors point at the backslash
                    guard let e = peek else { throw escape.error("a '\\' at the end of the line") }
                    advance()
                    switch e {
                    case "\"": out.append("\""); case "\\": out.append("\\"); case "/": out.append("/")
                    case "n": out.append("\n"); case "t": out.append("\t"); case "r": out.append("\r")
                    case "0": out.append("\0"); case " ": out.append(" ")
                    case "u":
                        var hex = ""
                        for _ in 0..<4 { if let h = peek, h.isHexDigit { hex.append(h); advance() } }
                        guard hex.count == 4, let v = UInt32(hex, radix: 16), let u = Unicode.Scalar(v) else {
                            throw escape.error("\\u needs four hex digits of a character")
                        }
                        out.unicodeScalars.append(u)
                    default:
                        throw escape.error("unknown escape '\\\(e)' in a double-quoted value (a Windows path: use single quotes or '/')")
                    }
                    continue
                }
                out.append(c)
            }
        }

        mutating func flowSequence() throws(SyntaxError) -> Node {
            advance()   // [
            var items: [Node] = []
            skipSpaces()
            if peek == "]" { advance(); return Node(value: .array([]), line: line) }
            while true {
                items.append(try value(flow: true))
                skipSpaces()
                switch peek {
                case ","?:
                    advance(); skipSpaces()
                    if peek == "]" { advance(); return Node(value: .array(items), line: line) }   // trailing comma
                case "]"?: advance(); return Node(value: .array(items), line: line)
                default: throw error(atEnd ? "a [ list must end on its line: no closing ]" : "expected ',' or ']' in the list, found '\(rest)'")
                }
            }
        }

        mutating func flowMapping() throws(SyntaxError) -> Node {
            advance()   // {
            var fields: [(key: String, node: Node)] = []
            skipSpaces()
            if peek == "}" { advance(); return Node(value: .object([]), line: line) }
            while true {
                skipSpaces()
                let keyAt = self
                let key: String
                if peek == "\"" || peek == "'" { key = try quoted() } else { key = plain(flow: true) }
                skipSpaces()
                guard peek == ":" else { throw error("expected ':' after the key '\(key)' in the { } mapping") }
                advance()
                if fields.contains(where: { $0.key == key }) { throw keyAt.error("'\(key)' is given twice in this mapping") }
                fields.append((key, try value(flow: true)))
                skipSpaces()
                switch peek {
                case ","?:
                    advance(); skipSpaces()
                    if peek == "}" { advance(); return Node(value: .object(fields), line: line) }
                case "}"?: advance(); return Node(value: .object(fields), line: line)
                default: throw error(atEnd ? "a { mapping must end on its line: no closing }" : "expected ',' or '}' in the mapping, found '\(rest)'")
                }
            }
        }

        /// What YAML refuses in a plain value outside [ ] and { }: a `: ` (or a final `:`) is a
        /// key where none can be, a leading `- ` a list item; both are mostly a lost line break.
        static func misplaced(_ s: String) -> String? {
            if s.hasPrefix("- ") || s == "-" { return "a list item ('- ') cannot follow a key on its line: start it on the next line" }
            let blank: Set<Character> = [" ", "\t"]
            let chars = Array(s)
            for (i, c) in chars.enumerated() where c == ":" && (i + 1 == chars.count || blank.contains(chars[i + 1])) {
                return "'\(s)' holds ': ', which YAML reads as a second key on the line: put a line break before it, or quote the value"
            }
            return nil
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
                  parts.count == 2 || exponent != nil else { return false }
            if let exponent {
                let d = exponent.first == "-" || exponent.first == "+" ? exponent.dropFirst() : exponent
                return !d.isEmpty && d.allSatisfy(\.isASCIIDigit)
            }
            return true
        }
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    /// YAML's separation white space after the indentation.
    var isBlank: Bool { self == " " || self == "\t" }
}

private extension Substring {
    var trimmingSuffixSpaces: Substring {
        var s = self
        while s.last?.isBlank == true { s = s.dropLast() }
        return s
    }
}
