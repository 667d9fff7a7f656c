import Foundation
import Testing

/// Sound capture against real ALSA: the kernel's loopback card (snd-aloop) next to vivid in the VM
/// (`Tests/vm/run.sh --alsa`). A click track is played into the loopback at known CLOCK_MONOTONIC
/// times (Tests/vivid/clicks.c); each recording's clicks are found in its audio and placed on the
/// video's clock through `slomo_capture_start` (Tests/vivid/av-offsets.py). One boot runs
/// Tests/vivid/audio-checks.sh.
@Suite(.serialized, .enabled(if: VividVM.available, VividVM.skipReason))
struct VividAudioTests {
    /// "clicks N found M offset_ms p50 max first last rate R player_xruns X" → (found, p50, max, first,
    /// last, rate); a failed expectation when the player itself underran: then it is no reference.
    func offsets(_ c: [String: String], _ key: String) -> [Double] {
        let f = (c[key] ?? "").split(separator: " ").map(String.init)
        guard f.count == 13 else { return [] }
        #expect(f[12] == "0", "the click player underran \(f[12]) times: its timeline is not a reference (\(key))")
        return [f[3], f[5], f[6], f[7], f[8], f[10]].compactMap(Double.init)
    }

    /// "video-end audio-end audio-start codec" (where each stream's last packet ends, s)
    func streams(_ c: [String: String], _ key: String) -> (video: Double, audio: Double, start: Double, codec: String)? {
        let f = (c[key] ?? "").split(separator: " ").map(String.init)
        guard f.count == 4, let v = Double(f[0]), let a = Double(f[1]), let s = Double(f[2]) else { return nil }
        return (v, a, s, f[3])
    }

    @Test func loopbackCardsAreListedForAudioCapture() throws {
        let c = try VividAudioVM.checks()
        let devices = (c["sound_devices"] ?? "").split(separator: ";")
        #expect(devices.contains("hw:0,0,Loopback") && devices.contains("hw:0,1,Loopback"), "\(c["sound_devices"] ?? "")")
    }

    /// Goal of the issue: every click within 2 ms of when it was played, on the camera's clock.
    @Test func soundIsPlacedOnTheVideosClockWithinTwoMilliseconds() throws {
        let c = try VividAudioVM.checks()
        #expect(c["av_rc"] == "0")
        let o = offsets(c, "av_offsets")
        #expect(o.count == 6 && o[0] >= 10 && o[2] <= 2.0, "\(c["av_offsets"] ?? "")")  // ≥ 10 of 12 clicks, max |offset| ≤ 2 ms
        let s = try #require(streams(c, "av_streams"), "\(c["av_streams"] ?? "")")
        // PCM in MKV from the first frame's time (0) to the end of the last frame, to the sample
        #expect(s.codec == "pcm_s16le" && s.start == 0 && abs(s.audio - s.video) < 0.02, "\(c["av_streams"] ?? "")")
        let r = (c["av_report"] ?? "").split(separator: " ")
        #expect(r.count == 7 && r[0] == "48000" && r[1] == "2" && r[3] == "0" && r[4] == "0" && (Int(r[6]) ?? 0) > 100, "\(c["av_report"] ?? "")")
    }

