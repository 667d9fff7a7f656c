import CV4L2
import Glibc
import Testing
import SlomoCore
@testable import SlomoV4L2

/// A fake driver behind the ioctl seam: edge cases the real vivid driver will not produce on demand.
final class FakeV4L2: V4L2Syscalls {
    var kinds: [String: NodeKind] = ["/dev/video0": .characterDevice]
    var openErrno: Int32 = 0
    var caps = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
    /// fourcc → [(w, h, [intervals as (num, den)])]
    var formats: [(String, [(Int, Int, [(UInt32, UInt32)])])] = [
        ("MJPG", [(640, 480, [(1, 120), (1, 30)]), (1280, 720, [(1, 60)])]),
        ("YUYV", [(640, 480, [(1, 30)])]),
    ]
    /// Fail this request with this errno (after `after` successful calls of it).
    var fail: (V4L2Request, Int32, after: Int)?
    var calls: [V4L2Request] = []

    func kind(of path: String) -> NodeKind { kinds[path] ?? .missing }
    func open(_ path: String) -> (fd: Int32, errno: Int32) { openErrno == 0 ? (3, 0) : (-1, openErrno) }
    func close(_ fd: Int32) {}
    func mmap(_ fd: Int32, length: Int, offset: Int) -> (UnsafeMutableRawPointer?, Int32) { (nil, ENOMEM) }
    func munmap(_ p: UnsafeMutableRawPointer, length: Int) {}
    func poll(_ fd: Int32, milliseconds: Int32) -> (Bool, Int32) { (false, 0) }
    func listDevices() -> [String] { kinds.keys.sorted() }

    func ioctl(_ fd: Int32, _ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        calls.append(r)
        if let (req, e, after) = fail, req == r, calls.filter({ $0 == r }).count > after { return e }
        switch r {
        case .querycap:
            let c = arg.assumingMemoryBound(to: v4l2_capability.self)
            c.pointee.capabilities = caps
            withUnsafeMutableBytes(of: &c.pointee.driver) { b in for (i, ch) in "fake".utf8.enumerated() { b[i] = ch } }
            return 0
        case .enumFmt:
            let d = arg.assumingMemoryBound(to: v4l2_fmtdesc.self)
            let i = Int(d.pointee.index)
            guard i < formats.count else { return EINVAL }
            d.pointee.pixelformat = VideoDevice.code(formats[i].0)
            d.pointee.flags = formats[i].0 == "MJPG" ? UInt32(V4L2_FMT_FLAG_COMPRESSED) : 0
            return 0
        case .enumFramesizes:
            let s = arg.assumingMemoryBound(to: v4l2_frmsizeenum.self)
            guard let f = formats.first(where: { VideoDevice.code($0.0) == s.pointee.pixel_format }), Int(s.pointee.index) < f.1.count else { return EINVAL }
            let (w, h, _) = f.1[Int(s.pointee.index)]
            s.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            s.pointee.discrete.width = UInt32(w); s.pointee.discrete.height = UInt32(h)
            return 0
        case .enumFrameintervals:
            let v = arg.assumingMemoryBound(to: v4l2_frmivalenum.self)
            guard let f = formats.first(where: { VideoDevice.code($0.0) == v.pointee.pixel_format }),
                  let size = f.1.first(where: { $0.0 == Int(v.pointee.width) && $0.1 == Int(v.pointee.height) }),
                  Int(v.pointee.index) < size.2.count else { return EINVAL }
            v.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
            v.pointee.discrete = v4l2_fract(numerator: size.2[Int(v.pointee.index)].0, denominator: size.2[Int(v.pointee.index)].1)
            return 0
        default:
            return ENOTTY
        }
    }
}

@Suite struct FakeDriverTests {
    @Test func enumeratesTheCatalogAndTheTraceIsBounded() throws {
        let fake = FakeV4L2()
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        let c = try d.catalog()
        #expect(c.formats.map(\.fourcc) == ["MJPG", "YUYV"])
        #expect(c.formats[0].compressed && !c.formats[1].compressed)
        #expect(c.formats[0].sizes[0].intervals == .discrete([Rational(1, 120), Rational(1, 30)]))
        #expect(FormatSelection.best(in: c)?.fps == Rational(120))
        #expect(fake.calls.first == .querycap && fake.calls.filter { $0 == .enumFmt }.count == 3)   // 2 formats + the EINVAL end
    }

    @Test(arguments: [(Int32(EBUSY), "EBUSY", SlomoCore.ExitStatus.unavailable), (EACCES, "EACCES", .permissionDenied), (ENXIO, "ENXIO", .noInput)])
    func openErrorsNameTheDeviceAndErrno(errno e: Int32, name: String, status: SlomoCore.ExitStatus) {
        let fake = FakeV4L2()
        fake.openErrno = e
        do { _ = try VideoDevice(path: "/dev/video0", syscalls: fake); Issue.record("opened") } catch {
            #expect(error.description.hasPrefix("/dev/video0: open failed: ") && error.description.contains(name))
            #expect(error.exitStatus == status)
        }
    }

    @Test func missingNotCharacterAndNotCapture() {
        let fake = FakeV4L2()
        fake.kinds["/tmp/file"] = .notCharacterDevice
        #expect(throws: V4L2Error.self) { try VideoDevice(path: "/dev/video9", syscalls: fake) }
        do { _ = try VideoDevice(path: "/tmp/file", syscalls: fake) } catch {
            #expect(error.code == .notCharacterDevice && error.exitStatus == .noInput && error.description.contains("not a character device"))
        }
        fake.caps = UInt32(V4L2_CAP_META_CAPTURE | V4L2_CAP_STREAMING)
        do { _ = try VideoDevice(path: "/dev/video0", syscalls: fake) } catch {
            #expect(error.code == .notCapture && error.exitStatus == .unavailable && error.description.contains("Metadata Capture"))
        }
        // listing all nodes marks it instead of failing
        #expect((try? VideoDevice(path: "/dev/video0", syscalls: fake, requireCapture: false))?.info.isMetadata == true)
    }

    @Test func errorsMidEnumeration() throws {
        // ENOTTY on frame sizes: the format stays, without sizes ("not enumerable")
        let a = FakeV4L2()
        a.fail = (.enumFramesizes, ENOTTY, after: 0)
        let c = try VideoDevice(path: "/dev/video0", syscalls: a).catalog()
        #expect(c.formats.count == 2 && c.formats.allSatisfy { $0.sizes.isEmpty })
        #expect(FormatSelection.best(in: c) == nil)
        // EIO on the second format: a clear error with the request and index
        let b = FakeV4L2()
        b.fail = (.enumFmt, EIO, after: 1)
        do { _ = try VideoDevice(path: "/dev/video0", syscalls: b).catalog(); Issue.record("no error") } catch {
            #expect(error.description == "/dev/video0: VIDIOC_ENUM_FMT index 1 failed: Input/output error (EIO)")
        }
        // EINVAL on intervals ends that list: sizes without intervals
        let d = FakeV4L2()
        d.fail = (.enumFrameintervals, EINVAL, after: 0)
        let e = try VideoDevice(path: "/dev/video0", syscalls: d).catalog()
        #expect(e.formats[0].sizes.allSatisfy { $0.intervals == nil })
    }

    @Test func fourccTextRoundTrips() {
        for f in ["MJPG", "YUYV", "Y10 ", "Y16 -BE"] { #expect(VideoDevice.fourcc(VideoDevice.code(f)) == f) }
    }
}
