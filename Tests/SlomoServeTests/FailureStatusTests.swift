import Foundation
import HTTPTypes
import Testing
import SlomoCore
import SlomoKit
@testable import SlomoServe

/// The one table from a failure's kind to the HTTP status the server answers with, and the
/// statuses the API documents for the rig's refusals (Docs/Serve.md).
struct FailureStatusTests {
    @Test func everyKindHasAnErrorStatus() {
        for kind in FailureKind.allCases {
            let status = HTTPResponse.Status(kind)
            #expect((400..<600).contains(status.code), "\(kind): \(status)")
        }
    }

    @Test(arguments: [
        (FailureKind.badRequest, 400), (.missing, 404), (.conflict, 409), (.unavailable, 503), (.notPermitted, 403), (.bug, 500),
    ])
    func theRigsRefusals(kind: FailureKind, code: Int) { #expect(HTTPResponse.Status(kind).code == code) }

    @Test func aRefusalIsAnsweredByItsKind() {
        #expect(Reply.refuse(RigRefusal.badField("preTrigger", "must be at most 60 s")).status == .badRequest)
        #expect(Reply.refuse(RigRefusal(.conflict, "not armed: arm first")).status == .conflict)
        #expect(Reply.refuse(RigRefusal(.missing, "no shot 7")).status == .notFound)
        // any library failure a route meets, by the same table
        #expect(Reply.refuse(SettingError(.codec, "libx264x", "no such encoder")).status == .badRequest)
    }

    @Test func aFieldRefusalNamesItsField() {
        let r = RigRefusal.badField("postTrigger", "preTrigger and postTrigger cannot both be 0")
        #expect(r.kind == .badRequest && r.field == "postTrigger")
        #expect(r.message == "postTrigger: preTrigger and postTrigger cannot both be 0")
        #expect(r.wording.parts.first == .setting(.postTrigger), "the field stays a typed setting")
    }
}
