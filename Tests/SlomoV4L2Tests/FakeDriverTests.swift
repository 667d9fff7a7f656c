import CV4L2
import Glibc
import Testing
import SlomoCore
import SlomoTestSupport
@testable import SlomoV4L2

/// Opening and probing against the fake driver: the ioctl trace, errno → message and exit
/// status, and enumeration that ends (EINVAL), is absent (ENOTTY) or fails midway.
@Suite struct FakeDriverTests {
    @Test func enumeratesTheCatalogAndTheTraceIsBounded() throws {
        let fake = FakeV4L2()
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        #expect(d.info.driver == "fake" && d.info.card == "Fake Camera" && d.info.bus == "usb-0000:00:14.0-1")
        #expect(d.info.hasTimePerFrame == true)
        let c = try d.catalog()
        #expect(c.formats.map(\.fourcc) == ["MJPG", "YUYV"])
        #expect(c.formats.map(\.description) == ["MJPG format", "YUYV format"])
        #expect(c.formats[0].compressed && !c.formats[1].compressed)
        #expect(c.formats[0].sizes[0].intervals == .discrete([Rational(1, 120), Rational(1, 30)]))
        #expect(FormatSelection.best(in: c)?.fps == Rational(120))
        // QUERYCAP, G_PARM (rate settable?), then formats → sizes → intervals, each list ended by EINVAL
        #expect(fake.calls.prefix(2) == [.querycap, .gParm])
        #expect(fake.calls.filter { $0 == .enumFmt }.count == 3)  // 2 formats + the EINVAL end
        #expect(fake.calls.filter { $0 == .enumFramesizes }.count == 5)  // (2 + end) + (1 + end)
        #expect(fake.calls.filter { $0 == .enumFrameintervals }.count == 3 + 3 + 2)
    }

    @Test(arguments: [
        (EBUSY, "Device or resource busy (EBUSY)", SlomoCore.FailureKind.unavailable),
        (EACCES, "Permission denied (EACCES)", .notPermitted),
        (EPERM, "Operation not permitted (EPERM)", .notPermitted),
        (ENXIO, "No such device or address (ENXIO)", .missing),
        (ENODEV, "No such device (ENODEV)", .ioFailed),
    ])
    func openErrorsNameTheDeviceAndErrno(errno e: Int32, cause: String, status: SlomoCore.FailureKind) {
        let fake = FakeV4L2()
        fake.openErrno = e
        do {
            _ = try VideoDevice(path: "/dev/video0", syscalls: fake)
            Issue.record("opened")
        } catch {
            #expect(error.description == "/dev/video0: open failed: \(cause)")
            #expect(error.kind == status)
        }
    }

    @Test func missingNotCharacterInaccessibleNotV4L2AndNotCapture() {
        let fake = FakeV4L2()
        fake.kinds["/tmp/file"] = .notCharacterDevice
        fake.kinds["/secret/video0"] = .inaccessible(errno: EACCES)
        func failure(_ path: String, requireCapture: Bool = true) -> V4L2Error? {
            do {
                _ = try VideoDevice(path: path, syscalls: fake, requireCapture: requireCapture)
                return nil
            } catch { return error }
        }
        let missing = failure("/dev/video9")
        #expect(missing?.description == "/dev/video9: open failed: No such file or directory (ENOENT)")
        #expect(missing?.kind == .missing && missing?.code == .noDevice)
        let file = failure("/tmp/file")
        #expect(file?.description == "/tmp/file: not a V4L2 device (not a character device)")
        #expect(file?.code == .notCharacterDevice && file?.kind == .missing)
        #expect(fake.calls.isEmpty)  // nothing opened for those
        let hidden = failure("/secret/video0")
        #expect(hidden?.description == "/secret/video0: stat failed: Permission denied (EACCES)" && hidden?.kind == .notPermitted)

        fake.fail = (.querycap, ENOTTY, after: 0)  // e.g. /dev/null
        let notV4L2 = failure("/dev/video0")
        #expect(notV4L2?.description == "/dev/video0: VIDIOC_QUERYCAP failed: Inappropriate ioctl for device (ENOTTY): not a V4L2 device")
        #expect(notV4L2?.code == .notV4L2Device && notV4L2?.kind == .missing)
        #expect(fake.log.last == "close")

        fake.fail = nil
        fake.caps = UInt32(V4L2_CAP_META_CAPTURE | V4L2_CAP_STREAMING)
        let meta = failure("/dev/video0")
        #expect(meta?.description == "/dev/video0: not a video capture device (Metadata Capture, Streaming)")
        #expect(meta?.code == .notCapture && meta?.kind == .unavailable)
        // listing all nodes marks it instead of failing
        let info = (try? VideoDevice(path: "/dev/video0", syscalls: fake, requireCapture: false))?.info
        #expect(info?.isMetadata == true && info?.isCapture == false && info?.hasTimePerFrame == nil)
        fake.caps = UInt32(V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_STREAMING)
        #expect(failure("/dev/video0")?.description == "/dev/video0: not a video capture device (Video Output, Streaming)")
    }

