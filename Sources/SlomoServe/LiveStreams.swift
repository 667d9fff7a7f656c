import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import SlomoCore
import SlomoKit

/// The responses that go on while the client stays: the rig's events (Server-Sent Events), the live
/// picture as multipart MJPEG, and the same pictures over a WebSocket. Each client holds one
/// pending picture at most (`LivePictures.watch`); when it stops reading, the socket's own
/// back-pressure stops its loop and newer pictures replace the one it has not taken.
enum LiveStreams {
    static let boundary = "slomoframe"

    static func mjpeg(_ live: LivePictures) -> Response {
        // the viewer is registered once the response is under way (a client gone before leaves nothing behind)
        let body = ResponseBody { writer in
            let (id, pictures) = live.watch()
            defer { live.stopWatching(id) }
            for await p in pictures {
                var b = ByteBuffer()
                b.writeString(
                    "--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(p.jpeg.count)\r\nX-Frame-Index: \(p.frameIndex)\r\nX-Frame-Time: \(p.frameTime)\r\n\r\n"
                )
                b.writeBytes(p.jpeg)
                b.writeString("\r\n")
                try await writer.write(b)
            }
            try await writer.finish(nil)
        }
        var r = Response(status: .ok, body: body)
        r.headers[.contentType] = "multipart/x-mixed-replace; boundary=\(boundary)"
        return r
    }

    /// One binary message per picture: a 4-byte big-endian length, that many bytes of JSON
    /// (`frameIndex`, `sequence`, `frameTime` and `made` as CLOCK_MONOTONIC seconds, `width`,
    /// `height`), then the JPEG.
    static func webSocket(_ live: LivePictures, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (id, pictures) = live.watch()
        defer { live.stopWatching(id) }
        // the client's close (or its going away) ends the pictures, and so this loop
        let reader = Task {
            for try await _ in inbound {}
            live.stopWatching(id)
        }
        defer { reader.cancel() }
        for await p in pictures {
            let header =
                #"{"frameIndex":\#(p.frameIndex),"sequence":\#(p.sequence),"frameTime":\#(seconds(p.frameTime)),"made":\#(seconds(p.made)),"width":\#(p.width),"height":\#(p.height)}"#
            var b = ByteBuffer()
            b.writeInteger(UInt32(header.utf8.count), endianness: .big)
            b.writeString(header)
            b.writeBytes(p.jpeg)
            try await outbound.write(.binary(b))
        }
    }

    /// Seconds with microseconds, for a client's clock arithmetic (display, not exact time).
    static func seconds(_ t: Rational) -> String { String(format: "%.6f", t.doubleValue) }

    static func events(_ rig: Rig) -> Response {
        // everything is set up once the response is under way (a client gone before leaves nothing behind)
        let body = ResponseBody { writer in
            let (id, events) = rig.events()
            // the rig's events and a comment every 10 s, so that a client gone quiet is noticed
            let (lines, c) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(512))
            let forward = Task {
                for await e in events {
                    let data = (try? JSONSchema.line(e, type: "event")) ?? "{}"
                    c.yield("id: \(e.seq)\nevent: \(e.event.rawValue)\ndata: \(data)\n\n")
                }
                c.finish()
            }
            let beat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: 10_000_000_000)
                    c.yield(": keep-alive\n\n")
                }
            }
            defer {
                rig.stopEvents(id)
                forward.cancel()
                beat.cancel()
            }
            let first = (try? JSONSchema.line(rig.status(), type: "status")) ?? "{}"
            try await writer.write(ByteBuffer(string: "retry: 1000\nevent: status\ndata: \(first)\n\n"))
            for await line in lines { try await writer.write(ByteBuffer(string: line)) }
            try await writer.finish(nil)
        }
        var r = Response(status: .ok, body: body)
        r.headers[.contentType] = "text/event-stream"
        r.headers[.cacheControl] = "no-store"
        return r
    }
}
