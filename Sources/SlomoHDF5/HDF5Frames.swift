internal import CHDF5
import SlomoCore

/// The frames' dataset `[n, height, width]` (uint8 or uint16, little-endian), one frame a chunk,
/// grown by one frame per `append` (`H5Dset_extent`, then `H5Dwrite` into that frame's hyperslab).
/// Owns the dataset id (`H5Dclose` in `finish()`, or in `deinit` when a failure left it open).
public final class HDF5Frames {
    public let name: String
    public let width: Int
    public let height: Int
    public let bitsPerSample: Int
    public private(set) var count = 0
    private let file: HDF5File
    private var dataset: hid_t = -1

    /// Creates `name` in `file`, empty, with an unlimited first dimension.
    public init(in file: HDF5File, name: String, width: Int, height: Int, bitsPerSample: Int) throws(HDF5Error) {
        self.file = file
        self.name = name
        self.width = width
        self.height = height
        self.bitsPerSample = bitsPerSample
        let path = file.path
        var dims: [hsize_t] = [0, hsize_t(height), hsize_t(width)]
        var maxDims: [hsize_t] = [slomo_h5s_unlimited(), hsize_t(height), hsize_t(width)]
        var chunk: [hsize_t] = [1, hsize_t(height), hsize_t(width)]
        let space = try h5call(path, "H5Screate_simple(\(name))") { H5Screate_simple(3, &dims, &maxDims) }
        defer { H5Sclose(space) }
        let plist = try h5call(path, "H5Pcreate") { H5Pcreate(slomo_h5p_dataset_create()) }
        defer { H5Pclose(plist) }
        try h5call(path, "H5Pset_chunk(\(name))") { H5Pset_chunk(plist, 3, &chunk) }
        let type = bitsPerSample > 8 ? slomo_h5t_std_u16le() : slomo_h5t_std_u8le()
        dataset = try h5call(path, "H5Dcreate2(\(name))") { H5Dcreate2(file.id, name, type, space, h5Default, plist, h5Default) }
    }

    deinit { if dataset >= 0 { H5Dclose(dataset) } }

    /// Appends one frame: `height` rows of `width` samples, `bytesPerRow` apart from `rows`.
    public func append(rows: UnsafeRawPointer, bytesPerRow: Int) throws(HDF5Error) {
        // Debian's HDF5 is thread-safe, and its error printing is set per thread: off on the thread
        // that appends too (convert's writer thread), one line reported instead of HDF5's stack
        slomo_h5_quiet()
        let path = file.path
        let sampleBytes = bitsPerSample > 8 ? 2 : 1
        var extent: [hsize_t] = [hsize_t(count + 1), hsize_t(height), hsize_t(width)]
        try h5call(path, "H5Dset_extent(\(name))") { H5Dset_extent(dataset, &extent) }
        let fileSpace = try h5call(path, "H5Dget_space(\(name))") { H5Dget_space(dataset) }
        defer { H5Sclose(fileSpace) }
        var start: [hsize_t] = [hsize_t(count), 0, 0]
        var size: [hsize_t] = [1, hsize_t(height), hsize_t(width)]
        try h5call(path, "H5Sselect_hyperslab(\(name))") { H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, &start, nil, &size, nil) }
        // the rows as they lie in memory (a padded stride is a wider array, of which the picture is selected)
        var memoryDims: [hsize_t] = [1, hsize_t(height), hsize_t(bytesPerRow / sampleBytes)]
        let memorySpace = try h5call(path, "H5Screate_simple") { H5Screate_simple(3, &memoryDims, nil) }
        defer { H5Sclose(memorySpace) }
        var origin: [hsize_t] = [0, 0, 0]
        try h5call(path, "H5Sselect_hyperslab(memory)") { H5Sselect_hyperslab(memorySpace, H5S_SELECT_SET, &origin, nil, &size, nil) }
        let memoryType = bitsPerSample > 8 ? slomo_h5t_native_uint16() : slomo_h5t_native_uint8()
        try h5call(path, "H5Dwrite(\(name), frame \(count))") { H5Dwrite(dataset, memoryType, memorySpace, fileSpace, h5Default, rows) }
        count += 1
    }

    /// Closes the dataset (before the file's `finish()`).
    public func finish() throws(HDF5Error) {
        guard dataset >= 0 else { return }
        let d = dataset
        dataset = -1
        try h5call(file.path, "H5Dclose(\(name))") { H5Dclose(d) }
    }
}
