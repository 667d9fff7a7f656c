import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// The rig's state machine (`RigMachine`): every state × every input against the table in its
/// documentation, then walks through whole scenarios (shots, a new window, the server stopping).
@Suite struct RigMachineTests {
    /// Settings whose arm takes two shots, so that a trigger while one fills is a further shot.
    static let settings = RigSettings(preTrigger: Rational(1), postTrigger: Rational(1), shots: 2)
    static let pre = 240, post = 240
    static let armedAt = Rational(100)

    static func trigger(at t: Int = 101) -> RigTrigger { RigTrigger(time: Rational(t), wall: Rational(1_700_000_000), source: "api") }

    /// The machine in `state`, as the rig reaches it.
    static func machine(in state: RigState) -> RigMachine {
        var m = RigMachine(settings: settings)
        func go(_ i: RigInput) { _ = m.handle(i) }
        switch state {
        case .starting: break
        case .idle: go(.sessionStarted(preFrames: pre, postFrames: post, at: .zero))
        case .armed, .triggered, .saving:
            go(.sessionStarted(preFrames: pre, postFrames: post, at: .zero))
            go(.ringCounted(1_000))
            go(.armAsked(settings, at: armedAt))
            if state == .armed { break }
            go(.triggerAsked(trigger()))
            go(.triggerPlaced(shot: 1, source: "api", ringFrames: 1_010))
            if state == .saving { go(.ringCounted(1_010 + Int64(post))) }
        case .stopped:
            go(.sessionStarted(preFrames: pre, postFrames: post, at: .zero))
            go(.sessionEnded(quit: false, why: "the camera stopped: inputEnded"))
        }
        #expect(m.state == state)
        return m
    }

    /// One input of each kind, as the rig sends it.
    static func input(_ kind: RigInput.Kind) -> RigInput {
        var window = settings
        window.preTrigger = Rational(2)
        switch kind {
        case .armAsked: return .armAsked(settings, at: Rational(200))
        case .triggerAsked: return .triggerAsked(trigger(at: 201))
        case .disarmAsked: return .disarmAsked
        case .settingsChangeAsked: return .settingsChangeAsked(window, fields: ["preTrigger"])
        case .closeAsked: return .closeAsked
        case .sessionStarted: return .sessionStarted(preFrames: pre, postFrames: post, at: Rational(300))
        case .sessionFailedToStart: return .sessionFailedToStart("/dev/video9: no such device")
        case .triggerPlaced: return .triggerPlaced(shot: 2, source: "api", ringFrames: 1_010 + Int64(post) + 10)
        case .ringCounted: return .ringCounted(1_010 + Int64(post) + 5)
        case .shotProgressed: return .shotProgressed(shot: 1, written: 100, total: 481)
        case .shotFinished: return .shotFinished(1)
        case .sessionEnded: return .sessionEnded(quit: false, why: "the camera stopped: inputEnded")
        }
    }

    /// What an input does in a state: the state after it, or a refusal of this kind whose
    /// sentence holds these words (and the machine unchanged).
    enum Outcome: Equatable, CustomStringConvertible {
        case to(RigState)
        case refused(FailureKind, String)
        var description: String {
            switch self {
            case .to(let s): "→ \(s)"
            case .refused(let k, let w): "refused \(k) '\(w)'"
            }
        }
    }