    /// A card 0.1 % off-speed for a minute: the clock is measured and followed, the last click as close as the first.
    @Test func aFastCardStaysInStepForAMinute() throws {
        let c = try VividAudioVM.checks()
        #expect(c["drift_rc"] == "0")
        let o = offsets(c, "drift_offsets")
        #expect(o.count == 6 && o[0] >= 100 && o[2] <= 2.0 && abs(o[4]) <= 2.0, "\(c["drift_offsets"] ?? "")")
        let r = (c["drift_report"] ?? "").split(separator: " ").compactMap { Double($0) }
        // the card ran 0.1 % off (the player's own timestamps say so too); slomo measured it within
        // 5 Hz of the player and moved about 48 frames a second to follow it
        #expect(o.count == 6 && abs(abs(o[5] - 48_000) - 48) < 5, "the player's own fit: \(c["drift_offsets"] ?? "")")
        #expect(
            r.count == 4 && o.count == 6 && abs(r[0] - o[5]) < 5 && abs(abs(r[1]) - 1000) < 100 && abs(r[2]) > 2000 && r[3] == 0,
            "\(c["drift_report"] ?? "")")
        let s = try #require(streams(c, "drift_streams"))
        #expect(abs(s.audio - s.video) < 0.05, "\(c["drift_streams"] ?? "")")
    }

    /// The sound trigger on the real card: a click every second, each firing a shot whose event is
    /// the click's own instant (by the sound clock), its trigger frame the frame of that instant.
    @Test func aSoundTriggerPlacesEachShotAtItsClick() throws {
        let c = try VividAudioVM.checks()
        #expect(c["sound_rc"] == "0")
        // clicks N shots M matched K missed X offset_ms p50 max frame_after_ms p50 max exact E player_xruns R
        let f = (c["sound_trigger"] ?? "").split(separator: " ").map(String.init)
        try #require(f.count == 18, "\(c["sound_trigger"] ?? "")")
        let n = Int(f[1]) ?? 0, shots = Int(f[3]) ?? -1, matched = Int(f[5]) ?? -1, missed = Int(f[7]) ?? -1
        #expect(n >= 20 && missed == 0 && shots == matched && matched == n, "every click heard fires once: \(c["sound_trigger"] ?? "")")
        let p50 = Double(f[9]) ?? 99, mx = Double(f[10]) ?? 99, after = Double(f[13]) ?? 99
        #expect(p50 <= 1.0 && mx <= 2.0, "event against the click's play time: \(c["sound_trigger"] ?? "")")
        // the frame of the instant in every shot's file: the one before it stamped before the click, it at
        // or after. No bound on how long after: vivid under emulation drops frames when the machine is
        // busy (a CI run: 32 lost, the next frame up to 81 ms after a click, still the frame of it)
        #expect(f[15] == String(shots) && after >= 0, "the trigger frame is the frame of the instant: \(c["sound_trigger"] ?? "")")
        #expect(f[17] == "0", "the click player underran: no reference")
        // two cameras on one sound input: each click a shot on both, at one instant
        let two = (c["sound_two"] ?? "").split(separator: " ")
        #expect(
            c["sound_two_rc"] == "0" && two.count == 3 && two[0] == "3" && two[1] == "3" && two[2] == "True",
            "\(c["sound_two"] ?? "")")
    }

    /// A minute of noise at −40 dBFS fires nothing; a sound trigger with no sound input is refused.
    @Test func noiseFiresNothingAndASoundTriggerNeedsASoundInput() throws {
        let c = try VividAudioVM.checks()
        #expect(c["noise_rc"] == "0" && c["noise_shots"] == "0", "\(c["noise_rc"] ?? "") \(c["noise_shots"] ?? "")")
        let refusal = c["sound_without_audio"] ?? ""
        #expect(
            refusal.hasPrefix("64 slomo: --trigger sound: listens to the capture's sound input: give --audio DEVICE or --trigger-audio DEVICE"), "\(refusal)")
    }

    /// `--trigger-audio`: the trigger's own microphone. The clicks reach only it (the recording's sound
    /// comes from another, silent input), and each still fires a shot at its own instant, the frame
    /// of that instant; a microphone that is not there is refused before anything is written.
    @Test func aSeparateMicrophoneTriggersAtEachClick() throws {
        let c = try VividAudioVM.checks()
        #expect(c["mic_rc"] == "0")
        // clicks N shots M matched K missed X offset_ms p50 max frame_after_ms p50 max exact E player_xruns R DEVICE
        let f = (c["mic_trigger"] ?? "").split(separator: " ").map(String.init)
        try #require(f.count == 19, "\(c["mic_trigger"] ?? "")")
        let n = Int(f[1]) ?? 0, shots = Int(f[3]) ?? -1, matched = Int(f[5]) ?? -1
        #expect(n >= 4 && shots == matched && matched == n, "every click on the microphone fires once: \(c["mic_trigger"] ?? "")")
        #expect((Double(f[10]) ?? 99) <= 2.0, "each event at its click: \(c["mic_trigger"] ?? "")")
        #expect(f[15] == String(shots), "the frame of the instant: \(c["mic_trigger"] ?? "")")
        #expect(f[18] == "hw:Loopback,1,1", "the recording's sound is --audio, not the microphone: \(c["mic_trigger"] ?? "")")
        #expect(c["mic_missing"] == "66 slomo: hw:7,0: cannot open the sound device for capture: No such file or directory 1", "\(c["mic_missing"] ?? "")")
    }

    @Test func aTriggeredShotHasItsSoundFromItsFirstFrame() throws {
        let c = try VividAudioVM.checks()
        #expect(c["shot_rc"] == "0")
        let s = try #require(streams(c, "shot_streams"), "\(c["shot_streams"] ?? "")")
        // 1 s before + 1 after (121 frames at 60 fps; vivid's dropped frames under emulation stretch it a little)
        #expect(s.codec == "alac" && s.start == 0 && s.video > 1.95 && s.video < 2.5 && abs(s.audio - s.video) < 0.1, "\(c["shot_streams"] ?? "")")
        let o = offsets(c, "shot_offsets")
        #expect(o.count == 6 && o[0] >= 3 && o[2] <= 2.0, "\(c["shot_offsets"] ?? "")")
    }

    /// A shot with its sound, slowed to 1/4 with spectral time-pitch by export: the phone's experience.
    @Test func aShotExportsSlowedWithItsSound() throws {
        let c = try VividAudioVM.checks()
        let f = (c["shot_export"] ?? "").split(separator: " ").map(String.init)
        let shot = try #require(streams(c, "shot_streams"))
        #expect(f.count == 5 && f[0] == "0", "\(c["shot_export"] ?? "")")
        if f.count == 5, let v = Double(f[1]), let a = Double(f[2]) {
            // (the export's 30 fps grid and its last frame's duration: within 0.15 s)
            #expect(abs(v - 4 * shot.video) < 0.15 && abs(a - v) < 0.1, "\(c["shot_export"] ?? "") from \(c["shot_streams"] ?? "")")
        }
    }

    /// Slowed while recording (`--segment 1-2@1/4`): the sound follows the same map (7 s of video
    /// and sound from 4 s), and the clicks outside the slowed second stay where they were played.
    @Test func soundFollowsASegmentSlowedWhileRecording() throws {
        let c = try VividAudioVM.checks()
        #expect(c["seg_rc"] == "0")
        let s = try #require(streams(c, "seg_streams"), "\(c["seg_streams"] ?? "")")
        #expect(abs(s.video - 7) < 0.1 && abs(s.audio - s.video) < 0.05 && s.start == 0, "\(c["seg_streams"] ?? "")")
        let o = offsets(c, "seg_offsets")
        #expect(o.count == 6 && o[0] >= 4 && o[2] <= 2.0, "\(c["seg_offsets"] ?? "")")
    }

    @Test func aKilledRecordingKeepsItsSoundUpToTheLastFragment() throws {
        let c = try VividAudioVM.checks()
        let s = try #require(streams(c, "kill_streams"), "\(c["kill_streams"] ?? "")")
        #expect(s.codec == "alac" && s.audio > 1 && abs(s.audio - s.video) < 1.1, "\(c["kill_streams"] ?? "")")
    }

    @Test func badSoundInputIsOneLineAndNothingIsWritten() throws {
        let c = try VividAudioVM.checks()
        #expect(c["bad_card"] == "66 slomo: hw:7,0: cannot open the sound device for capture: No such file or directory 1", "\(c["bad_card"] ?? "")")
        #expect(
            c["bad_rate"]?.hasPrefix("64 slomo: hw:Loopback,1,0: 384000 Hz: Invalid argument (the card offers ") == true
                && c["bad_rate"]?.hasSuffix(" 1") == true, "\(c["bad_rate"] ?? "")")
        #expect(c["bad_busy"] == "69 slomo: hw:Loopback,1,0: cannot open the sound device for capture: Device or resource busy 1", "\(c["bad_busy"] ?? "")")
    }
}

