// Aravis 0.8 (Debian 12: libaravis-dev, which also needs libusb-1.0-0-dev for its pkg-config file).
// What Swift cannot call directly: g_object_set is variadic, the GObject cast macros do not import,
// and a signal handler needs a C function. Each wrapper here does one such call.
#include <arv.h>

/// A GigE Vision stream's socket buffer set to a fixed size (bytes), and packet resend on or off.
/// No-op on other streams. Returns 1 for a GigE Vision stream.
static inline int slomo_arv_gv_stream_configure(ArvStream *stream, int socket_buffer_bytes, int resend) {
    if (!ARV_IS_GV_STREAM(stream)) return 0;
    g_object_set(stream,
                 "socket-buffer", ARV_GV_STREAM_SOCKET_BUFFER_FIXED,
                 "socket-buffer-size", socket_buffer_bytes,
                 "packet-resend", resend ? ARV_GV_STREAM_PACKET_RESEND_ALWAYS : ARV_GV_STREAM_PACKET_RESEND_NEVER,
                 NULL);
    return 1;
}

/// The GigE Vision device under a camera, or NULL for other protocols.
static inline ArvGvDevice *slomo_arv_gv_device(ArvCamera *camera) {
    ArvDevice *device = arv_camera_get_device(camera);
    return ARV_IS_GV_DEVICE(device) ? ARV_GV_DEVICE(device) : NULL;
}

static void slomo_arv_control_lost_cb(ArvDevice *device, gpointer flag) {
    (void)device;
    __atomic_store_n((int *)flag, 1, __ATOMIC_SEQ_CST);
}

/// Sets *flag to 1 (from Aravis's own thread) when the camera's control channel is lost
/// (the "control-lost" signal: heartbeat failed, cable pulled, camera gone).
static inline gulong slomo_arv_watch_control_lost(ArvCamera *camera, int *flag) {
    return g_signal_connect(arv_camera_get_device(camera), "control-lost", G_CALLBACK(slomo_arv_control_lost_cb), flag);
}

/// Stops the watch (before the flag is freed: the camera may outlive it).
static inline void slomo_arv_unwatch(ArvCamera *camera, gulong handler) {
    if (handler != 0) g_signal_handler_disconnect(arv_camera_get_device(camera), handler);
}

static inline int slomo_atomic_load(int *flag) { return __atomic_load_n(flag, __ATOMIC_SEQ_CST); }

/// The GenICam node map's root: a node by name, its kind, and a category's children.
static inline ArvGc *slomo_arv_genicam(ArvCamera *camera) { return arv_device_get_genicam(arv_camera_get_device(camera)); }

/// 0 none, 1 category, 2 integer, 3 float, 4 enumeration, 5 boolean, 6 command, 7 string, 8 other feature.
static inline int slomo_arv_node_kind(ArvGcNode *node) {
    if (node == NULL) return 0;
    if (ARV_IS_GC_CATEGORY(node)) return 1;
    if (ARV_IS_GC_ENUMERATION(node)) return 4;
    if (ARV_IS_GC_BOOLEAN(node)) return 5;
    if (ARV_IS_GC_COMMAND(node)) return 6;
    if (ARV_IS_GC_STRING(node)) return 7;
    if (ARV_IS_GC_FLOAT(node)) return 3;
    if (ARV_IS_GC_INTEGER(node)) return 2;
    if (ARV_IS_GC_FEATURE_NODE(node)) return 8;
    return 0;
}

/// G_TYPE_UINT64 (a macro Swift does not import).
static inline GType slomo_g_type_uint64(void) { return G_TYPE_UINT64; }

static inline const GSList *slomo_arv_category_features(ArvGcNode *node) {
    return ARV_IS_GC_CATEGORY(node) ? arv_gc_category_get_features(ARV_GC_CATEGORY(node)) : NULL;
}

static inline ArvGcFeatureNode *slomo_arv_feature(ArvGcNode *node) {
    return ARV_IS_GC_FEATURE_NODE(node) ? ARV_GC_FEATURE_NODE(node) : NULL;
}
static inline ArvGcInteger *slomo_arv_integer(ArvGcNode *node) { return ARV_IS_GC_INTEGER(node) ? ARV_GC_INTEGER(node) : NULL; }
static inline ArvGcFloat *slomo_arv_float(ArvGcNode *node) { return ARV_IS_GC_FLOAT(node) ? ARV_GC_FLOAT(node) : NULL; }
static inline ArvGcEnumeration *slomo_arv_enumeration(ArvGcNode *node) { return ARV_IS_GC_ENUMERATION(node) ? ARV_GC_ENUMERATION(node) : NULL; }
static inline ArvGcString *slomo_arv_string(ArvGcNode *node) { return ARV_IS_GC_STRING(node) ? ARV_GC_STRING(node) : NULL; }
static inline ArvGcBoolean *slomo_arv_boolean(ArvGcNode *node) { return ARV_IS_GC_BOOLEAN(node) ? ARV_GC_BOOLEAN(node) : NULL; }
