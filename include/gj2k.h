/* gj2k: the C API, a stable ABI over the JPEG 2000 Part 1 codec (ISO/IEC 15444-1) for C programs
 * and other languages' bindings. The C++ API (<gj2k/gj2k.h>) is the same core.
 *
 *   gj2k_context* ctx = gj2k_context_create();
 *   gj2k_decoder* dec = gj2k_decoder_create_memory(ctx, bytes, size);
 *   gj2k_info info = {sizeof(gj2k_info)};  gj2k_decoder_read_header(dec, &info);
 *   gj2k_decode_params dp;  gj2k_decode_params_init(&dp);  dp.reduce = 1;
 *   gj2k_decoder_decode(dec, &dp);          // then gj2k_decoder_output / _output_component
 *   gj2k_buffer out = {pixels, bytes, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
 *   gj2k_decoder_copy(dec, &out);
 *   gj2k_decoder_destroy(dec);  gj2k_context_destroy(ctx);
 *
 * Errors: every function that can fail returns a gj2k_status (GJ2K_OK = 0); the message of the
 * last failure is kept per context (gj2k_context_error) and per thread (gj2k_last_error), so
 * functions that take no context, or a context that could not be made, still report. No C++
 * exception ever crosses this interface (out of memory is GJ2K_ERR_OUT_OF_MEMORY).
 *
 * Threads: a context owns its worker threads (the calling thread works too: a context of N
 * threads adds N - 1) and its GPU objects, and frees them when destroyed; nothing of a context
 * outlives it. A context and the decoders made from it may be used by one thread at a time;
 * different contexts are independent and may run at once. Callbacks are called during the gj2k
 * call that uses them, one call at a time, from the calling thread or (progress of a decode
 * whose tiles run side by side) from one of the context's worker threads.
 *
 * ABI: structs passed by pointer start with a struct_size member (set by their _init function,
 * or by the caller to sizeof), so that later versions can add members at the end. Handles are
 * opaque. */
#ifndef GJ2K_H
#define GJ2K_H

#include <stddef.h>
#include <stdint.h>

#include "gj2k/export.h"
#include "gj2k/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes -------------------------------------------------------------------------- */
/* Every enum has a *_MAX_ENUM member so that it is an int-sized type whatever the compiler, and
 * any int value a caller passes is a valid (if refused) value of it. */
typedef enum gj2k_status {
  GJ2K_OK = 0,
  GJ2K_ERR_INVALID_ARGUMENT = 1,  /* a parameter is out of range or inconsistent */
  GJ2K_ERR_IO = 2,                /* a file or a callback could not be read or written */
  GJ2K_ERR_FORMAT = 3,            /* the input violates its format */
  GJ2K_ERR_TRUNCATED = 4,         /* the input ended before the data its headers promise */
  GJ2K_ERR_UNSUPPORTED = 5,       /* valid input that gj2k does not handle */
  GJ2K_ERR_DEVICE = 6,            /* the GPU is absent, failed, or ran out of memory */
  GJ2K_ERR_INTERNAL = 7,          /* a bug inside gj2k */
  GJ2K_ERR_CANCELLED = 8,         /* the progress callback returned 0 */
  GJ2K_ERR_OUT_OF_MEMORY = 9,     /* an allocation failed, or the input needs more than a limit */
  GJ2K_ERR_BUFFER_TOO_SMALL = 10, /* a caller buffer cannot hold the output */
  GJ2K_STATUS_MAX_ENUM = 0x7FFFFFFF
} gj2k_status;

/* A short constant name of a status ("invalid argument", ...). Never NULL. */
GJ2K_API const char* gj2k_status_string(gj2k_status status);
/* The library's version, "MAJOR.MINOR.PATCH" (GJ2K_VERSION: the headers' version). */
GJ2K_API const char* gj2k_version_string(void);
/* The message of this thread's last failure in any gj2k function ("" when none). Valid until
 * the next gj2k call on this thread. */
GJ2K_API const char* gj2k_last_error(void);
/* Releases memory gj2k allocated for the caller (gj2k_encode_to_memory's output). NULL: no-op. */
GJ2K_API void gj2k_free(void* p);

