// HDF5 1.10 (Debian 12: libhdf5-dev, the serial library) for Swift. Its predefined types and
// property-list classes are macros over globals that open the library first, and its error stack
// is read through a C callback; each wrapper here does one such thing.
#ifndef CHDF5_SHIM_H
#define CHDF5_SHIM_H

#include <stdio.h>
#include <string.h>
#include <hdf5/serial/hdf5.h>

/// File types, written little-endian whatever the host (what areaDetector's files hold on x86).
static inline hid_t slomo_h5t_std_u8le(void) { return H5T_STD_U8LE; }
static inline hid_t slomo_h5t_std_u16le(void) { return H5T_STD_U16LE; }
static inline hid_t slomo_h5t_std_i32le(void) { return H5T_STD_I32LE; }
static inline hid_t slomo_h5t_std_i64le(void) { return H5T_STD_I64LE; }
static inline hid_t slomo_h5t_ieee_f64le(void) { return H5T_IEEE_F64LE; }
/// Memory types (the host's).
static inline hid_t slomo_h5t_native_uint8(void) { return H5T_NATIVE_UINT8; }
static inline hid_t slomo_h5t_native_uint16(void) { return H5T_NATIVE_UINT16; }
static inline hid_t slomo_h5t_native_int32(void) { return H5T_NATIVE_INT32; }
static inline hid_t slomo_h5t_native_int64(void) { return H5T_NATIVE_INT64; }
static inline hid_t slomo_h5t_native_double(void) { return H5T_NATIVE_DOUBLE; }
static inline hid_t slomo_h5t_c_s1(void) { return H5T_C_S1; }
/// H5F_ACC_TRUNC and H5P_DATASET_CREATE open the library first (H5CHECK H5OPEN).
static inline unsigned slomo_h5f_acc_trunc(void) { return H5F_ACC_TRUNC; }
static inline hid_t slomo_h5p_dataset_create(void) { return H5P_DATASET_CREATE; }
static inline hsize_t slomo_h5s_unlimited(void) { return H5S_UNLIMITED; }

/// Stops HDF5 printing its error stack on stderr: the wrapper reports one line itself.
static inline void slomo_h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static herr_t slomo_h5_walk(unsigned n, const H5E_error2_t *e, void *out) {
    if (n == 0 && e != NULL && e->desc != NULL) snprintf((char *)out, 512, "%s", e->desc);
    return 0;
}

/// The most specific message on this thread's error stack (HDF5's own words: "file write failed:
/// … errno = 28, error message = 'No space left on device' …"), then the stack cleared.
static inline void slomo_h5_last_error(char *out, size_t size) {
    char text[512] = {0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, slomo_h5_walk, text);
    snprintf(out, size, "%s", text);
    H5Eclear2(H5E_DEFAULT);
}

#endif
