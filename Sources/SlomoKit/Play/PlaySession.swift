import Foundation
import SlomoCore
import SlomoSystem
import SlomoFFmpeg

/// Where playback is on the output timeline: a growing piecewise-linear map from source time to
/// output time. Each rate change starts a piece at a source time past every frame already written,
/// so frames keep their order and spacing; a seek starts a new map.
struct PlayTimeline {
    var pieces: [(s: Rational, t: Rational, rate: Rational)]
    /// Added to every output time so the first dts is not negative.
    var shift = Rational.zero
    var maxSourceWritten: Rational
    var lastOut = Rational.zero
    var lastDTS: Int64 = -1

    init(start: Rational, rate: Rational) {
        pieces = [(start, .zero, rate)]
        maxSourceWritten = start
    }

    var t0: Rational { pieces[pieces.count - 1].t }
    var s0: Rational { pieces[pieces.count - 1].s }
    var rate: Rational { pieces[pieces.count - 1].rate }

    func outTime(_ s: Rational) -> Rational {
        let p = pieces.last { $0.s <= s } ?? pieces[0]
        return p.t + (s - p.s) / p.rate
    }

    /// The source time playing at output time `t` (before the shift).
    func sourceTime(atOutput t: Rational) -> Rational { s0 + (t - t0) * rate }
}

/// The wall clock playback is paced by, stopped while paused.
struct PlayClock {
    private var wallStart = DispatchTime.now().uptimeNanoseconds
    private var pausedAt: UInt64?

    var paused: Bool { pausedAt != nil }

    /// Seconds of playback so far.
    func now() -> Rational {
        let ns = (pausedAt ?? DispatchTime.now().uptimeNanoseconds) - wallStart
        return Rational(Int64(ns), 1_000_000_000)
    }

    /// A command's moment on the output timeline (the wall clock when it was read).
    func at(_ when: DispatchTime) -> Rational {
        let current = DispatchTime.now().uptimeNanoseconds
        return now() - Rational(Int64(current - Swift.min(when.uptimeNanoseconds, current)), 1_000_000_000)
    }

    mutating func pause() { if pausedAt == nil { pausedAt = DispatchTime.now().uptimeNanoseconds } }
    mutating func resume() {
        if let p = pausedAt {
            wallStart += DispatchTime.now().uptimeNanoseconds - p
            pausedAt = nil
        }
    }
}

/// One playback's output and state: the muxer with the copied video stream and the PCM audio
/// track, the live timeline, the clock, and the commands in effect.
final class PlaySession {
    let demuxer: Demuxer
    private let r: PlayRequest
    private let events: (PlayEvent) -> Void
    private let timeline: MediaTimeline
    private let muxer: Muxer
    private let file: OutputFile?
    private let vOut: Int
    private var outTB = Rational(1, 90000)  // the muxer's, known once the header is written
    private var audio: AudioTrackWriter?
    private var crossfadeFrames = 0
    private var rate: Rational, pitch: String
    private var live: PlayTimeline
    private var clock = PlayClock()
    private var pendingLatency: (String, DispatchTime, Rational)?
    /// After a seek (and at a --start): packets are skipped until a keyframe.
    private var seeking: Bool
    private var lastSourceDTS: Int64?

    init(_ r: PlayRequest, events: @escaping (PlayEvent) -> Void) throws {
        self.r = r
        self.events = events
        rate = r.rate
        pitch = r.pitch
        timeline = try MediaTimeline(path: r.input)
        (muxer, file) = try Self.openOutput(r)
        demuxer = try MediaInput.openInput(r.input)
        demuxer.keepOnly(streams: [timeline.video])
        vOut = try muxer.addStream(copying: timeline.video, from: demuxer, timeBase: Rational(1, 90000), frameRate: nil)
        RetimedOutput.copyStreamMetadata(muxer, demuxer, from: timeline.video, to: vOut, reencoded: false)
        if let degrees = RetimedOutput.droppedRotation(timeline.info.rotation, muxer: muxer) {
            // the packets are copied: their pixels cannot turn, and this container has no place for the matrix
            var e = PlayEvent(event: "warning")
            e.message =
                "\(r.input): its \(Seconds(Rational(Int64(degrees.rounded())), decimals: 0))° display rotation cannot be stored in "
                + "\(muxer.formatName) (FFmpeg 5.1): \(r.output) plays unrotated; play to .mp4 or .mov to keep it, "
                + "or turn the pixels with slomo export --rotation pixels"
            events(e)
        }
        live = PlayTimeline(start: r.start, rate: r.rate)
        // --start, like a seek, lands on the keyframe at or before it
        seeking = r.start.isPositive
        if r.audio, timeline.audio != nil, !muxer.accepts(codecName: "pcm_f32le") {
            throw PlayError.pcmNotHeld(
                output: r.output, container: muxer.formatName,
                holders: [".mkv", ".nut", ".mov"].filter { ext in
                    (try? ContainerFormat.forOutput("x" + ext)).flatMap { try? Muxer(path: "/dev/null", formatName: $0) }?.accepts(codecName: "pcm_f32le")
                        == true
                })
        }
        if let first = try audioSource(from: r.start) {
            // 5 ms PCM packets: audio runs at most the lead plus 5 ms ahead of the wall clock, so a
            // command reaches the audio that soon (and the switch fades over 5 ms)
            let fiveMs = Swift.max(1, first.sampleRate / 200)
            audio = try AudioTrackWriter(
                source: first, muxer: muxer, codec: "pcm_f32le", bitRate: 0, path: r.output,
                chunkFrames: fiveMs)
            crossfadeFrames = fiveMs
        }
        try muxer.writeHeader()
        audio?.headerWritten()
        outTB = muxer.timeBase(ofStream: vOut)
        if r.start.isPositive { try demuxer.seek(stream: timeline.video, to: timeline.origin + r.start) }
    }

