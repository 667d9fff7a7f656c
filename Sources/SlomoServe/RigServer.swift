import Foundation
import Hummingbird
import HummingbirdWebSocket
import HTTPTypes
import Logging
import NIOCore
import SlomoCore
import SlomoSystem
import SlomoKit

/// `slomo serve`: the rig over HTTP. The API under `/api/v1` (described by `/api/v1/openapi.json`),
/// the page at `/`, the live picture as multipart MJPEG, a snapshot and a WebSocket, the rig's
/// events as Server-Sent Events. Every request passes the `Guard` first.
public final class RigServer: Sendable {
    public let rig: Rig
    let access: ServeAccess
    let sessions = Sessions()
    let port = Port()

    public init(rig: Rig, access: ServeAccess) {
        self.rig = rig
        self.access = access
    }

    /// Serves until `stop` is raised; `listening` is called once the port is bound (with the port,
    /// which is the one asked unless it was 0).
    public func run(stop: StopToken, listening: @escaping @Sendable (Int) -> Void) async throws {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: Guard(access: access, sessions: sessions, boundPort: { [port] in port.value }))
        routes(router)
        var logger = Logger(label: "slomo-serve")
        logger.logLevel = .critical
        let app = Application(
            router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname(access.host, port: access.port), serverName: nil),
            onServerRunning: { [port] channel in
                port.value = channel.localAddress?.port ?? 0
                listening(port.value)
            }, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            group.addTask {
                while !stop.isRaised { try await Task.sleep(nanoseconds: 100_000_000) }
                throw CancellationError()
            }
            do { try await group.next() } catch is CancellationError {}
            group.cancelAll()
        }
    }

    // MARK: routes

    func routes(_ r: Router<BasicWebSocketRequestContext>) {
        pageRoutes(r)
        rigRoutes(r)
        shotRoutes(r)
        jobRoutes(r)
        liveRoutes(r)
    }

    /// The page's three files and the API's description.
    func pageRoutes(_ r: Router<BasicWebSocketRequestContext>) {
        r.get("/") { _, _ in Reply.bytes(PageFiles.index, contentType: "text/html; charset=utf-8").withPagePolicy() }
        r.get("/app.js") { _, _ in Reply.bytes(PageFiles.script, contentType: "text/javascript; charset=utf-8") }
        r.get("/style.css") { _, _ in Reply.bytes(PageFiles.style, contentType: "text/css; charset=utf-8") }
        r.get("/api/v1/openapi.json") { _, _ in Reply.bytes(PageFiles.openAPI, contentType: "application/json") }
    }

    /// The state machine: status, settings, arm, trigger, disarm.
    func rigRoutes(_ r: Router<BasicWebSocketRequestContext>) {
        r.get("/api/v1/status") { [rig] _, _ in Reply.json(rig.status(), type: "status") }
        r.get("/metrics") { [rig] _, _ in Reply.bytes(Array(RigMetrics.text(rig).utf8), contentType: "text/plain; version=0.0.4; charset=utf-8") }
        r.get("/api/v1/settings") { [rig] _, _ in Reply.json(rig.currentSettings, type: "settings") }
        r.patch("/api/v1/settings") { [rig, access] request, _ in
            let body = try await Body.read(request, limit: access.maxBody)
            return try await Self.answer {
                let fields = try RigRequestBody.settingsPatch(body)
                try rig.change({ s in fields.apply(&s) }, touching: fields.names)
                return Reply.json(rig.currentSettings, type: "settings")
            }
        }
        r.post("/api/v1/arm") { [rig, access] request, _ in
            let body = try await Body.read(request, limit: access.maxBody)
            return try await Self.answer {
                let f = try RigRequestBody.settingsPatch(body, allowed: RigOption.allCases.filter(\.armTakes))
                try rig.arm(preTrigger: f.preTrigger, postTrigger: f.postTrigger, shots: f.shots)
                return Reply.json(rig.status(), type: "status")
            }
        }
        r.post("/api/v1/trigger") { [rig] _, _ in
            // the instant the request was read; taken here, not behind slower work on another queue
            let time = Rig.now()
            struct Accepted: Encodable {
                var accepted = true
                var time: Rational
                var state: RigState
            }
            let at: Rational
            do throws(RigRefusal) { at = try rig.trigger(at: time) } catch { return Reply.refuse(error) }
            return Reply.json(Accepted(time: at, state: rig.status().state), type: "trigger", status: .accepted)
        }
        r.post("/api/v1/disarm") { [rig] _, _ in
            try await Self.answer {
                try rig.disarm()
                return Reply.json(rig.status(), type: "status")
            }
        }
        for path in ["/api/v1/arm", "/api/v1/trigger", "/api/v1/disarm"] {
            r.get(RouterPath(path)) { _, _ in Reply.refuse(.methodNotAllowed, "\(path) changes the rig: send POST (GET never changes anything)") }
        }
    }

    /// The saved shots: their list, reports, files, frames, deletion and exports.
    func shotRoutes(_ r: Router<BasicWebSocketRequestContext>) {
        r.get("/api/v1/shots") { [rig] _, _ in
            struct Shots: Encodable { var shots: [RigShot] }
            return Reply.json(Shots(shots: rig.shots()), type: "shots")
        }
        r.get("/api/v1/shots/:id") { [rig] _, context in
            try await Self.answer { Reply.json(try rig.shot(try Self.number(context, "id")), type: "shot") }
        }
        r.delete("/api/v1/shots/:id") { [rig] _, context in
            try await Self.answer {
                try rig.delete(shot: try Self.number(context, "id"))
                return Response(status: .noContent)
            }
        }
        r.get("/api/v1/shots/:id/file") { [rig] request, context in
            let path: String
            do {
                path = try await Self.offload { try rig.shotPath(try Self.number(context, "id"), camera: try Self.camera(request)) }
            } catch let f as any SlomoFailure { return Reply.refuse(f) }
            return try await Self.download(path: path, under: rig.config.outDir, request: request, context: context)
        }
        r.get("/api/v1/shots/:id/frames/:frame") { [rig] request, context in
            try await Self.answer {
                let id = try Self.number(context, "id")
                let text = context.parameters.get("frame") ?? ""
                guard text.hasSuffix(".jpg"), let n = Int(text.dropLast(4)) else {
                    throw RigRefusal.badField("frame", "'\(text)': expected a frame number from the trigger frame, as N.jpg (0.jpg, -12.jpg)")
                }
                return Reply.bytes(try rig.frameJPEG(shot: id, frame: n, camera: try Self.camera(request)), contentType: "image/jpeg")
            }
        }
        r.post("/api/v1/shots/:id/export") { [rig, access] request, context in
            let body = try await Body.read(request, limit: access.maxBody)
            return try await Self.answer {
                let job = try rig.export(shot: try Self.number(context, "id"), try RigRequestBody.exportAsk(body))
                var reply = Reply.json(job, type: "job", status: .accepted)
                reply.headers[.location] = "/api/v1/jobs/\(job.id)"
                return reply
            }
        }
    }

    /// The export jobs: their list, state, cancellation and files.
    func jobRoutes(_ r: Router<BasicWebSocketRequestContext>) {
        r.get("/api/v1/jobs") { [rig] _, _ in
            struct Jobs: Encodable { var jobs: [RigJob] }
            return Reply.json(Jobs(jobs: rig.allJobs()), type: "jobs")
        }
        r.get("/api/v1/jobs/:id") { [rig] _, context in
            try await Self.answer { Reply.json(try rig.job(try Self.number(context, "id")), type: "job") }
        }
        r.delete("/api/v1/jobs/:id") { [rig] _, context in
            try await Self.answer { Reply.json(try rig.cancelJob(try Self.number(context, "id")), type: "job", status: .accepted) }
        }
        r.get("/api/v1/jobs/:id/file") { [rig] request, context in
            let path: String
            do { path = try await Self.offload { try rig.jobPath(try Self.number(context, "id")) } } catch let f as any SlomoFailure { return Reply.refuse(f) }
            return try await Self.download(path: path, under: rig.config.outDir, request: request, context: context)
        }
    }

    /// What streams: the rig's events and the live pictures.
    func liveRoutes(_ r: Router<BasicWebSocketRequestContext>) {
        r.get("/api/v1/events") { [rig] _, _ in LiveStreams.events(rig) }
        // each camera's by `?camera=K` (1 first; the first camera's without it)
        r.get("/preview.mjpg") { [rig] request, _ in
            do throws(RigRefusal) { return LiveStreams.mjpeg(try rig.live(camera: try Self.camera(request))) } catch { return Reply.refuse(error) }
        }
        r.get("/snapshot.jpg") { [rig] request, _ in
            let live: LivePictures
            do throws(RigRefusal) { live = try rig.live(camera: try Self.camera(request)) } catch { return Reply.refuse(error) }
            guard let p = await live.snapshot() else {
                return Reply.refuse(RigRefusal(.unavailable, "no picture within 3 s: \(live.counts.error ?? "the camera sends no frames")"))
            }
            return Reply.bytes(p.jpeg, contentType: "image/jpeg")
        }
        r.ws("/api/v1/live") { [rig] inbound, outbound, context in
            // an unknown camera: the socket closes at once (the page asks only for cameras the status lists)
            guard let live = try? rig.live(camera: try Self.camera(context.request)) else { return }
            try await LiveStreams.webSocket(live, inbound: inbound, outbound: outbound)
        }
    }

    // MARK: helpers

    /// `?camera=K`: a camera of a rig of several (1 first); nil when absent.
    static func camera(_ request: Request) throws(RigRefusal) -> Int? {
        guard let text = request.uri.queryParameters.get("camera") else { return nil }
        guard let k = Int(text), k >= 1 else { throw RigRefusal.badField("camera", "'\(text)': cameras are numbered from 1") }
        return k
    }

    /// A route parameter that must be a whole number.
    static func number(_ context: BasicWebSocketRequestContext, _ name: String) throws(RigRefusal) -> Int {
        let text = context.parameters.get(name) ?? ""
        guard let n = Int(text) else { throw RigRefusal.badField(name, "'\(text)' is not a whole number") }
        return n
    }

    /// Runs rig work (which may wait on the camera or a decoder) off the server's threads; a
    /// refusal becomes its status (by its kind) and sentence.
    static func answer(_ work: @escaping @Sendable () throws -> Response) async throws -> Response {
        do { return try await offload(work) } catch let f as any SlomoFailure { return Reply.refuse(f) }
    }

    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in
            DispatchQueue.global().async { c.resume(with: Result { try work() }) }
        }
    }

    /// A file of the output directory (and nothing outside it), honouring one Range.
    static func download(path: String, under dir: String, request: Request, context: BasicWebSocketRequestContext) async throws -> Response {
        let real = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        let root = URL(fileURLWithPath: dir).standardizedFileURL.resolvingSymlinksInPath().path
        guard real.hasPrefix(root + "/") else { return Reply.refuse(RigRefusal(.notPermitted, "only files of the output directory are served")) }
        guard let size = (try? FileManager.default.attributesOfItem(atPath: real)[.size] as? Int) else {
            return Reply.refuse(RigRefusal(.missing, "\((path as NSString).lastPathComponent) is not in the output directory any more"))
        }
        let name = (real as NSString).lastPathComponent
        let type =
            name.hasSuffix(".mp4")
            ? "video/mp4"
            : name.hasSuffix(".mkv")
                ? "video/x-matroska"
                : name.hasSuffix(".mov") ? "video/quicktime" : "application/octet-stream"
        var response: Response
        switch ByteRange.parse(request.headers[.range], size: size) {
        case .unsatisfiable?:
            response = Reply.refuse(.rangeNotSatisfiable, "the range asked lies outside the file's \(size) bytes")
            response.headers[.contentRange] = "bytes */\(size)"
            return response
        case .range(let r)?:
            response = Response(status: .partialContent, body: try await FileIO().loadFile(path: real, range: r, context: context))
            response.headers[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound)/\(size)"
            response.headers[.contentLength] = String(r.count)
        case nil:
            response = Response(status: .ok, body: try await FileIO().loadFile(path: real, context: context))
            response.headers[.contentLength] = String(size)
        }
        response.headers[.acceptRanges] = "bytes"
        response.headers[.contentType] = type
        response.headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        return response
    }
}

/// The port the server is bound to (known once it runs).
final class Port: @unchecked Sendable {
    // Safe: `stored` under `lock`.
    private let lock = NSLock()
    private var stored = 0
    var value: Int {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}

extension Response {
    /// The page's own content policy: its own scripts and styles only, pictures from itself and blobs.
    func withPagePolicy() -> Response {
        var r = self
        r.headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
        return r
    }
}
