import Foundation
import SlomoCore

/// The rig's shots: the list, one shot's report, its frames as pictures, deleting one.
extension Rig {
    /// The saved shot's report: read from the session's shot event (its sidecar is written later).
    func shotSaved(_ r: ShotReport) {
        let entry = RigShot(r)
        lock.lock()
        saved[r.shot] = entry
        lock.unlock()
        warnIfLow()
    }

    public func shots() -> [RigShot] {
        lock.lock()
        defer { lock.unlock() }
        return saved.values.sorted { $0.id < $1.id }
    }

    public func shot(_ id: Int) throws(RigRefusal) -> RigShot {
        lock.lock()
        defer { lock.unlock() }
        guard let s = saved[id] else { throw RigRefusal(.missing, "no shot \(id)\(machine.inFlight.shots[id] != nil ? " yet: it is still being saved" : "")") }
        return s
    }

    /// The shot file's path (inside the output directory).
    public func shotPath(_ id: Int) throws(RigRefusal) -> String { try shot(id).report.output }

    /// Frame `n` of shot `id` (0: the trigger frame) as a JPEG.
    public func frameJPEG(shot id: Int, frame n: Int) throws(RigRefusal) -> [UInt8] {
        let s = try shot(id)
        guard n >= s.firstFrame, n <= s.lastFrame else {
            throw RigRefusal(.missing, "shot \(id) has frames \(s.firstFrame)...\(s.lastFrame) (0 is the trigger frame), not \(n)")
        }
        // the frames of the last three shots looked at stay decoded; older ones are let go
        lock.lock()
        let width = machine.settings.previewWidth
        let (p, dropped) = pictures.use(id) { ShotPictures(path: s.report.output, width: width) }
        lock.unlock()
        for d in dropped { d.cancel() }
        do {
            guard let j = try p.picture(n + s.report.triggerFrame) else { throw RigRefusal(.missing, "shot \(id) has no decodable frame \(n)") }
            return j
        } catch let r as RigRefusal { throw r } catch {
            throw RigRefusal(.unavailable, "shot \(id): \(exports.redacted("\(error)"))")
        }
    }

    /// `DELETE /api/v1/shots/{id}`: the file and its report; refused while an export reads it.
    public func delete(shot id: Int) throws(RigRefusal) {
        let s = try shot(id)
        if exports.busy(shot: id) {
            throw RigRefusal(.conflict, "shot \(id) is being exported: delete it when the export is done")
        }
        lock.lock()
        saved.removeValue(forKey: id)
        let p = pictures.remove(id)
        lock.unlock()
        p?.cancel()
        let fm = FileManager.default
        try? fm.removeItem(atPath: s.report.output)
        try? fm.removeItem(atPath: s.report.output + ".capture.json")
        emit(.shot, shot: id, message: "deleted")
    }
}

extension RigShot {
    /// The entry of a saved shot, from its report.
    init(_ r: ShotReport) {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: r.output)[.size] as? Int64) ?? r.bytesWritten
        self.init(
            id: r.shot, file: (r.output as NSString).lastPathComponent, bytes: bytes, frames: r.framesWritten,
            firstFrame: -r.triggerFrame, lastFrame: Int(r.framesWritten) - 1 - r.triggerFrame, preFrames: r.preFrames,
            postFrames: r.postFrames, complete: r.complete, triggerWallTime: r.triggerWallTime, warning: r.warning, report: r)
    }
}
