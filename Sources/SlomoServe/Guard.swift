import Foundation
import Hummingbird
import HummingbirdWebSocket
import HTTPTypes
import SlomoCore
import SlomoKit

/// Every request passes here first: the Host it names, who sends it (the bearer token or the page's
/// session cookie), where a browser sent it from (Origin, on every change and WebSocket upgrade),
/// and how large it is. A refusal is one sentence, as JSON, with nothing changed.
struct Guard: RouterMiddleware {
    typealias Context = BasicWebSocketRequestContext
    let access: ServeAccess
    let sessions: Sessions
    let boundPort: @Sendable () -> Int

    static let cookie = "slomo_session"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await check(request, context: context, next: next)
        // never framed by another page, never sniffed, never cached, no referrer (the login URL holds the token)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }

    private func check(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let port = boundPort()
        guard access.hostAllowed(request.head.authority, boundPort: port) else {
            return Reply.refuse(
                .forbidden, "the Host header '\(request.head.authority ?? "")' is not a name this server answers to (add it with --allowed-host)")
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > access.maxBody {
            return Reply.refuse(.contentTooLarge, "the request body is \(length) bytes; at most \(access.maxBody) are read")
        }
        let path = request.uri.path
        // the login: the token from slomo's printed URL becomes a session cookie, and the URL loses it
        if path == "/", let given = request.uri.queryParameters.get("token") {
            guard let token = access.token, ServeAccess.same(given, token) else {
                return Reply.refuse(.unauthorized, "wrong token: open the URL slomo printed")
            }
            var r = Response(status: .seeOther)
            r.headers[.location] = "/"
            r.headers[.setCookie] = "\(Guard.cookie)=\(sessions.open()); Path=/; HttpOnly; SameSite=Strict"
            return r
        }
        let byBearer = bearer(request)
        let byCookie = request.cookies[Guard.cookie].map { sessions.contains($0.value) } ?? false
        if access.token != nil {
            switch byBearer {
            case .some(true): break
            case .some(false): return Reply.refuse(.unauthorized, "wrong token")
            case nil:
                guard byCookie else {
                    if path == "/" { return Reply.signIn() }
                    var r = Reply.refuse(.unauthorized, "no token: send Authorization: Bearer TOKEN, or open the URL slomo printed")
                    r.headers[.wwwAuthenticate] = "Bearer"
                    return r
                }
            }
        }
        let changes = ![.get, .head].contains(request.method)
        if let refusal = originRefusal(request, changes: changes, byBearer: byBearer) { return refusal }
        if changes, request.method != .delete, let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
            return Reply.refuse(.unsupportedMediaType, "the body must be JSON (Content-Type: application/json), not \(type)")
        }
        do { return try await next(request, context) } catch let e as HTTPError {
            if e.status == .contentTooLarge { return Reply.refuse(.contentTooLarge, "the request body is larger than \(access.maxBody) bytes") }
            if e.status == .notFound { return Reply.refuse(.notFound, "no such resource: \(request.method) \(path)") }
            return Reply.refuse(e.status, e.body ?? e.status.reasonPhrase)
        } catch let f as any SlomoFailure {
            return Reply.refuse(f)
        } catch {
            return Reply.refuse(.internalServerError, "\(request.method) \(path) failed: \(error)")
        }
    }

    /// A change (or a WebSocket) from another origin, or sent with the cookie and no Origin: a browser
    /// says where the request comes from, and another origin is never obeyed (no CORS).
    private func originRefusal(_ request: Request, changes: Bool, byBearer: Bool?) -> Response? {
        let upgrade = request.headers[.upgrade]?.lowercased().contains("websocket") ?? false
        guard changes || upgrade else { return nil }
        if let origin = request.headers[.origin] {
            // the page's own origin, served directly or through a TLS proxy
            let authority = request.head.authority ?? ""
            guard origin == "http://\(authority)" || origin == "https://\(authority)" else {
                return Reply.refuse(.forbidden, "requests from the origin '\(origin)' are refused: only this server's own page may change the rig")
            }
        } else if byBearer == nil && access.token != nil {
            return Reply.refuse(.forbidden, "a change sent with the session cookie must carry its Origin")
        }
        return nil
    }

    /// nil: no bearer header; true/false: whether its token is the right one.
    private func bearer(_ request: Request) -> Bool? {
        guard let h = request.headers[.authorization] else { return nil }
        guard h.hasPrefix("Bearer "), let token = access.token else { return false }
        return ServeAccess.same(String(h.dropFirst(7)), token)
    }
}

/// The page's sessions: random ids, handed out for the token (kept in memory: a restart signs out).
final class Sessions: @unchecked Sendable {
    // Safe: `ids` under `lock`.
    private let lock = NSLock()
    private var ids: Set<String> = []
    func open() -> String {
        var g = SystemRandomNumberGenerator()
        let id = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
        lock.lock()
        ids.insert(id)
        lock.unlock()
        return id
    }
    func contains(_ id: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return ids.contains(id)
    }
}