    @Test func errorsMidEnumeration() throws {
        // ENOTTY on frame sizes: the formats stay, without sizes ("not enumerable"), nothing selectable
        let a = FakeV4L2()
        a.fail = (.enumFramesizes, ENOTTY, after: 0)
        let c = try VideoDevice(path: "/dev/video0", syscalls: a).catalog()
        #expect(c.formats.count == 2 && c.formats.allSatisfy { $0.sizes.isEmpty })
        #expect(FormatSelection.best(in: c) == nil)
        // EIO on the second format: a clear error with the request and index
        let b = FakeV4L2()
        b.fail = (.enumFmt, EIO, after: 1)
        #expect(throws: V4L2Error(device: "/dev/video0", request: "VIDIOC_ENUM_FMT", errno: EIO, detail: "index 1")) {
            try VideoDevice(path: "/dev/video0", syscalls: b).catalog()
        }
        #expect(
            V4L2Error(device: "/dev/video0", request: "VIDIOC_ENUM_FMT", errno: EIO, detail: "index 1").description
                == "/dev/video0: VIDIOC_ENUM_FMT index 1 failed: Input/output error (EIO)")
        // EINVAL on intervals ends that list: sizes without intervals
        let d = FakeV4L2()
        d.fail = (.enumFrameintervals, EINVAL, after: 0)
        let e = try VideoDevice(path: "/dev/video0", syscalls: d).catalog()
        #expect(e.formats[0].sizes.count == 2 && e.formats[0].sizes.allSatisfy { $0.intervals == nil })
        // ENODEV on the 3rd interval call (the end-of-list probe): unplugged mid-way, exit 74, size and index named
        let f = FakeV4L2()
        f.fail = (.enumFrameintervals, ENODEV, after: 2)
        do {
            _ = try VideoDevice(path: "/dev/video0", syscalls: f).catalog()
            Issue.record("no error")
        } catch {
            #expect(error.description == "/dev/video0: VIDIOC_ENUM_FRAMEINTERVALS MJPG 640x480 index 2 failed: No such device (ENODEV)")
            #expect(error.kind == .ioFailed)
        }
        // ENOTTY on ENUM_FMT itself: the driver lists no formats
        let g = FakeV4L2()
        g.fail = (.enumFmt, ENOTTY, after: 0)
        do {
            _ = try VideoDevice(path: "/dev/video0", syscalls: g).catalog()
            Issue.record("no error")
        } catch {
            #expect(error.code == .unsupported && error.description.hasSuffix("(ENOTTY): the driver lists no formats"))
        }
    }

    @Test func aDriverThatNeverEndsItsListIsBounded() throws {
        let fake = FakeV4L2()
        fake.endlessFormats = true
        let c = try VideoDevice(path: "/dev/video0", syscalls: fake).catalog()
        #expect(c.formats.count == VideoDevice.maxFormats)
        #expect(fake.calls.filter { $0 == .enumFmt }.count == VideoDevice.maxFormats)
    }

    @Test func multiPlanarNodesUseTheMplaneBufferType() throws {
        let fake = FakeV4L2()
        fake.caps = UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE | V4L2_CAP_STREAMING)
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        #expect(d.info.isCapture && d.info.isMultiplanar && d.info.capabilityNames == ["Video Capture Multiplanar", "Streaming"])
        #expect(d.info.hasTimePerFrame == true)  // G_PARM answered: it used the MPLANE type
        #expect(try d.catalog().formats.count == 2)  // ENUM_FMT too (the fake refuses the other type)
        #expect(d.currentSize().map { "\($0.0)x\($0.1)" } == "640x480")
    }

    @Test func stepwiseSizesProbeIntervalsAtTheRequestedSize() throws {
        let fake = FakeV4L2()
        fake.formats = [("YUYV", false, .stepwise(min: (16, 16), max: (1920, 1080), step: (2, 2)))]
        fake.intervalsAt = { w, _ in (V4L2_FRMIVAL_TYPE_CONTINUOUS.rawValue, (1, w <= 640 ? 240 : 60), (1, 1)) }
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        let atVGA = try d.catalog(probeSize: (640, 480))
        #expect(atVGA.formats[0].sizes[0].intervalsSize == Dimensions(width: 640, height: 480))
        #expect(atVGA.formats[0].sizes[0].intervals == .continuous(min: Rational(1, 240), max: Rational(1)))
        #expect(FormatSelection.best(in: atVGA).map { "\($0.width)x\($0.height) \($0.fps)" } == "640x480 240")
        // off the step grid or out of range: the largest size
        let odd = try d.catalog(probeSize: (641, 480))
        #expect(odd.formats[0].sizes[0].intervalsSize == Dimensions(width: 1920, height: 1080))
        #expect(fake.log.filter { $0.hasPrefix("ENUM_FRAMEINTERVALS") } == ["ENUM_FRAMEINTERVALS 640x480", "ENUM_FRAMEINTERVALS 1920x1080"])
    }

    @Test func fourccTextRoundTripsAndErrnoNames() {
        for f in ["MJPG", "YUYV", "Y10 ", "Y16 -BE"] { #expect(VideoDevice.fourcc(VideoDevice.code(f)) == f) }
        #expect(VideoDevice.code("MJPG") == 0x4750_4A4D)
        #expect(V4L2Error.errnoName(ENOTTY) == "ENOTTY" && V4L2Error.errnoName(EOVERFLOW) == "EOVERFLOW")
        #expect(V4L2Error.errnoName(9999) == "errno 9999")
    }
}
