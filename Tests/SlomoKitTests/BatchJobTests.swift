import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// A batch job's fingerprint and the checks on its fields.
@Suite struct BatchJobTests {
    /// A batch job's fingerprint: fields added later enter it only when set, so outputs written
    /// before they existed are still recognised as finished (FNV-1a 64 of the original fields).
    @Test func jobKeysOfOlderJobsStayTheSame() {
        var job = BatchJob(input: "/nonexistent/clip.mp4", output: "/tmp/o.mp4", command: .export)
        job.rate = "1/2"
        job.pitch = "spectral"
        let canonical = ["export", "/nonexistent/clip.mp4", "-1", "0.0", "1/2", "", "", "spectral", "", "", "", "", "", "false"].joined(separator: "|")
        var h: UInt64 = 0xcbf29ce484222325
        for b in canonical.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        #expect(job.key() == String(h, radix: 16))
        var flac = job
        flac.audioCodec = "flac"
        #expect(flac.key() != job.key())
        var turned = job
        turned.rotation = "pixels"
        #expect(turned.key() != job.key() && turned.key() != flac.key())
        var curved = job
        curved.curve = "0@1,1@1/4"
        #expect(curved.key() != job.key() && curved.key() != turned.key())
        // another flow quality is another output: the job runs again
        var flow = job
        flow.frameBlend = "flow"
        var fine = flow
        fine.flowQuality = "fine"
        #expect(fine.key() != flow.key() && flow.key() != job.key())
    }

    /// `curve` from a manifest: checked like `--curve`, passed to the use case, taken by every command.
    @Test func curveIsValidatedAndPassed() throws {
        let jobs = try Manifest.parse(Data(#"[{"input": "a.mp4", "output": "o.mp4", "curve": "0@1,1@1/4,2@1"}]"#.utf8), format: "json", path: "m.json")
        #expect(jobs.first?.curve == "0@1,1@1/4,2@1")
        try jobs[0].validate(where: "m.json:1")
        #expect(try JobRun(job: jobs[0]).exportRequest().spec.curve == SpeedCurve(parsing: "0@1,1@1/4,2@1"))
        var bad = jobs[0]
        bad.curve = "0@1,2@1/2,1@1"
        #expect(throws: ManifestError.self) { try bad.validate(where: "m.json:1") }
        var stretch = jobs[0]
        stretch.command = .stretch  // stretch follows a curve too
        try stretch.validate(where: "m.json:1")
    }

    /// A manifest's `rate` is refused as the field, with the rate typed so a front end names it its way.
    @Test func aBadRateIsNamedAsTheRateSetting() {
        var job = BatchJob(input: "in.mp4", output: "o.mkv", command: .export)
        job.rate = "0"
        do {
            try job.validate(where: "m.json:1")
            Issue.record("rate 0 was accepted")
        } catch {
            #expect(error.description.hasSuffix("rate '0': rate must be > 0, got 0"), "\(error)")
        }
        #expect(throws: RetimeError.invalidRate("\(Setting.rate) '0'", reason: "rate must be > 0, got 0")) { try JobRun(job: job) }
    }

    /// `rotation` is an export option: checked, and refused for the commands that copy video or have none.
    @Test func rotationIsValidatedAndExportOnly() throws {
        var job = BatchJob(input: "in.mp4", output: "o.mkv", command: .export)
        job.rotation = "pixels"
        try job.validate(where: "m:1")
        #expect(try JobRun(job: job).exportRequest().rotation == .pixels)
        job.rotation = "sideways"
        #expect(throws: ManifestError.self) { try job.validate(where: "m:1") }
        for command in [BatchJob.Command.retime, .stretch] {
            var other = BatchJob(input: "in.mp4", output: "o.mkv", command: command)
            other.rotation = "auto"
            #expect(throws: ManifestError.self) { try other.validate(where: "m:1") }
        }
    }

    /// A field the job's command does not take is refused by name, from `JobOption.commands`
    /// (a stretch job's `noAudio` used to be accepted and ignored).
    @Test func fieldsTheCommandDoesNotTakeAreRefused() throws {
        var job = BatchJob(input: "in.wav", output: "o.wav", command: .stretch)
        job.noAudio = true
        #expect { try job.validate(where: "m:1") } throws: { "\($0)".contains("m:1: noAudio does not apply to stretch") }
        job.noAudio = false
        job.rate = "1/2"
        try job.validate(where: "m:1")
    }
}
