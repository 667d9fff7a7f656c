/// One V4L2 control as the device (VIDIOC_QUERY_EXT_CTRL, QUERYMENU, G_EXT_CTRLS) or a saved
/// `v4l2-ctl --list-ctrls-menus` listing describes it. Names are v4l2-ctl's (`gain_automatic`),
/// made from the driver's label ("Gain, Automatic") by `CameraControl.key(_:)`.
public struct CameraControl: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case integer, boolean, menu, integerMenu = "integer-menu", button, integer64, string, bitmask
        /// Arrays and structures (`u8`, `area`, codec parameters): listed, never set by slomo.
        case compound
    }

    public struct Flags: OptionSet, Sendable, Equatable, Hashable, Codable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        // the values are V4L2_CTRL_FLAG_*
        public static let disabled = Flags(rawValue: 0x0001)
        public static let grabbed = Flags(rawValue: 0x0002)
        public static let readOnly = Flags(rawValue: 0x0004)
        public static let update = Flags(rawValue: 0x0008)
        public static let inactive = Flags(rawValue: 0x0010)
        public static let slider = Flags(rawValue: 0x0020)
        public static let writeOnly = Flags(rawValue: 0x0040)
        public static let volatile = Flags(rawValue: 0x0080)
        public static let hasPayload = Flags(rawValue: 0x0100)
        public static let executeOnWrite = Flags(rawValue: 0x0200)
        public static let modifyLayout = Flags(rawValue: 0x0400)
        public static let dynamicArray = Flags(rawValue: 0x0800)

        /// The names v4l2-ctl prints (`read-only`, `execute-on-write`), in bit order.
        public static let names: [(Flags, String)] = [
            (.disabled, "disabled"), (.grabbed, "grabbed"), (.readOnly, "read-only"), (.update, "update"),
            (.inactive, "inactive"), (.slider, "slider"), (.writeOnly, "write-only"), (.volatile, "volatile"),
            (.hasPayload, "has-payload"), (.executeOnWrite, "execute-on-write"), (.modifyLayout, "modify-layout"),
            (.dynamicArray, "dynamic-array"),
        ]
        public var list: [String] { Flags.names.filter { contains($0.0) }.map(\.1) }
        public init(from decoder: any Decoder) throws { self.init(names: try decoder.singleValueContainer().decode([String].self)) }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(list)
        }
        public init(names: [String]) {
            var f = Flags()
            for n in names { if let hit = Flags.names.first(where: { $0.1 == n }) { f.insert(hit.0) } }
            self = f
        }
    }

    /// A menu entry: its index, and its name (menus) or value (integer menus).
    public struct MenuItem: Sendable, Equatable, Codable {
        public var index: Int64
        public var name: String?
        public var value: Int64?
        public init(index: Int64, name: String? = nil, value: Int64? = nil) {
            self.index = index
            self.name = name
            self.value = value
        }
    }

    public var id: UInt32
    /// v4l2-ctl's name: lower case, words joined by `_`.
    public var name: String
    /// The driver's own label ("Gain, Automatic"); the name when only a listing was read.
    public var label: String
    public var kind: Kind
    public var minimum: Int64
    public var maximum: Int64
    public var step: Int64
    public var defaultValue: Int64
    /// The current value; nil for buttons, compound controls and write-only ones.
    public var value: Int64?
    /// A string control's current text.
    public var text: String?
    public var flags: Flags
    /// Menus and integer menus: the entries the driver offers (gaps are entries it skips).
    public var menu: [MenuItem]

    public init(
        id: UInt32, name: String, label: String? = nil, kind: Kind, minimum: Int64 = 0, maximum: Int64 = 0,
        step: Int64 = 1, defaultValue: Int64 = 0, value: Int64? = nil, text: String? = nil, flags: Flags = [],
        menu: [MenuItem] = []
    ) {
        self.id = id
        self.name = name
        self.label = label ?? name
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.value = value
        self.text = text
        self.flags = flags
        self.menu = menu
    }

    /// The control class (`user`, `camera`, …); `vendor` for a driver's private controls: ids in a
    /// class no standard names, or the user class's private range (base + 0x1000 and up).
    public var group: String { CameraControl.group(of: id) }

    public static func group(of id: UInt32) -> String {
        let cls = id & 0x0FFF_0000
        if cls == 0x0098_0000 && id & 0xFFFF >= 0x1900 { return "vendor" }
        switch cls {
        case 0x0098_0000: return "user"
        case 0x0099_0000: return "codec"
        case 0x009a_0000: return "camera"
        case 0x009b_0000: return "fm-tx"
        case 0x009c_0000: return "flash"
        case 0x009d_0000: return "jpeg"
        case 0x009e_0000: return "image-source"
        case 0x009f_0000: return "image-processing"
        case 0x00a0_0000: return "dv"
        case 0x00a1_0000: return "fm-rx"
        case 0x00a2_0000: return "rf-tuner"
        case 0x00a3_0000: return "detect"
        case 0x00a4_0000: return "codec-stateless"
        case 0x00a5_0000: return "colorimetry"
        default: return "vendor"
        }
    }

    /// The order groups are shown in: what a camera user sets first.
    public static let groupOrder = [
        "camera", "user", "image-source", "image-processing", "flash", "jpeg", "codec",
        "codec-stateless", "detect", "colorimetry", "dv", "fm-tx", "fm-rx", "rf-tuner", "vendor",
    ]

    /// v4l2-ctl's name for a label: letters and digits lower-cased, every other run of
    /// characters one `_`, none at either end ("White Balance, Automatic" → `white_balance_automatic`).
    public static func key(_ label: String) -> String {
        var out = ""
        var gap = false
        for ch in label.unicodeScalars {
            if ch.properties.isAlphabetic && ch.isASCII || ("0"..."9").contains(ch) {
                if gap && !out.isEmpty { out += "_" }
                gap = false
                out.unicodeScalars.append(contentsOf: String(ch).lowercased().unicodeScalars)
            } else {
                gap = true
            }
        }
        return out
    }

    /// The entry of a menu or integer menu with this index.
    public func menuItem(_ index: Int64) -> MenuItem? { menu.first { $0.index == index } }

    /// A value as a person reads it: a menu entry's name, `on`/`off`, the number.
    public func describe(_ v: Int64) -> String {
        switch kind {
        case .boolean: return v != 0 ? "on" : "off"
        case .menu: return menuItem(v)?.name.map { "\(v) (\($0))" } ?? String(v)
        case .integerMenu: return menuItem(v)?.value.map { "\(v) (\($0))" } ?? String(v)
        case .bitmask: return "0x" + String(UInt64(bitPattern: v), radix: 16)
        default: return String(v)
        }
    }

    /// Whether the driver takes a value (range, step, menu entry). Nil: it does; else why not.
    public func refusal(of v: Int64) -> String? {
        switch kind {
        case .menu, .integerMenu:
            if menuItem(v) == nil { return "no entry \(v); it offers \(menuChoices)" }
        case .bitmask:
            if UInt64(bitPattern: v) & ~UInt64(bitPattern: maximum) != 0 { return "bits outside 0x\(String(UInt64(bitPattern: maximum), radix: 16))" }
        case .boolean, .integer, .integer64:
            if v < minimum || v > maximum { return "outside \(rangeText)" }
            // v ≥ minimum, so v − minimum fits in 64 unsigned bits whatever the range (a 64-bit
            // control spans all of Int64; found by fuzz-listing)
            if step > 1, case let off = UInt64(bitPattern: v &- minimum) % UInt64(step), off != 0 {
                let below = v &- Int64(off)
                let (above, over) = below.addingReportingOverflow(step)
                return "not on the step: \(rangeText); nearest \(below) or \(over ? maximum : min(above, maximum))"
            }
        default:
            return "a \(kind.rawValue) control takes no value"
        }
        return nil
    }

    /// `0...255 step 1` (`0...255` when the step is 1).
    public var rangeText: String { "\(minimum)...\(maximum)" + (step > 1 ? " step \(step)" : "") }

    /// `0 Manual Mode, 3 Aperture Priority Mode`.
    public var menuChoices: String {
        menu.map { "\($0.index) \($0.name ?? $0.value.map(String.init) ?? "")" }.joined(separator: ", ")
    }
}