    /// The table of `RigMachine`'s documentation.
    static let table: [RigState: [RigInput.Kind: Outcome]] = [
        .starting: [
            .armAsked: .refused(.conflict, "the camera is starting: arm again in a moment"), .triggerAsked: .refused(.conflict, "not armed: arm first"),
            .disarmAsked: .to(.starting), .settingsChangeAsked: .refused(.conflict, "change only while idle (the rig is starting"),
            .closeAsked: .to(.starting), .sessionStarted: .to(.idle), .sessionFailedToStart: .to(.stopped), .triggerPlaced: .to(.starting),
            .ringCounted: .to(.starting), .shotProgressed: .to(.starting), .shotFinished: .to(.starting), .sessionEnded: .to(.stopped),
        ],
        .idle: [
            .armAsked: .to(.armed), .triggerAsked: .refused(.conflict, "not armed: arm first"), .disarmAsked: .to(.idle),
            .settingsChangeAsked: .to(.idle), .closeAsked: .to(.idle), .sessionStarted: .to(.idle), .sessionFailedToStart: .to(.stopped),
            .triggerPlaced: .to(.idle), .ringCounted: .to(.idle), .shotProgressed: .to(.idle), .shotFinished: .to(.idle), .sessionEnded: .to(.stopped),
        ],
        .armed: [
            .armAsked: .refused(.conflict, "already armed: disarm first"), .triggerAsked: .to(.triggered), .disarmAsked: .to(.idle),
            .settingsChangeAsked: .refused(.conflict, "(the rig is armed; disarm first)"), .closeAsked: .to(.armed), .sessionStarted: .to(.idle),
            .sessionFailedToStart: .to(.stopped), .triggerPlaced: .to(.armed), .ringCounted: .to(.armed), .shotProgressed: .to(.armed),
            .shotFinished: .to(.armed), .sessionEnded: .to(.stopped),
        ],
        .triggered: [
            .armAsked: .refused(.conflict, "already triggered: disarm first"), .triggerAsked: .to(.triggered), .disarmAsked: .to(.triggered),
            .settingsChangeAsked: .refused(.conflict, "(the rig is triggered; disarm first)"), .closeAsked: .to(.triggered),
            .sessionStarted: .to(.idle), .sessionFailedToStart: .to(.stopped), .triggerPlaced: .to(.saving), .ringCounted: .to(.saving),
            .shotProgressed: .to(.triggered), .shotFinished: .to(.armed), .sessionEnded: .to(.stopped),
        ],
        .saving: [
            .armAsked: .refused(.conflict, "already saving: disarm first"), .triggerAsked: .to(.saving), .disarmAsked: .to(.saving),
            .settingsChangeAsked: .refused(.conflict, "(the rig is saving; disarm first)"), .closeAsked: .to(.saving), .sessionStarted: .to(.idle),
            .sessionFailedToStart: .to(.stopped), .triggerPlaced: .to(.saving), .ringCounted: .to(.saving), .shotProgressed: .to(.saving),
            .shotFinished: .to(.armed), .sessionEnded: .to(.stopped),
        ],
        .stopped: [
            .armAsked: .refused(.unavailable, "the camera is gone: the camera stopped: inputEnded"),
            .triggerAsked: .refused(.unavailable, "the camera is gone"), .disarmAsked: .refused(.unavailable, "the camera is gone"),
            .settingsChangeAsked: .refused(.conflict, "(the rig is stopped; disarm first)"), .closeAsked: .to(.stopped), .sessionStarted: .to(.idle),
            .sessionFailedToStart: .to(.stopped), .triggerPlaced: .to(.stopped), .ringCounted: .to(.stopped), .shotProgressed: .to(.stopped),
            .shotFinished: .to(.stopped), .sessionEnded: .to(.stopped),
        ],
    ]