/* ---- context ------------------------------------------------------------------------------- */
typedef struct gj2k_context gj2k_context;

typedef enum gj2k_device {
  GJ2K_DEVICE_AUTO = 0, /* the GPU for large images when one is present, else the CPU */
  GJ2K_DEVICE_CPU = 1,
  GJ2K_DEVICE_GPU = 2, /* without a GPU, decoding and encoding fail with GJ2K_ERR_DEVICE */
  GJ2K_DEVICE_MAX_ENUM = 0x7FFFFFFF
} gj2k_device;

/* Progress: a stage name and the fraction done (0..1). Return nonzero to go on, 0 to cancel
 * (the call then fails with GJ2K_ERR_CANCELLED). */
typedef int (*gj2k_progress_fn)(void* user, const char* stage, double fraction);
/* Log: a warning about the input or the request (level 1 = warning). */
typedef void (*gj2k_log_fn)(void* user, int level, const char* message);

typedef struct gj2k_context_params {
  uint32_t struct_size; /* sizeof(gj2k_context_params) (gj2k_context_params_init sets it) */
  uint32_t threads;     /* threads of every call through the context (0 = all hardware threads) */
  gj2k_device device;   /* AUTO, CPU or GPU */
  int32_t device_index; /* the CUDA device its GPU work runs on (0 = the first) */
} gj2k_context_params;

/* threads 0, device AUTO, device_index 0. */
GJ2K_API void gj2k_context_params_init(gj2k_context_params* params);
/* A new context: all hardware threads, device AUTO on CUDA device 0, no callbacks. NULL when
 * out of memory (gj2k_last_error says so). */
GJ2K_API gj2k_context* gj2k_context_create(void);
/* A new context with `params`. NULL when they are invalid or memory is out (gj2k_last_error
 * says which). Its worker threads are started at its first decode or encode. A device_index
 * that does not exist fails the context's first GPU decode or encode with GJ2K_ERR_DEVICE. */
GJ2K_API gj2k_context* gj2k_context_create_ex(const gj2k_context_params* params);
/* Destroys a context and what it owns: its settings, callbacks, error message, worker threads
 * (joined before it returns) and GPU objects (device buffers, pinned staging memory, streams,
 * pooled for reuse by the context's calls). The process-wide coefficient buffers that the
 * CPU decoder and encoder keep between calls are no context's: gj2k_release_gpu_resources
 * frees them. Decoders made from it must be destroyed first; no call through it may be
 * running. NULL: no-op. */
GJ2K_API void gj2k_context_destroy(gj2k_context* ctx);
/* Frees the pooled GPU buffers, pinned memory and streams now, of every live context and of
 * the C++ API (a later GPU decode or encode makes them again), and the coefficient buffers the
 * CPU decoder and encoder keep between calls (process-wide, owned by no context, freed only
 * here or at the process's end; 1 GiB or a sixteenth of the memory at most, whichever is
 * smaller); those in use by a running call are kept. Returns how many pooled objects were
 * freed. Thread-safe. */
GJ2K_API size_t gj2k_release_gpu_resources(void);
/* Worker threads of every decode and encode through this context (0 = all hardware threads).
 * A new count joins the context's threads and frees its GPU objects; the next call makes them
 * anew. */
GJ2K_API gj2k_status gj2k_context_set_threads(gj2k_context* ctx, uint32_t threads);
GJ2K_API gj2k_status gj2k_context_set_device(gj2k_context* ctx, gj2k_device device);
/* fn NULL removes the callback. */
GJ2K_API gj2k_status gj2k_context_set_progress(gj2k_context* ctx, gj2k_progress_fn fn, void* user);
GJ2K_API gj2k_status gj2k_context_set_log(gj2k_context* ctx, gj2k_log_fn fn, void* user);
/* The status and message of the last failure of a call through this context (GJ2K_OK and ""
 * after a success). The message stays valid until the next call through the context. */
GJ2K_API gj2k_status gj2k_context_error_code(const gj2k_context* ctx);
GJ2K_API const char* gj2k_context_error(const gj2k_context* ctx);

