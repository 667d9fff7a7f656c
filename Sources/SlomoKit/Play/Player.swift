import Foundation
import SlomoCore
import SlomoFFmpeg

/// `slomo play`: paced, real-time playback at a rate for a headless machine. Video packets are
/// copied (no re-encode) with timestamps on a live output timeline; audio goes through the
/// time-pitch engine and is sent as 32-bit float PCM. Output: a stream to stdout (`-`, NUT by
/// default), a file, or any URL FFmpeg writes (udp://127.0.0.1:1234?pkt_size=1316 …).
public struct PlayRequest: Sendable {
    public var input: String
    public var output: String
    public var format: String?
    public var rate = Rational.one
    /// `auto`: zero-latency for rates in 1/2…2 (it reacts fastest), spectral outside; or an algorithm name.
    public var pitch = "auto"
    public var audio = true
    public var start = Rational.zero
    /// Packets are written this far ahead of the wall clock (seconds). A command reaches the
    /// video after at most this (plus the B-frame reorder of a copied stream) and the audio after
    /// at most this plus one 5 ms PCM packet.
    public var lead = Rational(1, 100)
    public init(input: String, output: String) { self.input = input; self.output = output }
}

/// What happened during playback, one JSON line each on stderr.
public struct PlayEvent: Codable, Sendable {
    public var event: String
    public var rate: Rational?
    public var pitch: String?
    public var position: Double?
    /// For rate/pitch/seek: wall-clock milliseconds from the command to the first packet written with it.
    public var latencyMs: Double?
    /// For rate/pitch/seek: the command's moment on the output timeline (seconds), and where the
    /// change starts in the stream's video and audio (seconds, the stream's own timestamps; audio:
    /// the first sample from the new source, which fades in over 5 ms).
    public var atSeconds: Double?
    public var videoFromSeconds: Double?
    public var audioFromSeconds: Double?
    /// The same as delays past `atSeconds`, in milliseconds (0 when playback had fallen behind):
    /// what was already written ahead of the wall clock cannot be taken back.
    public var videoEffectMs: Double?
    public var audioEffectMs: Double?
    public var message: String?
    public init(event: String) { self.event = event }
}

public enum PlayCommand: Equatable, Sendable {
    case rate(Rational), pitch(String), seek(Rational), pause, resume, quit

    /// Parses `rate 0.25`, `pitch time-domain`, `seek 12.5`, `pause`, `resume`/`play`, `quit`.
    public init(parsing line: String) throws(SimpleFailure) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let verb = words.first else { throw SimpleFailure("empty command", .usage) }
        func value() throws(SimpleFailure) -> Rational {
            guard words.count == 2 else { throw SimpleFailure("'\(line)': expected '\(verb) VALUE'", .usage) }
            do { return try Rational(parsing: words[1]) } catch { throw SimpleFailure("'\(line)': \(error)", .usage) }
        }
        switch verb {
        case "rate":
            let r = try value()
            guard r.isPositive, r <= Rational(32), r >= Rational(1, 32) else { throw SimpleFailure("'\(line)': rate must be in 1/32...32", .usage) }
            self = .rate(r)
        case "pitch":
            guard words.count == 2 else { throw SimpleFailure("'\(line)': expected 'pitch ALGORITHM'", .usage) }
            self = .pitch(String(words[1]))
        case "seek":
            let t = try value()
            guard !t.isNegative else { throw SimpleFailure("'\(line)': position must be >= 0", .usage) }
            self = .seek(t)
        case "pause": self = .pause
        case "resume", "play": self = .resume
        case "quit", "q": self = .quit
        default: throw SimpleFailure("'\(line)': unknown command (rate, pitch, seek, pause, resume, quit)", .usage)
        }
    }
}

