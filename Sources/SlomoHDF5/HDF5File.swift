internal import CHDF5
import SlomoCore

/// One HDF5 file being written (`H5Fcreate`, closed by `H5Fclose`): groups, attributes, 1-D
/// datasets of numbers, and a frame dataset that grows a frame at a time (`HDF5Frames`). `finish()`
/// closes it and says whether HDF5 could flush it; `deinit` closes a file never finished (the caller
/// removes it).
public final class HDF5File {
    /// The name errors give (the final name of a file written under a temporary one).
    public let path: String
    private var file: hid_t = -1

    /// Creates `file`, replacing any file of that name (`H5F_ACC_TRUNC`); errors name it `shownAs`
    /// (default: `file`).
    public init(creating file: String, shownAs: String? = nil) throws(HDF5Error) {
        path = shownAs ?? file
        HDF5File.setUp()
        self.file = try h5call(path, "H5Fcreate") { H5Fcreate(file, slomo_h5f_acc_trunc(), h5Default, h5Default) }
    }

    /// Before HDF5's first call: no error stack printed on stderr (errors are thrown, one line), and
    /// no `atexit` handler (`H5dont_atexit`): a file whose close failed (a full disk) stays in HDF5's
    /// table, and the library's own teardown at exit crashes on it (HDF5 1.10.8, seen here). Every
    /// file slomo completes is closed by `finish()`; the process's end releases the rest.
    private static let setUpOnce: Void = {
        H5dont_atexit()
        slomo_h5_quiet()
    }()
    static func setUp() { _ = setUpOnce }

    deinit { if file >= 0 { H5Fclose(file) } }

    /// Flushes and closes the file (the frames' dataset must be finished first).
    public func finish() throws(HDF5Error) {
        guard file >= 0 else { return }
        let f = file
        file = -1
        try h5call(path, "H5Fclose") { H5Fclose(f) }
    }

    var id: hid_t { file }

    /// A group (`/entry`), with `NX_class` set when given (NeXus, as areaDetector writes).
    public func makeGroup(_ name: String, nxClass: String? = nil) throws(HDF5Error) {
        let g = try h5call(path, "H5Gcreate2(\(name))") { H5Gcreate2(file, name, h5Default, h5Default, h5Default) }
        defer { H5Gclose(g) }
        if let nxClass { try setAttribute("NX_class", nxClass, on: g, where: name) }
    }

    /// A second name for an object (`H5Lcreate_hard`): areaDetector's detector group points at the data.
    public func link(_ existing: String, as name: String) throws(HDF5Error) {
        try h5call(path, "H5Lcreate_hard(\(name))") { H5Lcreate_hard(file, existing, file, name, h5Default, h5Default) }
    }

    /// A string attribute on the object at `object` (a fixed-length, NUL-terminated ASCII string,
    /// as areaDetector writes them).
    public func setAttribute(_ name: String, _ value: String, at object: String) throws(HDF5Error) {
        let o = try h5call(path, "H5Oopen(\(object))") { H5Oopen(file, object, h5Default) }
        defer { H5Oclose(o) }
        try setAttribute(name, value, on: o, where: object)
    }

    /// A number attribute (float64) on the object at `object`.
    public func setAttribute(_ name: String, _ value: Double, at object: String) throws(HDF5Error) {
        let o = try h5call(path, "H5Oopen(\(object))") { H5Oopen(file, object, h5Default) }
        defer { H5Oclose(o) }
        try attribute(name, on: o, where: object, fileType: slomo_h5t_ieee_f64le(), memoryType: slomo_h5t_native_double(), [value])
    }

    /// An integer attribute (int64) on the object at `object`.
    public func setAttribute(_ name: String, _ value: Int64, at object: String) throws(HDF5Error) {
        let o = try h5call(path, "H5Oopen(\(object))") { H5Oopen(file, object, h5Default) }
        defer { H5Oclose(o) }
        try attribute(name, on: o, where: object, fileType: slomo_h5t_std_i64le(), memoryType: slomo_h5t_native_int64(), [value])
    }

    private func setAttribute(_ name: String, _ value: String, on object: hid_t, where at: String) throws(HDF5Error) {
        let bytes = Array(value.utf8) + [0]
        let type = try h5call(path, "H5Tcopy") { H5Tcopy(slomo_h5t_c_s1()) }
        defer { H5Tclose(type) }
        try h5call(path, "H5Tset_size") { H5Tset_size(type, bytes.count) }
        let space = try h5call(path, "H5Screate") { H5Screate(H5S_SCALAR) }
        defer { H5Sclose(space) }
        let a = try h5call(path, "H5Acreate2(\(at)@\(name))") { H5Acreate2(object, name, type, space, h5Default, h5Default) }
        defer { H5Aclose(a) }
        try h5call(path, "H5Awrite(\(at)@\(name))") { bytes.withUnsafeBytes { H5Awrite(a, type, $0.baseAddress) } }
    }

    private func attribute<T>(_ name: String, on object: hid_t, where at: String, fileType: hid_t, memoryType: hid_t, _ values: [T]) throws(HDF5Error) {
        let space = try h5call(path, "H5Screate") { H5Screate(H5S_SCALAR) }
        defer { H5Sclose(space) }
        let a = try h5call(path, "H5Acreate2(\(at)@\(name))") { H5Acreate2(object, name, fileType, space, h5Default, h5Default) }
        defer { H5Aclose(a) }
        try h5call(path, "H5Awrite(\(at)@\(name))") { values.withUnsafeBytes { H5Awrite(a, memoryType, $0.baseAddress) } }
    }

    /// A 1-D dataset of int64 values (a time in ns, an index per frame).
    public func write(_ values: [Int64], to name: String) throws(HDF5Error) {
        try dataset(name, fileType: slomo_h5t_std_i64le(), memoryType: slomo_h5t_native_int64(), values)
    }

    /// A 1-D dataset of int32 values (areaDetector's `NDArrayUniqueId`).
    public func write(_ values: [Int32], to name: String) throws(HDF5Error) {
        try dataset(name, fileType: slomo_h5t_std_i32le(), memoryType: slomo_h5t_native_int32(), values)
    }

    /// A 1-D dataset of float64 values (areaDetector's `NDArrayTimeStamp`, seconds).
    public func write(_ values: [Double], to name: String) throws(HDF5Error) {
        try dataset(name, fileType: slomo_h5t_ieee_f64le(), memoryType: slomo_h5t_native_double(), values)
    }

    private func dataset<T>(_ name: String, fileType: hid_t, memoryType: hid_t, _ values: [T]) throws(HDF5Error) {
        var dims: [hsize_t] = [hsize_t(values.count)]
        let space = try h5call(path, "H5Screate_simple(\(name))") { H5Screate_simple(1, &dims, nil) }
        defer { H5Sclose(space) }
        let d = try h5call(path, "H5Dcreate2(\(name))") { H5Dcreate2(file, name, fileType, space, h5Default, h5Default, h5Default) }
        defer { H5Dclose(d) }
        guard !values.isEmpty else { return }
        try h5call(path, "H5Dwrite(\(name))") { values.withUnsafeBytes { H5Dwrite(d, memoryType, h5All, h5All, h5Default, $0.baseAddress) } }
    }
}
