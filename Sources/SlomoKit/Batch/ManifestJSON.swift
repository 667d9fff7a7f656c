/// A JSON reader for batch manifests that knows where things are: every value carries the line it
/// starts on, and a syntax error names its line and column and what was expected there.
/// (Foundation's `JSONSerialization` gives at most a character offset, often nothing, and takes
/// duplicate keys silently.) Lenient in one way only: a trailing comma before `]` or `}` is taken,
/// as hand-edited manifests often have one.
struct ManifestJSON {
    indirect enum Value {
        case string(String), int(Int), double(Double), bool(Bool), null
        case array([Node])
        case object([(key: String, node: Node)])
    }

    struct Node {
        var value: Value
        var line: Int

        /// The value as `Any`: String, Int, Double, Bool, [Any], [String: Any]; null as `Optional.none`.
        var any: Any {
            switch value {
            case .string(let s): return s
            case .int(let i): return i
            case .double(let d): return d
            case .bool(let b): return b
            case .null: return Optional<Any>.none as Any
            case .array(let a): return a.map(\.any)
            case .object(let o):  // a null field is an absent one
                var d: [String: Any] = [:]
                for f in o {
                    if case .null = f.node.value { continue }
                    d[f.key] = f.node.any
                }
                return d
            }
        }

        subscript(key: String) -> Node? {
            if case .object(let o) = value { return o.first { $0.key == key }?.node }
            return nil
        }
    }

    struct SyntaxError: Error {
        var line: Int
        var column: Int
        var message: String
    }

    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0

    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> Node {
        var p = ManifestJSON(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            p.i = 3
            p.lineStart = 3
        }  // a UTF-8 byte order mark
        let root = try p.value(context: "the manifest")
        p.skipSpace()
        if p.i < bytes.count { throw p.error("unexpected '\(p.peekText)' after the end of the manifest") }
        return root
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(line: line, column: i - lineStart + 1, message: message)
    }

    private var peekText: String {
        guard i < bytes.count else { return "end of file" }
        let end = bytes[i...].prefix(12).firstIndex { $0 == 10 || $0 == 13 } ?? Swift.min(i + 12, bytes.count)
        return String(decoding: bytes[i..<end], as: UTF8.self)
    }

    private mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 10:
                i += 1
                line += 1
                lineStart = i
            case 32, 9, 13: i += 1
            default: return
            }
        }
    }

    /// One value; `context` says what it is for the messages ("the value of 'rate'").
    private mutating func value(context: String) throws(SyntaxError) -> Node {
        skipSpace()
        guard i < bytes.count else { throw error("the file ends where \(context) should be") }
        let startLine = line
        switch bytes[i] {
        case UInt8(ascii: "{"): return Node(value: try object(), line: startLine)
        case UInt8(ascii: "["): return Node(value: try array(), line: startLine)
        case UInt8(ascii: "\""): return Node(value: .string(try string()), line: startLine)
        case UInt8(ascii: "t"):
            try word("true")
            return Node(value: .bool(true), line: startLine)
        case UInt8(ascii: "f"):
            try word("false")
            return Node(value: .bool(false), line: startLine)
        case UInt8(ascii: "n"):
            try word("null")
            return Node(value: .null, line: startLine)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return Node(value: try number(), line: startLine)
        default:
            throw error("expected \(context) (a string in double quotes, number, object, list, true, false or null), found '\(peekText)'")
        }
    }

    private mutating func word(_ w: String) throws(SyntaxError) {
        let u = Array(w.utf8)
        guard bytes.count - i >= u.count, Array(bytes[i..<(i + u.count)]) == u else {
            throw error("expected \(w), found '\(peekText)' (strings need double quotes)")
        }
        i += u.count
    }

    private mutating func object() throws(SyntaxError) -> Value {
        i += 1
        var fields: [(key: String, node: Node)] = []
        while true {
            skipSpace()
            guard i < bytes.count else { throw error("the file ends inside an object: a '}' is missing") }
            if bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(fields)
            }
            guard bytes[i] == UInt8(ascii: "\"") else {
                throw error("expected a field name in double quotes\(fields.last.map { " after field '\($0.key)'" } ?? ""), found '\(peekText)'")
            }
            let keyLine = line, keyColumn = i - lineStart + 1
            let key = try string()
            if fields.contains(where: { $0.key == key }) {
                throw SyntaxError(line: keyLine, column: keyColumn, message: "field '\(key)' appears twice in the same object")
            }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':' after field name '\(key)', found '\(peekText)'") }
            i += 1
            fields.append((key, try value(context: "the value of '\(key)'")))
            if try !another(close: "}", inside: "an object", after: "the value of '\(key)'") { return .object(fields) }
        }
    }

    private mutating func array() throws(SyntaxError) -> Value {
        i += 1
        var items: [Node] = []
        while true {
            skipSpace()
            guard i < bytes.count else { throw error("the file ends inside a list: a ']' is missing") }
            if bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            items.append(try value(context: "list item \(items.count)"))
            if try !another(close: "]", inside: "a list", after: "list item \(items.count - 1)") { return .array(items) }
        }
    }

    /// After an object's or a list's element: true at ',' (another element follows), false at
    /// `close` (the end; both consumed), else the error naming what it came after.
    private mutating func another(close: Unicode.Scalar, inside: String, after: String) throws(SyntaxError) -> Bool {
        skipSpace()
        guard i < bytes.count else { throw error("the file ends inside \(inside): a '\(close)' is missing") }
        if bytes[i] == UInt8(ascii: ",") {
            i += 1
            return true
        }
        if bytes[i] == UInt8(ascii: close) {
            i += 1
            return false
        }
        throw error("expected ',' or '\(close)' after \(after), found '\(peekText)'")
    }

    private mutating func string() throws(SyntaxError) -> String {
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard i + 1 < bytes.count else { throw error("the file ends inside a string: its closing '\"' is missing") }
                let e = bytes[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), bytes.count - i >= 6, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            i -= 12
                            throw error("'\\u' pair is not a valid UTF-16 surrogate pair")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8))
                default:
                    i -= 2
                    throw error("unknown escape '\\\(String(decoding: [e], as: UTF8.self))' in a string (a Windows path needs '\\\\' or '/')")
                }
            case 10, 13:
                throw error("a string runs to the end of the line: its closing '\"' is missing")
            default:
                out.append(c)
                i += 1
            }
        }
        throw error("the file ends inside a string: its closing '\"' is missing")
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard bytes.count - i >= 4, let v = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16) else {
            throw error("'\\u' must be followed by 4 hex digits")
        }
        i += 4
        return v
    }

    private mutating func number() throws(SyntaxError) -> Value {
        let start = i
        let numberBytes = Set("+-0123456789.eE".utf8)
        while i < bytes.count, numberBytes.contains(bytes[i]) { i += 1 }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if i < bytes.count, bytes[i] == UInt8(ascii: "/") {
            let fraction = Set("0123456789./".utf8)
            let end = bytes[i...].firstIndex { !fraction.contains($0) } ?? bytes.count
            let written = String(decoding: bytes[start..<end], as: UTF8.self)
            i = start
            throw error("\(written) is not a JSON number: a fraction needs quotes (\"\(written)\")")
        }
        if let n = Int(text) { return .int(n) }
        if let d = Double(text), d.isFinite, text.first != "+" { return .double(d) }
        i = start
        throw error("'\(text)' is not a number (a fraction such as 1/2 needs quotes: \"1/2\")")
    }
}