/// Thread-safe queue of commands fed by a reader thread.
public final class PlayCommandQueue: @unchecked Sendable {
    // Safe: `items` is only touched under `lock`.
    private let lock = NSLock()
    private var items: [(PlayCommand, DispatchTime)] = []
    public init() {}
    public func push(_ c: PlayCommand) { lock.lock(); items.append((c, .now())); lock.unlock() }
    func pop() -> (PlayCommand, DispatchTime)? {
        lock.lock(); defer { lock.unlock() }
        return items.isEmpty ? nil : items.removeFirst()
    }
}

public final class Player {
    /// `auto` made concrete for a rate: zero-latency inside its 1/2…2, spectral outside.
    static func algorithm(_ pitch: String, rate: Rational) -> String {
        guard pitch == "auto" else { return pitch }
        return TimePitchAlgorithm.zeroLatency.range.contains(rate) ? TimePitchAlgorithm.zeroLatency.rawValue : TimePitchAlgorithm.spectral.rawValue
    }

    let r: PlayRequest
    let events: (PlayEvent) -> Void
    public init(_ request: PlayRequest, events: @escaping (PlayEvent) -> Void) {
        r = request
        self.events = events
    }

    /// Plays until the end of the input or `quit`. Returns the output duration in seconds.
    @discardableResult
    public func run(commands: PlayCommandQueue) throws -> Rational {
        try MediaInput.checkInput(r.input)
        let timeline = try MediaTimeline(path: r.input)
        let tb = timeline.info.timeBase
        let isPipe = r.output == "-"
        // A file (not stdout, a URL or a device such as /dev/null) is written under a temporary
        // name and renamed when playback ends, by its end or `quit`: an input that turns out damaged
        // half-way leaves nothing under the final name (found by scripts/mutate-media.py); so does
        // Ctrl-C, as for every command — `quit` on stdin ends playback and keeps the file.
        var isDevice = false
        var st = stat()
        if stat(r.output, &st) == 0 { isDevice = st.st_mode & S_IFMT != S_IFREG }
        // (a URL or FFmpeg protocol such as file:x.nut or udp://… has a colon; a plain path here has none)
        let file = isPipe || r.output.contains(":") || isDevice ? nil : try OutputFile(path: r.output, overwrite: true)
        let path = isPipe ? "pipe:1" : file?.temporaryPath ?? r.output
        let format: String
        if let f = r.format { format = f } else if isPipe || r.output.contains("://") { format = "nut" } else {
            format = try ContainerFormat.forOutput(r.output)
        }
        let muxer = try Muxer(path: path, formatName: format, name: r.output)
        let demuxer = try MediaInput.openInput(r.input)
        demuxer.keepOnly(streams: [timeline.video])
        let vOut = try muxer.addStream(copying: timeline.video, from: demuxer, timeBase: Rational(1, 90000), frameRate: nil)
        var rate = r.rate, pitch = r.pitch
        var audio: AudioTrackWriter?
        func audioSource(from s: Rational) throws -> (any RetimedAudio)? {
            guard r.audio, let a = timeline.audio, s < timeline.duration else { return nil }
            let spec = RetimeSpec(rate: rate)
            let map = try spec.resolve(duration: timeline.duration - s, frameRate: nil)
            return try Retimer.audioSource(r.input, stream: a, map: map, pitch: Player.algorithm(pitch, rate: rate), origin: timeline.origin + s)
        }
        var crossfadeFrames = 0
        if let first = try audioSource(from: r.start) {
            // 5 ms PCM packets: audio runs at most the lead plus 5 ms ahead of the wall clock, so a
            // command reaches the audio that soon (and the switch fades over 5 ms)
            let fiveMs = Swift.max(1, first.sampleRate / 200)
            audio = try AudioTrackWriter(source: first, muxer: muxer, codec: "pcm_f32le", bitRate: 0, path: r.output,
                                         chunkFrames: fiveMs)
            crossfadeFrames = fiveMs
        }
        try muxer.writeHeader()
        audio?.headerWritten()
        let outTB = muxer.timeBase(ofStream: vOut)

        // Live timeline: a growing piecewise-linear map. Each rate change starts a piece at a source
        // time past every frame already written, so frames keep their order and spacing.
        var pieces: [(s: Rational, t: Rational, rate: Rational)] = [(r.start, .zero, rate)]
        var t0: Rational { pieces[pieces.count - 1].t }
        var s0: Rational { pieces[pieces.count - 1].s }
        func outTime(_ s: Rational) -> Rational {
            let p = pieces.last { $0.s <= s } ?? pieces[0]
            return p.t + (s - p.s) / p.rate
        }
        var maxSourceWritten = r.start
        var shift = Rational.zero     // added to every output time so the first dts is not negative
        var wallStart = DispatchTime.now().uptimeNanoseconds
        var pausedAt: UInt64?
        var lastDTS: Int64 = -1
        var lastOut = Rational.zero
        var pendingLatency: (String, DispatchTime, Rational)?
        if r.start.isPositive { try demuxer.seek(stream: timeline.video, to: timeline.origin + r.start) }

        func nowOut() -> Rational {
            let ns = (pausedAt ?? DispatchTime.now().uptimeNanoseconds) - wallStart
            return Rational(Int64(ns), 1_000_000_000)
        }
        /// The command's moment on the output timeline (the wall clock when it was read).
        func commandAt(_ when: DispatchTime) -> Rational {
            let now = DispatchTime.now().uptimeNanoseconds
            return nowOut() - Rational(Int64(now - Swift.min(when.uptimeNanoseconds, now)), 1_000_000_000)
        }
        /// A command the current state cannot take (a rate outside the algorithm's range, an
        /// unknown algorithm): reported, and playback goes on unchanged.
        func reject(_ c: PlayCommand, _ error: any Error) -> Bool {
            var e = PlayEvent(event: "error")
            e.message = "\(c): \(error)"
            events(e)
            return true
        }
        func handle(_ c: PlayCommand, at when: DispatchTime) throws -> Bool {
            var e = PlayEvent(event: "")
            switch c {
            case .quit: return false
            case .pause:
                if pausedAt == nil { pausedAt = DispatchTime.now().uptimeNanoseconds }
                e.event = "pause"
            case .resume:
                if let p = pausedAt { wallStart += DispatchTime.now().uptimeNanoseconds - p; pausedAt = nil }
                e.event = "resume"
            case .rate(let new):
                // the new piece starts at the later of "now" and every frame already written
                let sNow = s0 + (Rational.max(nowOut() - shift, lastOut - shift) - t0) * rate
                let sStart = Rational.max(sNow, maxSourceWritten)
                let saved = (pieces, rate)
                pieces.append((sStart, outTime(sStart), new))
                rate = new
                do { try restartAudio() } catch {
                    (pieces, rate) = saved
                    return reject(c, error)
                }
                e.event = "rate"; e.rate = new
                pendingLatency = ("rate", when, commandAt(when))
            case .pitch(let p):
                let saved = pitch
                pitch = p
                do { try restartAudio() } catch {
                    pitch = saved
                    return reject(c, error)
                }
                e.event = "pitch"; e.pitch = p
                pendingLatency = ("pitch", when, commandAt(when))
            case .seek(let s):
                let target = Swift.min(s, timeline.duration)
                try demuxer.seek(stream: timeline.video, to: timeline.origin + target)
                pieces = [(target, Rational.max(nowOut(), lastOut) - shift, rate)]
                maxSourceWritten = target
                seeking = true
                lastSourceDTS = nil
                try restartAudio()
                e.event = "seek"; e.position = target.doubleValue
                pendingLatency = ("seek", when, commandAt(when))
            }
            events(e)
            return true
        }
        // --start, like a seek, lands on the keyframe at or before it
        var seeking = r.start.isPositive
        var lastSourceDTS: Int64?
        func restartAudio() throws {
            guard let a = audio else { return }
            // audio continues from where it has been written: its source position on the new timeline
            let from = Rational.max(a.endTime - shift, t0)
            let s = s0 + (from - t0) * rate
            if let next = try audioSource(from: s) { try a.switchSource(to: next, crossfade: crossfadeFrames) }
        }

        let packet = Packet()
        var running = true
        while running, try demuxer.readPacket(into: packet) {
            // a packet without a decode time (Matroska stores none for the first B-frame packets)
            // decodes right after the previous one, not at its presentation time, which would push
            // the frames after it out of order
            guard packet.streamIndex == timeline.video, let dtsIn = packet.dts ?? lastSourceDTS ?? packet.pts else { continue }
            lastSourceDTS = dtsIn
            let s = Rational(ticks: dtsIn, timeBase: tb) - timeline.origin
            let ptsIn = packet.pts ?? dtsIn
            let sp = Rational(ticks: ptsIn, timeBase: tb) - timeline.origin
            if seeking {
                // resume from the keyframe at or before the requested position (copied packets cannot
                // start between keyframes), and the sound with it, so that both stay in step
                guard packet.isKeyframe else { continue }
                let requested = pieces[0].s
                pieces = [(sp, pieces[0].t, rate)]
                maxSourceWritten = sp
                seeking = false
                if sp != requested { try restartAudio() }
            }
            if lastDTS < 0 && outTime(s) < .zero { shift = -outTime(s) }
            let t = Rational.max(outTime(s) + shift, lastOut)
            // wait until the packet is due (wall clock + lead), handling commands meanwhile
            while true {
                while let (c, when) = commands.pop() {
                    if try !handle(c, at: when) { running = false; break }
                }
                if !running { break }
                if pausedAt == nil && nowOut() + r.lead >= t { break }
                usleep(2_000)
            }
            if !running { break }
            let tt = Rational.max(outTime(s) + shift, lastOut)
            var dts = try tt.ticks(in: outTB, rounding: .nearest)
            if dts <= lastDTS { dts = lastDTS + 1 }
            let ptOut = outTime(sp) + shift
            let pts = Swift.max(dts, try ptOut.ticks(in: outTB, rounding: .nearest))
            maxSourceWritten = Rational.max(maxSourceWritten, sp)
            packet.dts = dts; packet.pts = pts; packet.duration = 0
            packet.streamIndex = vOut
            lastDTS = dts; lastOut = tt
            try audio?.write(upTo: tt)
            try muxer.write(packet)
            muxer.flush()
            if let (what, when, at) = pendingLatency {
                var e = PlayEvent(event: "applied")
                e.message = what
                e.latencyMs = Double(DispatchTime.now().uptimeNanoseconds - when.uptimeNanoseconds) / 1e6
                e.atSeconds = at.doubleValue
                let ms = { (t: Rational) in Swift.max(0, ((t - at) * Rational(1000)).doubleValue) }
                let videoFrom = pieces[pieces.count - 1].t + shift
                e.videoFromSeconds = videoFrom.doubleValue
                e.videoEffectMs = ms(videoFrom)
                if let a = audio { e.audioFromSeconds = a.switchedAt.doubleValue; e.audioEffectMs = ms(a.switchedAt) }
                events(e)
                pendingLatency = nil
            }
        }
        if running, let a = audio {
            // the input's video has ended: the audio runs to its own end (at a slow rate that can be
            // more than a second past the last frame), still paced by the wall clock; pause, resume
            // and quit still work, the other commands have nothing left to act on
            while running && a.endTime < a.sourceEndTime && !a.exhausted {
                while running, let (c, when) = commands.pop() {
                    switch c {
                    case .pause, .resume, .quit:
                        if try !handle(c, at: when) { running = false }
                    default:
                        _ = reject(c, SimpleFailure("the input has ended; only its audio is still playing", .usage))
                    }
                }
                let before = a.endTime
                if running && pausedAt == nil { try a.write(upTo: nowOut() + r.lead) }   // (write stops at the source's end)
                if a.endTime > before { muxer.flush() }
                usleep(2_000)
            }
            lastOut = Rational.max(lastOut, a.endTime)
        }
        try muxer.finish()
        try file?.commit()
        var end = PlayEvent(event: "end")
        end.position = lastOut.doubleValue
        events(end)
        return lastOut
    }
}
