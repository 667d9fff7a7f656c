import Foundation
import Testing
@testable import SlomoSystem

/// The one door to the system: errno named once, file calls that throw it, the process's tables.
@Suite struct SystemTests {
    @Test func errnoIsNamedByTheSystemAndBySymbol() {
        #expect(Errno(ENOSPC).name == "ENOSPC")
        #expect(Errno(EXDEV).name == "EXDEV")  // any errno, not a hand-picked five
        #expect(Errno(ENOSPC).description == "No space left on device (ENOSPC)")
        #expect(Errno(9999).name == "errno 9999")
        #expect(Errno.noSpace == Errno(ENOSPC))
    }

    @Test func fileCallsThrowTheirErrno() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slomo-system-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = dir + "/a", b = dir + "/b"
        #expect(throws: Errno.noSuchFile) { try Files.status(a) }
        #expect(throws: Errno.noSuchFile) { try Files.rename(a, to: b) }
        #expect(throws: Errno.noSuchFile) { try Files.remove(a) }
        _ = FileManager.default.createFile(atPath: a, contents: Data("x".utf8))
        #expect(try Files.status(a).isRegular && !Files.status(a).isDirectory)
        #expect(try Files.status(dir).isDirectory)
        try FileManager.default.linkItem(atPath: a, toPath: b)
        #expect(Files.sameFile(a, b) && Files.sameFile(a, dir + "/./a") && !Files.sameFile(a, dir))
        try Files.remove(b)
        try Files.rename(a, to: b)
        #expect(FileManager.default.fileExists(atPath: b) && !FileManager.default.fileExists(atPath: a))
        #expect(Files.isWritable(dir) && !Files.isWritable(dir + "/missing"))
        let fd = try FileDescriptor.openForReading(b)
        defer { fd.close() }
        try fd.dataSync()
        var byte: UInt8 = 0
        #expect(try withUnsafeMutableBytes(of: &byte) { (p) throws(Errno) in try fd.read(into: p) } == 1 && byte == UInt8(ascii: "x"))
        #expect(throws: Errno.noSuchFile) { try FileDescriptor.openForReading(a) }
    }

    @Test func processesAndClocks() {
        #expect(CurrentProcess.exists(CurrentProcess.id))
        #expect(!CurrentProcess.exists(Int32.max))
        let t0 = Clock.now(), t1 = Clock.now()
        #expect((t1.seconds, t1.nanoseconds) >= (t0.seconds, t0.nanoseconds))
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 4096)
        defer { bytes.deallocate() }
        do throws(Errno) {
            try CurrentProcess.lockInMemory(bytes, 4096)
            CurrentProcess.unlock(bytes, 4096)
        } catch {
            #expect([Errno(EPERM), Errno(ENOMEM)].contains(error))  // refused by the limit: said, not trapped
        }
    }

    /// A clock in whole microseconds (what GenICam's arrival times are made of): the clock asked,
    /// read between the readings around it.
    @Test func microsecondsReadTheClockAsked() {
        func micros(_ t: (seconds: Int64, nanoseconds: Int64)) -> Int64 { t.seconds * 1_000_000 + t.nanoseconds / 1000 }
        for clock in [Clock.monotonic, Clock.realTime] {
            let before = micros(Clock.now(clock))
            let m = Clock.microseconds(clock)
            let after = micros(Clock.now(clock))
            #expect(before <= m && m <= after)
        }
        // the wall clock counts from 1970, the monotonic one from boot: each reading is its own clock's
        #expect(Clock.microseconds(Clock.realTime) - Clock.microseconds(Clock.monotonic) > 1_000_000)
    }

    @Test func aStopTokenIsRaisedOnceAndReadEverywhere() {
        let t = StopToken()
        #expect(!t.isRaised)
        t.raise()
        #expect(t.isRaised)
        t.reset()
        #expect(!t.isRaised)
    }

    /// The line the interrupt writes names every partial output registered, and none once they are gone.
    @Test func theInterruptLineNamesThePartialOutputs() {
        ProcessSignals.registerPartial("/tmp/.x.mp4.partial-1", shownAs: "x.mp4")
        ProcessSignals.registerPartial("/tmp/.y.mkv.partial-1", shownAs: "y.mkv")
        defer {
            ProcessSignals.unregisterPartial("/tmp/.x.mp4.partial-1")
            ProcessSignals.unregisterPartial("/tmp/.y.mkv.partial-1")
        }
        let line = Partials.message.map { String(cString: $0) } ?? ""
        // (other suites' outputs may be registered beside these while they run)
        #expect(
            line.hasPrefix("\nslomo: interrupted: ") && line.contains("x.mp4") && line.contains("y.mkv")
                && line.hasSuffix(" not written (the partial files removed)\n"))
        var names: [String] = []
        for i in 0..<Partials.capacity { if let p = Partials.table[i] { names.append(String(cString: p)) } }
        #expect(names.contains("/tmp/.x.mp4.partial-1") && names.contains("/tmp/.y.mkv.partial-1"))
        ProcessSignals.unregisterPartial("/tmp/.x.mp4.partial-1")
        let after = Partials.message.map { String(cString: $0) } ?? ""
        #expect(!after.contains("x.mp4") && (after.isEmpty || after.contains("y.mkv")))
    }
}
