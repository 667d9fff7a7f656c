/// One write of a control plan, in order: an automatic mode is switched off before its manual value.
public enum ControlStep: Sendable, Equatable {
    /// Write `value` to `control`, then read it back.
    case set(CameraControl, Int64, Origin)
    /// AVFoundation's lock: read `manual` (the value the automatic mode settled on), switch `auto`
    /// to `autoOff`, write the value read to `manual`, read both back.
    case lock(manual: CameraControl, auto: CameraControl, autoOff: Int64, Origin)
    /// No zoom control: crop the sensor area to its middle 1/factor (selection API), centred.
    case crop(factor: Rational, Origin)

    /// Which option asked for the step, what it asked, and what the step means.
    public struct Origin: Sendable, Equatable {
        public var option: String
        public var requested: String
        public var note: String?
        public init(_ option: String, _ requested: String, note: String? = nil) {
            self.option = option
            self.requested = requested
            self.note = note
        }
    }

    public var origin: Origin {
        switch self {
        case .set(_, _, let o), .lock(_, _, _, let o), .crop(_, let o): return o
        }
    }
}

/// Turns `ControlRequests` into ordered writes against the controls a device (or listing) has,
/// refusing before anything is written: an unknown name (with the nearest one), a value off the
/// range or step, a control the device lacks, a read-only or inactive one, `lock` or `auto`
/// without an automatic mode, a shutter longer than the frame.
public enum ControlPlanner {
    /// `frameDuration`: the mode's, for `--shutter-angle` and the shutter's upper bound.
    public static func plan(_ r: ControlRequests, controls: [CameraControl], frameDuration: Rational?) throws(ControlError) -> [ControlStep] {
        var p = Planning(controls: controls)
        try p.exposure(r, frameDuration: frameDuration)
        if let g = r.gain {
            try p.pair(
                g, option: "--gain", manual: p.find(ControlID.gain) ?? p.find(ControlID.analogueGain),
                auto: p.find(ControlID.autoGain), what: "gain", autoName: "gain_automatic", on: 1, off: 0)
        }
        if let w = r.whiteBalance {
            let awb = p.find(ControlID.autoWhiteBalance)
            let preset = awb == nil ? p.find(ControlID.autoNPresetWhiteBalance) : nil  // menu: 0 manual, 1 auto
            try p.pair(
                w, option: "--white-balance", manual: p.find(ControlID.whiteBalanceTemperature), auto: awb ?? preset,
                what: "white balance temperature", autoName: "white_balance_automatic", on: 1, off: 0)
        }
        if let f = r.focus {
            try p.pair(
                f, option: "--focus", manual: p.find(ControlID.focusAbsolute), auto: p.find(ControlID.focusAuto),
                what: "focus", autoName: "focus_automatic_continuous", on: 1, off: 0)
        }
        if let z = r.zoom { try p.zoom(z) }
        for (name, value) in r.named { try p.named(name, value) }
        return p.steps
    }

    /// The exposure time in `exposure_time_absolute` units (100 µs), nearest, never past `limit`.
    public static func exposureUnits(_ seconds: Rational, limit: Rational?) -> Int64 {
        var units = (seconds * Rational(10_000)).rounded(.nearest)
        if let limit, Rational(units, 10_000) > limit { units = (limit * Rational(10_000)).floor }
        return units
    }

    /// Levenshtein distance, for "did you mean" (`Suggestion.distance`).
    public static func distance(_ a: String, _ b: String) -> Int { Suggestion.distance(a, b) }
}

/// The planner's working state: the steps so far and the controls they claimed.
struct Planning {
    let controls: [CameraControl]
    var steps: [ControlStep] = []
    /// Control id → the option that set it (a second option on the same control is refused).
    var claimed: [UInt32: String] = [:]

    init(controls: [CameraControl]) { self.controls = controls }

    func find(_ id: UInt32) -> CameraControl? { controls.first { $0.id == id && !$0.flags.contains(.disabled) } }

    /// The value the control will have after the steps so far (its current value otherwise).
    func planned(_ c: CameraControl) -> Int64? {
        for s in steps.reversed() {
            if case .set(let t, let v, _) = s, t.id == c.id { return v }
            if case .lock(_, let a, let off, _) = s, a.id == c.id { return off }
        }
        return c.value
    }

    mutating func claim(_ c: CameraControl, _ option: String) throws(ControlError) {
        if let other = claimed[c.id], other != option { throw .usage("\(option): \(c.name) is also set by \(other); give one") }
        if c.flags.contains(.readOnly) { throw .unavailable("\(option): \(c.name) is read-only on this device") }
        claimed[c.id] = option
    }

    func check(_ c: CameraControl, _ v: Int64, _ option: String) throws(ControlError) {
        if let why = c.refusal(of: v) { throw .usage("\(option): \(c.name) \(v): \(why)") }
    }

