import SlomoCore

/// Option values that ArgumentParser would only reject with a generic message; used by the CLI and
/// by use cases that take options as text (`DeviceService.request`). Errors exit 64.
public enum OptionValues {
    public static func rational(_ text: String, option: String) throws(SimpleFailure) -> Rational {
        do { return try Rational(parsing: text) } catch {
            throw SimpleFailure("\(option) '\(text)': \(error)", .usage)
        }
    }

    /// "expected a, b or c": the values an option of type `T` takes, in declaration order.
    public static func expected<T: CaseIterable & RawRepresentable>(_: T.Type) -> String where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        guard let last = names.last, names.count > 1 else { return "expected " + names.joined() }
        return "expected " + names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// `WxH`, e.g. `1280x720`.
    public static func size(_ text: String, option: String) throws(SimpleFailure) -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw SimpleFailure("\(option) '\(text)': expected WIDTHxHEIGHT, e.g. 1280x720", .usage)
        }
        return (w, h)
    }
}
