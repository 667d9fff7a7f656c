/// A saved `v4l2-ctl --list-ctrls-menus` (or `--list-ctrls`) text read back as controls, so that
/// `slomo controls --listing FILE` shows a camera that is not attached, as `formats --listing` does.
///
/// Lines look like (v4l-utils 1.22; older versions leave out the id):
/// ```
/// User Controls
///
///                      brightness 0x00980900 (int)    : min=0 max=255 step=1 default=128 value=128 flags=slider
///                  auto_exposure 0x009a0901 (menu)   : min=0 max=3 default=3 value=3 (Aperture Priority Mode)
/// 				1: Manual Mode
/// ```
/// A control line without an id gets its group from the section heading (`Camera Controls`).
public enum ControlListing {
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { line > 0 ? "line \(line): \(reason)" : reason }
    }

    /// The controls in listing order. Throws when no line is a control line, or a control line is malformed.
    public static func parse(_ text: String) throws(ParseError) -> [CameraControl] {
        var out: [CameraControl] = []
        var heading: String?
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty || line.hasPrefix("#") { continue }  // blank, or a fixture's comment
            if let item = menuItem(trimmed), line.first == "\t" || line.first == " " {
                guard !out.isEmpty, [.menu, .integerMenu].contains(out[out.count - 1].kind) else {
                    throw ParseError(line: n + 1, reason: "a menu entry without a menu control before it")
                }
                var c = out.removeLast()
                c.menu.append(
                    c.kind == .integerMenu
                        ? CameraControl.MenuItem(index: item.0, value: integerMenuValue(item.1))
                        : CameraControl.MenuItem(index: item.0, name: item.1))
                out.append(c)
                continue
            }
            // `NAME [0xID] (TYPE)` then `:` then the fields
            guard let open = trimmed.firstIndex(of: "("), let close = trimmed[open...].firstIndex(of: ")"),
                let colon = trimmed[close...].firstIndex(of: ":")
            else {
                if line.first != " " && line.first != "\t" {
                    heading = String(trimmed)
                    continue
                }
                throw ParseError(line: n + 1, reason: "not a control line: '\(trimmed.prefix(60))'")
            }
            do throws(ParseError) {
                out.append(try control(head: trimmed[..<colon], fields: trimmed[trimmed.index(after: colon)...].trimmingSpaces, heading: heading))
            } catch {
                throw ParseError(line: n + 1, reason: error.reason)
            }
        }
        guard !out.isEmpty else { throw ParseError(line: 0, reason: "not a v4l2-ctl control listing (no control lines)") }
        return out
    }

    /// `brightness 0x00980900 (int)    ` and `min=0 max=255 …`.
    static func control(head: Substring, fields: Substring, heading: String?) throws(ParseError) -> CameraControl {
        let words = head.split(separator: " ")
        guard words.count >= 2, let typeWord = words.last, typeWord.hasPrefix("("), typeWord.hasSuffix(")") else {
            throw ParseError(line: 0, reason: "expected NAME [0xID] (TYPE): '\(head)'")
        }
        let name = String(words[0])
        var id: UInt32 = 0
        if words.count >= 3 {
            guard words[1].hasPrefix("0x"), let v = UInt32(words[1].dropFirst(2), radix: 16) else {
                throw ParseError(line: 0, reason: "\(name): id '\(words[1])' is not hexadecimal")
            }
            id = v
        }
        let kind = Self.kind(String(typeWord.dropFirst().dropLast()))
        if id == 0, let heading { id = headingClass(heading) }
        var c = CameraControl(id: id, name: name, kind: kind)
        let f = keyValues(fields)
        func number(_ key: String) throws(ParseError) -> Int64? {
            guard let text = f[key] else { return nil }
            let word = text.split(separator: " ").first.map(String.init) ?? ""
            if word.hasPrefix("0x"), let v = UInt64(word.dropFirst(2), radix: 16) { return Int64(bitPattern: v) }
            guard let v = Int64(word) else { throw ParseError(line: 0, reason: "\(name): \(key)=\(text) is not a number") }
            return v
        }
        if kind != .compound {
            c.minimum = try number("min") ?? 0
            c.maximum = try number("max") ?? (kind == .boolean ? 1 : 0)
            c.step = try number("step") ?? 1
            c.defaultValue = try number("default") ?? 0
            if kind == .string {
                c.text = f["value"].map { $0.hasPrefix("'") && $0.hasSuffix("'") && $0.count >= 2 ? String($0.dropFirst().dropLast()) : $0 }
            } else if kind != .button {
                c.value = try number("value")
                // v4l2-ctl prints a bitmask's value as a signed 32-bit number
                if kind == .bitmask, let v = c.value, v < 0 { c.value = Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: v))) }
            }
        } else {
            c.minimum = (try? number("min") ?? 0) ?? 0
            c.maximum = (try? number("max") ?? 0) ?? 0
            c.step = (try? number("step") ?? 1) ?? 1
            c.defaultValue = (try? number("default") ?? 0) ?? 0
        }
        if let flags = f["flags"] {
            c.flags = CameraControl.Flags(names: flags.split(separator: ",").map { $0.trimmingSpaces }.map(String.init))
            if let hex = flags.split(separator: ",").map({ $0.trimmingSpaces }).first(where: { $0.hasPrefix("0x") }),
                let bits = UInt32(hex.dropFirst(2), radix: 16)
            {
                c.flags.formUnion(CameraControl.Flags(rawValue: bits))
            }
        }
        return c
    }

    /// v4l2-ctl's type word (`int`, `menu`, `str`…); anything else is a compound control.
    static func kind(_ type: String) -> CameraControl.Kind {
        switch type {
        case "int": return .integer
        case "bool": return .boolean
        case "menu": return .menu
        case "intmenu": return .integerMenu
        case "button": return .button
        case "int64": return .integer64
        case "str": return .string
        case "bitmask": return .bitmask
        default: return .compound
        }
    }

    /// `key=value` pairs; a value runs to the next ` key=` (menus' `value=3 (Manual Mode)`, `flags=a, b`).
    static func keyValues(_ s: Substring) -> [String: String] {
        var out: [String: String] = [:]
        let chars = Array(s)
        var starts: [(key: String, valueStart: Int, keyStart: Int)] = []
        var i = 0
        while i < chars.count {
            if i == 0 || chars[i - 1] == " " {
                var j = i
                while j < chars.count, chars[j].isLetter || chars[j] == "_" { j += 1 }
                if j > i, j < chars.count, chars[j] == "=" { starts.append((String(chars[i..<j]), j + 1, i)) }
            }
            i += 1
        }
        for (k, s) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1].keyStart : chars.count
            out[s.key] = String(chars[s.valueStart..<end]).trimmingSpaces.description
        }
        return out
    }

    /// `3: Manual Mode` → (3, "Manual Mode").
    static func menuItem(_ s: Substring) -> (Int64, String)? {
        guard let colon = s.firstIndex(of: ":"), let i = Int64(s[..<colon]) else { return nil }
        return (i, String(s[s.index(after: colon)...].trimmingSpaces))
    }

    /// `5 (0x5)` → 5.
    static func integerMenuValue(_ s: String) -> Int64? {
        s.split(separator: " ").first.flatMap { Int64($0) }
    }

    /// The class id for a section heading (listings without ids).
    static func headingClass(_ heading: String) -> UInt32 {
        switch heading.lowercased() {
        case "user controls": return 0x0098_0000
        case "camera controls": return 0x009a_0000
        case "image source controls": return 0x009e_0000
        case "image processing controls": return 0x009f_0000
        case "codec controls", "mpeg encoder controls": return 0x0099_0000
        case "digital video controls": return 0x00a0_0000
        case "flash controls": return 0x009c_0000
        case "jpeg compression controls": return 0x009d_0000
        default: return 0x00f0_0000
        }
    }
}

extension String {
    var trimmingSpaces: Substring { Substring(self).trimmingSpaces }
}
