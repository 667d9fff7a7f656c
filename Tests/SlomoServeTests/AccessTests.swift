import Foundation
import Testing
import SlomoCore
import SlomoKit
@testable import SlomoServe

/// The server's pure checks: where it listens, the Host names it answers to, tokens, ranges, bodies.
struct AccessTests {
    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080), (":0", "127.0.0.1", 0), ("0.0.0.0:80", "0.0.0.0", 80),
        ("[::1]:9000", "::1", 9000), ("rig.local:8080", "rig.local", 8080),
    ])
    func listenAddresses(text: String, host: String, port: Int) {
        let l = ServeAccess.parseListen(text)
        #expect(l?.host == host && l?.port == port, "\(text)")
    }

    @Test(arguments: ["8080", "127.0.0.1", "127.0.0.1:70000", "127.0.0.1:x", "[::1]8080", "a b:80"])
    func badListenAddresses(text: String) { #expect(ServeAccess.parseListen(text) == nil, "\(text)") }

    @Test func loopback() {
        for h in ["127.0.0.1", "127.1.2.3", "localhost", "::1"] { #expect(ServeAccess.isLoopback(h), "\(h)") }
        for h in ["0.0.0.0", "10.0.0.2", "127.0.0", "128.0.0.1", "::", "rig.local", "127.0.0.1.evil"] { #expect(!ServeAccess.isLoopback(h), "\(h)") }
    }

    @Test func hostNamesDefeatRebinding() {
        let a = ServeAccess(host: "0.0.0.0", port: 0, token: "t", allowedHosts: ["rig.lab"])
        for h in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST:8080", "rig.lab:8080", "127.0.0.1", "0.0.0.0:8080"] {
            #expect(a.hostAllowed(h, boundPort: 8080), "\(h)")
        }
        for h in ["evil.example:8080", "127.0.0.1:8081", "rig.lab.evil.example:8080", "127.0.0.1:x", "", "[::1", "localhost.:8080"] {
            #expect(!a.hostAllowed(h, boundPort: 8080), "\(h)")
        }
        #expect(!a.hostAllowed(nil, boundPort: 8080))
    }

    @Test func tokensCompareWhole() {
        #expect(ServeAccess.same("abc", "abc"))
        #expect(!ServeAccess.same("abc", "abd"))
        #expect(!ServeAccess.same("abc", "abcd"))
        #expect(!ServeAccess.same("", "a"))
    }

    @Test func ranges() {
        #expect(ByteRange.parse("bytes=0-99", size: 1000) == .range(0...99))
        #expect(ByteRange.parse("bytes=900-", size: 1000) == .range(900...999))
        #expect(ByteRange.parse("bytes=-100", size: 1000) == .range(900...999))
        #expect(ByteRange.parse("bytes=-5000", size: 1000) == .range(0...999))
        #expect(ByteRange.parse("bytes=990-2000", size: 1000) == .range(990...999))
        #expect(ByteRange.parse("bytes=1000-", size: 1000) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=5-2", size: 1000) == nil)  // invalid: ignored, the whole file
        #expect(ByteRange.parse("bytes=-", size: 1000) == nil)
        #expect(ByteRange.parse("bytes=x-5", size: 1000) == nil)
        #expect(ByteRange.parse("bytes=10-99999999999999999999999", size: 1000) == .range(10...999))
        #expect(ByteRange.parse("bytes=99999999999999999999999-", size: 1000) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-1,5-9", size: 1000) == nil)  // several ranges: the whole file
        #expect(ByteRange.parse("items=0-1", size: 1000) == nil)
        #expect(ByteRange.parse(nil, size: 1000) == nil)
    }

    @Test func bodiesNameTheirField() throws {
        let p = try RigRequestBody.settingsPatch(Array(#"{"preTrigger": 0.25, "postTrigger": "1/3", "shots": 2}"#.utf8))
        #expect(p.preTrigger == Rational(1, 4) && p.postTrigger == Rational(1, 3) && p.shots == 2 && p.names == ["preTrigger", "postTrigger", "shots"])
        #expect(try RigRequestBody.settingsPatch(Array("  ".utf8)).names.isEmpty)
        for (body, field) in [
            (#"{"shots": true}"#, "shots"), (#"{"shots": 1.5}"#, "shots"), (#"{"preTrigger": "soon"}"#, "preTrigger"),
            (#"{"preTrigger": [1]}"#, "preTrigger"), (#"{"colour": 1}"#, "colour"),
        ] {
            #expect(throws: RigRefusal.self) { try RigRequestBody.settingsPatch(Array(body.utf8)) }
            do { _ = try RigRequestBody.settingsPatch(Array(body.utf8)) } catch { #expect(error.field == field, "\(body): \(error)") }
        }
        do {
            _ = try RigRequestBody.settingsPatch(Array("{".utf8))
            Issue.record("accepted")
        } catch { #expect(error.message.hasPrefix("the body is not JSON")) }
        do {
            _ = try RigRequestBody.settingsPatch(Array("[]".utf8))
            Issue.record("accepted")
        } catch { #expect(error.message == "the body must be a JSON object") }
        let e = try RigRequestBody.exportAsk(Array(#"{"from": -8, "to": 8, "rate": "1/4", "pitch": "mute", "fps": 60}"#.utf8))
        #expect(e.from == -8 && e.to == 8 && e.job.rate == "1/4" && e.job.pitch == "mute" && e.job.fps == "60")
        // a batch manifest's export fields, by the same table; the rate defaults to 1/4
        let f = try RigRequestBody.exportAsk(Array(#"{"codec": "prores_ks", "frameBlend": "flow", "crf": null}"#.utf8))
        #expect(f.job.codec == "prores_ks" && f.job.frameBlend == "flow" && f.job.rate == "1/4" && f.from == nil)
        // what the server decides, and a field no manifest has, are refused by name
        for (body, field, words) in [
            (#"{"output": "/etc/x.mp4"}"#, "output", "the server sets it"),
            (#"{"frameblend": "flow"}"#, nil, "unknown field 'frameblend' (did you mean 'frameBlend'?)"),
        ] {
            do {
                _ = try RigRequestBody.exportAsk(Array(body.utf8))
                Issue.record("accepted \(body)")
            } catch {
                #expect(error.field == field && error.message.contains(words), "\(body): \(error)")
            }
        }
    }

    /// The API's description of an export names exactly the fields the option table gives export
    /// jobs, beside the server's own `from`, `to` and `camera`.
    @Test func theExportSchemaIsTheOptionTable() throws {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(PageFiles.openAPI)) as? [String: Any])
        let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let export = try #require((schemas["Export"] as? [String: Any])?["properties"] as? [String: Any])
        let table = JobOption.allCases.filter { $0.commands.contains(.export) && $0 != .start && $0 != .end }.map(\.field)
        #expect(Set(export.keys) == Set(table + ["from", "to", "camera"]), "\(export.keys.sorted())")
    }

    /// openapi.json's `Settings` and `Arm` are the rig's option table: every row, its range.
    @Test func theSettingsSchemasAreTheRigOptionTable() throws {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(PageFiles.openAPI)) as? [String: Any])
        let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let settings = try #require((schemas["Settings"] as? [String: Any])?["properties"] as? [String: [String: Any]])
        let arm = try #require((schemas["Arm"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(Set(settings.keys) == Set(RigOption.allCases.map(\.field)), "\(settings.keys.sorted())")
        #expect(Set(arm.keys) == Set(RigOption.allCases.filter(\.armTakes).map(\.field)), "\(arm.keys.sorted())")
        for o in RigOption.allCases {
            let p = try #require(settings[o.field])
            switch o.kind {
            case .seconds, .rate: #expect(p["$ref"] as? String == "#/components/schemas/Rational", "\(o)")
            case .count, .pixels:
                #expect(p["type"] as? String == "integer" && (p["minimum"] as? Int).map { Rational($0) } == o.lowest, "\(o)")
                #expect((p["maximum"] as? Int).map { Rational($0) } == o.highest, "\(o): maximum")
            }
        }
    }

    @Test func settingsRanges() {
        #expect(throws: Never.self) { try RigSettings().check() }
        for (s, field) in [
            (RigSettings(preTrigger: Rational(-1)), "preTrigger"), (RigSettings(postTrigger: Rational(3601)), "postTrigger"),
            (RigSettings(preTrigger: .zero, postTrigger: .zero), "postTrigger"), (RigSettings(shots: -1), "shots"),
            (RigSettings(previewFps: .zero), "previewFps"), (RigSettings(previewWidth: 10), "previewWidth"),
        ] {
            do {
                try s.check()
                Issue.record("accepted \(s)")
            } catch { #expect(error.field == field) }
        }
    }
}