/// Two vivid webcams (n_devs=2) on one CLOCK_MONOTONIC timeline and one trigger (same boot as the sound checks).
@Suite(.serialized, .enabled(if: VividVM.available, VividVM.skipReason))
struct VividTwoCameraTests {
    /// The reported skew is what the two files' own timestamps say (pts + slomo_capture_start).
    @Test func skewIsWhatTheKernelTimestampsSay() throws {
        let c = try VividAudioVM.checks()
        #expect(c["two_rc"] == "0")
        let r = VividVM.numbers(c, "two_report")  // cameras, frames 1, frames 2, matched, p50, p99, max (ms)
        let f = VividVM.numbers(c, "two_files")  // matched, p50, max (ms), from the files
        #expect(r.count == 7 && r[0] == 2 && r[1] >= 150 && r[2] >= 150, "\(c["two_report"] ?? "")")
        #expect(
            r.count == 7 && f.count == 3 && abs(r[3] - f[0]) <= 2 && abs(r[4] - f[1]) < 0.002 && abs(r[6] - f[2]) < 0.002,
            "report \(c["two_report"] ?? "") vs files \(c["two_files"] ?? "")")
        // nearest frames of two 60 fps cameras: half a period apart at most, a period where a frame was dropped
        #expect(r.count == 7 && r[6] <= 16.7, "\(c["two_report"] ?? "")")
    }

    /// One stdin trigger, two shots around the same instant: the same event time, trigger frames
    /// within one period (two where the driver dropped frames in a shot: the frame nearest the
    /// event may be the one lost, as happened once in CI under emulation, 22.5 ms apart).
    @Test func oneTriggerSelectsTheSameInstantOnBothCameras() throws {
        let c = try VividAudioVM.checks()
        #expect(c["twoshot_rc"] == "0")
        let s = (c["twoshot"] ?? "").split(separator: " ").map(String.init)
        try #require(s.count == 7, "\(c["twoshot"] ?? "")")
        let period = 1000.0 / 60, gaps = Int(s[6]) ?? -1
        #expect((Double(s[0]) ?? 99) <= (gaps == 0 ? 1 : 2) * period + 0.05 && gaps >= 0, "\(c["twoshot"] ?? "")")
        #expect(s[1] == "True" && s[2] == "30" && s[3] == "30" && s[4] == "30" && s[5] == "30", "\(c["twoshot"] ?? "")")
        #expect(c["two_noname"]?.hasPrefix("64 slomo: -o '") == true && c["two_noname"]?.contains("{camera}") == true, "\(c["two_noname"] ?? "")")
    }
}

enum VividAudioVM {
    static func checks() throws -> [String: String] { try VividVM.audioChecks() }
}
