import Foundation
import SlomoCore
import SlomoSystem

/// Why a capture could not start, or stopped.
public enum CaptureError: SlomoFailure, Sendable {
    /// This build has no V4L2 capture.
    /// `--trigger signal` in a process whose application did not take its signals (`ProcessSignals.own()`).
    case signalsNotOwned(source: String)
    /// The network trigger's port cannot be listened on (in use, a privileged port, no such address).
    case triggerPortUnavailable(endpoint: String, errno: Int32)
    /// A trigger message could not be sent.
    case triggerSendFailed(endpoint: String, errno: Int32)
    /// A GPIO trigger's chip or line is missing, held by another program, or refused.
    case gpio(String, GPIOError)
    /// The recording's container cannot hold the chosen video codec.
    case codecNotInContainer(output: String, codec: String, container: String)
    /// The container refused to say what it holds.
    case containerRefused(output: String, Wording)
    case rawFormatUnsupported(source: String, fourcc: String)
    /// The sound's encoder was not prepared (a slomo bug).
    case noSoundEncoder(output: String)
    case syncFailed(output: String, errno: Int32)
    /// This FFmpeg lacks the encoder behind the sound codec asked for.
    case soundEncoderMissing(codec: String, encoder: String)
    case soundCodecNotInContainer(codec: String, container: String, codecName: String, output: String)
    /// The ring cannot hold the pre-trigger frames and 8 more.
    case ringTooSmall(slots: Int, preTrigger: Rational, preFrames: Int)
    /// The ring would take more memory than there is (`mode`: `YUYV 640x480 100 fps`).
    case ringTooLarge(source: String, trigger: (pre: Rational, post: Rational)?, mode: String, plan: RingPlan, availableBytes: Int64)
    /// `--takes`: the takes asked for, each `bytes` long, beside the ring, need more memory than
    /// there is (`fit`: how many would).
    case takesTooLarge(source: String, takes: Int, bytes: Int64, fit: Int, availableBytes: Int64)
    case motionNeedsRawFrames(source: String, fourcc: String)
    case regionOutsideFrame(region: PixelRegion, width: Int, height: Int)
    case previewNeedsIntraFrames(fourcc: String)
    /// Cameras on one event at different rates.
    case ratesDiffer(camera: String, rate: Rational?, first: String, firstRate: Rational)
    /// Writing failed after `frames` frames; the file plays up to its last complete fragment.
    case stopped(output: String, frames: Int64, cause: Wording, errno: Int32?, report: String?)
    /// The synthetic test source failed (a slomo bug or a missing encoder).
    case synthetic(Wording)

    public var systemErrno: Int32? {
        switch self {
        case .syncFailed(_, let e): return e
        case .stopped(_, _, _, let e, _): return e
        default: return nil
        }
    }

    public var kind: FailureKind {
        switch self {
        case .signalsNotOwned, .soundEncoderMissing, .ratesDiffer, .triggerPortUnavailable: return .unavailable
        case .triggerSendFailed: return .ioFailed
        case .gpio(_, let e):
            switch e {
            case .noSuchChip, .noSuchLine: return .missing
            case .lineBusy: return .unavailable
            case .system(_, let errno): return errno == Errno(EACCES) || errno == Errno(EPERM) ? .notPermitted : .unavailable
            }
        case .rawFormatUnsupported: return .badData
        case .noSoundEncoder, .synthetic: return .bug
        case .syncFailed, .stopped: return .ioFailed
        default: return .badRequest
        }
    }

