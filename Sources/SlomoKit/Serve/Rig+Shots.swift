import Foundation
import SlomoCore

/// The rig's shots: the list, one shot's report, its frames as pictures, deleting one.
extension Rig {
    /// The saved shot's report: read from the session's shot event (its sidecar is written later);
    /// `camera`: its camera (0 first) in a rig of several.
    func shotSaved(_ r: ShotReport, camera k: Int?) {
        lock.lock()
        record(r, camera: k)
        lock.unlock()
        warnIfLow()
    }

    /// Lists a shot file under the lock: a rig of one's as it is, a camera's beside the other
    /// cameras' files of the same event (the first camera's fields on top).
    func record(_ r: ShotReport, camera k: Int?) {
        guard let k else {
            saved[r.shot] = RigShot(r)
            return
        }
        var entry = RigShot(r)
        entry.camera = k + 1
        entry.cameraName = cameraName(k)
        var all = (saved[r.shot]?.cameras ?? []).filter { $0.camera != k + 1 } + [entry]
        all.sort { ($0.camera ?? 0) < ($1.camera ?? 0) }
        var top = all[0]
        top.cameras = all
        let times = all.map(\.report.triggerFrameTime)
        top.triggerFrameSpreadMs = ((times.max()! - times.min()!).doubleValue * 1e6).rounded() / 1e3
        saved[r.shot] = top
    }

    /// Camera `k`'s name (0 first): as the operator gave it, else its source's.
    func cameraName(_ k: Int) -> String {
        if k < config.cameraNames.count { return config.cameraNames[k] }
        if let r = running, k < r.names.count { return r.names[k] }
        return "camera \(k + 1)"
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

    /// The shot file's path (inside the output directory): camera `camera`'s (1 first) in a rig of several.
    public func shotPath(_ id: Int, camera: Int? = nil) throws(RigRefusal) -> String { try shot(id).file(camera: camera).report.output }

    /// Frame `n` of shot `id` (0: the trigger frame) as a JPEG, from camera `camera`'s file (1 first).
    public func frameJPEG(shot id: Int, frame n: Int, camera: Int? = nil) throws(RigRefusal) -> [UInt8] {
        let s = try shot(id).file(camera: camera)
        guard n >= s.firstFrame, n <= s.lastFrame else {
            throw RigRefusal(.missing, "shot \(id) has frames \(s.firstFrame)...\(s.lastFrame) (0 is the trigger frame), not \(n)")
        }
        // the frames of the last three shots looked at stay decoded; older ones are let go
        lock.lock()
        let width = machine.settings.previewWidth
        let (p, dropped) = pictures.use(s.report.output) { ShotPictures(path: s.report.output, width: width) }
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
        let files = (s.cameras ?? [s]).map(\.report.output)
        lock.lock()
        saved.removeValue(forKey: id)
        let open = files.compactMap { pictures.remove($0) }
        lock.unlock()
        for p in open { p.cancel() }
        let fm = FileManager.default
        for f in files {
            try? fm.removeItem(atPath: f)
            try? fm.removeItem(atPath: f + ".capture.json")
        }
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