    @Test func everyStateTimesEveryInput() {
        #expect(Set(Self.table.keys) == Set(RigState.allCases))
        var cells = 0
        for state in RigState.allCases {
            for kind in RigInput.Kind.allCases {
                guard let expected = Self.table[state]?[kind] else {
                    Issue.record("the table has no cell for \(state) × \(kind)")
                    continue
                }
                cells += 1
                let before = Self.machine(in: state)
                var m = before
                let effects = m.handle(Self.input(kind))
                let refusals = effects.compactMap { e -> RigRefusal? in if case .refuse(let r) = e { r } else { nil } }
                switch expected {
                case .to(let next):
                    #expect(refusals.isEmpty, "\(state) × \(kind): \(refusals)")
                    #expect(m.state == next, "\(state) × \(kind): \(m.state), expected \(next)")
                case .refused(let kind2, let words):
                    #expect(refusals.count == 1 && effects.last == .refuse(refusals[0]), "\(state) × \(kind): \(effects)")
                    #expect(refusals.first?.kind == kind2, "\(state) × \(kind): \(String(describing: refusals.first))")
                    #expect(refusals.first?.message.contains(words) == true, "\(state) × \(kind): \(String(describing: refusals.first?.message))")
                    #expect(refusals.first?.message.contains("\n") == false)
                    // a refusal changes nothing
                    #expect(m == before, "\(state) × \(kind) refused but changed the machine")
                }
                // every change of state is told to the clients
                if m.state != before.state { #expect(effects.contains(.announceState), "\(state) × \(kind): \(effects)") }
            }
        }
        #expect(cells == RigState.allCases.count * RigInput.Kind.allCases.count)
    }

    @Test func settingsOutOfRangeAreRefusedFirstNamingTheField() {
        var bad = Self.settings
        bad.postTrigger = Rational(-1)
        for state in RigState.allCases {
            for input in [RigInput.armAsked(bad, at: .zero), .settingsChangeAsked(bad, fields: ["postTrigger"])] {
                var m = Self.machine(in: state)
                guard case .refuse(let r)? = m.handle(input).first else {
                    Issue.record("\(state): \(input) not refused")
                    continue
                }
                #expect(r.kind == .badRequest && r.field == "postTrigger" && r.message.hasPrefix("postTrigger: "), "\(r)")
            }
        }
    }

    @Test func oneShotFromArmToSaved() {
        var m = Self.machine(in: .idle)
        var settings = Self.settings
        settings.shots = 1
        #expect(m.handle(.armAsked(settings, at: Self.armedAt)) == [.useSettings(settings), .announceState])
        #expect(m.state == .armed && m.shotsLeft == 1 && m.armedAt == Self.armedAt)
        // a message naming an instant before the arm is not this arm's
        #expect(m.handle(.triggerAsked(Self.trigger(at: 99))).first.flatMap(Self.refusalWords) == "its instant is 1 s before the rig was armed")
        #expect(m.handle(.triggerAsked(Self.trigger())) == [.sendTrigger(Self.trigger()), .announceState])
        #expect(m.state == .triggered && m.shotsLeft == 0 && m.pendingTriggers == 1)
        // the arm's one shot is taken: a second trigger is refused, in one sentence
        #expect(
            m.handle(.triggerAsked(Self.trigger(at: 102))).first.flatMap(Self.refusalWords)
                == "this arm's 1 shot is taken and still saving: arm again once saved")
        #expect(m.handle(.triggerPlaced(shot: 7, source: "api", ringFrames: 500)) == [.emit(.trigger, shot: 7, source: "api")])
        #expect(m.pendingTriggers == 0 && m.inFlight.shots[7]?.ringCount == 500 && m.inFlight.shots[7]?.total == 481)
        #expect(m.handle(.ringCounted(500 + Int64(Self.post) - 1)).isEmpty && m.state == .triggered)
        // the post-trigger window whole in the ring: saving (stored, not derived)
        #expect(m.handle(.ringCounted(500 + Int64(Self.post))) == [.announceState] && m.state == .saving)
        #expect(m.handle(.shotProgressed(shot: 7, written: 240, total: 481)).isEmpty)
        #expect(m.inFlight.first?.written == 240.0 / 481)
        #expect(m.handle(.shotFinished(7)) == [.emit(.shot, shot: 7, source: nil), .announceState])
        #expect(m.state == .idle && m.inFlight.isEmpty)
    }

    @Test func aTriggerWhileSavingIsAFurtherShot() {
        var m = Self.machine(in: .saving)
        #expect(m.handle(.triggerAsked(Self.trigger(at: 102))) == [.sendTrigger(Self.trigger(at: 102))])
        #expect(m.state == .saving && m.shotsLeft == 0)
        #expect(m.handle(.triggerAsked(Self.trigger(at: 103))).first.flatMap(Self.refusalWords)?.contains("2 shots are taken") == true)
        _ = m.handle(.triggerPlaced(shot: 2, source: "gpio", ringFrames: 1_300))
        // shot 1 saved: shot 2's window is still filling
        _ = m.handle(.shotFinished(1))
        #expect(m.state == .triggered)
        _ = m.handle(.ringCounted(1_300 + Int64(Self.post)))
        #expect(m.state == .saving)
        _ = m.handle(.shotFinished(2))
        #expect(m.state == .idle, "the arm's shots are taken")
    }

