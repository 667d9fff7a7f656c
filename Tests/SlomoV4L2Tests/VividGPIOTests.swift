import Foundation
import Testing

/// The GPIO trigger against a real kernel GPIO chip: gpio-sim, built for the test machine's kernel
/// (Tests/vm/gpio-sim.sh), its line driven through sysfs at CLOCK_MONOTONIC times read around each
/// write; vivid's camera records. One boot runs Tests/vivid/gpio-checks.sh.
@Suite(.serialized, .enabled(if: VividVM.available, VividVM.skipReason))
struct VividGPIOTests {
    /// Each edge fires a shot placed at the kernel's timestamp of the edge (inside the window of the
    /// write that made it), and the shot's trigger frame is the frame of that instant.
    @Test func eachEdgeSelectsTheFrameOfItsOwnInstant() throws {
        let c = try VividVM.gpioChecks()
        #expect(c["gpio_rc"] == "0")
        // edges shots inside exact widest-write-ms
        let f = (c["gpio_edges"] ?? "").split(separator: " ").map(String.init)
        try #require(f.count == 5, "\(c["gpio_edges"] ?? "")")
        #expect(f[0] == "3" && f[1] == "3", "three edges, three shots: \(c["gpio_edges"] ?? "")")
        #expect(f[2] == "3", "every event is the kernel's time of its edge: \(c["gpio_edges"] ?? "")")
        #expect(f[3] == "3", "every trigger frame is the frame of its instant: \(c["gpio_edges"] ?? "")")
    }

    /// `--trigger-out`: each shot raises the output line once, for its pulse, and the report's
    /// raise time is when the simulated line's value changed (read back by a poller).
    @Test func eachShotRaisesTheOutputLineForItsPulse() throws {
        let c = try VividVM.gpioChecks()
        // rises falls inside min-width max-width max-after-event-ms
        let f = (c["gpio_out"] ?? "").split(separator: " ").map(String.init)
        try #require(f.count == 6, "\(c["gpio_out"] ?? "")")
        #expect(f[0] == "3" && f[1] == "3", "one pulse per shot: \(c["gpio_out"] ?? "")")
        #expect(f[2] == "3", "each report's raise time is when the line changed: \(c["gpio_out"] ?? "")")
        // no pulse can have been shorter than 50 ms (its longest bound from the reads around its
        // changes), none longer than 80 ms (its shortest bound)
        let lo = Double(f[3]) ?? 0, hi = Double(f[4]) ?? 0
        #expect(lo >= 49.9 && hi < 80, "each pulse lasts its 50 ms: \(c["gpio_out"] ?? "")")
        // as the shot is decided, not after its 0.2 s of post-trigger frames: under 100 ms (the busy
        // emulated VM has taken 25 ms to decide)
        #expect((Double(f[5]) ?? 999) < 100, "raised as the shot is decided, not after the frames: \(c["gpio_out"] ?? "")")
    }

    @Test func aChipByLabelALineByNameAndTheFallingEdge() throws {
        let c = try VividVM.gpioChecks()
        let f = (c["gpio_named"] ?? "").split(separator: " ")
        #expect(f.count == 4 && f[0] == "0" && f[2] == "gpio" && f[3] == "True", "\(c["gpio_named"] ?? "")")
    }

    /// `slomo serve --trigger gpio:…`: an edge while idle fires no shot (an `ignored` event says
    /// why); armed, an edge fires one at the kernel's timestamp of the edge, the frame of that
    /// instant its trigger frame, the report names the line as what fired it, and `--trigger-out`
    /// (requested once, by the rig) was raised for it.
    @Test func serveTakesAnEdgeOnlyWhileArmed() throws {
        let c = try VividVM.gpioChecks()
        // ignored-events source says-not-armed shots-saved
        #expect(c["serve_gpio_idle"] == "1 gpio True 0", "\(c["serve_gpio_idle"] ?? "")")
        // trigger inside-the-write exact-frame has-frames raised-the-output-line
        #expect(c["serve_gpio_shot"] == "gpio True True True True", "\(c["serve_gpio_shot"] ?? "")")
        #expect(c["serve_gpio_rc"] == "130")  // SIGINT: 130, as every command
    }

    /// No such chip or line: 66; a line another program holds: 69; one line each, nothing written.
    @Test func missingAndHeldLinesAreRefused() throws {
        let c = try VividVM.gpioChecks()
        #expect((c["gpio_nochip"] ?? "").hasPrefix("66 slomo: gpio:nochip:0:rising: no GPIO chip 'nochip' (there are: gpiochip0"), "\(c["gpio_nochip"] ?? "")")
        #expect((c["gpio_nochip"] ?? "").hasSuffix(" 1"))
        #expect(
            (c["gpio_noline"] ?? "").hasPrefix("66 slomo: gpio:gpiochip0:9:rising: gpiochip0 has no line '9' (it has 4: 0...3"), "\(c["gpio_noline"] ?? "")")
        #expect((c["gpio_busy"] ?? "").hasPrefix("69 slomo: gpio:gpiochip0:1:rising: line 1 of gpiochip0 is held by 'slomo'"), "\(c["gpio_busy"] ?? "")")
        #expect((c["gpio_busy"] ?? "").hasSuffix(" 1"))
    }
}