/// The standard control ids slomo's named options use (`V4L2_CID_*` in <linux/v4l2-controls.h>).
public enum ControlID {
    public static let brightness: UInt32 = 0x0098_0900
    public static let contrast: UInt32 = 0x0098_0901
    public static let autoWhiteBalance: UInt32 = 0x0098_090c
    public static let exposure: UInt32 = 0x0098_0911
    public static let autoGain: UInt32 = 0x0098_0912
    public static let gain: UInt32 = 0x0098_0913
    public static let hueAuto: UInt32 = 0x0098_0919
    public static let hue: UInt32 = 0x0098_0903
    public static let whiteBalanceTemperature: UInt32 = 0x0098_091a
    public static let redBalance: UInt32 = 0x0098_090e
    public static let blueBalance: UInt32 = 0x0098_090f
    public static let autoBrightness: UInt32 = 0x0098_0920
    public static let exposureAuto: UInt32 = 0x009a_0901
    public static let exposureAbsolute: UInt32 = 0x009a_0902
    public static let exposureAutoPriority: UInt32 = 0x009a_0903
    public static let focusAbsolute: UInt32 = 0x009a_090a
    public static let focusAuto: UInt32 = 0x009a_090c
    public static let zoomAbsolute: UInt32 = 0x009a_090d
    public static let autoNPresetWhiteBalance: UInt32 = 0x009a_0914
    public static let isoSensitivity: UInt32 = 0x009a_0917
    public static let isoSensitivityAuto: UInt32 = 0x009a_0918
    public static let analogueGain: UInt32 = 0x009e_0903

    /// `V4L2_EXPOSURE_*`, the `auto_exposure` menu's entries.
    public static let exposureAutoMode: Int64 = 0, exposureManual: Int64 = 1, exposureShutterPriority: Int64 = 2,
        exposureAperturePriority: Int64 = 3

    /// Manual control → its automatic partner (the driver's "auto cluster": while the partner is
    /// automatic, the manual one is inactive), and the partner's value that means manual.
    public static let automaticPartner: [UInt32: (auto: UInt32, manual: Int64)] = [
        gain: (autoGain, 0), exposureAbsolute: (exposureAuto, exposureManual), focusAbsolute: (focusAuto, 0),
        whiteBalanceTemperature: (autoWhiteBalance, 0), redBalance: (autoWhiteBalance, 0), blueBalance: (autoWhiteBalance, 0),
        hue: (hueAuto, 0), brightness: (autoBrightness, 0), isoSensitivity: (isoSensitivityAuto, 0),
    ]
}
