// The C API (include/gj2k.h) over the C++ API: handles own C++ objects, every entry point
// catches everything and turns it into a status and a message.
#include "gj2k.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "codec/context.h"
#include "gj2k/gj2k.h"

struct gj2k_context {
  uint32_t threads = 0;
  gj2k_device device = GJ2K_DEVICE_AUTO;
  int32_t device_index = 0;
  // Its worker threads and GPU objects (codec/context.h): made at the first call that codes,
  // remade after a change of threads, freed with the context.
  std::unique_ptr<gj2k::codec::ContextResources> owned;
  gj2k_progress_fn progress = nullptr;
  void* progress_user = nullptr;
  gj2k_log_fn log = nullptr;
  void* log_user = nullptr;
  gj2k_status error_code = GJ2K_OK;
  std::string error;
};

struct gj2k_decoder {
  gj2k_context* ctx = nullptr;
  std::optional<gj2k::Decoder> decoder;
  std::optional<gj2k::HeaderInfo> header;
  std::optional<gj2k::Image> image;
  bool has_samples = false;  // image holds samples (not after gj2k_decoder_decode_into)
};

namespace {

thread_local std::string t_last_error;

gj2k_status to_status(gj2k::ErrorCode code) {
  using gj2k::ErrorCode;
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return GJ2K_ERR_INVALID_ARGUMENT;
    case ErrorCode::kIo:
      return GJ2K_ERR_IO;
    case ErrorCode::kFormat:
      return GJ2K_ERR_FORMAT;
    case ErrorCode::kTruncated:
      return GJ2K_ERR_TRUNCATED;
    case ErrorCode::kUnsupported:
      return GJ2K_ERR_UNSUPPORTED;
    case ErrorCode::kDevice:
      return GJ2K_ERR_DEVICE;
    case ErrorCode::kInternal:
      return GJ2K_ERR_INTERNAL;
    case ErrorCode::kCancelled:
      return GJ2K_ERR_CANCELLED;
    case ErrorCode::kBufferTooSmall:
      return GJ2K_ERR_BUFFER_TOO_SMALL;
    case ErrorCode::kResource:
      return GJ2K_ERR_OUT_OF_MEMORY;
  }
  return GJ2K_ERR_INTERNAL;
}

// Records a failure in the thread's slot and the context's (either may be absent).
gj2k_status fail(gj2k_context* ctx, gj2k_status status, const char* message) noexcept {
  try {
    t_last_error = message;
  } catch (...) {
    t_last_error.clear();
  }
  if (ctx) {
    ctx->error_code = status;
    try {
      ctx->error = message;
    } catch (...) {
      ctx->error.clear();
    }
  }
  return status;
}

// A failure with a message built by the caller; no allocation may escape.
struct Failure {
  gj2k_status status;
  std::string message;
};

void begin(gj2k_context* ctx) noexcept {
  t_last_error.clear();
  if (ctx) {
    ctx->error_code = GJ2K_OK;
    ctx->error.clear();
  }
}

// Runs fn, translating every exception into a status recorded in ctx and the thread slot.
template <class Fn>
gj2k_status guarded(gj2k_context* ctx, Fn&& fn) noexcept;

// guarded() for a call that decodes or encodes: it runs on the context's threads and GPU
// objects (codec::ContextScope).
template <class Fn>
gj2k_status coding(gj2k_context* ctx, Fn&& fn) noexcept {
  return guarded(ctx, [&] {
    if (!ctx->owned)
      ctx->owned = std::make_unique<gj2k::codec::ContextResources>(static_cast<int>(ctx->threads),
                                                                   ctx->device_index);
    const gj2k::codec::ContextScope scope(*ctx->owned);
    fn();
  });
}

