// libslomo-flow.so: motion-compensated in-between frames from OpenCV's DIS optical flow
// (Kroeger et al., ECCV 2016; cv::DISOpticalFlow in libopencv-video). slomo loads it at run time
// (Sources/SlomoFlow), so OpenCV is needed only by `--frame-blend flow`. Docs/Interpolation.md
// gives the measurements behind each choice here.
//
// The flow grid. DIS finds its flow at 1/4 of the frame's size (1/2 for `fine`) and only
// interpolates it up; so the flows, the match errors and the per-time maps are kept on a grid of
// that size (while it keeps 32 points each way), where DIS runs to the same finest level from a
// smaller picture. Only the final warp and mix run at each plane's own resolution.
//
// Per source pair, once: the flows F01 (frame 0 → 1) and F10 (1 → 0) on 8-bit luma, and how well
// each explains its pair (|I0(x) − I1(x + F01(x))|, per grid point: the match error).
// Per output time t, the flows from the in-between frame back to each source:
//   flow projection: every grid point x of frame 0 moves to x + t·F01(x); the grid points around
//   where it lands take −t·F01(x) as their way back to frame 0. Where several land on one point,
//   the best-matched one wins: the surface in front, which both frames see. The same from frame 1
//   with F10 and 1 − t.
//   Where nothing lands, the flow at the point itself stands in, with linear motion through x
//   (Super SloMo's approximation): Ft0 = −(1−t)·t·F01(x) + t²·F10(x), Ft1 = (1−t)²·F01(x) − t·(1−t)·F10(x).
// Then every sample of every plane (chroma at its own resolution) takes the maps at its place
// (bilinear), samples each source frame there (bilinear, cv::remap) and mixes them by (1−t) and t.
// 8-bit and 9…16-bit samples.
#include "../CFlowAPI/include/slomo_flow.h"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <vector>