    /// A manual control with an automatic partner: `--gain N|auto|lock` and its like.
    mutating func pair(
        _ s: ControlRequests.Value, option: String, manual: CameraControl?, auto: CameraControl?,
        what: String, autoName: String, on: Int64, off: Int64
    ) throws(ControlError) {
        let text = "\(option) \(s)"
        switch s {
        case .value(let v):
            guard let m = manual else { throw .unavailable("\(text): the device has no \(what) control\(alternatives(what))") }
            try check(m, v, text)
            if let a = auto, planned(a) != off {
                try claim(a, text)
                steps.append(.set(a, off, .init(text, "manual", note: "automatic \(what) off before the manual value")))
            } else if m.flags.contains(.inactive) {
                throw .unavailable("\(text): \(m.name) is inactive (the driver says another control governs it)")
            }
            try claim(m, text)
            steps.append(.set(m, v, .init(text, String(v))))
        case .auto:
            guard let a = auto else { throw .unavailable("\(text): the device has no automatic \(what) (no \(autoName) control)") }
            try claim(a, text)
            steps.append(.set(a, on, .init(text, "auto")))
        case .lock:
            guard let a = auto else { throw .unavailable("\(text): the device has no automatic \(what) to lock (no \(autoName) control)") }
            guard let m = manual else { throw .unavailable("\(text): the device has no manual \(what) control to hold the locked value") }
            try claim(a, text)
            try claim(m, text)
            steps.append(.lock(manual: m, auto: a, autoOff: off, .init(text, "lock")))
        }
    }

    /// `--shutter`/`--shutter-angle` (manual exposure time) and `--exposure auto|lock`.
    mutating func exposure(_ r: ControlRequests, frameDuration: Rational?) throws(ControlError) {
        let mode = find(ControlID.exposureAuto), time = find(ControlID.exposureAbsolute)
        // the auto_exposure menu's manual entry: manual, else shutter priority (the time is still ours)
        // (a listing without menu entries: the standard numbering)
        let manualEntry = mode.flatMap { m in
            m.menu.isEmpty ? ControlID.exposureManual : [ControlID.exposureManual, ControlID.exposureShutterPriority].first { m.menuItem($0) != nil }
        }
        if let shutter = r.shutter {
            let (seconds, text): (Rational, String)
            switch shutter {
            case .seconds(let s): (seconds, text) = (s, "--shutter \(s)")
            case .angle(let a):
                guard let d = frameDuration else { throw .usage("--shutter-angle \(a): the frame duration is unknown; give --shutter in seconds") }
                (seconds, text) = (d * a / Rational(360), "--shutter-angle \(a)")
            }
            guard let t = time else {
                throw .unavailable("\(text): the device has no exposure time control (exposure_time_absolute)\(alternatives("exposure"))")
            }
            if let d = frameDuration, seconds > d {
                let longest = ControlPlanner.exposureUnits(d, limit: d)
                throw .usage(
                    "\(text): \(seconds) s is longer than a frame (\(d) s at \(DecimalText.fps(d)) fps); the longest is \(Rational(longest, 10_000)) s (\(longest) × 100 µs)"
                )
            }
            let units = ControlPlanner.exposureUnits(seconds, limit: frameDuration)
            try check(t, units, text)
            if let m = mode, planned(m) != manualEntry {
                guard let entry = manualEntry else { throw .unavailable("\(text): auto_exposure offers no manual mode (\(m.menuChoices))") }
                try claim(m, text)
                steps.append(.set(m, entry, .init(text, "manual", note: "automatic exposure off before the exposure time")))
            }
            try claim(t, text)
            let note = "\(seconds) s = \(units) × 100 µs" + (Rational(units, 10_000) != seconds ? " (\(Rational(units, 10_000)) s)" : "")
            steps.append(.set(t, units, .init(text, "\(seconds) s", note: note)))
        }
        switch r.exposure {
        case .auto?:
            guard let m = mode else { throw .unavailable("--exposure auto: the device has no automatic exposure (no auto_exposure control)") }
            guard
                let entry = [ControlID.exposureAutoMode, ControlID.exposureAperturePriority].first(where: { m.menuItem($0) != nil })
                    ?? (m.menu.isEmpty ? ControlID.exposureAutoMode : nil)
            else {
                throw .unavailable("--exposure auto: auto_exposure offers no automatic mode (\(m.menuChoices))")
            }
            try claim(m, "--exposure auto")
            steps.append(.set(m, entry, .init("--exposure auto", "auto")))
        case .lock?:
            guard let m = mode, let t = time else {
                throw .unavailable("--exposure lock: the device has no automatic exposure to lock (needs auto_exposure and exposure_time_absolute)")
            }
            guard let entry = manualEntry else {
                throw .unavailable("--exposure lock: auto_exposure offers no manual mode (\(m.menuChoices))")
            }
            try claim(m, "--exposure lock")
            try claim(t, "--exposure lock")
            steps.append(.lock(manual: t, auto: m, autoOff: entry, .init("--exposure lock", "lock")))
        default: break
        }
    }