    /// A file (not stdout, a URL or a device such as /dev/null) is written under a temporary name
    /// and renamed when playback ends, by its end or `quit`: an input that turns out damaged
    /// half-way leaves nothing under the final name (found by scripts/mutate-media.py); so does
    /// Ctrl-C, as for every command — `quit` on stdin ends playback and keeps the file.
    private static func openOutput(_ r: PlayRequest) throws -> (Muxer, OutputFile?) {
        let isPipe = r.output == "-"
        var isDevice = false
        if let st = try? Files.status(r.output) { isDevice = !st.isRegular }
        // (a URL or FFmpeg protocol such as file:x.nut or udp://… has a colon; a plain path here has none)
        let file = isPipe || r.output.contains(":") || isDevice ? nil : try OutputFile(path: r.output, overwrite: r.overwrite, inputs: [r.input])
        let path = isPipe ? "pipe:1" : file?.temporaryPath ?? r.output
        let format: String
        if let f = r.format {
            format = f
        } else if isPipe || r.output.contains("://") {
            format = "nut"
        } else {
            format = try ContainerFormat.forOutput(r.output)
        }
        return (try Muxer(path: path, formatName: format, name: r.output), file)
    }

    private func audioSource(from s: Rational) throws -> (any RetimedAudio)? {
        guard r.audio, let a = timeline.audio, s < timeline.duration else { return nil }
        let map = try RetimeSpec(rate: rate).resolve(duration: timeline.duration - s, frameRate: nil)
        return try Retimer.audioSource(r.input, stream: a, map: map, pitch: Player.algorithm(pitch, rate: rate), origin: timeline.origin + s)
    }

    /// The audio continues from where it has been written: its source position on the new timeline.
    private func restartAudio() throws {
        guard let a = audio else { return }
        let from = Rational.max(a.endTime - live.shift, live.t0)
        if let next = try audioSource(from: live.sourceTime(atOutput: from)) { try a.switchSource(to: next, crossfade: crossfadeFrames) }
    }

    /// A command the current state cannot take (a rate outside the algorithm's range, an unknown
    /// algorithm): reported, and playback goes on unchanged.
    private func reject(_ c: PlayCommand, _ error: any Error) -> Bool {
        var e = PlayEvent(event: "error")
        e.message = "\(c): \(error)"
        events(e)
        return true
    }

    /// Applies a command; false for `quit`.
    func handle(_ c: PlayCommand, at when: DispatchTime) throws -> Bool {
        var e = PlayEvent(event: "")
        switch c {
        case .quit: return false
        case .pause:
            clock.pause()
            e.event = "pause"
        case .resume:
            clock.resume()
            e.event = "resume"
        case .rate(let new):
            // the new piece starts at the later of "now" and every frame already written
            let sNow = live.sourceTime(atOutput: Rational.max(clock.now() - live.shift, live.lastOut - live.shift))
            let sStart = Rational.max(sNow, live.maxSourceWritten)
            let saved = (live, rate)
            live.pieces.append((sStart, live.outTime(sStart), new))
            rate = new
            do { try restartAudio() } catch {
                (live, rate) = saved
                return reject(c, error)
            }
            e.event = "rate"
            e.rate = new
            pendingLatency = ("rate", when, clock.at(when))
        case .pitch(let p):
            let saved = pitch
            pitch = p
            do { try restartAudio() } catch {
                pitch = saved
                return reject(c, error)
            }
            e.event = "pitch"
            e.pitch = p
            pendingLatency = ("pitch", when, clock.at(when))
        case .seek(let s):
            let target = Swift.min(s, timeline.duration)
            try demuxer.seek(stream: timeline.video, to: timeline.origin + target)
            live.pieces = [(target, Rational.max(clock.now(), live.lastOut) - live.shift, rate)]
            live.maxSourceWritten = target
            seeking = true
            lastSourceDTS = nil
            try restartAudio()
            e.event = "seek"
            e.position = target.doubleValue
            pendingLatency = ("seek", when, clock.at(when))
        }
        events(e)
        return true
    }