/* ---- header information -------------------------------------------------------------------- */
typedef enum gj2k_color_space {
  GJ2K_CS_UNKNOWN = 0,
  GJ2K_CS_GREY = 1,
  GJ2K_CS_SRGB = 2,
  GJ2K_CS_SYCC = 3,
  GJ2K_CS_ICC = 4, /* described by an ICC profile (gj2k_decoder_icc) */
  GJ2K_CS_MAX_ENUM = 0x7FFFFFFF
} gj2k_color_space;

/* Progression orders, numbered as in COD (15444-1 Table A.16). */
typedef enum gj2k_progression {
  GJ2K_LRCP = 0,
  GJ2K_RLCP = 1,
  GJ2K_RPCL = 2,
  GJ2K_PCRL = 3,
  GJ2K_CPRL = 4,
  GJ2K_PROGRESSION_MAX_ENUM = 0x7FFFFFFF
} gj2k_progression;

typedef struct gj2k_info {
  uint32_t struct_size;       /* set by the caller: sizeof(gj2k_info) */
  int is_jp2;                 /* 1: JP2 file, 0: raw codestream */
  uint32_t x0, y0, x1, y1;    /* image area on the reference grid */
  uint32_t width, height;     /* x1 - x0, y1 - y0 */
  uint32_t num_components;    /* codestream components (gj2k_decoder_component for each) */
  uint32_t output_components; /* after JP2 palette and channel definitions */
  uint32_t tile_x0, tile_y0, tile_width, tile_height;
  uint32_t num_tiles_x, num_tiles_y, num_tiles;
  uint32_t levels;     /* decomposition levels of the main COD */
  uint32_t min_levels; /* smallest levels of any component: the largest usable reduce */
  uint32_t layers;     /* quality layers */
  int reversible;      /* 1: 5/3 reversible wavelet */
  gj2k_progression progression;
  gj2k_color_space color_space;
  size_t icc_size; /* bytes of the ICC profile (0 when none) */
} gj2k_info;

typedef struct gj2k_component_info {
  uint32_t width, height; /* samples */
  uint32_t dx, dy;        /* subsampling on the reference grid */
  uint32_t precision;     /* bits per sample */
  int is_signed;
  int is_alpha; /* output components only */
} gj2k_component_info;

/* ---- sample buffers ------------------------------------------------------------------------ */
typedef enum gj2k_sample_type {
  GJ2K_SAMPLE_8 = 1,  /* uint8_t, or int8_t for signed components */
  GJ2K_SAMPLE_16 = 2, /* uint16_t / int16_t */
  GJ2K_SAMPLE_32 = 4, /* int32_t (decoding only) */
  GJ2K_SAMPLE_MAX_ENUM = 0x7FFFFFFF
} gj2k_sample_type;

typedef enum gj2k_layout {
  GJ2K_PLANAR = 0,      /* component k's rows at data + k * plane_stride */
  GJ2K_INTERLEAVED = 1, /* the components of a pixel side by side; all components one size */
  GJ2K_LAYOUT_MAX_ENUM = 0x7FFFFFFF
} gj2k_layout;

/* A caller-owned sample buffer. Row y of a component starts at y * row_stride bytes (from its
 * plane for PLANAR). row_stride 0: width * components (interleaved) or width (planar) samples;
 * plane_stride 0: row_stride * height. `size` bytes are available from `data`. Samples are
 * native-endian; a sample type narrower than a component's precision is refused. */
typedef struct gj2k_buffer {
  void* data;
  size_t size;
  gj2k_sample_type type;
  gj2k_layout layout;
  size_t row_stride;
  size_t plane_stride;
} gj2k_buffer;

/* ---- decoding ------------------------------------------------------------------------------ */
typedef struct gj2k_decoder gj2k_decoder;

/* Reads up to `size` bytes into `buf`; returns the count, 0 at the end, or (size_t)-1 on error. */
typedef size_t (*gj2k_read_fn)(void* user, void* buf, size_t size);

