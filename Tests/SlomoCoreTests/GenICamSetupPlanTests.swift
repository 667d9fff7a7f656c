import Testing
@testable import SlomoCore

/// The order a GenICam camera is set up in (`GenICamSetupPlanner`), against what a camera
/// reports: the mode, triggers off, what bounds the rate, the rate, what needs the rate, the
/// FrameStart trigger last; and the refusals, made before anything is written.
@Suite struct GenICamSetupPlanTests {
    /// A camera with every feature the planner consults (SFNC names), stored and unstored formats.
    static let camera = GenICamCameraState(
        pixelFormats: ["Mono8", "Mono12Packed", "Mono16", "RGB8"], pixelFormat: "Mono8",
        features: Set(GenICamSetupPlanner.consulted).subtracting(["ExposureTimeAbs", "GainRaw", "GainAbs"]),
        triggerSources: ["Line0", "Software"])

    /// The steps as short lines (the report's entries left out: `reports` reads those).
    static func steps(_ r: GenICamRequest, _ camera: GenICamCameraState = camera, modeOnly: Bool = false) throws -> [String] {
        try GenICamSetupPlanner.plan(r, camera: camera, modeOnly: modeOnly).steps.compactMap { s in
            switch s {
            case .pixelFormat(let f): return "PixelFormat=\(f)"
            case .zeroOffset(let f): return "\(f)=0"
            case .region(let size, let offset):
                return "region \(size.map { "\($0.first)x\($0.second)" } ?? "sensor") at \(offset.map { "\($0.first),\($0.second)" } ?? "centre")"
            case .clearTriggers: return "triggers off"
            case .set(let f, let v): return "\(f)=\(v)"
            case .exposureTime(let f, let s): return "\(f)=\(s) s"
            case .frameRate(let fps): return "rate \(fps.map { "\($0)" } ?? "max")"
            case .shutterAngle(let f, let d, let off): return "\(f)=\(d)°" + (off ? " after ExposureAuto=Off" : "")
            case .frameStartTrigger(let source): return "FrameStart from \(source)"
            case .report: return nil
            }
        }
    }

    static func reports(_ r: GenICamRequest, _ camera: GenICamCameraState = camera) throws -> [String] {
        try GenICamSetupPlanner.plan(r, camera: camera).steps.compactMap { s in
            guard case .report(let f, let o, let v) = s else { return nil }
            return "\(o) \(v): \(f)"
        }
    }

    static func refusal(_ r: GenICamRequest, _ camera: GenICamCameraState = camera) -> GenICamRefusal? {
        do {
            _ = try GenICamSetupPlanner.plan(r, camera: camera)
            return nil
        } catch { return error }
    }

    static func request(_ edit: (inout GenICamRequest) -> Void) -> GenICamRequest {
        var r = GenICamRequest()
        edit(&r)
        return r
    }

    /// Everything asked at once: each step in its place.
    static let everything = request {
        $0.pixelFormat = "Mono16"
        $0.size = (64, 48)
        $0.offset = (8, 4)
        $0.fps = Rational(250)
        $0.controls.shutter = .seconds(Rational(1, 1000))
        $0.controls.gain = .value(5)
        $0.controls.whiteBalance = .auto
        $0.controls.named = [("TestRegister", "42"), ("Gamma", "1.5")]
        $0.cameraTrigger = .software
    }