    @Test func disarmWhileTriggeredSavesTheShotThenIdles() {
        var m = Self.machine(in: .triggered)
        #expect(m.handle(.disarmAsked) == [.announceState])
        #expect(m.state == .triggered && m.shotsLeft == 0)
        #expect(m.handle(.triggerAsked(Self.trigger(at: 150))).first.flatMap(Self.refusalWords)?.contains("taken") == true)
        _ = m.handle(.shotFinished(1))
        #expect(m.state == .idle)
    }

    @Test func armWithANewWindowReopensTheCameraFirst() {
        var m = Self.machine(in: .idle)
        var wider = Self.settings
        wider.postTrigger = Rational(3)
        #expect(m.handle(.armAsked(wider, at: Rational(5))) == [.useSettings(wider), .reopenSession])
        #expect(m.state == .idle && m.reopening == .window(restore: Self.settings, thenArm: true))
        // the old session ends (asked to), the new one starts: armed from then
        #expect(m.handle(.sessionEnded(quit: true, why: nil)) == [.announceState] && m.state == .idle)
        _ = m.handle(.sessionStarted(preFrames: 240, postFrames: 720, at: Rational(9)))
        #expect(m.state == .armed && m.armedAt == Rational(9) && m.settings == wider && m.reopening == nil)
        #expect(m.inFlight.postFrames == 720)
    }

    @Test func aRefusedWindowGoesBackToTheOldOne() {
        var m = Self.machine(in: .idle)
        var next = Self.settings
        next.preTrigger = Rational(30)
        #expect(m.handle(.settingsChangeAsked(next, fields: ["preTrigger"])) == [.useSettings(next), .reopenSession])
        _ = m.handle(.sessionEnded(quit: true, why: nil))
        let effects = m.handle(.sessionFailedToStart("the ring needs 9 GiB"))
        #expect(effects == [.useSettings(Self.settings), .openSession, .refuse(RigRefusal(.conflict, "the new window was refused: the ring needs 9 GiB"))])
        #expect(m.settings == Self.settings && m.reopening == .restoring)
        // the old window opens again: idle, with the old settings
        var back = m
        _ = back.handle(.sessionStarted(preFrames: 240, postFrames: 240, at: .zero))
        #expect(back.state == .idle && back.reopening == nil)
        // or it does not: the camera is gone, and says why
        _ = m.handle(.sessionFailedToStart("/dev/video0: busy"))
        #expect(m.state == .stopped && m.message == "/dev/video0: busy")
        #expect(m.handle(.triggerAsked(Self.trigger())).first.flatMap(Self.refusalWords) == "the camera is gone: /dev/video0: busy")
    }

    @Test func closingSavesWhatWasTriggeredThenStops() {
        var m = Self.machine(in: .triggered)
        #expect(m.handle(.closeAsked) == [.cancelExports, .closeTriggerInputs, .closeSession, .closeTriggerOutput, .endEvents])
        #expect(m.handle(.closeAsked).isEmpty, "a second close does nothing")
        #expect(m.handle(.armAsked(Self.settings, at: .zero)).first.flatMap(Self.refusalWords)?.hasPrefix("the camera is gone") == true)
        _ = m.handle(.ringCounted(2_000))
        _ = m.handle(.shotFinished(1))
        #expect(m.state == .armed)
        // the session ends as asked: stopped, with no message (nothing went wrong)
        _ = m.handle(.sessionEnded(quit: true, why: nil))
        #expect(m.state == .stopped && m.message == nil && m.inFlight.isEmpty)
    }

    @Test func aSessionThatEndsByItselfStopsTheRigSayingWhy() {
        var m = Self.machine(in: .armed)
        _ = m.handle(.sessionEnded(quit: false, why: "the camera stopped: deviceLost"))
        #expect(m.state == .stopped && m.message == "the camera stopped: deviceLost")
        #expect(m.handle(.disarmAsked) == [.refuse(RigRefusal(.unavailable, "the camera is gone: the camera stopped: deviceLost"))])
    }

