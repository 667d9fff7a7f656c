import Foundation
import SlomoCore

/// Request bodies: JSON objects, each field checked by name, so a refusal names the field
/// (`postTrigger: expected seconds…`). Numbers may be JSON numbers or fraction texts ("1/4");
/// unknown fields are refused, not ignored. The rig's settings (`PATCH settings`, `arm`) are decoded
/// by their table, `RigOption`. Fuzzed through `ParserHarness.requestBody`.
public enum RigRequestBody {
    /// The body as a JSON object (an empty body is an empty object).
    public static func object(_ bytes: [UInt8]) throws(RigRefusal) -> [String: Any] {
        if bytes.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) { return [:] }
        let value: Any
        do { value = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
            throw RigRefusal(.badRequest, "the body is not JSON: \((error as NSError).userInfo["NSDebugDescription"] as? String ?? "it does not parse")")
        }
        guard let o = value as? [String: Any] else { throw RigRefusal(.badRequest, "the body must be a JSON object") }
        return o
    }

    public static func integer(_ o: [String: Any], _ key: String) throws(RigRefusal) -> Int? {
        guard let v = o[key], !(v is NSNull) else { return nil }
        guard !JSONValue.isBool(v), let n = v as? NSNumber, let i = Int(exactly: n.doubleValue) else {
            throw .badField(key, "expected a whole number")
        }
        return i
    }

    /// The rig's settings a PATCH (or, `allowed` narrowed, an arm) names: decoded by their table.
    public static func settingsPatch(_ bytes: [UInt8], allowed: [RigOption] = RigOption.allCases) throws(RigRefusal) -> RigSettings.Patch {
        try RigSettings.patch(object(bytes), allowed: allowed)
    }

    /// `POST /api/v1/shots/{id}/export`: `from` and `to` (frames from the trigger frame), `camera`
    /// (a rig of several: whose file, 1 first; the first camera's when absent) and any
    /// field a batch manifest's export job takes (`rate`, `fps`, `codec`, `frameBlend`, `crf`,
    /// `size`…), decoded by the same table and refused in the same words ("did you mean libx264?").
    /// The server names the input and output and cuts by `from`/`to`: those fields are its own.
    public static func exportAsk(_ bytes: [UInt8]) throws(RigRefusal) -> RigExportAsk {
        var o = try object(bytes)
        var a = RigExportAsk()
        a.from = try integer(o, "from")
        a.to = try integer(o, "to")
        a.camera = try integer(o, "camera")
        if let k = a.camera, k < 1 { throw .badField("camera", "cameras are numbered from 1") }
        for k in ["from", "to", "camera"] { o[k] = nil }
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