namespace {

/// Where each sample of a plane lies on the grid, one axis: cv::resize's bilinear convention
/// (sample centres), as grid index and weight of the next point.
struct Axis {
    std::vector<int> i0, i1;
    std::vector<float> a;
    void make(int samples, int points) {
        i0.resize(samples); i1.resize(samples); a.resize(samples);
        const float k = (float)points / samples;
        for (int s = 0; s < samples; s++) {
            float g = std::min(std::max((s + 0.5f) * k - 0.5f, 0.f), (float)(points - 1));
            i0[s] = (int)g; i1[s] = std::min(i0[s] + 1, points - 1); a[s] = g - i0[s];
        }
    }
};

struct Flow {
    slomo_flow_layout L;
    cv::Ptr<cv::DISOpticalFlow> dis;
    int type;                    // CV_8U or CV_16U
    int gs;                      // luma pixels per grid point, each way: 4, 2 or 1 (DIS's finest level; small frames)
    int GW, GH;                  // the grid's size
    cv::Mat f0[3], f1[3];        // the pair's planes
    cv::Mat g0, g1;              // 8-bit luma on the grid, which the flow is computed on
    cv::Mat f01, f10;            // CV_32FC2, in grid points
    cv::Mat err0, err1;          // CV_32F: each flow's match error (8-bit levels)
    Axis ax[2], ay[2];           // luma, chroma samples on the grid
    // per render, on the grid: the projected ways back to each frame (grid points), which points
    // something landed on, the best match error there; the displacements (luma pixels)
    cv::Mat p0, p1;
    std::vector<float> best;
    std::vector<uint8_t> hit0, hit1;
    cv::Mat d0, d1;
    // per render, for luma [0] and chroma [1]: the maps into each frame, the warped planes
    cv::Mat m0[2], m1[2], a0[2], a1[2], s0[2], s1[2];
};

void say(char *error, int size, const char *what) {
    if (error && size > 0) { std::snprintf(error, (size_t)size, "%s", what); }
}

/// A plane's sample at (x, y), bilinear, clamped to the edge.
template <typename T>
inline float sample(const cv::Mat &m, float x, float y) {
    const int w = m.cols, h = m.rows;
    x = std::min(std::max(x, 0.f), (float)(w - 1));
    y = std::min(std::max(y, 0.f), (float)(h - 1));
    const int x0 = (int)x, y0 = (int)y;
    const int x1 = std::min(x0 + 1, w - 1), y1 = std::min(y0 + 1, h - 1);
    const float ax = x - x0, ay = y - y0;
    const T *r0 = m.ptr<T>(y0), *r1 = m.ptr<T>(y1);
    return ((float)r0[x0] * (1 - ax) + (float)r0[x1] * ax) * (1 - ay) + ((float)r1[x0] * (1 - ax) + (float)r1[x1] * ax) * ay;
}

// One set of maps for a plane: for each sample, the grid's displacement (bilinear) in this plane's
// samples, added to its own place, written in cv::remap's fixed-point form (what cv::convertMaps
// makes: the whole part, and the 1/32 fractions) in one pass.
void makeMaps(const cv::Mat &d, const Axis &ax, const Axis &ay, float kx, float ky, cv::Mat &m, cv::Mat &frac) {
    const int W = (int)ax.a.size(), H = (int)ay.a.size();
    m.create(H, W, CV_16SC2);
    frac.create(H, W, CV_16UC1);
    cv::parallel_for_(cv::Range(0, H), [&](const cv::Range &r) {
        std::vector<cv::Vec2f> row(d.cols);
        for (int y = r.start; y < r.end; y++) {
            // the grid's row at this sample's height, then each sample along it
            const cv::Vec2f *r0 = d.ptr<cv::Vec2f>(ay.i0[y]), *r1 = d.ptr<cv::Vec2f>(ay.i1[y]);
            const float b = ay.a[y];
            for (int g = 0; g < d.cols; g++) row[g] = r0[g] * (1 - b) + r1[g] * b;
            short *mo = m.ptr<short>(y);
            uint16_t *fo = frac.ptr<uint16_t>(y);
            const float fy = (float)y;
            for (int x = 0; x < W; x++) {
                const float a = ax.a[x];
                const cv::Vec2f &p = row[ax.i0[x]], &q = row[ax.i1[x]];
                const int X = cvRound((x + (p[0] + (q[0] - p[0]) * a) * kx) * cv::INTER_TAB_SIZE);
                const int Y = cvRound((fy + (p[1] + (q[1] - p[1]) * a) * ky) * cv::INTER_TAB_SIZE);
                mo[2 * x] = cv::saturate_cast<short>(X >> cv::INTER_BITS);
                mo[2 * x + 1] = cv::saturate_cast<short>(Y >> cv::INTER_BITS);
                fo[x] = (uint16_t)((Y & (cv::INTER_TAB_SIZE - 1)) * cv::INTER_TAB_SIZE + (X & (cv::INTER_TAB_SIZE - 1)));
            }
        }
    });
}

// One plane of the in-between frame: each source plane sampled where the maps say (bilinear,
// cv::remap) and mixed by (1−t) and t. The chroma planes share the maps made for the first.
void warpPlane(Flow &f, int p, uint8_t *out, int linesize, float t) {
    const cv::Mat &a = f.f0[p], &b = f.f1[p];
    const int c = p == 0 ? 0 : 1;
    if (p < 2) {
        const float kx = p == 0 ? 1 : 1.f / (1 << f.L.chroma_shift_x), ky = p == 0 ? 1 : 1.f / (1 << f.L.chroma_shift_y);
        makeMaps(f.d0, f.ax[c], f.ay[c], kx, ky, f.m0[c], f.a0[c]);
        makeMaps(f.d1, f.ax[c], f.ay[c], kx, ky, f.m1[c], f.a1[c]);
    }
    cv::remap(a, f.s0[c], f.m0[c], f.a0[c], cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    cv::remap(b, f.s1[c], f.m1[c], f.a1[c], cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    cv::Mat o(f.s0[c].size(), f.type, out, (size_t)linesize);
    cv::addWeighted(f.s0[c], 1 - t, f.s1[c], t, 0, o);   // rounded and saturated
}

/// |i0(x) − i1(x + flow(x))| per grid point.
void matchError(const cv::Mat &flow, const cv::Mat &i0, const cv::Mat &i1, cv::Mat &err) {
    err.create(flow.size(), CV_32F);
    cv::parallel_for_(cv::Range(0, flow.rows), [&](const cv::Range &r) {
        for (int y = r.start; y < r.end; y++) {
            const cv::Vec2f *v = flow.ptr<cv::Vec2f>(y);
            const uint8_t *a = i0.ptr<uint8_t>(y);
            float *e = err.ptr<float>(y);
            for (int x = 0; x < flow.cols; x++) e[x] = std::abs(sample<uint8_t>(i1, x + v[x][0], y + v[x][1]) - (float)a[x]);
        }
    });
}

/// Flow projection: each grid point of a source frame moved by `k`·flow to time t, its way back
/// (−k·flow) kept at the four grid points around where it lands; where several land, the one whose
/// flow matches best (lowest `err`). `hit`: 1 where something landed.
void project(const cv::Mat &flow, const cv::Mat &err, float k, cv::Mat &d, std::vector<float> &best, std::vector<uint8_t> &hit) {
    const int W = flow.cols, H = flow.rows;
    best.assign((size_t)W * H, 1e30f);
    hit.assign((size_t)W * H, 0);
    for (int y = 0; y < H; y++) {
        const cv::Vec2f *v = flow.ptr<cv::Vec2f>(y);
        const float *e = err.ptr<float>(y);
        for (int x = 0; x < W; x++) {
            const float tx = x + k * v[x][0], ty = y + k * v[x][1];
            const int x0 = (int)std::floor(tx), y0 = (int)std::floor(ty);
            for (int j = 0; j < 2; j++) for (int i = 0; i < 2; i++) {
                const int qx = x0 + i, qy = y0 + j;
                if (qx < 0 || qy < 0 || qx >= W || qy >= H) continue;
                const size_t q = (size_t)qy * W + qx;
                if (e[x] < best[q]) {
                    best[q] = e[x]; hit[q] = 1;
                    d.ptr<cv::Vec2f>(qy)[qx] = -k * v[x];
                }
            }
        }
    }
}

/// 8-bit luma on the grid.
void gridLuma(const Flow &f, const cv::Mat &y, cv::Mat &g) {
    cv::Mat y8;
    if (f.type == CV_8U) y8 = y; else y.convertTo(y8, CV_8U, 1.0 / (double)(1 << (f.L.bit_depth - 8)));
    if (f.gs == 1) { y8.copyTo(g); return; }
    // GW, GH round up: a partial last cell is one more grid point
    cv::resize(y8, g, cv::Size(f.GW, f.GH), 0, 0, cv::INTER_AREA);
}

}  // namespace

extern "C" void *slomo_flow_create(const slomo_flow_layout *layout, int quality, int threads, char *error, int error_size) {
    try {
        if (layout->width < 16 || layout->height < 16) { say(error, error_size, "frames smaller than 16x16 are too small for the flow's patches"); return nullptr; }
        if (layout->bytes_per_sample != 1 && layout->bytes_per_sample != 2) { say(error, error_size, "samples of 1 or 2 bytes only"); return nullptr; }
        std::unique_ptr<Flow> f(new Flow());
        f->L = *layout;
        f->type = layout->bytes_per_sample == 1 ? CV_8U : CV_16U;
        const int preset = quality <= 0 ? cv::DISOpticalFlow::PRESET_ULTRAFAST
                         : quality == 1 ? cv::DISOpticalFlow::PRESET_FAST : cv::DISOpticalFlow::PRESET_MEDIUM;
        f->dis = cv::DISOpticalFlow::create(preset);
        // the grid: DIS's finest level, as long as the grid keeps 32 points each way
        const int finest = f->dis->getFinestScale();
        f->gs = 1;
        while (f->gs < (1 << finest) && layout->width / (f->gs * 2) >= 32 && layout->height / (f->gs * 2) >= 32) f->gs *= 2;
        f->dis->setFinestScale(finest - (f->gs == 4 ? 2 : f->gs == 2 ? 1 : 0));
        f->GW = (layout->width + f->gs - 1) / f->gs;
        f->GH = (layout->height + f->gs - 1) / f->gs;
        const int CW = (layout->width + (1 << layout->chroma_shift_x) - 1) >> layout->chroma_shift_x;
        const int CH = (layout->height + (1 << layout->chroma_shift_y) - 1) >> layout->chroma_shift_y;
        f->ax[0].make(layout->width, f->GW); f->ay[0].make(layout->height, f->GH);
        f->ax[1].make(CW, f->GW); f->ay[1].make(CH, f->GH);
        // medium: a patch every 3 points, not 4, and 40 descent steps per patch, not 16 (measured
        // in Docs/Interpolation.md, "--flow-quality")
        if (quality == 1) { f->dis->setPatchStride(3); f->dis->setGradientDescentIterations(40); }
        if (threads > 0) cv::setNumThreads(threads);
        return f.release();
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
        return nullptr;
    }
}

extern "C" void slomo_flow_destroy(void *flow) { delete (Flow *)flow; }

extern "C" const char *slomo_flow_version(void) { return CV_VERSION; }

extern "C" int slomo_flow_set_pair(void *flow, const slomo_flow_frame *a, const slomo_flow_frame *b,
                                   slomo_flow_pair_info *info, char *error, int error_size) {
    auto *f = (Flow *)flow;
    try {
        const auto &L = f->L;
        for (int p = 0; p < 3; p++) {
            const int w = p == 0 ? L.width : (L.width + (1 << L.chroma_shift_x) - 1) >> L.chroma_shift_x;
            const int h = p == 0 ? L.height : (L.height + (1 << L.chroma_shift_y) - 1) >> L.chroma_shift_y;
            cv::Mat(h, w, f->type, (void *)a->data[p], (size_t)a->linesize[p]).copyTo(f->f0[p]);
            cv::Mat(h, w, f->type, (void *)b->data[p], (size_t)b->linesize[p]).copyTo(f->f1[p]);
        }
        gridLuma(*f, f->f0[0], f->g0);
        gridLuma(*f, f->f1[0], f->g1);
        // fresh outputs: DIS takes a flow already of the right size as its first guess, and the
        // last pair this interpolator saw must not shape this one (the same frames give the same
        // flow, whichever thread works them)
        f->f01.release(); f->f10.release();
        f->dis->calc(f->g0, f->g1, f->f01);
        f->dis->calc(f->g1, f->g0, f->f10);
        matchError(f->f01, f->g0, f->g1, f->err0);
        matchError(f->f10, f->g1, f->g0, f->err1);
        // how well the flow explains the change: the mean match error against the plain difference
        double diff = 0, residual = 0;
        for (int y = 0; y < f->GH; y++) {
            const uint8_t *p0 = f->g0.ptr<uint8_t>(y), *p1 = f->g1.ptr<uint8_t>(y);
            const float *e = f->err0.ptr<float>(y);
            for (int x = 0; x < f->GW; x++) { diff += std::abs((int)p1[x] - (int)p0[x]); residual += e[x]; }
        }
        const double n = (double)f->GW * f->GH;
        info->mean_difference = diff / n;
        info->residual = residual / n;
        // a cut: what the flow leaves unexplained is large, and most of the plain difference (on
        // bikes.mp4 the five cuts leave 33–72 levels, its hardest motion at 1/2 the frame rate 16)
        info->cut = info->residual > 20 && info->residual > 0.6 * info->mean_difference ? 1 : 0;
        return 0;
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
        return -1;
    }
}

extern "C" int slomo_flow_render(void *flow, double tt, const slomo_flow_output *out, char *error, int error_size) {
    auto *f = (Flow *)flow;
    try {
        const auto &L = f->L;
        const float t = (float)tt;
        const float a0 = -(1 - t) * t, b0 = t * t, a1 = (1 - t) * (1 - t), b1 = -t * (1 - t);
        const float gs = (float)f->gs;
        f->d0.create(f->GH, f->GW, CV_32FC2); f->d1.create(f->GH, f->GW, CV_32FC2);
        f->p0.create(f->GH, f->GW, CV_32FC2); f->p1.create(f->GH, f->GW, CV_32FC2);
        project(f->f01, f->err0, t, f->p0, f->best, f->hit0);
        project(f->f10, f->err1, 1 - t, f->p1, f->best, f->hit1);
        // the ways back to each frame, in luma pixels: projected, else linear motion through the point
        cv::parallel_for_(cv::Range(0, f->GH), [&](const cv::Range &r) {
            for (int y = r.start; y < r.end; y++) {
                const cv::Vec2f *u = f->f01.ptr<cv::Vec2f>(y), *v = f->f10.ptr<cv::Vec2f>(y);
                const cv::Vec2f *q0 = f->p0.ptr<cv::Vec2f>(y), *q1 = f->p1.ptr<cv::Vec2f>(y);
                const uint8_t *h0 = &f->hit0[(size_t)y * f->GW], *h1 = &f->hit1[(size_t)y * f->GW];
                cv::Vec2f *d0 = f->d0.ptr<cv::Vec2f>(y), *d1 = f->d1.ptr<cv::Vec2f>(y);
                for (int x = 0; x < f->GW; x++) {
                    d0[x] = (h0[x] ? q0[x] : a0 * u[x] + b0 * v[x]) * gs;
                    d1[x] = (h1[x] ? q1[x] : a1 * u[x] + b1 * v[x]) * gs;
                }
            }
        });
        for (int p = 0; p < 3; p++) warpPlane(*f, p, out->data[p], out->linesize[p], t);
        return 0;
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
        return -1;
    }
}