/* A decoder over a copy of `size` bytes. NULL on failure (message in the context). */
GJ2K_API gj2k_decoder* gj2k_decoder_create_memory(gj2k_context* ctx, const void* data, size_t size);
/* A decoder over a file. NULL when it cannot be read. */
GJ2K_API gj2k_decoder* gj2k_decoder_create_file(gj2k_context* ctx, const char* path);
/* A decoder over what `read` returns until its end (read whole before this returns). NULL on a
 * read error. */
GJ2K_API gj2k_decoder* gj2k_decoder_create_callbacks(gj2k_context* ctx, gj2k_read_fn read,
                                                     void* user);
/* NULL: no-op. */
GJ2K_API void gj2k_decoder_destroy(gj2k_decoder* dec);

/* The main header (and JP2 boxes) without decoding. info->struct_size must be set. */
GJ2K_API gj2k_status gj2k_decoder_read_header(gj2k_decoder* dec, gj2k_info* info);
/* Codestream component `index` (0 <= index < info.num_components). */
GJ2K_API gj2k_status gj2k_decoder_component(gj2k_decoder* dec, uint32_t index,
                                            gj2k_component_info* out);
/* The ICC profile: *data points into the decoder (valid until it is destroyed), *size bytes;
 * NULL and 0 when there is none. */
GJ2K_API gj2k_status gj2k_decoder_icc(gj2k_decoder* dec, const uint8_t** data, size_t* size);

typedef struct gj2k_decode_params {
  uint32_t struct_size; /* set by gj2k_decode_params_init */
  uint32_t reduce;      /* discard this many highest resolution levels */
  uint32_t max_layers;  /* 0 = all */
  int use_region;       /* decode only [region_x0, region_x1) x [region_y0, region_y1) */
  uint32_t region_x0, region_y0, region_x1, region_y1; /* full-resolution reference grid */
  int use_tile;                                        /* decode only tile `tile` (raster index) */
  uint32_t tile;
  const uint32_t* components; /* codestream components to decode, in output order */
  uint32_t num_components;    /* 0 = all */
  int upsample;               /* resample subsampled components to the image grid */
  int force_rgb;              /* sYCC and restricted ICC to sRGB */
  int allow_partial;          /* decode what a damaged or truncated stream holds */
} gj2k_decode_params;

GJ2K_API void gj2k_decode_params_init(gj2k_decode_params* params);

/* Decodes (params NULL: defaults) and keeps the image in the decoder until the next decode;
 * gj2k_decoder_output* describe it and gj2k_decoder_copy writes it to a caller buffer. */
GJ2K_API gj2k_status gj2k_decoder_decode(gj2k_decoder* dec, const gj2k_decode_params* params);
/* The decoded image: width/height of the output area, num_components, color_space. The other
 * members of gj2k_info are left as they are. */
GJ2K_API gj2k_status gj2k_decoder_output(gj2k_decoder* dec, gj2k_info* info);
GJ2K_API gj2k_status gj2k_decoder_output_component(gj2k_decoder* dec, uint32_t index,
                                                   gj2k_component_info* out);
/* Bytes a buffer of this type and layout needs for the decoded image (strides 0). */
GJ2K_API gj2k_status gj2k_decoder_output_size(gj2k_decoder* dec, gj2k_sample_type type,
                                              gj2k_layout layout, size_t* size);
/* Bytes a buffer of this type and layout (strides 0) needs for gj2k_decoder_decode_into with
 * `params`, from the headers, without decoding: known when the tiles go straight into the
 * buffer (see gj2k_decoder_decode_into); GJ2K_ERR_UNSUPPORTED when the output is known only
 * after decoding. */
GJ2K_API gj2k_status gj2k_decoder_direct_size(gj2k_decoder* dec, const gj2k_decode_params* params,
                                              gj2k_sample_type type, gj2k_layout layout,
                                              size_t* size);
/* Writes the image of the last gj2k_decoder_decode into `out`. GJ2K_ERR_BUFFER_TOO_SMALL when
 * out->size is too small; GJ2K_ERR_INVALID_ARGUMENT after gj2k_decoder_decode_into (it
 * keeps no samples) or for a component whose precision exceeds the sample type. */