    /// Writes one packet of the input when it is due (handling commands meanwhile); false when
    /// a `quit` ended playback.
    func play(_ packet: Packet, commands: PlayCommandQueue) throws -> Bool {
        // a packet without a decode time (Matroska stores none for the first B-frame packets)
        // decodes right after the previous one, not at its presentation time, which would push
        // the frames after it out of order
        guard packet.streamIndex == timeline.video, let dtsIn = packet.dts ?? lastSourceDTS ?? packet.pts else { return true }
        lastSourceDTS = dtsIn
        let tb = timeline.info.timeBase
        let s = Rational(ticks: dtsIn, timeBase: tb) - timeline.origin
        let sp = Rational(ticks: packet.pts ?? dtsIn, timeBase: tb) - timeline.origin
        if seeking {
            // resume from the keyframe at or before the requested position (copied packets cannot
            // start between keyframes), and the sound with it, so that both stay in step
            guard packet.isKeyframe else { return true }
            let requested = live.pieces[0].s
            live.pieces = [(sp, live.pieces[0].t, rate)]
            live.maxSourceWritten = sp
            seeking = false
            if sp != requested { try restartAudio() }
        }
        if live.lastDTS < 0 && live.outTime(s) < .zero { live.shift = -live.outTime(s) }
        let due = Rational.max(live.outTime(s) + live.shift, live.lastOut)
        guard try wait(until: due, commands: commands) else { return false }
        let tt = Rational.max(live.outTime(s) + live.shift, live.lastOut)
        var dts = try tt.ticks(in: outTB, rounding: .nearest)
        if dts <= live.lastDTS { dts = live.lastDTS + 1 }
        let pts = Swift.max(dts, try (live.outTime(sp) + live.shift).ticks(in: outTB, rounding: .nearest))
        live.maxSourceWritten = Rational.max(live.maxSourceWritten, sp)
        packet.dts = dts
        packet.pts = pts
        packet.duration = 0
        packet.streamIndex = vOut
        live.lastDTS = dts
        live.lastOut = tt
        try audio?.write(upTo: tt)
        try muxer.write(packet)
        muxer.flush()
        reportApplied()
        return true
    }

    /// Waits until output time `t` is due (wall clock + lead), handling commands meanwhile; false on `quit`.
    private func wait(until t: Rational, commands: PlayCommandQueue) throws -> Bool {
        while true {
            while let (c, when) = commands.pop() {
                if try !handle(c, at: when) { return false }
            }
            if !clock.paused && clock.now() + r.lead >= t { return true }
            CurrentProcess.sleep(microseconds: 2_000)
        }
    }

    /// The `applied` event of the last command, once its first packet is written.
    private func reportApplied() {
        guard let (what, when, at) = pendingLatency else { return }
        var e = PlayEvent(event: "applied")
        e.message = what
        e.latencyMs = Double(DispatchTime.now().uptimeNanoseconds - when.uptimeNanoseconds) / 1e6
        e.atSeconds = at.doubleValue
        let ms = { (t: Rational) in Swift.max(0, ((t - at) * Rational(1000)).doubleValue) }
        let videoFrom = live.t0 + live.shift
        e.videoFromSeconds = videoFrom.doubleValue
        e.videoEffectMs = ms(videoFrom)
        if let a = audio {
            e.audioFromSeconds = a.switchedAt.doubleValue
            e.audioEffectMs = ms(a.switchedAt)
        }
        events(e)
        pendingLatency = nil
    }

    /// The input's video has ended: the audio runs to its own end (at a slow rate that can be more
    /// than a second past the last frame), still paced by the wall clock; pause, resume and quit
    /// still work, the other commands have nothing left to act on.
    func playOutAudio(commands: PlayCommandQueue) throws {
        guard let a = audio else { return }
        var running = true
        while running && a.endTime < a.sourceEndTime && !a.exhausted {
            while running, let (c, when) = commands.pop() {
                switch c {
                case .pause, .resume, .quit:
                    if try !handle(c, at: when) { running = false }
                default:
                    _ = reject(c, PlayError.inputEnded)
                }
            }
            let before = a.endTime
            if running && !clock.paused { try a.write(upTo: clock.now() + r.lead) }  // (write stops at the source's end)
            if a.endTime > before { muxer.flush() }
            CurrentProcess.sleep(microseconds: 2_000)
        }
        live.lastOut = Rational.max(live.lastOut, a.endTime)
    }

    /// Closes the output; the output's duration.
    func finish() throws -> Rational {
        try muxer.finish()
        try file?.commit()
        var end = PlayEvent(event: "end")
        end.position = live.lastOut.doubleValue
        events(end)
        return live.lastOut
    }
}
