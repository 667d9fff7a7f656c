import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import SlomoCore
import SlomoKit

/// Responses: JSON documents (`JSONSchema`: sorted keys, `version`, `type`), refusals of one
/// sentence, and the page's files.
enum Reply {
    static func json<T: Encodable>(_ value: T, type: String, status: HTTPResponse.Status = .ok) -> Response {
        let text = (try? JSONSchema.line(value, type: type)) ?? #"{"error":"the answer could not be encoded"}"#
        return bytes(Array((text + "\n").utf8), contentType: "application/json", status: status)
    }

    static func bytes(_ b: [UInt8], contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        var r = Response(status: status, body: ResponseBody(byteBuffer: ByteBuffer(bytes: b)))
        r.headers[.contentType] = contentType
        r.headers[.contentLength] = String(b.count)
        return r
    }

    struct Refusal: Encodable {
        var error: String
        var field: String?
    }

    /// HTTP's own refusals (authentication, origin, method, size, media type, range), whose status
    /// is the protocol's, not a failure's.
    static func refuse(_ status: HTTPResponse.Status, _ sentence: String, field: String? = nil) -> Response {
        json(Refusal(error: sentence, field: field), type: "error", status: status)
    }

    /// A failure: its status from its kind (`HTTPResponse.Status(_:)`, the one table), its sentence
    /// with settings named by their field, and the field it refuses.
    static func refuse(_ failure: any SlomoFailure) -> Response {
        let field = (failure as? RigRefusal)?.field ?? (failure as? SettingError)?.setting.name
        return refuse(HTTPResponse.Status(failure.kind), failure.description, field: field)
    }

    /// `/` without a session: where to find the URL with the token.
    static func signIn() -> Response {
        let html =
            "<!doctype html><meta charset=utf-8><title>slomo</title><p>Open the URL <code>slomo serve</code> printed (it ends in <code>?token=…</code>).</p>\n"
        return bytes(Array(html.utf8), contentType: "text/html; charset=utf-8", status: .unauthorized)
    }
}

/// A Range header's one range against a file of `size` bytes: nil when there is none or it is
/// not one slomo serves (several ranges); `.unsatisfiable` when it lies outside the file.
enum ByteRange: Equatable {
    case range(ClosedRange<Int>)
    case unsatisfiable

    /// An invalid range (not `bytes=`, several, reversed, not digits) is ignored: the whole file
    /// (RFC 9110 14.2); a valid one that starts past the end is unsatisfiable.
    static func parse(_ header: String?, size: Int) -> ByteRange? {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let a = spec[..<dash].trimmingCharacters(in: .whitespaces), b = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        let digits = { (t: String) in !t.isEmpty && t.allSatisfy { $0.isASCII && $0.isNumber } }
        if a.isEmpty {
            guard digits(b) else { return nil }
            let n = Int(b) ?? Int.max
            guard n > 0, size > 0 else { return .unsatisfiable }
            return .range(Swift.max(0, size - n)...(size - 1))
        }
        guard digits(a), b.isEmpty || digits(b) else { return nil }
        guard let start = Int(a), start < size else { return .unsatisfiable }
        let end = b.isEmpty ? size - 1 : Swift.min(Int(b) ?? Int.max, size - 1)
        guard end >= start else { return nil }
        return .range(start...end)
    }
}
