import Foundation
import SlomoCore
import SlomoFFmpeg

/// The shots an earlier `slomo serve` left in the output directory, so a restarted rig lists,
/// shows and exports them like its own. Each `shotNNNN.mp4|mkv|cine` (a rig of several cameras:
/// `shotNNNN-camK.…`, camera K's file of shot NNNN) is read from its report
/// (`…capture.json`, written when that server stopped); a server that was killed wrote none, and
/// the shot is then read from the tags the file carries from its first byte (`slomo_trigger_frame`,
/// `slomo_shot`, …) and its packets, with a warning saying so. A file that has neither is not
/// listed, and a warning names it: it stays on disk, untouched.
enum EarlierShots {
    static let pattern = try! NSRegularExpression(pattern: #"^shot([0-9]{4,})(-cam([0-9]{1,3}))?\.(mp4|mkv|cine)$"#)

    /// A shot file found: its report and, in a rig of several, its camera (0 first).
    struct Found {
        var report: ShotReport
        var camera: Int?
    }

    /// The shots found, by number, and one sentence for each file that could not be listed.
    static func load(outDir: String) -> (shots: [Found], warnings: [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: outDir)) ?? []
        var shots: [Found] = [], warnings: [String] = []
        // a shot's number (and camera) is its file's: one file per number and camera, and a
        // number is one camera's or several cameras', not both
        var taken: [Int: [Int?: String]] = [:]
        for name in names.sorted() {
            let range = NSRange(name.startIndex..., in: name)
            guard let m = pattern.firstMatch(in: name, range: range), let r = Range(m.range(at: 1), in: name),
                let number = Int(name[r])
            else { continue }
            let camera = Range(m.range(at: 3), in: name).flatMap { Int(name[$0]) }.map { $0 - 1 }
            let path = (outDir as NSString).appendingPathComponent(name)
            if camera == -1 { continue }  // cam0: not a name slomo gives
            let same = taken[number] ?? [:]
            let plain: Int? = nil
            if let other = same[camera] ?? (camera == nil ? same.values.first : same[plain]) {
                warnings.append("\(path): not listed: shot \(number) is \(other) already (the file is kept)")
                continue
            }
            var found: ShotReport
            if let s = fromReport(path, name: name) {
                found = s
            } else {
                do { found = try fromTags(path) } catch {
                    warnings.append("\(path): not listed: no report beside it and \(error) (the file is kept)")
                    continue
                }
            }
            // by the file's own name and place (a file renamed or a directory moved since)
            found.shot = number
            found.output = path
            taken[number, default: [:]][camera] = name
            shots.append(Found(report: found, camera: camera))
        }
        return (shots.sorted { ($0.report.shot, $0.camera ?? 0) < ($1.report.shot, $1.camera ?? 0) }, warnings)
    }

    /// The shot's entry in its `.capture.json` (a triggered capture's report lists every shot of the run).
    static func fromReport(_ path: String, name: String) -> ShotReport? {
        guard let data = FileManager.default.contents(atPath: path + ".capture.json"),
            let report = try? JSONDecoder().decode(CaptureReport.self, from: data)
        else { return nil }
        return report.shots?.first { ($0.output as NSString).lastPathComponent == name }
    }

    struct NotAShot: Error, CustomStringConvertible {
        var description: String
    }

    /// What the file says of itself: slomo's tags and the number of video packets.
    static func fromTags(_ path: String) throws -> ShotReport {
        let d: Demuxer
        do { d = try Demuxer(path: path) } catch { throw NotAShot(description: "it cannot be read (\(error))") }
        let tags = d.metadata
        func tag(_ k: SlomoTag) -> String? { k.value(in: tags) }
        guard let triggerFrame = tag(.triggerFrame).flatMap({ Int($0) }), let video = d.bestStream(.video) else {
            throw NotAShot(description: "the file has no slomo_trigger_frame tag")
        }
        func time(_ k: SlomoTag) -> Rational? { tag(k).flatMap { try? Rational(parsing: $0) } }
        d.keepOnly(streams: [video])
        let packet = Packet()
        var frames: Int64 = 0
        // a killed server leaves the last fragment cut short: the frames before it count
        while (try? d.readPacket(into: packet)) == true { if packet.streamIndex == video { frames += 1 } }
        let pre = tag(.preFrames).flatMap { Int($0) } ?? 0
        let preAsked = tag(.preFramesAsked).flatMap { Int($0) } ?? pre
        let postAsked = tag(.postFramesAsked).flatMap { Int($0) } ?? 0
        let post = Swift.max(0, Int(frames) - triggerFrame - 1)
        let triggerTime = time(.triggerTime) ?? .zero, frameTime = time(.triggerFrameTime) ?? .zero
        let decision = time(.triggerDecisionLatency) ?? .zero
        let latency = frameTime - triggerTime
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
        var warning =
            "its report was not written (the server that saved it did not stop cleanly): read from the file's own tags, without the frames' sequence numbers"
        if pre < preAsked { warning += "; \(pre) of \(preAsked) frames before the trigger frame" }
        if post < postAsked { warning += "; \(post) of \(postAsked) frames after the trigger frame" }
        return ShotReport(
            shot: tag(.shot).flatMap { Int($0) } ?? 0, output: path, trigger: tag(.triggerSource) ?? "api",
            triggerFrame: triggerFrame, leadInFrames: tag(.leadInFrames).flatMap { Int($0) },
            preFrames: pre, postFrames: post, preFramesAsked: preAsked, postFramesAsked: postAsked, framesWritten: frames,
            triggerSequence: 0, firstSequence: 0, lastSequence: 0, sequenceGaps: 0,
            triggerTime: triggerTime, triggerWallTime: tag(.triggerWallTime) ?? "",
            triggerFrameTime: frameTime, latency: latency, latencyMs: latency.doubleValue * 1000,
            decisionLatency: decision, decisionLatencyMs: decision.doubleValue * 1000, triggerOut: nil, motionScore: nil,
            complete: pre >= preAsked && post >= postAsked && frames > 0, bytesWritten: bytes, warning: warning)
    }
}
