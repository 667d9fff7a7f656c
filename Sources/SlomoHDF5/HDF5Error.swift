internal import CHDF5
import Glibc
import SlomoCore
import SlomoSystem

/// An HDF5 call that failed: the file, the call, and the most specific message on HDF5's error
/// stack, with the system's errno when HDF5 names one (`take.h5: H5Dwrite(/entry/data/data) failed:
/// No space left on device (ENOSPC)`).
public struct HDF5Error: SlomoFailure, Equatable {
    public var path: String
    public var operation: String
    /// HDF5's own words ("" when the stack was empty).
    public var message: String
    public var errnoCode: Int32?

    public var systemErrno: Int32? { errnoCode }
    public var kind: FailureKind { errnoCode.map { Errno($0).isCreateFailure ? .cannotCreate : .ioFailed } ?? .bug }
    public var wording: Wording {
        if let e = errnoCode { return Wording(verbatim: "\(path): \(operation) failed: \(Errno(e))") }
        return Wording(verbatim: "\(path): \(operation) failed\(message.isEmpty ? "" : ": HDF5: " + message)")
    }

    /// The failure of `operation` just now, from HDF5's error stack (then cleared).
    static func last(_ path: String, _ operation: String) -> HDF5Error {
        var buffer = [CChar](repeating: 0, count: 512)
        slomo_h5_last_error(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return HDF5Error(path: path, operation: operation, message: text, errnoCode: errnoIn(text))
    }

    /// HDF5's file drivers name the system's error as `errno = 28` in their message.
    static func errnoIn(_ text: String) -> Int32? {
        guard let r = text.range(of: "errno = ") else { return nil }
        let digits = text[r.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int32(digits).flatMap { $0 > 0 ? $0 : nil }
    }
}

/// The one chokepoint for HDF5 calls that return an id (`hid_t`, negative on failure) or a status
/// (`herr_t`, negative on failure): the failure read from HDF5's error stack, with the call's name.
@discardableResult
func h5call<T: BinaryInteger>(_ path: String, _ operation: @autoclosure () -> String, _ body: () -> T) throws(HDF5Error) -> T {
    let r = body()
    if r < 0 { throw HDF5Error.last(path, operation()) }
    return r
}

/// `H5P_DEFAULT` and `H5S_ALL` as ids (Swift imports the macros as `Int32`, the functions take `hid_t`).
let h5Default = hid_t(H5P_DEFAULT)
let h5All = hid_t(H5S_ALL)