GJ2K_API gj2k_status gj2k_decoder_copy(gj2k_decoder* dec, const gj2k_buffer* out);
/* gj2k_decoder_decode then gj2k_decoder_copy (the image stays in the decoder). */
GJ2K_API gj2k_status gj2k_decode_into(gj2k_decoder* dec, const gj2k_decode_params* params,
                                      const gj2k_buffer* out);
/* Decodes straight into `out`: the same samples as gj2k_decoder_decode then gj2k_decoder_copy.
 * When the decode needs nothing done to the whole image (no JP2 palette or channel definitions,
 * upsampling, force_rgb conversion), each tile goes into `out` as it is decoded (on the GPU
 * packed on the device) and the buffer is checked before decoding; otherwise it decodes then
 * copies. Afterwards gj2k_decoder_output / _output_component describe the output, and
 * gj2k_decoder_copy is refused (no image is kept). */
GJ2K_API gj2k_status gj2k_decoder_decode_into(gj2k_decoder* dec, const gj2k_decode_params* params,
                                              const gj2k_buffer* out);

/* ---- encoding ------------------------------------------------------------------------------ */
typedef enum gj2k_format {
  GJ2K_FORMAT_J2K = 0,
  GJ2K_FORMAT_JP2 = 1,
  GJ2K_FORMAT_MAX_ENUM = 0x7FFFFFFF
} gj2k_format;

/* The image to encode: every component width x height, one precision (1..16) and sign. */
typedef struct gj2k_image_desc {
  uint32_t struct_size; /* sizeof(gj2k_image_desc) */
  uint32_t width, height, num_components;
  uint32_t precision;
  int is_signed;
  gj2k_color_space color_space;
  const uint8_t* icc_profile; /* with GJ2K_CS_ICC and format JP2: the profile written (colr) */
  size_t icc_size;
} gj2k_image_desc;

typedef struct gj2k_encode_params {
  uint32_t struct_size; /* set by gj2k_encode_params_init */
  gj2k_format format;   /* default J2K */
  int irreversible;     /* 0: lossless 5/3 + RCT (default); 1: 9/7 + ICT + quantization */
  int levels;           /* decomposition levels 0..32 (default 5) */
  int mct;              /* 1 on, 0 off, -1 auto (default) */
  uint32_t cblk_width, cblk_height; /* default 64 x 64 */
  int layers;                       /* 0: as many as rates (default) */
  const double* rates;              /* compression ratios per layer, decreasing; 1 = lossless */
  uint32_t num_rates;
  const double* psnr; /* or: PSNR targets in dB per layer, increasing */
  uint32_t num_psnr;
  gj2k_progression order;           /* default LRCP */
  uint32_t tile_width, tile_height; /* 0: one tile (default) */
  int sop, eph, tlm, plt;           /* optional markers (default 0) */
  uint8_t cblk_style;               /* Table A.19 bits (default 0) */
  int guard_bits;                   /* 0..7 (default 2) */
  const char* comment;              /* COM marker text; NULL: "Created by gj2k VERSION" */
} gj2k_encode_params;

GJ2K_API void gj2k_encode_params_init(gj2k_encode_params* params);

/* Writes `size` bytes; returns nonzero on success, 0 on failure (the encode then fails with
 * GJ2K_ERR_IO). */
typedef int (*gj2k_write_fn)(void* user, const void* data, size_t size);

/* Encodes the samples in `in` (GJ2K_SAMPLE_8 or _16, planar or interleaved) into a buffer
 * gj2k allocates: *out (release with gj2k_free) of *out_size bytes. params NULL: defaults. */
GJ2K_API gj2k_status gj2k_encode_to_memory(gj2k_context* ctx, const gj2k_image_desc* image,
                                           const gj2k_buffer* in, const gj2k_encode_params* params,
                                           uint8_t** out, size_t* out_size);
/* Encodes and hands the output to `write` (in one or more calls). */
GJ2K_API gj2k_status gj2k_encode_to_callback(gj2k_context* ctx, const gj2k_image_desc* image,
                                             const gj2k_buffer* in,
                                             const gj2k_encode_params* params, gj2k_write_fn write,
                                             void* user);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GJ2K_H */
