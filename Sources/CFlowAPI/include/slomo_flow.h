// The C interface of libslomo-flow.so (Sources/SlomoFlowCV, C++ on OpenCV's DIS optical flow),
// which slomo loads at run time (SlomoFlow.FlowLibrary): slomo starts, and every command but
// `--frame-blend flow` works, on a machine without OpenCV. Docs/Interpolation.md.
#ifndef SLOMO_FLOW_H
#define SLOMO_FLOW_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The planar YUV frames of one export: luma size, chroma subsampling, sample size.
typedef struct {
    int width, height;
    int chroma_shift_x, chroma_shift_y;   // 4:2:0: 1, 1; 4:2:2: 1, 0; 4:4:4: 0, 0
    int bytes_per_sample;                 // 1 (8-bit) or 2 (9…16-bit, little-endian)
    int bit_depth;                        // 8…16
} slomo_flow_layout;

typedef struct { const uint8_t *data[3]; int linesize[3]; } slomo_flow_frame;
typedef struct { uint8_t *data[3]; int linesize[3]; } slomo_flow_output;

/// What the flow between a pair of frames says about it.
typedef struct {
    double mean_difference;   // mean |Y1 − Y0|, in 8-bit levels
    double residual;          // mean |Y0 − Y1 where the flow points|, 8-bit levels
    int cut;                  // 1: no motion explains the change (a scene cut)
} slomo_flow_pair_info;

/// quality: 0 fast, 1 medium, 2 fine (DIS presets ultrafast, fast, medium); threads: OpenCV's
/// thread count (0: its default). NULL on failure, with the reason in `error`.
typedef void *(*slomo_flow_create_fn)(const slomo_flow_layout *layout, int quality, int threads, char *error, int error_size);
typedef void (*slomo_flow_destroy_fn)(void *flow);
/// Takes a copy of both frames and computes the flows between them, both ways; 0 or -1 (`error`).
typedef int (*slomo_flow_set_pair_fn)(void *flow, const slomo_flow_frame *f0, const slomo_flow_frame *f1,
                                      slomo_flow_pair_info *info, char *error, int error_size);
/// The frame at `t` (0 < t < 1) between the pair, into `out`; 0 or -1 (`error`).
typedef int (*slomo_flow_render_fn)(void *flow, double t, const slomo_flow_output *out, char *error, int error_size);
/// OpenCV's version, "4.6.0".
typedef const char *(*slomo_flow_version_fn)(void);

void *slomo_flow_create(const slomo_flow_layout *layout, int quality, int threads, char *error, int error_size);
void slomo_flow_destroy(void *flow);
int slomo_flow_set_pair(void *flow, const slomo_flow_frame *f0, const slomo_flow_frame *f1,
                        slomo_flow_pair_info *info, char *error, int error_size);
int slomo_flow_render(void *flow, double t, const slomo_flow_output *out, char *error, int error_size);
const char *slomo_flow_version(void);

#ifdef __cplusplus
}
#endif
#endif
