import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// Capture's ranges are the library's (`validate()` on each part of a capture request), so every
/// front end refuses alike with the setting typed: the command line shows its flag
/// (`CaptureCLITests`), a server its field.
@Suite struct CaptureRequestValidationTests {
    func refusal(_ body: () throws -> Void) -> (String, String)? {
        do {
            try body()
            return nil
        } catch let e as SettingError { return (e.setting.name, e.wording.description) } catch { return ("?", "\(error)") }
    }

    @Test func limits() {
        #expect(refusal { try CaptureLimits(duration: Rational(86_401)).validate() }?.0 == "duration")
        #expect(refusal { try CaptureLimits(duration: .zero).validate() }?.1 == "duration 0: must be in (0, 86400] s")
        #expect(refusal { try CaptureLimits(frames: 0).validate() }?.1 == "frames 0: must be at least 1")
        var l = CaptureLimits(duration: Rational(5), frames: 10)
        l.ringFrames = 3
        #expect(refusal { try l.validate() }?.0 == "ringFrames")
        l.ringFrames = 4
        #expect(refusal { try l.validate() } == nil)
    }

    @Test func previewSoundAndDriver() {
        var p = PreviewSettings(output: "-")
        p.fps = Rational(61)
        #expect(refusal { try p.validate() }?.1 == "previewFps 61: must be > 0 and at most 60")
        p.fps = Rational(1, 2)
        p.width = 63
        #expect(refusal { try p.validate() }?.0 == "previewWidth")
        #expect(refusal { try AudioSettings(device: "hw:0", rate: 7999).validate() }?.0 == "audioRate")
        #expect(refusal { try AudioSettings(device: "hw:0", channels: 33).validate() }?.0 == "audioChannels")
        #expect(refusal { try AudioSettings(device: "hw:0", rate: 48_000, channels: 2).validate() } == nil)
        var d = DeviceCaptureRequest(device: "/dev/video0")
        d.buffers = 65
        #expect(refusal { try d.validate() }?.0 == "buffers")
        d.buffers = 8
        d.bytesPerLine = 0
        #expect(refusal { try d.validate() }?.1 == "bytesPerLine 0: must be in 1...1048576")
    }

    /// The other requests' ranges live in the library too: a batch's parallelism, a trigger's
    /// shots, playback's lead, an export's threads.
    @Test func batchTriggerPlayAndExport() throws {
        #expect(refusal { try BatchRunner.Options(jobs: 0, threadsPerJob: 1, executable: "slomo").validate() }?.1 == "jobs 0: expected 1...256")
        #expect(refusal { try BatchRunner.Options(jobs: 2, threadsPerJob: -1, executable: "slomo").validate() }?.0 == "threads")
        #expect(refusal { try BatchRunner.Options(jobs: 256, threadsPerJob: 0, executable: "slomo").validate() } == nil)
        #expect(refusal { try TriggerSettings(kind: .stdin, pre: .one, post: .one, shots: -1).validate() }?.1 == "shots -1: must be 0 (until stopped) or more")
        var play = PlayRequest(input: "a.mp4", output: "-")
        play.lead = .zero
        #expect(refusal { try play.validate() }?.1 == "lead 0: expected 1...1000 (milliseconds)")
        play.lead = Rational(1, 1000)
        #expect(refusal { try play.validate() } == nil)
        var run = try JobRun(job: BatchJob(input: "a.mp4", output: "b.mp4", command: .export))
        run.threads = -1
        #expect(refusal { _ = try run.exportRequest() }?.0 == "threads")
    }

    /// The sound trigger's level and holdoff, and its need for a sound input, are the library's checks.
    @Test func soundTrigger() throws {
        #expect(try OptionValues.trigger("sound") == .sound(levelDBFS: Rational(-20)))
        #expect(try OptionValues.trigger("sound=-35") == .sound(levelDBFS: Rational(-35)))
        #expect(refusal { _ = try OptionValues.trigger("sound=loud") }?.0 == "trigger")
        var t = TriggerSettings(kind: .sound(levelDBFS: Rational(5)), pre: .one, post: .one)
        #expect(refusal { try t.validate() }?.1 == "trigger sound=5: the level is in dBFS, -90...0 (default -20)")
        t.kind = .sound(levelDBFS: Rational(-20))
        #expect(refusal { try t.validate(audio: nil) }?.0 == "trigger")
        #expect(refusal { try t.validate(audio: AudioSettings(device: "hw:1,0")) } == nil)
        t.holdoff = Rational(61)
        #expect(refusal { try t.validate() }?.0 == "triggerHoldoff")
        // its own microphone instead of the recorded input: not the same device, not for another trigger
        t.holdoff = Rational(1, 2)
        t.audio = AudioSettings(device: "hw:2,0")
        #expect(refusal { try t.validate(audio: nil) } == nil)
        #expect(
            refusal { try t.validate(audio: AudioSettings(device: "hw:2,0")) }?.1
                == "triggerAudio 'hw:2,0': is the recorded audio device already: the trigger listens to it without triggerAudio")
        t.kind = .stdin
        #expect(refusal { try t.validate(audio: nil) }?.0 == "triggerAudio")
    }
}