    @Test func theModeThenWhatBoundsTheRateThenTheRateThenTheRestThenTheTrigger() throws {
        #expect(
            try Self.steps(Self.everything) == [
                "PixelFormat=Mono16", "OffsetX=0", "OffsetY=0", "region 64x48 at 8,4", "triggers off",
                "ExposureAuto=Off", "ExposureTime=1/1000 s", "GainAuto=Off", "Gain=5", "BalanceWhiteAuto=Continuous",
                "rate 250", "TestRegister=42", "Gamma=1.5", "FrameStart from Software",
            ])
        #expect(
            try Self.reports(Self.everything) == [
                "--shutter 0.001 s: ExposureTime", "--gain 5: Gain", "--white-balance auto: BalanceWhiteAuto",
                "--control 42: TestRegister", "--control 1.5: Gamma",
                "--camera-trigger Software: TriggerSource", "--camera-trigger On: TriggerMode",
            ])
    }

    @Test func theShutterAngleWaitsForTheRateAndTheControlsForIt() throws {
        let r = Self.request {
            $0.controls.shutter = .angle(Rational(180))
            $0.controls.exposure = .lock
            $0.controls.named = [("TestRegister", "1")]
            $0.cameraTrigger = .line("Line0")
        }
        #expect(
            try Self.steps(r) == [
                "OffsetX=0", "OffsetY=0", "region sensor at centre", "triggers off", "ExposureAuto=Off",
                "rate max", "ExposureTime=180° after ExposureAuto=Off", "TestRegister=1", "FrameStart from Line0",
            ])
        // the older feature names where the camera has only those; no ExposureAuto, no offsets, no trigger
        let old = GenICamCameraState(
            pixelFormats: ["Mono8"], pixelFormat: "Mono8", features: ["ExposureTimeAbs", "GainRaw", "GainAuto"], triggerSources: [])
        let lock = Self.request {
            $0.controls.shutter = .angle(Rational(90))
            $0.controls.gain = .lock
        }
        #expect(try Self.steps(lock, old) == ["region sensor at centre", "GainAuto=Off", "rate max", "ExposureTimeAbs=90°"])
        #expect(try Self.reports(lock, old) == ["--gain lock: GainAuto", "--gain lock: GainRaw", "--shutter-angle 90°: ExposureTimeAbs"])
    }

    @Test func theModeAloneForFormats() throws {
        #expect(try Self.steps(Self.everything, modeOnly: true) == ["PixelFormat=Mono16", "OffsetX=0", "OffsetY=0", "region 64x48 at 8,4"])
        // what the mode alone does not reach is not refused: kelvin, focus
        let r = Self.request {
            $0.controls.whiteBalance = .value(5600)
            $0.controls.focus = .auto
        }
        #expect(try Self.steps(r, modeOnly: true) == ["OffsetX=0", "OffsetY=0", "region sensor at centre"])
    }

    @Test func thePixelFormatAskedElseTheCurrentElseTheFirstStored() throws {
        let offered = ["Mono12Packed", "BayerRG8", "Mono8"]
        #expect(try GenICamSetupPlanner.pixelFormat("Mono8", offered: offered, current: "BayerRG8") == "Mono8")
        #expect(try GenICamSetupPlanner.pixelFormat(nil, offered: offered, current: "BayerRG8") == "BayerRG8")
        #expect(try GenICamSetupPlanner.pixelFormat(nil, offered: offered, current: "Mono12Packed") == "BayerRG8")
        // the camera's format already: not written again
        #expect(try Self.steps(Self.request { $0.pixelFormat = "Mono8" }, modeOnly: true).first == "OffsetX=0")
        #expect(
            Self.refusal(Self.request { $0.pixelFormat = "Mono10" })
                == GenICamRefusal("PixelFormat Mono10", "not offered (the camera offers Mono8, Mono12Packed, Mono16, RGB8)", .badRequest))
        #expect(
            Self.refusal(Self.request { $0.pixelFormat = "Mono12Packed" })
                == GenICamRefusal("PixelFormat Mono12Packed", "slomo does not store this format yet (it stores Mono8, Mono16, RGB8)", .badRequest))
        let unstored = GenICamCameraState(pixelFormats: ["Mono12Packed", "YCbCr411_8"], pixelFormat: "Mono12Packed", features: [], triggerSources: [])
        #expect(
            Self.refusal(GenICamRequest(), unstored)
                == GenICamRefusal("PixelFormat", "none of the camera's formats is one slomo stores (Mono12Packed, YCbCr411_8)", .badRequest))
    }

    @Test func whatTheCameraLacksIsRefusedBeforeAnythingIsWritten() {
        let bare = GenICamCameraState(pixelFormats: ["Mono8"], pixelFormat: "Mono8", features: [], triggerSources: [])
        let lacks = GenICamRefusal.init(_:_:_:)
        #expect(Self.refusal(Self.request { $0.controls.gain = .value(3) }, bare) == lacks("--gain", "the camera has no such feature", .unavailable))
        #expect(Self.refusal(Self.request { $0.controls.exposure = .auto }, bare) == lacks("--exposure", "the camera has no such feature", .unavailable))
        #expect(
            Self.refusal(Self.request { $0.controls.shutter = .seconds(Rational(1, 500)) }, bare)
                == lacks("--shutter", "the camera has no such feature", .unavailable))
        #expect(
            Self.refusal(Self.request { $0.controls.shutter = .angle(Rational(180)) }, bare)
                == lacks("--shutter-angle", "the camera has no such feature", .unavailable))
        #expect(
            Self.refusal(Self.request { $0.controls.whiteBalance = .lock }, bare)
                == lacks("--white-balance", "the camera has no such feature", .unavailable))
        // kelvin is refused as a request, whatever the camera has
        #expect(
            Self.refusal(Self.request { $0.controls.whiteBalance = .value(5600) }, bare)
                == lacks("--white-balance", "GenICam cameras take auto or lock (kelvin has no standard feature)", .badRequest))
        #expect(
            Self.refusal(Self.request { $0.controls.focus = .auto })
                == lacks("--focus", "GenICam has no standard feature for it: use --control NAME=VALUE", .unavailable))
        #expect(Self.refusal(Self.request { $0.controls.zoom = Rational(2) })?.operation == "--zoom")
        #expect(
            Self.refusal(Self.request { $0.cameraTrigger = .line("Line3") })
                == lacks("--camera-trigger Line3", "the camera's trigger sources are Line0, Software", .badRequest))
        #expect(
            Self.refusal(Self.request { $0.cameraTrigger = .software }, bare) == lacks("--camera-trigger Software", "the camera has no trigger", .unavailable))
    }
}
