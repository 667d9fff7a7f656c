import Foundation
import Hummingbird
import NIOCore
import SlomoCore
import SlomoKit

/// Request bodies: JSON objects read up to the size limit, each field checked by name, so a refusal
/// names the field (`postTrigger: expected seconds…`). Numbers may be JSON numbers or fraction
/// texts ("1/4"); unknown fields are refused, not ignored.
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

    /// The body as a JSON object (an empty body is an empty object).
    static func object(_ bytes: [UInt8]) throws(RigRefusal) -> [String: Any] {
        if bytes.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) { return [:] }
        let value: Any
        do { value = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
            throw RigRefusal(.badRequest, "the body is not JSON: \((error as NSError).userInfo["NSDebugDescription"] as? String ?? "it does not parse")")
        }
        guard let o = value as? [String: Any] else { throw RigRefusal(.badRequest, "the body must be a JSON object") }
        return o
    }

    static func rational(_ o: [String: Any], _ key: String) throws(RigRefusal) -> Rational? {
        guard let v = o[key], !(v is NSNull) else { return nil }
        if let s = v as? String {
            do { return try Rational(parsing: s) } catch { throw .badField(key, "'\(s)' is not a number (0.25, \"1/4\")") }
        }
        if !isBool(v), let n = v as? NSNumber {
            do { return try Rational(parsing: n.stringValue) } catch { throw .badField(key, "\(n) is not a number slomo takes (at most 18 digits)") }
        }
        throw .badField(key, "expected a number (0.25) or a fraction text (\"1/4\")")
    }

    static func integer(_ o: [String: Any], _ key: String) throws(RigRefusal) -> Int? {
        guard let v = o[key], !(v is NSNull) else { return nil }
        guard !isBool(v), let n = v as? NSNumber, let i = Int(exactly: n.doubleValue) else {
            throw .badField(key, "expected a whole number")
        }
        return i
    }

    static func text(_ o: [String: Any], _ key: String) throws(RigRefusal) -> String? {
        guard let v = o[key], !(v is NSNull) else { return nil }
        guard let s = v as? String else { throw .badField(key, "expected a text") }
        return s
    }

    /// JSON true/false (Foundation hands them over as numbers too).
    static func isBool(_ v: Any) -> Bool {
        if v is Bool && !(v is Int) { return true }
        let t = String(describing: type(of: v))
        return t == "Bool" || t.contains("Boolean")
    }

    static func onlyKnown(_ o: [String: Any], _ known: Set<String>) throws(RigRefusal) {
        if let k = o.keys.sorted().first(where: { !known.contains($0) }) {
            throw .badField(k, "not a field here (expected \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// The settings a PATCH (or an arm) names.
    struct SettingsPatch {
        var preTrigger: Rational?, postTrigger: Rational?, shots: Int?, previewFps: Rational?, previewWidth: Int?
        var names: Set<String> = []
        func apply(_ s: inout RigSettings) {
            if let preTrigger { s.preTrigger = preTrigger }
            if let postTrigger { s.postTrigger = postTrigger }
            if let shots { s.shots = shots }
            if let previewFps { s.previewFps = previewFps }
            if let previewWidth { s.previewWidth = previewWidth }
        }
    }

    static func settingsPatch(_ bytes: [UInt8], allowed: Set<String> = ["preTrigger", "postTrigger", "shots", "previewFps", "previewWidth"]) throws(RigRefusal)
        -> SettingsPatch
    {
        let o = try object(bytes)
        try onlyKnown(o, allowed)
        var p = SettingsPatch()
        p.preTrigger = try rational(o, "preTrigger")
        p.postTrigger = try rational(o, "postTrigger")
        p.shots = try integer(o, "shots")
        p.previewFps = try rational(o, "previewFps")
        p.previewWidth = try integer(o, "previewWidth")
        p.names = Set(o.keys)
        return p
    }

    /// `POST /api/v1/shots/{id}/export`: `from` and `to` (frames from the trigger frame) and any
    /// field a batch manifest's export job takes (`rate`, `fps`, `codec`, `frameBlend`, `crf`,
    /// `size`…), decoded by the same table and refused in the same words ("did you mean libx264?").
    /// The server names the input and output and cuts by `from`/`to`: those fields are its own.
    static func exportAsk(_ bytes: [UInt8]) throws(RigRefusal) -> RigExportAsk {
        var o = try object(bytes)
        var a = RigExportAsk()
        a.from = try integer(o, "from")
        a.to = try integer(o, "to")
        o["from"] = nil
        o["to"] = nil
        for k in ["input", "output", "command", "start", "end"] where o[k] != nil {
            throw .badField(k, "the server sets it (from and to choose the frames)")
        }
        for (k, v) in o where v is NSNull { o[k] = nil }
        if o["rate"] == nil { o["rate"] = "1/4" }
        o["input"] = "-"
        o["command"] = "export"
        do { a.job = try Manifest.job(o, place: "export") } catch let e as ManifestError {
            let text = e.wording.dropping(prefix: "export: ").description
            throw RigRefusal(.badRequest, text, field: o.keys.sorted().first { text.hasPrefix($0 + " ") || text.hasPrefix($0 + ":") })
        } catch {
            throw RigRefusal(.badRequest, "\(error)")
        }
        return a
    }

}
