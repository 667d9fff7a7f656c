/// Rational as text and JSON: its description, the parser every front end uses, Codable.
extension Rational: CustomStringConvertible {
    /// `"n/d"`, or `"n"` for integers. Round-trips through ``init(parsing:)``.
    public var description: String {
        denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)"
    }
}

extension Rational {
    /// Parses `"3"`, `"-2.5"`, `"0.125"`, `"1/8"`, `"30000/1001"`, `"1.5/2"`.
    /// Decimals are exact (`0.1` is 1/10). Rejects `nan`, `inf`, empty text, `1/0`.
    public init(parsing text: Substring) throws(RationalError) {
        let s = text.trimmingSpaces
        if let slash = s.firstIndex(of: "/") {
            let n = try Rational(decimal: s[..<slash])
            let d = try Rational(decimal: s[s.index(after: slash)...])
            guard !d.isZero else { throw .zeroDenominator }
            self = try n.checkedDividing(d)
        } else {
            self = try Rational(decimal: s)
        }
    }

    public init(parsing text: String) throws(RationalError) {
        try self.init(parsing: Substring(text))
    }

    /// Exact decimal: optional sign, digits, optional fraction; at most 18 significant digits.
    init(decimal text: Substring) throws(RationalError) {
        var s = text.trimmingSpaces
        var negative = false
        if s.first == "-" || s.first == "+" {
            negative = s.first == "-"
            s = s.dropFirst()
        }
        guard !s.isEmpty else { throw .invalidText(String(text)) }
        var numerator: Int64 = 0
        var denominator: Int64 = 1
        var seenDot = false, digits = 0
        for c in s {
            if c == "." {
                guard !seenDot else { throw .invalidText(String(text)) }
                seenDot = true
                continue
            }
            guard let v = c.wholeNumberValue, c.isASCII else { throw .invalidText(String(text)) }
            digits += 1
            if numerator == 0 && v == 0 && !seenDot { continue }
            let (m, o1) = numerator.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(v))
            guard !o1, !o2 else { throw .overflow }
            numerator = a
            if seenDot {
                let (d, o3) = denominator.multipliedReportingOverflow(by: 10)
                guard !o3 else { throw .overflow }
                denominator = d
            }
        }
        guard digits > 0 else { throw .invalidText(String(text)) }
        self = try Rational(checked: negative ? -numerator : numerator, denominator)
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}

extension Rational: Codable {
    /// Encoded as `{"numerator": n, "denominator": d}`; decodes that form, a string
    /// (`"1/8"`, `"0.25"`) or a JSON integer.
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: CodingKeys.self),
            let n = try? keyed.decode(Int64.self, forKey: .numerator)
        {
            let d = try keyed.decode(Int64.self, forKey: .denominator)
            do { self = try Rational(checked: n, d) } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
            }
            return
        }
        let single = try decoder.singleValueContainer()
        if let i = try? single.decode(Int64.self) {
            self = Rational(i)
            return
        }
        let text = try single.decode(String.self)
        do { self = try Rational(parsing: text) } catch {
            throw DecodingError.dataCorruptedError(in: single, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(numerator, forKey: .numerator)
        try c.encode(denominator, forKey: .denominator)
    }

    enum CodingKeys: String, CodingKey { case numerator, denominator }
}