    /// `--zoom`: the zoom control's units where there is one, else a crop factor.
    mutating func zoom(_ z: Rational) throws(ControlError) {
        let text = "--zoom \(z)"
        if let c = find(ControlID.zoomAbsolute) {
            guard z.denominator == 1 else { throw .usage("\(text): zoom_absolute takes whole numbers (\(c.rangeText))") }
            try check(c, z.numerator, text)
            try claim(c, text)
            steps.append(.set(c, z.numerator, .init(text, String(z.numerator))))
        } else {
            guard z >= Rational(1), z <= Rational(16) else { throw .usage("\(text): without a zoom control, --zoom is a crop factor in 1...16") }
            steps.append(.crop(factor: z, .init(text, "\(z)×", note: "no zoom_absolute control: the sensor area is cropped")))
        }
    }

    /// `--control NAME=VALUE`.
    mutating func named(_ name: String, _ text: String) throws(ControlError) {
        let option = "--control \(name)=\(text)"
        let key = CameraControl.key(name)
        guard let c = controls.first(where: { $0.name == name || $0.name == key }), !c.flags.contains(.disabled) else {
            let names = controls.filter { $0.kind != .compound }.map(\.name)
            let near = names.min { ControlPlanner.distance(key, $0) < ControlPlanner.distance(key, $1) }
            let hint = near.flatMap { ControlPlanner.distance(key, $0) <= max(2, key.count / 3) ? "; did you mean '\($0)'?" : nil }
            throw .usage("\(option): no control named '\(name)' on this device\(hint ?? " (see 'slomo controls')")")
        }
        guard [.integer, .boolean, .menu, .integerMenu, .button, .integer64, .bitmask].contains(c.kind) else {
            throw .usage("\(option): \(c.name) is a \(c.kind.rawValue) control; slomo sets numbers, booleans, menus and bitmasks (v4l2-ctl sets the rest)")
        }
        let v = try value(text, for: c, option: option)
        try check(c, v, option)
        if c.flags.contains(.inactive) {
            if let partner = ControlID.automaticPartner[c.id], let a = find(partner.auto) {
                if planned(a) != partner.manual {
                    throw .unavailable(
                        "\(option): \(c.name) is inactive while \(a.name) is automatic; put --control \(a.name)=\(partner.manual) before it\(named(for: c.id).map { ", or use \($0)" } ?? "")"
                    )
                }
            } else {
                throw .unavailable("\(option): \(c.name) is inactive (the driver says another control governs it)")
            }
        }
        try claim(c, option)
        steps.append(.set(c, v, .init(option, text)))
    }

    /// A value as text: a number (decimal or 0x), on/off/true/false for booleans, a menu entry's name.
    func value(_ text: String, for c: CameraControl, option: String) throws(ControlError) -> Int64 {
        let t = text.lowercased()
        if t.hasPrefix("0x"), let v = UInt64(t.dropFirst(2), radix: 16) { return Int64(bitPattern: v) }
        if let v = Int64(t) { return v }
        if c.kind == .boolean {
            if ["on", "true", "yes"].contains(t) { return 1 }
            if ["off", "false", "no"].contains(t) { return 0 }
        }
        if c.kind == .menu {
            let k = CameraControl.key(text)
            let hits = c.menu.filter { CameraControl.key($0.name ?? "") == k }
            let prefix = hits.isEmpty ? c.menu.filter { CameraControl.key($0.name ?? "").hasPrefix(k) } : hits
            if prefix.count == 1 { return prefix[0].index }
            throw .usage("\(option): '\(text)' is not one of \(c.name)'s entries: \(c.menuChoices)")
        }
        throw .usage(
            "\(option): '\(text)' is not a value for \(c.name) (\(c.kind.rawValue)\(c.kind == .integer || c.kind == .integer64 ? ", \(c.rangeText)" : ""))")
    }

    /// The named option for a control id, for hints.
    func named(for id: UInt32) -> String? {
        switch id {
        case ControlID.gain: return "--gain N"
        case ControlID.exposureAbsolute: return "--shutter SECONDS"
        case ControlID.focusAbsolute: return "--focus N"
        case ControlID.whiteBalanceTemperature: return "--white-balance KELVIN"
        default: return nil
        }
    }

    /// `; it has exposure, gain_exposure` — controls whose names mention the missing thing.
    func alternatives(_ word: String) -> String {
        let w = CameraControl.key(word).split(separator: "_").first.map(String.init) ?? word
        let similar = controls.filter { $0.name.contains(w) && $0.kind != .compound }.map(\.name)
        return similar.isEmpty ? "" : " (it has \(similar.prefix(4).joined(separator: ", ")); see --control)"
    }
}
