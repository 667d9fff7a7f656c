import Foundation
import SlomoCore
import SlomoV4L2
import SlomoALSA

/// `"maxFps"` in `slomo formats --json`: the selected mode, fraction and display rate.
public struct MaxFpsMode: Codable, Sendable, Equatable {
    public var pixelFormat: String
    public var width: Int
    public var height: Int
    /// Seconds per frame, exact (`{"numerator": 1, "denominator": 120}`).
    public var frameDuration: Rational
    /// 1/frameDuration rounded to 3 decimals, for display only.
    public var fps: Double
    public var compressed: Bool
    /// Raw and over the USB 2.0 budget (see `FormatSelection`): on a USB 2.0 link this mode drops frames.
    public var exceedsUSB2Budget: Bool

    public init(_ m: CaptureMode) {
        pixelFormat = m.pixelFormat
        width = m.width
        height = m.height
        frameDuration = m.frameDuration
        fps = (m.fps.doubleValue * 1000).rounded() / 1000
        compressed = m.compressed
        exceedsUSB2Budget = m.exceedsUSB2Budget
    }
}

/// `slomo formats` as data: where the catalog came from, the catalog, the selection and, with
/// `--apply`, what the driver set.
public struct FormatsReport: Encodable, Sendable {
    /// The device path or the listing file.
    public var source: String
    public var device: DeviceInfo?
    public var catalog: DeviceCatalog
    /// The selected (highest-rate) mode; always encoded, `null` when nothing is selectable.
    public var maxFps: MaxFpsMode?
    /// When `maxFps` is over the USB 2.0 budget: the best mode that is not (null if none).
    public var maxFpsWithinUSB2Budget: MaxFpsMode?
    public var applied: AppliedMode?
    /// `--measure`: each candidate mode streamed briefly (advertised vs achieved rate, drops).
    public var measured: [ModeMeasurement]?
    /// `--measure`: candidates left out by the limit (narrow with --format/--size to reach them).
    public var notMeasured: Int?

    enum CodingKeys: String, CodingKey { case source, device, catalog, maxFps, maxFpsWithinUSB2Budget, applied, measured, notMeasured }

    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(device, forKey: .device)
        try c.encode(catalog, forKey: .catalog)
        try c.encode(maxFps, forKey: .maxFps)  // null, never absent
        if maxFps?.exceedsUSB2Budget == true { try c.encode(maxFpsWithinUSB2Budget, forKey: .maxFpsWithinUSB2Budget) }
        try c.encodeIfPresent(applied, forKey: .applied)
        try c.encodeIfPresent(measured, forKey: .measured)
        try c.encodeIfPresent(notMeasured, forKey: .notMeasured)
    }

    /// `best` is `FormatSelection.best(in: catalog, for: request)`, chosen once by the caller.
    init(source: String, device: DeviceInfo?, catalog: DeviceCatalog, request: ModeRequest, best: CaptureMode?) {
        self.source = source
        self.device = device
        self.catalog = catalog
        maxFps = best.map(MaxFpsMode.init)
        if best?.exceedsUSB2Budget == true {
            var r = request
            r.withinUSB2Budget = true
            maxFpsWithinUSB2Budget = FormatSelection.best(in: catalog, for: r).map(MaxFpsMode.init)
        }
    }
}

/// `slomo controls` as data (`Docs/JSON.md`): version 1, the source, the device (absent for a
/// listing) and every control in the driver's order, each with its `group`.
public struct ControlsReport: Encodable, Sendable {
    public var version = 1
    public var source: String
    public var device: DeviceInfo?
    public var controls: [ControlEntry]

    init(source: String, device: DeviceInfo?, controls: [CameraControl]) {
        self.source = source
        self.device = device
        self.controls = controls.map(ControlEntry.init)
    }

    /// The controls grouped for people: camera first, then user, …, vendor last.
    public var grouped: [(group: String, controls: [ControlEntry])] {
        let groups = Dictionary(grouping: controls, by: \.group)
        return CameraControl.groupOrder.compactMap { g in groups[g].map { (g, $0) } }
    }
}

/// One control in `slomo controls --json`: fields named for people, nulls where a kind has no value.
public struct ControlEntry: Encodable, Sendable {
    public var name: String
    public var label: String
    /// `0x00980913`.
    public var id: String
    public var group: String
    public var type: String
    public var minimum: Int64?
    public var maximum: Int64?
    public var step: Int64?
    public var `default`: Int64?
    public var value: Int64?
    /// The value as read (`3 (Aperture Priority Mode)`, `on`); a string control's text.
    public var valueText: String?
    public var flags: [String]
    public var menu: [CameraControl.MenuItem]?
    let control: CameraControl

    init(_ c: CameraControl) {
        control = c
        name = c.name
        label = c.label
        group = c.group
        type = c.kind.rawValue
        id = "0x" + String(repeating: "0", count: max(0, 8 - String(c.id, radix: 16).count)) + String(c.id, radix: 16)
        let ranged = [.integer, .integer64, .menu, .integerMenu, .boolean, .bitmask, .string].contains(c.kind)
        minimum = ranged ? c.minimum : nil
        maximum = ranged ? c.maximum : nil
        step = [.integer, .integer64, .string].contains(c.kind) ? c.step : nil
        self.default = ranged && c.kind != .string ? c.defaultValue : nil
        value = c.value
        valueText = c.kind == .string ? c.text : c.value.map(c.describe)
        flags = c.flags.list
        menu = c.menu.isEmpty ? nil : c.menu
    }

    enum CodingKeys: String, CodingKey { case name, label, id, group, type, minimum, maximum, step, `default`, value, valueText, flags, menu }

    public func encode(to encoder: any Swift.Encoder) throws {
        var k = encoder.container(keyedBy: CodingKeys.self)
        try k.encode(name, forKey: .name)
        try k.encode(label, forKey: .label)
        try k.encode(id, forKey: .id)
        try k.encode(group, forKey: .group)
        try k.encode(type, forKey: .type)
        try k.encode(minimum, forKey: .minimum)
        try k.encode(maximum, forKey: .maximum)
        try k.encode(step, forKey: .step)
        try k.encode(self.default, forKey: .default)
        try k.encode(value, forKey: .value)
        try k.encode(valueText, forKey: .valueText)
        try k.encode(flags, forKey: .flags)
        try k.encodeIfPresent(menu, forKey: .menu)
    }
}

/// `slomo devices` as data.
public struct DevicesReport: Codable, Sendable {
    /// Every /dev/video* node in numeric order, capture or not (see `isCapture`, `isMetadata`).
    public var devices: [DeviceInfo]
    /// Nodes that could not be opened or queried, one line each (`/dev/video3: open failed: … (EACCES)`).
    public var problems: [String]
    /// Sound cards' capture devices (ALSA), for `capture --audio NAME`.
    public var soundCapture: [SoundCaptureDevice]
    /// GenICam cameras (Aravis), for `capture genicam:ID`.
    public var genicam: [GenICamDeviceInfo] = []

    public init(devices: [DeviceInfo], problems: [String], soundCapture: [SoundCaptureDevice] = [], genicam: [GenICamDeviceInfo] = []) {
        self.genicam = genicam
        self.devices = devices
        self.problems = problems
        self.soundCapture = soundCapture
    }
}

/// A sound card's capture device (ALSA), as `slomo devices` lists it.
public typealias SoundCaptureDevice = SlomoALSA.SoundCaptureDevice