template <class Fn>
gj2k_status guarded(gj2k_context* ctx, Fn&& fn) noexcept {
  begin(ctx);
  try {
    fn();
    return GJ2K_OK;
  } catch (const gj2k::Error& e) {
    return fail(ctx, to_status(e.code()), e.what());
  } catch (const Failure& f) {
    return fail(ctx, f.status, f.message.c_str());
  } catch (const std::bad_alloc&) {
    return fail(ctx, GJ2K_ERR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(ctx, GJ2K_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(ctx, GJ2K_ERR_INTERNAL, "unknown exception");
  }
}

[[noreturn]] void invalid(const std::string& message) {
  throw Failure{GJ2K_ERR_INVALID_ARGUMENT, message};
}

void check_struct(uint32_t struct_size, size_t expected, const char* name) {
  if (struct_size < expected)
    invalid(std::string(name) + ".struct_size is " + std::to_string(struct_size) +
            "; set it to sizeof(" + name + ")");
}

gj2k::ColorSpace to_cpp(gj2k_color_space cs) {
  switch (cs) {
    case GJ2K_CS_GREY:
      return gj2k::ColorSpace::kGrey;
    case GJ2K_CS_SRGB:
      return gj2k::ColorSpace::kSRGB;
    case GJ2K_CS_SYCC:
      return gj2k::ColorSpace::kSYCC;
    case GJ2K_CS_ICC:
      return gj2k::ColorSpace::kICC;
    default:
      return gj2k::ColorSpace::kUnknown;
  }
}

gj2k_color_space to_c(gj2k::ColorSpace cs) {
  switch (cs) {
    case gj2k::ColorSpace::kGrey:
      return GJ2K_CS_GREY;
    case gj2k::ColorSpace::kSRGB:
      return GJ2K_CS_SRGB;
    case gj2k::ColorSpace::kSYCC:
      return GJ2K_CS_SYCC;
    case gj2k::ColorSpace::kICC:
      return GJ2K_CS_ICC;
    default:
      return GJ2K_CS_UNKNOWN;
  }
}

std::function<bool(const char*, double)> progress_of(const gj2k_context* ctx) {
  if (!ctx->progress) return {};
  gj2k_progress_fn fn = ctx->progress;
  void* user = ctx->progress_user;
  return [fn, user](const char* stage, double f) { return fn(user, stage, f) != 0; };
}

void warn(const gj2k_context* ctx, const std::string& message) {
  if (ctx->log) ctx->log(ctx->log_user, 1, message.c_str());
}

size_t sample_bytes(gj2k_sample_type type) {
  if (type != GJ2K_SAMPLE_8 && type != GJ2K_SAMPLE_16 && type != GJ2K_SAMPLE_32)
    invalid("buffer type " + std::to_string(static_cast<int>(type)) +
            " is not GJ2K_SAMPLE_8, _16 or _32");
  return static_cast<size_t>(type);
}

// The library's view of a caller's buffer (gj2k::OutputBuffer or gj2k::InputBuffer; the layout
// rule lives in the library: codec::caller_layout).
template <class Buffer>
Buffer buffer_view(const gj2k_buffer& b) {
  sample_bytes(b.type);
  if (b.layout != GJ2K_PLANAR && b.layout != GJ2K_INTERLEAVED)
    invalid("buffer layout " + std::to_string(static_cast<int>(b.layout)) +
            " is not GJ2K_PLANAR or GJ2K_INTERLEAVED");
  Buffer out;
  out.data = b.data;
  out.size = b.size;
  out.type = static_cast<gj2k::SampleType>(b.type);
  out.interleaved = b.layout == GJ2K_INTERLEAVED;
  out.row_stride = b.row_stride;
  out.plane_stride = b.plane_stride;
  return out;
}
gj2k::OutputBuffer output_buffer(const gj2k_buffer& b) {
  return buffer_view<gj2k::OutputBuffer>(b);
}

// The last decode's output: its description, and its samples unless gj2k_decode_into wrote
// them straight into a buffer (gj2k_decoder_decode_into).
const gj2k::Image& decoded(gj2k_decoder* dec) {
  if (!dec->image) invalid("nothing decoded yet: call gj2k_decoder_decode first");
  return *dec->image;
}
const gj2k::Image& decoded_samples(gj2k_decoder* dec) {
  const gj2k::Image& image = decoded(dec);
  if (!dec->has_samples)
    invalid("gj2k_decoder_decode_into keeps no samples: call gj2k_decoder_decode first");
  return image;
}

void check_threads(uint32_t threads) {
  if (threads > 4096) invalid("threads " + std::to_string(threads) + " is above 4096");
}

void check_device(gj2k_device device) {
  if (device != GJ2K_DEVICE_AUTO && device != GJ2K_DEVICE_CPU && device != GJ2K_DEVICE_GPU)
    invalid("device " + std::to_string(static_cast<int>(device)) + " is not AUTO, CPU or GPU");
}

gj2k::DecodeParams to_cpp(const gj2k_context* ctx, const gj2k_decode_params* in) {
  gj2k::DecodeParams p;
  p.threads = ctx->threads;
  p.device = ctx->device == GJ2K_DEVICE_CPU   ? gj2k::DecodeDevice::kCpu
             : ctx->device == GJ2K_DEVICE_GPU ? gj2k::DecodeDevice::kGpu
                                              : gj2k::DecodeDevice::kAuto;
  p.progress = progress_of(ctx);
  if (ctx->log) p.on_warning = [ctx](const std::string& m) { warn(ctx, m); };
  if (!in) return p;
  check_struct(in->struct_size, sizeof(gj2k_decode_params), "gj2k_decode_params");
  p.reduce = in->reduce;
  p.max_layers = in->max_layers;
  if (in->use_region)
    p.region = gj2k::Region{in->region_x0, in->region_y0, in->region_x1, in->region_y1};
  if (in->use_tile) p.tile = in->tile;
  if (in->num_components) {
    if (!in->components) invalid("gj2k_decode_params.components is NULL");
    p.components.assign(in->components, in->components + in->num_components);
  }
  p.upsample = in->upsample != 0;
  p.force_rgb = in->force_rgb != 0;
  p.allow_partial = in->allow_partial != 0;
  return p;
}

// The image `d` describes, without samples (they stay in `in`, which Encoder::encode(layout,
// InputBuffer) reads and checks), and the library's view of the buffer.
gj2k::Image layout_from(const gj2k_context* ctx, const gj2k_image_desc* d, const gj2k_buffer* in,
                        gj2k::InputBuffer& buffer) {
  if (!d) invalid("image description is NULL");
  if (!in) invalid("input buffer is NULL");
  check_struct(d->struct_size, sizeof(gj2k_image_desc), "gj2k_image_desc");
  if (in->type == GJ2K_SAMPLE_32) invalid("encoding takes GJ2K_SAMPLE_8 or GJ2K_SAMPLE_16 input");
  if (d->precision < 1 || d->precision > 16)
    invalid("precision " + std::to_string(d->precision) + " is outside 1..16");
  // Strides, NULL data, the size and every sample's range: Encoder::encode checks them.
  buffer = buffer_view<gj2k::InputBuffer>(*in);
  gj2k::Image image =
      gj2k::make_layout(d->width, d->height, d->num_components, d->precision, d->is_signed != 0);
  if (d->color_space == GJ2K_CS_ICC && (!d->icc_profile || d->icc_size == 0)) {
    warn(ctx, "encode: GJ2K_CS_ICC without a profile; the colour space is left unstated");
  } else if (d->color_space == GJ2K_CS_ICC) {
    image.color_space = gj2k::ColorSpace::kICC;
    image.icc_profile.assign(d->icc_profile, d->icc_profile + d->icc_size);
  } else {
    image.color_space = to_cpp(d->color_space);
  }
  return image;
}

gj2k::EncodeParams to_cpp(const gj2k_context* ctx, const gj2k_encode_params* in,
                          gj2k::FileFormat& format) {
  gj2k::EncodeParams p;
  p.threads = static_cast<int>(ctx->threads);
  p.device = ctx->device == GJ2K_DEVICE_CPU   ? gj2k::EncodeParams::Device::kCpu
             : ctx->device == GJ2K_DEVICE_GPU ? gj2k::EncodeParams::Device::kGpu
                                              : gj2k::EncodeParams::Device::kAuto;
  p.progress = progress_of(ctx);
  format = gj2k::FileFormat::kJ2k;
  if (!in) return p;
  check_struct(in->struct_size, sizeof(gj2k_encode_params), "gj2k_encode_params");
  if (in->format != GJ2K_FORMAT_J2K && in->format != GJ2K_FORMAT_JP2)
    invalid("format " + std::to_string(static_cast<int>(in->format)) + " is not J2K or JP2");
  format = in->format == GJ2K_FORMAT_JP2 ? gj2k::FileFormat::kJp2 : gj2k::FileFormat::kJ2k;
  p.irreversible = in->irreversible != 0;
  p.levels = in->levels;
  p.mct = in->mct;
  p.cblk_width = in->cblk_width;
  p.cblk_height = in->cblk_height;
  p.layers = in->layers;
  if (in->num_rates) {
    if (!in->rates) invalid("gj2k_encode_params.rates is NULL");
    p.rates.assign(in->rates, in->rates + in->num_rates);
  }
  if (in->num_psnr) {
    if (!in->psnr) invalid("gj2k_encode_params.psnr is NULL");
    p.psnr.assign(in->psnr, in->psnr + in->num_psnr);
  }
  if (static_cast<uint32_t>(in->order) > 4)
    invalid("order " + std::to_string(static_cast<int>(in->order)) + " is not a progression");
  p.order = static_cast<gj2k::ProgressionOrder>(in->order);
  p.tile_width = in->tile_width;
  p.tile_height = in->tile_height;
  p.sop = in->sop != 0;
  p.eph = in->eph != 0;
  p.tlm = in->tlm != 0;
  p.plt = in->plt != 0;
  p.cblk_style = in->cblk_style;
  p.guard_bits = in->guard_bits;
  if (in->comment) p.comment = in->comment;
  return p;
}

std::vector<uint8_t> encode(gj2k_context* ctx, const gj2k_image_desc* d, const gj2k_buffer* in,
                            const gj2k_encode_params* params) {
  gj2k::FileFormat format;
  const gj2k::EncodeParams p = to_cpp(ctx, params, format);
  gj2k::InputBuffer buffer;
  const gj2k::Image layout = layout_from(ctx, d, in, buffer);
  return gj2k::Encoder().encode(layout, buffer, p, format);
}

gj2k_context* no_context() {
  fail(nullptr, GJ2K_ERR_INVALID_ARGUMENT, "context is NULL");
  return nullptr;
}

}  // namespace

extern "C" {

const char* gj2k_status_string(gj2k_status status) {
  switch (status) {
    case GJ2K_OK:
      return "ok";
    case GJ2K_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case GJ2K_ERR_IO:
      return "i/o error";
    case GJ2K_ERR_FORMAT:
      return "format error";
    case GJ2K_ERR_TRUNCATED:
      return "truncated input";
    case GJ2K_ERR_UNSUPPORTED:
      return "unsupported";
    case GJ2K_ERR_DEVICE:
      return "device error";
    case GJ2K_ERR_INTERNAL:
      return "internal error";
    case GJ2K_ERR_CANCELLED:
      return "cancelled";
    case GJ2K_ERR_OUT_OF_MEMORY:
      return "out of memory";
    case GJ2K_ERR_BUFFER_TOO_SMALL:
      return "buffer too small";
    default:
      return "unknown status";
  }
}

const char* gj2k_version_string(void) {
  return gj2k::version();
}

const char* gj2k_last_error(void) {
  return t_last_error.c_str();
}

void gj2k_free(void* p) {
  std::free(p);
}

void gj2k_context_params_init(gj2k_context_params* params) {
  if (!params) return;
  std::memset(params, 0, sizeof(*params));
  params->struct_size = sizeof(*params);
  params->device = GJ2K_DEVICE_AUTO;
}

gj2k_context* gj2k_context_create(void) {
  gj2k_context_params p;
  gj2k_context_params_init(&p);
  return gj2k_context_create_ex(&p);
}

gj2k_context* gj2k_context_create_ex(const gj2k_context_params* params) {
  begin(nullptr);
  gj2k_context* ctx = nullptr;
  const gj2k_status s = guarded(nullptr, [&] {
    if (!params) invalid("params is NULL");
    check_struct(params->struct_size,
                 offsetof(gj2k_context_params, device_index) + sizeof(params->device_index),
                 "gj2k_context_params");
    check_threads(params->threads);
    check_device(params->device);
    if (params->device_index < 0)
      invalid("device_index " + std::to_string(params->device_index) + " is negative");
    auto made = std::make_unique<gj2k_context>();
    made->threads = params->threads;
    made->device = params->device;
    made->device_index = params->device_index;
    ctx = made.release();
  });
  return s == GJ2K_OK ? ctx : nullptr;
}

void gj2k_context_destroy(gj2k_context* ctx) {
  delete ctx;  // joins its threads, frees its GPU objects
}

size_t gj2k_release_gpu_resources(void) {
  try {
    return gj2k::release_gpu_resources();
  } catch (...) {  // nothing crosses the C boundary
    return 0;
  }
}

gj2k_status gj2k_context_set_threads(gj2k_context* ctx, uint32_t threads) {
  if (!ctx) return no_context(), GJ2K_ERR_INVALID_ARGUMENT;
  return guarded(ctx, [&] {
    check_threads(threads);
    if (threads != ctx->threads) ctx->owned.reset();  // remade with the new count
    ctx->threads = threads;
  });
}

gj2k_status gj2k_context_set_device(gj2k_context* ctx, gj2k_device device) {
  if (!ctx) return no_context(), GJ2K_ERR_INVALID_ARGUMENT;
  return guarded(ctx, [&] {
    check_device(device);
    ctx->device = device;
  });
}

gj2k_status gj2k_context_set_progress(gj2k_context* ctx, gj2k_progress_fn fn, void* user) {
  if (!ctx) return no_context(), GJ2K_ERR_INVALID_ARGUMENT;
  begin(ctx);
  ctx->progress = fn;
  ctx->progress_user = user;
  return GJ2K_OK;
}

gj2k_status gj2k_context_set_log(gj2k_context* ctx, gj2k_log_fn fn, void* user) {
  if (!ctx) return no_context(), GJ2K_ERR_INVALID_ARGUMENT;
  begin(ctx);
  ctx->log = fn;
  ctx->log_user = user;
  return GJ2K_OK;
}

gj2k_status gj2k_context_error_code(const gj2k_context* ctx) {
  return ctx ? ctx->error_code : GJ2K_ERR_INVALID_ARGUMENT;
}

const char* gj2k_context_error(const gj2k_context* ctx) {
  return ctx ? ctx->error.c_str() : "context is NULL";
}

gj2k_decoder* gj2k_decoder_create_memory(gj2k_context* ctx, const void* data, size_t size) {
  if (!ctx) {
    no_context();
    return nullptr;
  }
  gj2k_decoder* out = nullptr;
  guarded(ctx, [&] {
    if (!data && size) invalid("data is NULL");
    auto dec = std::make_unique<gj2k_decoder>();
    dec->ctx = ctx;
    const auto* p = static_cast<const uint8_t*>(data);
    dec->decoder.emplace(std::vector<uint8_t>(p, p + size));
    out = dec.release();
  });
  return out;
}

gj2k_decoder* gj2k_decoder_create_file(gj2k_context* ctx, const char* path) {
  if (!ctx) {
    no_context();
    return nullptr;
  }
  gj2k_decoder* out = nullptr;
  guarded(ctx, [&] {
    if (!path) invalid("path is NULL");
    auto dec = std::make_unique<gj2k_decoder>();
    dec->ctx = ctx;
    dec->decoder.emplace(std::filesystem::path(path));
    out = dec.release();
  });
  return out;
}

gj2k_decoder* gj2k_decoder_create_callbacks(gj2k_context* ctx, gj2k_read_fn read, void* user) {
  if (!ctx) {
    no_context();
    return nullptr;
  }
  gj2k_decoder* out = nullptr;
  guarded(ctx, [&] {
    if (!read) invalid("read callback is NULL");
    std::vector<uint8_t> bytes;
    size_t used = 0;
    for (;;) {
      if (bytes.size() - used < 65536) bytes.resize(std::max<size_t>(bytes.size() * 2, 65536));
      const size_t n = read(user, bytes.data() + used, bytes.size() - used);
      if (n == static_cast<size_t>(-1))
        throw Failure{GJ2K_ERR_IO, "read callback failed after " + std::to_string(used) + " bytes"};
      if (n == 0) break;
      if (n > bytes.size() - used) invalid("read callback returned more bytes than asked for");
      used += n;
    }
    bytes.resize(used);
    auto dec = std::make_unique<gj2k_decoder>();
    dec->ctx = ctx;
    dec->decoder.emplace(std::move(bytes));
    out = dec.release();
  });
  return out;
}

void gj2k_decoder_destroy(gj2k_decoder* dec) {
  delete dec;
}

#define GJ2K_NEED_DECODER(dec)                                                      \
  do {                                                                              \
    if (!(dec)) return fail(nullptr, GJ2K_ERR_INVALID_ARGUMENT, "decoder is NULL"); \
  } while (0)

gj2k_status gj2k_decoder_read_header(gj2k_decoder* dec, gj2k_info* info) {
  GJ2K_NEED_DECODER(dec);
  return guarded(dec->ctx, [&] {
    if (!info) invalid("info is NULL");
    check_struct(info->struct_size, sizeof(gj2k_info), "gj2k_info");
    if (!dec->header) dec->header = dec->decoder->read_header();
    const gj2k::HeaderInfo& h = *dec->header;
    const uint32_t size = info->struct_size;
    std::memset(info, 0, sizeof(gj2k_info));
    info->struct_size = size;
    info->is_jp2 = h.is_jp2;
    info->x0 = h.x0;
    info->y0 = h.y0;
    info->x1 = h.x1;
    info->y1 = h.y1;
    info->width = h.x1 - h.x0;
    info->height = h.y1 - h.y0;
    info->num_components = static_cast<uint32_t>(h.components.size());
    info->output_components = h.output_components;
    info->tile_x0 = h.tile_x0;
    info->tile_y0 = h.tile_y0;
    info->tile_width = h.tile_width;
    info->tile_height = h.tile_height;
    info->num_tiles_x = h.num_tiles_x;
    info->num_tiles_y = h.num_tiles_y;
    info->num_tiles = h.num_tiles_x * h.num_tiles_y;
    info->levels = h.levels;
    info->min_levels = h.min_levels;
    info->layers = h.layers;
    info->reversible = h.reversible;
    info->progression = static_cast<gj2k_progression>(h.progression);
    info->color_space = to_c(h.color_space);
    info->icc_size = h.icc_profile.size();
  });
}

gj2k_status gj2k_decoder_component(gj2k_decoder* dec, uint32_t index, gj2k_component_info* out) {
  GJ2K_NEED_DECODER(dec);
  return guarded(dec->ctx, [&] {
    if (!out) invalid("out is NULL");
    if (!dec->header) dec->header = dec->decoder->read_header();
    const auto& comps = dec->header->components;
    if (index >= comps.size())
      invalid("component " + std::to_string(index) + " of " + std::to_string(comps.size()));
    const gj2k::ComponentInfo& c = comps[index];
    *out = gj2k_component_info{c.width, c.height, c.dx, c.dy, c.precision, c.is_signed, 0};
  });
}

gj2k_status gj2k_decoder_icc(gj2k_decoder* dec, const uint8_t** data, size_t* size) {
  GJ2K_NEED_DECODER(dec);
  return guarded(dec->ctx, [&] {
    if (!data || !size) invalid("data or size is NULL");
    if (!dec->header) dec->header = dec->decoder->read_header();
    const auto& icc = dec->header->icc_profile;
    *data = icc.empty() ? nullptr : icc.data();
    *size = icc.size();
  });
}

void gj2k_decode_params_init(gj2k_decode_params* params) {
  if (!params) return;
  std::memset(params, 0, sizeof(*params));
  params->struct_size = sizeof(*params);
}

gj2k_status gj2k_decoder_decode(gj2k_decoder* dec, const gj2k_decode_params* params) {
  GJ2K_NEED_DECODER(dec);
  return coding(dec->ctx, [&] {
    dec->image.reset();
    const gj2k::DecodeParams p = to_cpp(dec->ctx, params);
    dec->image = dec->decoder->decode(p);
    dec->has_samples = true;
  });
}

gj2k_status gj2k_decoder_output(gj2k_decoder* dec, gj2k_info* info) {
  GJ2K_NEED_DECODER(dec);
  return guarded(dec->ctx, [&] {
    if (!info) invalid("info is NULL");
    check_struct(info->struct_size, sizeof(gj2k_info), "gj2k_info");
    const gj2k::Image& image = decoded(dec);
    info->x0 = image.x0;
    info->y0 = image.y0;
    info->x1 = image.x1;
    info->y1 = image.y1;
    info->width = image.width();
    info->height = image.height();
    info->num_components = static_cast<uint32_t>(image.components.size());
    info->output_components = info->num_components;
    info->color_space = to_c(image.color_space);
    info->icc_size = image.icc_profile.size();
  });
}

gj2k_status gj2k_decoder_output_component(gj2k_decoder* dec, uint32_t index,
                                          gj2k_component_info* out) {
  GJ2K_NEED_DECODER(dec);
  return guarded(dec->ctx, [&] {
    if (!out) invalid("out is NULL");
    const gj2k::Image& image = decoded(dec);
    if (index >= image.components.size())
      invalid("output component " + std::to_string(index) + " of " +
              std::to_string(image.components.size()));
    const gj2k::Component& c = image.components[index];
    *out = gj2k_component_info{c.width, c.height, c.dx, c.dy, c.precision, c.is_signed, c.is_alpha};
  });
}

gj2k_status gj2k_decoder_output_size(gj2k_decoder* dec, gj2k_sample_type type, gj2k_layout layout,
                                     size_t* size) {
  GJ2K_NEED_DECODER(dec);
  return guarded(dec->ctx, [&] {
    if (!size) invalid("size is NULL");
    const gj2k_buffer b{nullptr, 0, type, layout, 0, 0};
    *size = gj2k::output_bytes(decoded(dec), output_buffer(b));
  });
}

gj2k_status gj2k_decoder_direct_size(gj2k_decoder* dec, const gj2k_decode_params* params,
                                     gj2k_sample_type type, gj2k_layout layout, size_t* size) {
  GJ2K_NEED_DECODER(dec);
  return guarded(dec->ctx, [&] {
    if (!size) invalid("size is NULL");
    *size = 0;
    const std::optional<gj2k::Image> shape = dec->decoder->direct_output(to_cpp(dec->ctx, params));
    if (!shape)
      throw Failure{GJ2K_ERR_UNSUPPORTED,
                    "the output of this decode is known only after decoding (JP2 palette or "
                    "channel definitions, upsampling or colour conversion)"};
    const gj2k_buffer b{nullptr, 0, type, layout, 0, 0};
    *size = gj2k::output_bytes(*shape, output_buffer(b));
  });
}

gj2k_status gj2k_decoder_copy(gj2k_decoder* dec, const gj2k_buffer* out) {
  GJ2K_NEED_DECODER(dec);
  return coding(dec->ctx, [&] {  // the copy's threads are the context's
    if (!out) invalid("out is NULL");
    gj2k::copy_to(decoded_samples(dec), output_buffer(*out));
  });
}

gj2k_status gj2k_decode_into(gj2k_decoder* dec, const gj2k_decode_params* params,
                             const gj2k_buffer* out) {
  const gj2k_status s = gj2k_decoder_decode(dec, params);
  return s != GJ2K_OK ? s : gj2k_decoder_copy(dec, out);
}

gj2k_status gj2k_decoder_decode_into(gj2k_decoder* dec, const gj2k_decode_params* params,
                                     const gj2k_buffer* out) {
  GJ2K_NEED_DECODER(dec);
  return coding(dec->ctx, [&] {
    if (!out) invalid("out is NULL");
    dec->image.reset();
    dec->has_samples = false;
    const gj2k::DecodeParams p = to_cpp(dec->ctx, params);
    dec->image = dec->decoder->decode_into(p, output_buffer(*out));
  });
}

void gj2k_encode_params_init(gj2k_encode_params* params) {
  if (!params) return;
  std::memset(params, 0, sizeof(*params));
  params->struct_size = sizeof(*params);
  const gj2k::EncodeParams d;
  params->format = GJ2K_FORMAT_J2K;
  params->levels = d.levels;
  params->mct = d.mct;
  params->cblk_width = d.cblk_width;
  params->cblk_height = d.cblk_height;
  params->layers = d.layers;
  params->order = GJ2K_LRCP;
  params->guard_bits = d.guard_bits;
}

gj2k_status gj2k_encode_to_memory(gj2k_context* ctx, const gj2k_image_desc* image,
                                  const gj2k_buffer* in, const gj2k_encode_params* params,
                                  uint8_t** out, size_t* out_size) {
  if (!ctx) return no_context(), GJ2K_ERR_INVALID_ARGUMENT;
  return coding(ctx, [&] {
    if (!out || !out_size) invalid("out or out_size is NULL");
    *out = nullptr;
    *out_size = 0;
    const std::vector<uint8_t> bytes = encode(ctx, image, in, params);
    auto* p = static_cast<uint8_t*>(std::malloc(std::max<size_t>(bytes.size(), 1)));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, bytes.data(), bytes.size());
    *out = p;
    *out_size = bytes.size();
  });
}

gj2k_status gj2k_encode_to_callback(gj2k_context* ctx, const gj2k_image_desc* image,
                                    const gj2k_buffer* in, const gj2k_encode_params* params,
                                    gj2k_write_fn write, void* user) {
  if (!ctx) return no_context(), GJ2K_ERR_INVALID_ARGUMENT;
  return coding(ctx, [&] {
    if (!write) invalid("write callback is NULL");
    const std::vector<uint8_t> bytes = encode(ctx, image, in, params);
    constexpr size_t kChunk = size_t{1} << 20;
    for (size_t at = 0; at < bytes.size(); at += kChunk) {
      const size_t n = std::min(kChunk, bytes.size() - at);
      if (!write(user, bytes.data() + at, n))
        throw Failure{GJ2K_ERR_IO, "write callback failed at byte " + std::to_string(at)};
    }
  });
}

}  // extern "C"