    static func refusalWords(_ e: RigEffect) -> String? { if case .refuse(let r) = e { r.message } else { nil } }
}

/// The pure parts the rig's status is made of.
@Suite struct RigReadoutTests {
    @Test func shotsInFlightFillAndProgress() {
        var s = ShotsInFlight(preFrames: 10, postFrames: 20)
        #expect(s.first == nil && !s.firstWindowFull)
        s.count(5)
        #expect(s.preFill == 0.5)
        s.count(30)
        #expect(s.preFill == 1)
        s.place(3)
        s.count(40)
        s.place(4)
        #expect(s.first?.shot == 3 && s.first?.postFill == 0.5 && s.shots[3]?.total == 31)
        s.progress(3, written: 31, total: 31)
        s.progress(9, written: 1, total: 1)  // not in flight: nothing
        #expect(s.first?.written == 1 && s.shots[9] == nil)
        s.count(50)
        #expect(s.firstWindowFull)
        s.finish(3)
        #expect(s.first?.shot == 4 && !s.firstWindowFull)
        #expect(ShotsInFlight(preFrames: 0, postFrames: 0).preFill == 1)
        var none = ShotsInFlight(preFrames: 0, postFrames: 0)
        none.place(1)
        #expect(none.firstWindowFull, "no post-trigger frames: saving at once")
    }

    @Test func statusFromTheMachineAndTheCamera() {
        var m = RigMachineTests.machine(in: .triggered)
        _ = m.handle(.shotProgressed(shot: 1, written: 48, total: 481))
        let format = CaptureFormat(fourcc: "GREY", width: 640, height: 360, frameDuration: Rational(1, 240))
        let counts = CaptureStatus(framesCaptured: 1_130, droppedByDriver: 2, droppedBySlomo: 0, damagedFrames: 1, ringFrames: 1_130)
        let live = LivePictures.Counts(viewers: 1, pictures: 9, replaced: 0, fps: Rational(10), width: 640)
        let camera = RigCamera(name: "synthetic", format: format, counts: counts, plan: nil)
        let s = RigStatus(machine: m, camera: camera, fps: 240, live: live, shotsSaved: 4, triggers: ["api"])
        #expect(s.state == .triggered && s.preTriggerFill == 1 && s.savingShot == 1 && s.savingProgress == 48.0 / 481)
        #expect(s.postTriggerFill == 0, "the machine's count (1,010) is the trigger's own")
        #expect(s.nominalFrameRate == Rational(240) && s.framesCaptured == 1_130 && s.droppedByDriver == 2 && s.damagedFrames == 1)
        #expect(s.shotsLeft == 1 && s.shotsSaved == 4 && s.camera == "synthetic")
        // no session: no fills, no rate
        let gone = RigStatus(
            machine: m, camera: RigCamera(name: "synthetic", format: format, counts: nil, plan: nil), fps: nil, live: live, shotsSaved: 4,
            triggers: ["api"])
        #expect(gone.preTriggerFill == nil && gone.postTriggerFill == nil && gone.savingShot == nil && gone.nominalFrameRate == nil)
    }

    @Test func rateOverASecondOrMore() {
        var r = RateMeter()
        #expect(r.read(frames: 0, at: .zero) == nil)
        #expect(r.read(frames: 100, at: Rational(1, 2)) == nil)
        #expect(r.read(frames: 240, at: Rational(1)) == 240)
        #expect(r.read(frames: 300, at: Rational(3, 2)) == 240, "kept until the next second")
        #expect(r.read(frames: 480, at: Rational(2)) == 240)
    }

    @Test func recentlyUsedKeepsTheLastThree() {
        var r = RecentlyUsed<Int, String>(limit: 3)
        for k in 1...3 { _ = r.use(k) { "p\(k)" } }
        #expect(r.use(1) { "again" }.value == "p1", "a key used again keeps its value")
        let (_, dropped) = r.use(4) { "p4" }
        #expect(dropped == ["p2"] && r.order == [3, 1, 4])
        #expect(r.remove(3) == "p3" && r.order == [1, 4])
    }
}