    public var wording: Wording {
        switch self {
        case .triggerPortUnavailable(let e, let errno):
            return "udp://\(e): cannot listen for triggers: \(Errno(errno))"
                + (errno == EADDRINUSE ? " (another program, or another slomo, has this port)" : "")
        case .triggerSendFailed(let e, let errno): return "udp://\(e): cannot send the trigger: \(Errno(errno))"
        case .gpio(let spec, let e):
            switch e {
            case .noSuchChip(let chip, let available):
                let there = available.isEmpty ? "this machine has none" : "there are: " + available.joined(separator: ", ")
                return "\(spec): no GPIO chip '\(chip)' (\(there))"
            case .noSuchLine(let chip, let line, let lines):
                return "\(spec): \(chip) has no line '\(line)' (it has \(lines): 0...\(lines - 1), or a line's name)"
            case .lineBusy(let chip, let line, let consumer):
                let who = consumer.isEmpty ? "another program" : "'\(consumer)'"
                return "\(spec): line \(line) of \(chip) is held by \(who)"
            case .system(let what, let errno): return "\(spec): \(what) failed: \(errno)"
            }
        case .signalsNotOwned(let source):
            return "\(source): a SIGUSR1 trigger needs the application to own the process's signals (ProcessSignals.own() at the start of main)"
        case .codecNotInContainer(let output, let codec, let container):
            return "\(output): \(Setting.codec) \(codec) cannot be stored in \(container == "mp4" ? "MP4" : container) (use .mkv, .mov or .nut)"
        case .containerRefused(let output, let why): return "\(output): \(why)"
        case .rawFormatUnsupported(let source, let fourcc): return "\(source): raw format \(fourcc) is not supported for recording"
        case .noSoundEncoder(let output): return "\(output): no encoder for the sound"
        case .syncFailed(let output, let e):
            return "\(output): fdatasync failed: \(OutputFile.systemWords(e))"
        case .soundEncoderMissing(let codec, let encoder): return "\(Setting.audioCodec) \(codec): this FFmpeg has no \(encoder) encoder"
        case .soundCodecNotInContainer(let codec, let container, let name, let output):
            return "\(Setting.audioCodec) \(codec): \(container) cannot hold \(name) audio (\(output))"
        case .ringTooSmall(let slots, let pre, let preFrames):
            return "\(Setting.ringMemory): \(slots) frames cannot hold \(Setting.preTrigger) \(Seconds(pre)) s (\(preFrames) frames) and 8 more"
        case .ringTooLarge(let source, let trigger, let mode, let plan, let available):
            let what: Wording =
                trigger.map { "\(Setting.preTrigger) \(Seconds($0.pre)) s + \(Setting.postTrigger) \(Seconds($0.post)) s" } ?? "the capture ring"
            return "\(source): \(what) at \(mode) needs \(plan.slots) frames × \(plan.slotBytes) bytes = \(Int(plan.mebibytes)) MiB of RAM; "
                + "only \(available >> 20) MiB are available (keep 256 MiB free): shorten it or lower the size or rate"
        case .takesTooLarge(let source, let takes, let bytes, let fit, let available):
            return "\(source): \(Setting.takes) \(takes) needs \(takes) × \(bytes >> 20) MiB of RAM beside the ring; "
                + "only \(available >> 20) MiB are available (keep 1 GiB free): \(fit) take\(fit == 1 ? "" : "s") fit"
        case .motionNeedsRawFrames(let source, let fourcc):
            return "\(source): \(Setting.trigger) motion reads raw frames; \(fourcc) is compressed (pick a raw \(Setting.format) such as YUYV)"
        case .regionOutsideFrame(let r, let w, let h): return "\(Setting.triggerRegion) \(r.description): outside the \(w)x\(h) frame"
        case .previewNeedsIntraFrames(let fourcc):
            return "\(Setting.preview): \(fourcc) cameras are not previewed (their frames need the ones before them); use a raw or MJPEG format"
        case .ratesDiffer(let camera, let rate, let first, let firstRate):
            let other = rate.map { "\(DecimalText.fps($0)) fps" } ?? "an unknown rate"
            return "\(camera): runs at \(other), \(first) at \(DecimalText.fps(firstRate)) fps: "
                + "cameras on one event must run at one rate (choose it with \(Setting.fps), and a size both reach)"
        case .stopped(let output, let frames, let cause, _, let report):
            return
                "\(output): recording stopped after \(frames) frames: \(cause); the file plays up to its last complete fragment\(report.map { "; \($0)" } ?? "")"
        case .synthetic(let why): return why
        }
    }
}

extension CaptureSession {
    /// A recording stopped by a failed write: named once, with the system's words for a full disk.
    static func stopped(_ output: String, frames: Int64, _ e: Error, report: String? = nil) -> CaptureError {
        let cause: Wording = "\(e)"
        let code = (e as? any SlomoFailure)?.systemErrno
        return .stopped(
            output: output, frames: frames,
            cause: code == ENOSPC ? "no space left on the device (ENOSPC)" : cause.dropping(prefix: "\(output): "),  // named once, at the start
            errno: code, report: report)
    }
}
