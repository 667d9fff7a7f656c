internal import CALSA
#if canImport(Glibc)
    import Glibc
#endif
import SlomoCore

/// An ALSA failure: the device, the call, and ALSA's own text (`snd_strerror`).
public struct ALSAError: SlomoFailure, Sendable {
    public var device: String
    public var operation: String
    /// The negative errno ALSA returned (0 when the failure is not an errno).
    public var code: Int32
    public var detail: String

    public init(device: String, operation: String, code: Int32, detail: String = "") {
        self.device = device
        self.operation = operation
        self.code = code
        self.detail = detail
    }

    public var description: String {
        let cause = code != 0 ? String(cString: snd_strerror(code)) : ""
        return "\(device): \(operation)" + (cause.isEmpty ? "" : ": \(cause)") + (detail.isEmpty ? "" : " (\(detail))")
    }

    /// ALSA passes system errors on as -errno; its own codes (SND_ERROR_*) are not errnos.
    public var systemErrno: Int32? { Self.errnoPassedOn(code) }

    /// No such card: missing; busy: unavailable; refused parameters: a bad request; else I/O.
    public var kind: FailureKind {
        switch -code {
        case ENOENT, ENODEV, ENXIO: return .missing
        case EBUSY: return .unavailable
        case EINVAL: return .badRequest
        case EACCES, EPERM: return .notPermitted
        default: return .ioFailed
        }
    }

    public var wording: Wording { Wording(verbatim: description) }
}

/// What one read gave: `frames` frames, and the capture position (frames since the stream began,
/// the frames just read included) that the kernel timestamp `time` belongs to, when ALSA gave one.
public struct PCMRead: Sendable {
    public var frames: Int
    public var stampPosition: Int64?
    public var time: Rational?
}

/// A capture PCM (`snd_pcm_open` … `SND_PCM_STREAM_CAPTURE`), interleaved signed 16-bit samples,
/// with CLOCK_MONOTONIC status timestamps — V4L2's buffer clock — so samples can be placed on the
/// video's timeline (see `Docs/Capture.md`, "Sound"). Confined to one thread after `start`.
public final class PCMCapture {
    public let device: String
    public let rate: Int
    public let channels: Int
    public let periodFrames: Int
    public let bufferFrames: Int
    /// One sentence per difference between the request and what the card set (rate rounded…).
    public private(set) var adjustments: [String] = []
    private var pcm: OpaquePointer?
    private var framesRead: Int64 = 0
    /// Overruns recovered from (each loses the samples the card could not hold).
    public private(set) var overruns = 0

    /// Opens and configures the device. `rate`/`channels` nil: the card's own (48 kHz if it
    /// offers it, else its nearest; 2 channels if offered, else its minimum).
    public init(device: String, rate wantedRate: Int?, channels wantedChannels: Int?) throws(ALSAError) {
        self.device = device
        let c = try PCMCapture.configure(device, rate: wantedRate, channels: wantedChannels)
        pcm = c.pcm
        rate = c.rate
        channels = c.channels
        periodFrames = c.period
        bufferFrames = c.buffer
        if wantedRate == nil && rate != 48_000 { adjustments.append("48000 Hz not offered: capturing at \(rate) Hz") }
    }

