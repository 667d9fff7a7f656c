import HTTPTypes
import SlomoCore

extension HTTPResponse.Status {
    /// The status the server answers a failure of this kind with: the one table from the
    /// library's classes of failure to HTTP, as `ExitStatus(_:)` is the command line's to exit
    /// statuses. Every route's refusal (`RigRefusal`, or any other `SlomoFailure` a route meets)
    /// goes through it (`Reply.refuse(_:)`); only HTTP's own refusals (authentication, origin,
    /// method, size, media type, range) are chosen where they are made, in `Guard` and the routes.
    init(_ kind: FailureKind) {
        switch kind {
        case .badRequest, .badData: self = .badRequest
        case .missing: self = .notFound
        case .conflict: self = .conflict
        case .unavailable, .interrupted: self = .serviceUnavailable
        case .notPermitted: self = .forbidden
        case .cannotCreate, .ioFailed, .bug: self = .internalServerError
        }
    }
}
