// gj2k::Encoder (include/gj2k/encoder.h): parameters -> main header (A.5, A.6), the tile loop,
// the codestream stage, and the optional JP2 wrapper (Annex I).
#include "gj2k/encoder.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "codec/api_guard.h"
#include "codec/device.h"
#include "codec/encoder_internal.h"
#include "codec/file_output.h"
#include "codec/input_buffer.h"
#include "codec/jp2/boxes.h"
#include "codec/markers/codestream.h"
#include "codec/parallel.h"
#include "codec/trace.h"
#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "gj2k/gj2k.h"
#include "transform/device.h"
#if defined(GJ2K_HAVE_CUDA)
#include "codec/encoder_gpu.h"
#include "transform/cuda/cuda_memory.h"
#endif
#include "transform/quant.h"

namespace gj2k {
namespace codec {
namespace {

// Quantization of one component: 5/3 -> exponents only (style none); 9/7 -> expounded steps
// from one base step weighted by the synthesis norms (transform::choose_steps). The default base
// step is 2^(precision - 8) sample units when the last layer's byte target is at most half a
// bit per sample (there the rate, not the quantizer, sets the quality, and a coarser step saves
// Tier-1 work), else 2^(precision - 9).
Quantization make_quantization(const EncodeParams& p, uint32_t precision, bool low_rate) {
  const transform::Wavelet wavelet =
      p.irreversible ? transform::Wavelet::k97 : transform::Wavelet::k53;
  const transform::QuantStyle style =
      p.irreversible ? transform::QuantStyle::kScalarExpounded : transform::QuantStyle::kNone;
  const double base =
      p.base_step > 0 ? p.base_step : std::ldexp(1.0, int(precision) - (low_rate ? 8 : 9));
  Quantization q;
  q.style = p.irreversible ? QuantStyle::kScalarExpounded : QuantStyle::kNone;
  q.guard_bits = static_cast<uint8_t>(p.guard_bits);
  for (const transform::SubbandQuant& s : transform::choose_steps(
           wavelet, style, p.levels, static_cast<int>(precision), p.guard_bits, base))
    q.steps.push_back({s.step.exponent, s.step.mantissa});
  return q;
}

uint32_t enumerated_colour(const Image& image) {
  switch (image.color_space) {
    case ColorSpace::kSRGB:
      return enum_cs::kSRGB;
    case ColorSpace::kGrey:
      return enum_cs::kGreyscale;
    case ColorSpace::kSYCC:
      return enum_cs::kSYCC;
    default:
      return image.components.size() >= 3 ? enum_cs::kSRGB : enum_cs::kGreyscale;
  }
}

Jp2Header jp2_header(const Siz& siz, const Image& image) {
  Jp2Header h = make_jp2_header(siz, enumerated_colour(image));
  if (image.color_space == ColorSpace::kICC && !image.icc_profile.empty() && !h.colr.empty()) {
    h.colr[0].method = 2;
    h.colr[0].enumerated = 0;
    h.colr[0].icc = image.icc_profile;
  }
  // Channel definitions (I.5.3.6) when a component is an opacity channel: alpha applies to the
  // whole image, the others are colours 1, 2, ... of the colour space (grey 1, RGB/YCC 3),
  // components beyond those unspecified.
  bool alpha = false;
  for (const Component& c : image.components) alpha |= c.is_alpha;
  if (alpha) {
    const uint32_t colours =
        h.colr.empty() || h.colr[0].method != 1 || h.colr[0].enumerated != enum_cs::kGreyscale ? 3
                                                                                               : 1;
    uint16_t colour = 0;
    for (size_t i = 0; i < image.components.size(); ++i) {
      CdefEntry e;
      e.channel = static_cast<uint16_t>(i);
      if (image.components[i].is_alpha) {
        e.type = 1;
        e.association = 0;
      } else if (colour < colours) {
        e.type = 0;
        e.association = ++colour;
      } else {
        e.type = 0xFFFF;
        e.association = 0xFFFF;
      }
      h.cdef.push_back(e);
    }
  }
  return h;
}

// SIZ (A.5.1) for the image and the tile grid of `p`.
void fill_siz(const EncodeParams& p, const Image& image, Siz& siz) {
  siz.rsiz = 0;
  siz.xsiz = image.x1;
  siz.ysiz = image.y1;
  siz.xosiz = image.x0;
  siz.yosiz = image.y0;
  siz.xtosiz = p.tile_x0;
  siz.ytosiz = p.tile_y0;
  siz.xtsiz = p.tile_width ? p.tile_width : image.x1 - p.tile_x0;
  siz.ytsiz = p.tile_height ? p.tile_height : image.y1 - p.tile_y0;
  for (const Component& c : image.components)
    siz.components.push_back({static_cast<uint8_t>(c.precision), c.is_signed,
                              static_cast<uint8_t>(c.dx), static_cast<uint8_t>(c.dy)});
}

// COD (A.6.1) for `layers` quality layers, with or without the multi-component transform.
void fill_cod(const EncodeParams& p, int layers, bool mct, CodingStyle& cod) {
  cod.sop = p.sop;
  cod.eph = p.eph;
  cod.progression = p.order;
  cod.layers = static_cast<uint16_t>(layers);
  cod.mct = mct ? 1 : 0;
  ComponentCoding& cc = cod.component;
  cc.levels = static_cast<uint8_t>(p.levels);
  cc.xcb = static_cast<uint8_t>(exponent_of(p.cblk_width));
  cc.ycb = static_cast<uint8_t>(exponent_of(p.cblk_height));
  cc.cblk_style = p.cblk_style;
  cc.wavelet = p.irreversible ? Wavelet::k97 : Wavelet::k53;
  if (!p.precincts.empty())
    for (int r = 0; r <= p.levels; ++r)
      cc.precincts.push_back({static_cast<uint8_t>(precinct_exponent(p, p.levels, r, true)),
                              static_cast<uint8_t>(precinct_exponent(p, p.levels, r, false))});
}

// Whether the last layer's byte target, if any, is at most half a bit per sample.
bool low_rate_target(const EncodeParams& p, const Image& image) {
  double target_bits = -1;
  const double samples = [&] {
    double n = 0;
    for (const Component& c : image.components) n += double(c.width) * c.height;
    return n;
  }();
  double raw_bits = 0;
  for (const Component& c : image.components) raw_bits += double(c.width) * c.height * c.precision;
  if (!p.rates.empty() && p.rates.back() > 1) target_bits = raw_bits / p.rates.back();
  if (!p.bpp.empty()) target_bits = p.bpp.back() * double(image.width()) * image.height();
  return target_bits >= 0 && target_bits <= 0.5 * samples;
}

// QCD, and QCC (A.6.4, A.6.5) for each component whose precision differs from component 0's.
void fill_quantization(const EncodeParams& p, const Image& image, MainHeader& mh) {
  const bool low_rate = low_rate_target(p, image);
  mh.qcd = make_quantization(p, image.components[0].precision, low_rate);
  for (size_t c = 1; c < image.components.size(); ++c)
    if (image.components[c].precision != image.components[0].precision)
      mh.qcc[static_cast<uint16_t>(c)] =
          make_quantization(p, image.components[c].precision, low_rate);
}

// POC (A.6.6) from p.progression_changes, clipped to the image, and a last change covering
// everything, so no packet is left out.
void fill_poc(const EncodeParams& p, const Image& image, int layers_in, MainHeader& mh) {
  if (p.progression_changes.empty()) return;
  const uint32_t ncomp = static_cast<uint32_t>(image.components.size());
  const uint32_t layers = static_cast<uint32_t>(layers_in), res = uint32_t(p.levels) + 1;
  for (ProgressionChange pc : p.progression_changes) {  // bounds clipped to what exists
    pc.layer_end = std::min(pc.layer_end, layers);
    pc.res_end = std::min(pc.res_end, res);
    pc.comp_end = std::min(pc.comp_end, ncomp);
    mh.poc.push_back(pc);
  }
  mh.poc.push_back({0, 0, layers, res, ncomp, mh.cod.progression});
}

// The L2 norms of the inverse multi-component transform's columns, for the distortion weights.
void set_mct_norms(bool irreversible, EncodeSetup& s) {
  if (irreversible) {
    // Columns of the inverse ICT (G.3): L2 norms of Y, Cb, Cr synthesis.
    s.mct_norms[0] = std::sqrt(3.0);
    s.mct_norms[1] = std::sqrt(0.34413 * 0.34413 + 1.772 * 1.772);
    s.mct_norms[2] = std::sqrt(1.402 * 1.402 + 0.71414 * 0.71414);
  } else {
    // Inverse RCT (G.2): Y0 -> (1, 1, 1), Y1, Y2 -> (-1/4, -1/4, 3/4) up to order.
    s.mct_norms[0] = std::sqrt(3.0);
    s.mct_norms[1] = s.mct_norms[2] = std::sqrt(11.0 / 16.0);
  }
}

}  // namespace

EncodeSetup make_setup(const EncodeParams& p, const Image& image) {
  EncodeSetup s;
  MainHeader& mh = s.main;
  fill_siz(p, image, mh.siz);
  s.mct = effective_mct(p, image);
  s.layers = effective_layers(p);
  s.distortion = !p.rates.empty() || !p.bpp.empty() || !p.psnr.empty() || s.layers != 1;
  fill_cod(p, s.layers, s.mct, mh.cod);
  fill_quantization(p, image, mh);
  fill_poc(p, image, s.layers, mh);
  if (!p.no_comment) {
    const std::string text =
        p.comment.empty() ? std::string("Created by gj2k ") + version() : p.comment;
    mh.com.push_back({1, std::vector<uint8_t>(text.begin(), text.end())});
  }
  if (s.mct) set_mct_norms(p.irreversible, s);
  s.threads = p.threads > 0 ? p.threads : core::max_threads();
  return s;
}

}  // namespace codec

namespace {

// `given`: image_in itself when the caller gave it up (Encoder::encode(Image&&)), else null.
// `buffer`: the caller's samples when image_in is a layout without them (Encoder::encode(
// layout, InputBuffer)), else null.
std::vector<uint8_t> encode_unguarded(const Image& image_in, const EncodeParams& params,
                                      FileFormat format, EncodeStats* stats, Image* given,
                                      const InputBuffer* buffer = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  codec::TraceStage trace_setup("validate + setup");
  // The device: auto = the GPU when one is present and the image is large enough for it to be
  // faster (transform::auto_choice_encode); gpu without one throws.
  uint64_t samples = 0;
  for (const Component& c : image_in.components) samples += uint64_t{c.width} * c.height;
  const auto tiles_along = [](uint32_t extent, uint32_t tile) -> uint64_t {
    return tile ? (uint64_t{extent} + tile - 1) / tile : 1;
  };
  const uint64_t tiles_estimate = tiles_along(image_in.width(), params.tile_width) *
                                  tiles_along(image_in.height(), params.tile_height);
  const transform::Device requested = transform::auto_choice_encode(
      codec::to_transform(params.device), samples,
      params.threads > 0 ? static_cast<int>(params.threads) : core::max_threads(), tiles_estimate);
  const bool on_gpu = transform::resolve_device(requested) == transform::Device::kGpu;
  // On the GPU, the sample ranges are checked while the samples are staged for upload (one
  // pass over the image, not two).
  codec::validate(params, image_in, /*samples=*/!on_gpu, /*buffers=*/buffer == nullptr);

  std::optional<Image> moved;
  if (params.set_image_origin &&
      (params.image_x0 != image_in.x0 || params.image_y0 != image_in.y0)) {
    if (given) {  // the samples move over; the caller's image keeps everything else
      std::vector<Samples> samples(given->components.size());
      for (size_t c = 0; c < samples.size(); ++c) samples[c].swap(given->components[c].samples);
      moved = image_in;
      for (size_t c = 0; c < samples.size(); ++c) moved->components[c].samples.swap(samples[c]);
      given = &*moved;
    } else {
      moved = image_in;
    }
    moved->x0 = params.image_x0;
    moved->y0 = params.image_y0;
    moved->x1 = params.image_x0 + image_in.width();
    moved->y1 = params.image_y0 + image_in.height();
  }
  const Image& image = moved ? *moved : image_in;

  codec::ThreadScope threads(params.threads);
  // A caller's buffer is read where the stages read samples (setup.input); only a --psnr
  // target, which measures against the image, reads it into one first.
  const bool measures = params.rates.empty() && params.bpp.empty() && !params.psnr.empty();
  std::optional<codec::InputSource> input;
  std::optional<Image> read_in;
  if (buffer) {
    input = codec::checked_input(image, *buffer);
    if (measures) read_in = codec::to_image(image, *input);
  }
  const Image& source = read_in ? *read_in : image;
  codec::EncodeSetup setup = codec::make_setup(params, source);
  if (input && !read_in) setup.input = &*input;
  setup.gpu = on_gpu;
  std::optional<codec::Jp2Header> jp2;
  if (format == FileFormat::kJp2) {
    jp2 = codec::jp2_header(setup.main.siz, source);
    setup.container_bytes = static_cast<double>(codec::write_jp2(*jp2, {}).size());
  }

  const uint32_t ntiles = codec::num_tiles(setup.main.siz);
  // A --psnr target measures the reconstruction against the samples after the forward stage.
  if (given && ntiles == 1 && !on_gpu && !measures) setup.reuse_samples = given;
  std::vector<codec::TileCoding> tiles(ntiles);
  trace_setup.end();
  codec::TraceStage trace_tiles("tiles");
  const int team = core::max_threads();
  if (ntiles >= 2 * static_cast<uint32_t>(team) && team > 1) {
    // Many tiles: one tile per thread at a time (the stages inside run single-threaded, as
    // loops nested in a parallel loop do).
    std::atomic<uint32_t> done{0};
    std::atomic<bool> cancelled{false};
    std::exception_ptr failure;  // of the first failing tile in tile order
    uint32_t failure_at = UINT32_MAX;
    std::mutex failure_mutex;
    const EncodeParams no_progress{};  // progress is reported here, from the caller only
    const std::thread::id caller = std::this_thread::get_id();
    core::parallel_for(0, ntiles, 1, [&](size_t i) {
      const uint32_t t = static_cast<uint32_t>(i);
      if (cancelled.load(std::memory_order_relaxed)) return;
      try {
        tiles[t] = codec::encode_tile(source, setup, no_progress, t);
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (t < failure_at) {
          failure = std::current_exception();
          failure_at = t;
        }
      }
      const uint32_t d = done.fetch_add(1) + 1;
      if (params.progress && std::this_thread::get_id() == caller &&
          !params.progress("transform + tier-1", double(d) / ntiles))
        cancelled = true;
    });
    if (cancelled) throw Error(ErrorCode::kCancelled, "encode cancelled by the progress callback");
    if (failure) std::rethrow_exception(failure);
  } else {
    // E.g. the GPU transforms tile t + 1 while Tier-1 codes tile t.
    const auto pipeline = codec::encode_backend(setup).forward_pipeline();
    for (uint32_t t = 0; t < ntiles; ++t) {
      codec::report_progress(params, "transform + tier-1", double(t) / ntiles);
      tiles[t] = codec::encode_tile(source, setup, params, t, pipeline.get());
    }
  }
  codec::report_progress(params, "transform + tier-1", 1.0);
  trace_tiles.end();
#if defined(GJ2K_HAVE_CUDA)
  if (on_gpu) {
    const transform::cuda::DeviceMemoryUse use = transform::cuda::device_memory_use();
    codec::trace_note("gpu memory: %.1f MB at most (process), %u tile(s) on the CPU (process)",
                      double(use.peak) / 1e6, codec::gpu_path_cpu_tiles());
  }
#endif
  codec::TraceStage trace_assemble("rate control + tier-2");
  std::vector<uint8_t> stream = codec::assemble_codestream(tiles, setup, params, source, stats);
  trace_assemble.end();
  {
    codec::TraceStage trace_release("release tiles");
    std::vector<codec::TileCoding>().swap(tiles);
  }
  if (jp2) stream = codec::write_jp2(*jp2, stream);
  if (stats) {
    stats->bytes = stream.size();
    stats->tiles = ntiles;
    stats->gpu = on_gpu;
    stats->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return stream;
}

}  // namespace

std::vector<uint8_t> Encoder::encode(const Image& image, const EncodeParams& params,
                                     FileFormat format, EncodeStats* stats) const {
  return detail::guard("", "encoding",
                       [&] { return encode_unguarded(image, params, format, stats, nullptr); });
}

std::vector<uint8_t> Encoder::encode(Image&& image, const EncodeParams& params, FileFormat format,
                                     EncodeStats* stats) const {
  return detail::guard("", "encoding",
                       [&] { return encode_unguarded(image, params, format, stats, &image); });
}

std::vector<uint8_t> Encoder::encode(const Image& layout, const InputBuffer& samples,
                                     const EncodeParams& params, FileFormat format,
                                     EncodeStats* stats) const {
  return detail::guard("", "encoding", [&] {
    return encode_unguarded(layout, params, format, stats, nullptr, &samples);
  });
}

namespace {

// Encoder::encode_to_file of either overload: `code` encodes in the format given.
template <class Code>
void encode_file(const std::filesystem::path& path, const Code& code) {
  // The output's name and folder are checked before coding; the file is written under a
  // temporary name and renamed when complete.
  const FileFormat format = format_from_extension(path);
  detail::check_output_folder(path);
  const std::vector<uint8_t> bytes = code(format);
  codec::TraceStage trace("write file");
  detail::guard(path.string(), "writing", [&] { detail::write_bytes_replacing(path, bytes); });
}

}  // namespace

void Encoder::encode_to_file(const Image& image, const EncodeParams& params,
                             const std::filesystem::path& path, EncodeStats* stats) const {
  encode_file(path, [&](FileFormat f) { return encode(image, params, f, stats); });
}

void Encoder::encode_to_file(Image&& image, const EncodeParams& params,
                             const std::filesystem::path& path, EncodeStats* stats) const {
  encode_file(path, [&](FileFormat f) { return encode(std::move(image), params, f, stats); });
}

void Encoder::encode_to_file(const Image& layout, const InputBuffer& samples,
                             const EncodeParams& params, const std::filesystem::path& path,
                             EncodeStats* stats) const {
  encode_file(path, [&](FileFormat f) { return encode(layout, samples, params, f, stats); });
}

}  // namespace gj2k