    /// Opens the PCM and sets its hardware and software parameters; closes it again on a failure.
    private static func configure(_ device: String, rate wantedRate: Int?, channels wantedChannels: Int?) throws(ALSAError)
        -> (pcm: OpaquePointer, rate: Int, channels: Int, period: Int, buffer: Int)
    {
        calsa_quiet_errors()
        var p: OpaquePointer?
        let rc = snd_pcm_open(&p, device, SND_PCM_STREAM_CAPTURE, 0)
        guard rc == 0, let p else { throw ALSAError(device: device, operation: "cannot open the sound device for capture", code: rc) }
        var hw: OpaquePointer?
        snd_pcm_hw_params_malloc(&hw)
        defer { snd_pcm_hw_params_free(hw) }
        func check(_ r: Int32, _ what: String, _ detail: String = "") throws(ALSAError) {
            if r < 0 {
                snd_pcm_close(p)
                throw ALSAError(device: device, operation: what, code: r, detail: detail)
            }
        }
        try check(snd_pcm_hw_params_any(p, hw), "snd_pcm_hw_params_any")
        try check(snd_pcm_hw_params_set_access(p, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access")
        try check(
            snd_pcm_hw_params_set_format(p, hw, SND_PCM_FORMAT_S16_LE), "16-bit signed samples (S16_LE)",
            PCMCapture.offeredFormats(p))
        var cmin: UInt32 = 0, cmax: UInt32 = 0
        snd_pcm_hw_params_get_channels_min(hw, &cmin)
        snd_pcm_hw_params_get_channels_max(hw, &cmax)
        let ch = wantedChannels.map(UInt32.init) ?? (cmin <= 2 && 2 <= cmax ? 2 : cmin)
        try check(snd_pcm_hw_params_set_channels(p, hw, ch), "\(ch) channels", "the card offers \(cmin)...\(cmax)")
        var rmin: UInt32 = 0, rmax: UInt32 = 0
        var dir: Int32 = 0
        snd_pcm_hw_params_get_rate_min(hw, &rmin, &dir)
        snd_pcm_hw_params_get_rate_max(hw, &rmax, &dir)
        if let wantedRate {
            try check(snd_pcm_hw_params_set_rate(p, hw, UInt32(wantedRate), 0), "\(wantedRate) Hz", "the card offers \(rmin)...\(rmax) Hz")
        } else {
            var r: UInt32 = 48_000
            dir = 0
            try check(snd_pcm_hw_params_set_rate_near(p, hw, &r, &dir), "a sample rate near 48000 Hz", "the card offers \(rmin)...\(rmax) Hz")
        }
        // periods of ~5 ms (a timestamp each), a buffer of 32 of them (~160 ms) to ride out scheduling
        var period = snd_pcm_uframes_t(max(32, (wantedRate ?? 48_000) / 200))
        dir = 0
        try check(snd_pcm_hw_params_set_period_size_near(p, hw, &period, &dir), "period size")
        var buffer = period * 32
        try check(snd_pcm_hw_params_set_buffer_size_near(p, hw, &buffer), "buffer size")
        try check(snd_pcm_hw_params(p, hw), "snd_pcm_hw_params")
        var gotRate: UInt32 = 0
        dir = 0
        snd_pcm_hw_params_get_rate(hw, &gotRate, &dir)
        var gotChannels: UInt32 = 0
        snd_pcm_hw_params_get_channels(hw, &gotChannels)
        snd_pcm_hw_params_get_period_size(hw, &period, &dir)
        snd_pcm_hw_params_get_buffer_size(hw, &buffer)

        // timestamps on every status update, from CLOCK_MONOTONIC
        var sw: OpaquePointer?
        snd_pcm_sw_params_malloc(&sw)
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(p, sw), "snd_pcm_sw_params_current")
        try check(snd_pcm_sw_params_set_tstamp_mode(p, sw, SND_PCM_TSTAMP_ENABLE), "timestamps (SND_PCM_TSTAMP_ENABLE)")
        try check(snd_pcm_sw_params_set_tstamp_type(p, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC), "CLOCK_MONOTONIC timestamps")
        try check(snd_pcm_sw_params_set_avail_min(p, sw, period), "avail_min")
        try check(snd_pcm_sw_params(p, sw), "snd_pcm_sw_params")
        try check(snd_pcm_prepare(p), "snd_pcm_prepare")
        return (p, Int(gotRate), Int(gotChannels), Int(period), Int(buffer))
    }

    deinit { close() }

    public func close() {
        if let p = pcm {
            snd_pcm_drop(p)
            snd_pcm_close(p)
        }
        pcm = nil
    }

    /// Starts capturing (the first read would too; explicit so the caller knows when).
    public func start() throws(ALSAError) {
        guard let p = pcm else { return }
        let r = snd_pcm_start(p)
        if r < 0 { throw ALSAError(device: device, operation: "snd_pcm_start", code: r) }
    }

    /// Reads up to `frames` frames (blocks until at least one period is there). An overrun is
    /// recovered from (`overruns` counts it) and reported as `overrun: true` with 0 frames; the
    /// caller fills the gap from the timestamps.
    public func read(into buffer: UnsafeMutablePointer<Int16>, frames: Int) throws(ALSAError) -> (PCMRead, overrun: Bool) {
        guard let p = pcm else { throw ALSAError(device: device, operation: "read", code: -EBADF) }
        let n = snd_pcm_readi(p, buffer, snd_pcm_uframes_t(frames))
        if n < 0 {
            let e = Int32(n)
            if e == -EPIPE || e == -ESTRPIPE {
                overruns += 1
                let r = snd_pcm_recover(p, e, 1)
                if r < 0 { throw ALSAError(device: device, operation: "recovering from an overrun", code: r) }
                _ = snd_pcm_start(p)
                return (PCMRead(frames: 0), true)
            }
            if e == -EAGAIN || e == -EINTR { return (PCMRead(frames: 0), false) }
            throw ALSAError(device: device, operation: "snd_pcm_readi", code: e)
        }
        framesRead += Int64(n)
        var avail: snd_pcm_uframes_t = 0
        var ts = timespec()
        guard snd_pcm_htimestamp(p, &avail, &ts) == 0, ts.tv_sec != 0 || ts.tv_nsec != 0 else {
            return (PCMRead(frames: Int(n)), false)
        }
        // the hardware pointer at `ts` = frames read so far + frames waiting to be read
        let t = Rational(Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000, 1_000_000)
        return (PCMRead(frames: Int(n), stampPosition: framesRead + Int64(avail), time: t), false)
    }

    /// The sample formats a card offers, for the message when S16_LE is not one of them.
    static func offeredFormats(_ p: OpaquePointer) -> String {
        var hw: OpaquePointer?
        snd_pcm_hw_params_malloc(&hw)
        defer { snd_pcm_hw_params_free(hw) }
        guard snd_pcm_hw_params_any(p, hw) >= 0 else { return "" }
        var names: [String] = []
        for f in [SND_PCM_FORMAT_S16_LE, SND_PCM_FORMAT_S24_LE, SND_PCM_FORMAT_S32_LE, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_FORMAT_U8, SND_PCM_FORMAT_S24_3LE]
        where snd_pcm_hw_params_test_format(p, hw, f) == 0 {
            names.append(String(cString: snd_pcm_format_name(f)))
        }
        return "the card offers " + (names.isEmpty ? "none of S16_LE, S24_LE, S32_LE, FLOAT_LE, U8" : names.joined(separator: ", "))
    }
}

/// A sound card's capture device, as `slomo devices` lists it.
public struct SoundCaptureDevice: Sendable, Codable, Equatable {
    /// The ALSA name to give `--audio` (`hw:1,0`).
    public var name: String
    public var card: Int
    public var device: Int
    public var cardId: String
    public var cardName: String
    public var deviceName: String
}

public enum SoundCards {
    /// Every card's capture devices (`snd_card_next`, `snd_ctl_pcm_next_device`,
    /// `snd_ctl_pcm_info` with the capture stream); cards that cannot be opened are skipped.
    public static func captureDevices() -> [SoundCaptureDevice] {
        calsa_quiet_errors()
        var out: [SoundCaptureDevice] = []
        var card: Int32 = -1
        var info: OpaquePointer?, pcmInfo: OpaquePointer?
        snd_ctl_card_info_malloc(&info)
        snd_pcm_info_malloc(&pcmInfo)
        defer {
            snd_ctl_card_info_free(info)
            snd_pcm_info_free(pcmInfo)
        }
        while snd_card_next(&card) == 0 && card >= 0 {
            var ctl: OpaquePointer?
            guard snd_ctl_open(&ctl, "hw:\(card)", 0) == 0, let ctl else { continue }
            defer { snd_ctl_close(ctl) }
            guard snd_ctl_card_info(ctl, info) == 0 else { continue }
            let id = String(cString: snd_ctl_card_info_get_id(info))
            let cardName = String(cString: snd_ctl_card_info_get_name(info))
            var dev: Int32 = -1
            while snd_ctl_pcm_next_device(ctl, &dev) == 0 && dev >= 0 {
                snd_pcm_info_set_device(pcmInfo, UInt32(dev))
                snd_pcm_info_set_subdevice(pcmInfo, 0)
                snd_pcm_info_set_stream(pcmInfo, SND_PCM_STREAM_CAPTURE)
                guard snd_ctl_pcm_info(ctl, pcmInfo) == 0 else { continue }
                out.append(
                    SoundCaptureDevice(
                        name: "hw:\(card),\(dev)", card: Int(card), device: Int(dev), cardId: id,
                        cardName: cardName, deviceName: String(cString: snd_pcm_info_get_name(pcmInfo))))
            }
        }
        return out
    }
}
