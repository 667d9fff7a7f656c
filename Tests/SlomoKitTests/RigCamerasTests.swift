import Testing

@testable import SlomoKit

/// A rig of several cameras heard by its machine as one: the lead camera's trigger placings, a
/// shot once every running camera saved it, a lost camera dropped from what is waited for.
@Suite struct RigCamerasTests {
    @Test func aShotIsSavedOnceEveryCameraSavedIt() {
        var c = RigCameras(count: 3)
        #expect(c.saved(camera: 1, shot: 4).isEmpty)
        #expect(c.saved(camera: 0, shot: 4).isEmpty)
        #expect(c.saved(camera: 2, shot: 4) == [4])
        #expect(c.saving.isEmpty)
    }

    @Test func theLeadCameraSpeaksForAllUntilItIsLost() {
        var c = RigCameras(count: 2)
        #expect(c.speaksForAll(0) && !c.speaksForAll(1))
        _ = c.ended(camera: 0, quit: false, why: "unplugged")
        #expect(c.speaksForAll(1) && c.lead == 1 && c.running == [1])
        #expect(c.lost(0) == "unplugged" && c.lost(1) == nil)
    }

    @Test func aLostCameraIsNoLongerWaitedFor() {
        var c = RigCameras(count: 2)
        #expect(c.saved(camera: 0, shot: 1).isEmpty)
        // camera 2 is unplugged before it saved shot 1: shot 1 is done with camera 1's file
        let (all, settled) = c.ended(camera: 1, quit: false, why: "gone")
        #expect(!all && settled == [1])
        #expect(c.saved(camera: 0, shot: 2) == [2])
    }

    @Test func theMachineHearsTheEndOnceEveryCameraEnded() {
        var c = RigCameras(count: 2)
        #expect(c.ended(camera: 0, quit: true, why: nil).all == false)
        // asked to end: not lost
        #expect(c.lost(0) == nil)
        #expect(c.ended(camera: 1, quit: true, why: nil).all)
    }

    @Test func aRigOfOnePassesEverythingThrough() {
        var c = RigCameras(count: 1)
        #expect(c.speaksForAll(0))
        #expect(c.saved(camera: 0, shot: 7) == [7])
        #expect(c.ended(camera: 0, quit: false, why: "gone").all)
    }
}