/// The GPIO trigger's spelling and ranges (the line itself: VividGPIOTests, on a real kernel chip).
@Suite struct GPIOTriggerSpecTests {
    @Test func specs() throws {
        #expect(try OptionValues.trigger("gpio:gpiochip0:3") == .gpio(GPIOTriggerLine(chip: "gpiochip0", line: "3", edges: .rising)))
        #expect(
            try OptionValues.trigger("gpio:/dev/gpiochip1:trigger-in:both") == .gpio(GPIOTriggerLine(chip: "/dev/gpiochip1", line: "trigger-in", edges: .both)))
        for bad in ["gpio:", "gpio:chip", "gpio:chip:1:sideways", "gpio::1", "gpio:a:1:rising:x"] {
            #expect(throws: SettingError.self) { try OptionValues.trigger(bad) }
        }
        var t = TriggerSettings(kind: .gpio(GPIOTriggerLine(chip: "c", line: "0", edges: .rising)), pre: .one, post: .one)
        t.debounce = Rational(2)
        #expect(throws: SettingError.self) { try t.validate() }
        t.debounce = Rational(1, 1000)
        try t.validate()
    }
}

/// `--trigger-out`: its spelling, and the line's behaviour behind the seam (raised once per event,
/// however many cameras share it; low after the pulse and on close). On a real kernel chip: VividGPIOTests.
@Suite struct TriggerOutputTests {
    @Test func spec() throws {
        #expect(try TriggerOutputLine.parse("gpio:gpiochip0:27") == TriggerOutputLine(chip: "gpiochip0", line: "27", pulse: Rational(1, 100)))
        #expect(try TriggerOutputLine.parse("gpio:strobe-board:flash,pulse=250").pulse == Rational(1, 4))
        #expect(try TriggerOutputLine.parse("gpio:c:1,pulse=5").description == "gpio:c:1,pulse=5")
        for bad in ["gpio:c", "gpio::1", "gpio:c:1:rising", "gpio:c:1,pulse=0", "gpio:c:1,pulse=10001", "gpio:c:1,width=5", "udp://1.2.3.4:5"] {
            #expect(throws: SettingError.self, "\(bad)") { try TriggerOutputLine.parse(bad) }
        }
    }

    final class Line: @unchecked Sendable {
        let lock = NSLock()
        var values: [(Bool, Rational)] = []
        func set(_ v: Bool) {
            lock.lock()
            values.append((v, CaptureClock.now()))
            lock.unlock()
        }
        var all: [(Bool, Rational)] {
            lock.lock()
            defer { lock.unlock() }
            return values
        }
    }

    @Test func oneRisePerEventThenLowAfterThePulse() throws {
        let line = Line()
        let out = TriggerOutput(TriggerOutputLine(chip: "c", line: "1", pulse: Rational(30, 1000)), set: { line.set($0) })
        let event = CaptureClock.now()
        let a = try #require(out.fire(event: event))
        let b = try #require(out.fire(event: event))  // a second camera, the same event
        #expect(a == b)
        #expect(a.raisedTime >= event && a.afterEvent == a.raisedTime - event && a.pulseMs == 30)
        #expect(line.all.map(\.0) == [true], "one rise for one event: \(line.all.map(\.0))")
        Thread.sleep(forTimeInterval: 0.2)
        let v = line.all
        #expect(v.map(\.0) == [true, false], "low again after the pulse: \(v.map(\.0))")
        if v.count == 2 { #expect(v[1].1 - v[0].1 >= Rational(30, 1000), "not before the pulse ended") }
        // the next event raises it again; closing mid-pulse leaves it low
        _ = try #require(out.fire(event: CaptureClock.now()))
        out.close()
        #expect(line.all.map(\.0) == [true, false, true, false])
    }

    @Test func aLineThatCannotBeSetIsSaidNotFatal() {
        struct Refused: Error {}
        let out = TriggerOutput(TriggerOutputLine(chip: "c", line: "1", pulse: Rational(1, 100)), set: { v in if v { throw Refused() } })
        #expect(out.fire(event: CaptureClock.now()) == nil)
        #expect(out.warning?.hasPrefix("gpio:c:1,pulse=10: the line could not be raised") == true, "\(out.warning ?? "")")
        out.close()
    }
}
