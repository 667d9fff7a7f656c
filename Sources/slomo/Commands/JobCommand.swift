import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

/// A batch's child process: one typed job request (`JobRequest`, JSON) on stdin, typed JSON Lines
/// on stdout (`ProgressEvent`s, then one `JobResult`), the usual exit status. A crash or a kill
/// takes only this process down; `slomo batch` records the job as failed and goes on.
struct JobCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "job",
        abstract: "Run one batch job read as JSON from stdin (what slomo batch starts for each job).",
        discussion: """
            Input: {"job": {"input", "output", "command", …manifest fields…}, "threads": N, "key": FINGERPRINT}. \
            Output on stdout: {"event": "progress", "done", "total"} lines, then {"event": "result", "status", \
            "exitStatus", "error", "frames", "warnings"} (Docs/JSON.md).
            """,
        shouldDisplay: false)

    func run() throws {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        let request: JobRequest
        do { request = try JSONDecoder().decode(JobRequest.self, from: data) } catch {
            throw CommandLineError("job: stdin is not a job request (JSON with job, threads and key): \(String(describing: error).prefix(200))", .badData)
        }
        do {
            try request.job.validate(where: "job")  // a manifest's wording, as batch checked it
            var run = try JobRun(job: request.job)
            run.overwrite = true
            run.threads = request.threads
            run.jobKey = request.key
            var throttle = ProgressThrottle()
            let result = try run.run { done, total in
                guard throttle.due(done, total), let line = try? JSONSchema.line(ProgressEvent(done: done, total: total), type: "progress") else { return }
                Self.send(line)
            }
            Self.send(try JSONSchema.line(result, type: "result"))
        } catch {
            let failure = CLIFailure(error)
            if let line = try? JSONSchema.line(JobResult(failure: failure.message, exitStatus: failure.status), type: "result") { Self.send(line) }
            throw failure
        }
    }

    /// One line on stdout at once (not through stdio's buffer, which holds a pipe's output for
    /// kilobytes: batch's progress would only move when a job ends).
    static func send(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
