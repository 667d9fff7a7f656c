import Foundation
import Hummingbird
import NIOCore

/// Request bodies' bytes, read up to the size limit; what they say is decoded by `RigRequestBody`
/// (SlomoKit, where the fuzzer reaches it without a server).
enum Body {
    /// The body's bytes (empty when there is none).
    static func read(_ request: Request, limit: Int) async throws -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge)  // a chunked body with no Content-Length, over the limit
        }
    }
}
