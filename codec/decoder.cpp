// The public decoder (include/gj2k/decoder.h): JP2 boxes, codestream parsing, tiles, output
// geometry (reduce, region, tile, components), JP2 colour and the final conversions.
#include "gj2k/decoder.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <mutex>
#include <new>
#include <optional>

#include "codec/api_guard.h"
#include "codec/batch.h"
#include "codec/decoder_color.h"
#include "codec/decoder_icc.h"
#include "codec/decoder_icc_lcms.h"
#include "codec/decoder_tile.h"
#include "codec/device.h"
#include "codec/gpu_warm_up.h"
#include "codec/jp2/boxes.h"
#include "codec/markers/reader.h"
#include "codec/output_buffer.h"
#include "codec/parallel.h"
#include "codec/sample_cache.h"
#include "codec/trace.h"
#include "core/memory.h"
#include "core/thread_pool.h"
#include "transform/device.h"
#include "transform/pack.h"

namespace gj2k {
namespace {

using codec::Codestream;
using transform::Rect;

// The most output samples of one decode whatever DecodeParams::max_samples says (64 GiB).
constexpr uint64_t kMaxSamples = uint64_t{1} << 34;

uint32_t ceil_shift(uint32_t v, uint32_t r) {
  return transform::ceil_div_pow2(v, static_cast<int>(r));
}

codec::Jp2Color to_color(const codec::Jp2Header& h) {
  codec::Jp2Color c;
  for (const auto& colr : h.colr) {
    if (colr.method == 1) {
      c.color_space = colr.enumerated == codec::enum_cs::kSRGB        ? ColorSpace::kSRGB
                      : colr.enumerated == codec::enum_cs::kGreyscale ? ColorSpace::kGrey
                      : colr.enumerated == codec::enum_cs::kSYCC      ? ColorSpace::kSYCC
                      : colr.enumerated == codec::enum_cs::kCMYK      ? ColorSpace::kCMYK
                      : colr.enumerated == codec::enum_cs::kCIELab    ? ColorSpace::kCIELab
                      : colr.enumerated == codec::enum_cs::kESYCC     ? ColorSpace::kESYCC
                                                                      : ColorSpace::kUnknown;
      c.lab = colr.lab;
      break;
    }
    if (colr.method == 2) {
      c.color_space = ColorSpace::kICC;
      c.icc_profile = colr.icc;
      break;
    }
  }
  if (h.pclr) {
    const auto& p = *h.pclr;
    for (size_t col = 0; col < p.columns.size(); ++col) {
      codec::Jp2Color::PaletteColumn pc;
      pc.precision = p.columns[col].precision;
      pc.is_signed = p.columns[col].is_signed;
      for (size_t e = 0; e < p.entries; ++e)
        pc.values.push_back(p.values[e * p.columns.size() + col]);
      c.palette.push_back(std::move(pc));
    }
  }
  for (const auto& m : h.cmap) c.cmap.push_back({m.component, m.mapping, m.column});
  for (const auto& d : h.cdef) c.cdef.push_back({d.channel, d.type, d.association});
  return c;
}

// OpenJPEG's check (opj_j2k_read_siz): a JP2 whose ihdr gives a non-zero size other than SIZ's
// is refused before anything is sized from SIZ (I.5.3.1: HEIGHT and WIDTH are the image area
// of the codestream, Ysiz - YOsiz and Xsiz - XOsiz).
void check_ihdr(const codec::Jp2Header& jp2, const codec::Siz& siz) {
  const uint32_t w = siz.xsiz - siz.xosiz, h = siz.ysiz - siz.yosiz;
  if (jp2.ihdr.width > 0 && jp2.ihdr.height > 0 && (jp2.ihdr.width != w || jp2.ihdr.height != h))
    throw Error(ErrorCode::kFormat, "ihdr: image size " + std::to_string(jp2.ihdr.width) + "x" +
                                        std::to_string(jp2.ihdr.height) + " but SIZ says " +
                                        std::to_string(w) + "x" + std::to_string(h));
}

// The HeaderInfo fields that SIZ gives (A.5.1): the image and tile grids and the components.
HeaderInfo siz_geometry(const codec::Siz& siz) {
  HeaderInfo h;
  h.x0 = siz.xosiz;
  h.y0 = siz.yosiz;
  h.x1 = siz.xsiz;
  h.y1 = siz.ysiz;
  h.tile_x0 = siz.xtosiz;
  h.tile_y0 = siz.ytosiz;
  h.tile_width = siz.xtsiz;
  h.tile_height = siz.ytsiz;
  h.num_tiles_x = codec::num_tiles_x(siz);
  h.num_tiles_y = codec::num_tiles_y(siz);
  for (const auto& sc : siz.components) {
    ComponentInfo ci;
    ci.dx = sc.dx;
    ci.dy = sc.dy;
    ci.precision = sc.precision;
    ci.is_signed = sc.is_signed;
    ci.width = component_extent(h.x0, h.x1, sc.dx);
    ci.height = component_extent(h.y0, h.y1, sc.dy);
    h.components.push_back(ci);
  }
  return h;
}

// --device auto: the GPU when one is present, where the GPU is expected to be faster for the
// decode's extent (codec::decode_extent of a codestream of `bytes`) on this many threads
// (transform::auto_choice_decode; `record`: the decode itself, not a probe).
transform::Device choose_device(const DecodeParams& p, const codec::Siz& siz, uint64_t bytes,
                                bool record) {
  const codec::DecodeExtent e = codec::decode_extent(p, siz_geometry(siz), bytes);
  const int threads = p.threads ? static_cast<int>(p.threads) : core::max_threads();
  return transform::auto_choice_decode(codec::to_transform(p.device), e.samples, e.bytes, threads,
                                       e.tiles, record);
}

// The components to decode, in output order; `wanted` gets one flag per Csiz entry.
std::vector<uint32_t> output_components(const DecodeParams& p, size_t ncomp,
                                        std::vector<bool>& wanted) {
  std::vector<uint32_t> order = p.components;
  if (order.empty())
    for (uint32_t c = 0; c < ncomp; ++c) order.push_back(c);
  wanted.assign(ncomp, false);
  for (uint32_t c : order) {
    if (c >= ncomp)
      throw Error(ErrorCode::kInvalidArgument, "component " + std::to_string(c) +
                                                   " requested, the codestream has " +
                                                   std::to_string(ncomp));
    if (wanted[c])
      throw Error(ErrorCode::kInvalidArgument,
                  "component " + std::to_string(c) + " requested twice");
    wanted[c] = true;
  }
  return order;
}

// The output area on the full-resolution grid: image, cut by the tile and the region.
Rect output_area(const DecodeParams& p, const codec::Siz& siz, uint32_t ntiles) {
  Rect area{siz.xosiz, siz.yosiz, siz.xsiz, siz.ysiz};
  if (p.tile) {
    if (*p.tile >= ntiles)
      throw Error(ErrorCode::kInvalidArgument, "tile " + std::to_string(*p.tile) +
                                                   " requested, the codestream has " +
                                                   std::to_string(ntiles));
    const Rect tr = codec::tile_rect(siz, *p.tile);
    area = {std::max(area.x0, tr.x0), std::max(area.y0, tr.y0), std::min(area.x1, tr.x1),
            std::min(area.y1, tr.y1)};
  }
  if (p.region) {
    const Region& r = *p.region;
    if (r.x1 <= r.x0 || r.y1 <= r.y0)
      throw Error(ErrorCode::kInvalidArgument, "region: empty rectangle");
    area = {std::max(area.x0, r.x0), std::max(area.y0, r.y0), std::min(area.x1, r.x1),
            std::min(area.y1, r.y1)};
    if (area.empty())
      throw Error(ErrorCode::kInvalidArgument, "region: does not meet the image area");
  }
  return area;
}

// The output image of `area` reduced by p.reduce: geometry and components, without samples
// (allocated when the first tile is placed, or handed over). Refuses more than the sample limit.
Image output_image(const DecodeParams& p, const codec::Siz& siz, const Rect& area,
                   const std::vector<uint32_t>& order) {
  const uint32_t R = p.reduce;
  if (R > 32) throw Error(ErrorCode::kInvalidArgument, "reduce: at most 32");
  Image image;
  image.x0 = ceil_shift(area.x0, R);
  image.y0 = ceil_shift(area.y0, R);
  image.x1 = ceil_shift(area.x1, R);
  image.y1 = ceil_shift(area.y1, R);
  if (image.x1 <= image.x0 || image.y1 <= image.y0)
    throw Error(ErrorCode::kInvalidArgument,
                "reduce " + std::to_string(R) + " leaves an empty image");
  uint64_t total_samples = 0;
  for (uint32_t c : order) {
    const auto& sc = siz.components[c];
    if (sc.precision > 31)
      throw Error(ErrorCode::kUnsupported, "SIZ: component " + std::to_string(c) + " has " +
                                               std::to_string(sc.precision) +
                                               " bits; gj2k decodes up to 31");
    Component comp;
    comp.dx = sc.dx;
    comp.dy = sc.dy;
    comp.precision = sc.precision;
    comp.is_signed = sc.is_signed;
    total_samples += uint64_t{component_extent(image.x0, image.x1, sc.dx)} *
                     component_extent(image.y0, image.y1, sc.dy);
    if (total_samples > std::min(p.max_samples, kMaxSamples))
      throw Error(ErrorCode::kResource,
                  "SIZ: the output would hold more than " +
                      std::to_string(std::min(p.max_samples, kMaxSamples)) +
                      " samples, the limit (DecodeParams::max_samples, --max-samples)");
    image.components.push_back(comp);
  }
  for (Component& comp : image.components) {
    comp.width = component_extent(image.x0, image.x1, comp.dx);
    comp.height = component_extent(image.y0, image.y1, comp.dy);
  }
  return image;
}

// Tiles that meet the area and have data (`tiles`), and those without a tile-part whose
// tile-components hold samples (`absent`): the stream lost data. Absent tiles are refused
// before anything is allocated, or, with allow_partial, left zero as OpenJPEG leaves them,
// with a warning each. (Encoders may omit tiles whose tile-components are all empty, B.3:
// Kakadu does in b2_mono.)
struct TileSelection {
  std::vector<uint32_t> tiles;
  std::vector<uint32_t> absent;
};
TileSelection select_tiles(const DecodeParams& p, const Codestream& code, const Rect& area,
                           const std::vector<uint32_t>& order, std::vector<std::string>& warnings) {
  const codec::Siz& siz = code.main.siz;
  TileSelection s;
  const uint32_t ntiles = codec::num_tiles(siz);
  for (uint32_t t = 0; t < ntiles; ++t) {
    const Rect tr = codec::tile_rect(siz, t);
    if (!(tr.x0 < area.x1 && tr.x1 > area.x0 && tr.y0 < area.y1 && tr.y1 > area.y0)) continue;
    if (!code.tiles[t].parts.empty()) {
      s.tiles.push_back(t);
      continue;
    }
    for (uint32_t c : order)
      if (!codec::tile_component_rect(siz, t, static_cast<uint16_t>(c)).empty()) {
        s.absent.push_back(t);
        break;
      }
  }
  if (!s.absent.empty() && !p.allow_partial)
    throw Error(ErrorCode::kTruncated,
                "tile " + std::to_string(s.absent[0]) + " has no tile-part (" +
                    std::to_string(s.absent.size()) + " of the " +
                    std::to_string(s.tiles.size() + s.absent.size()) +
                    " tiles to decode are absent); allow_partial (--allow-partial) decodes the "
                    "others and leaves them zero");
  for (uint32_t t : s.absent)
    warnings.push_back("tile " + std::to_string(t) +
                       ": no tile-part in the codestream; its samples are 0");
  return s;
}

// The most coefficients of one tile; refuses a tile above the sample limit.
uint64_t largest_tile(const DecodeParams& p, const Codestream& code,
                      const std::vector<uint32_t>& tiles, const codec::TileDecodeOptions& to) {
  uint64_t max_tile_samples = 0;
  for (uint32_t t : tiles) {
    const uint64_t n = codec::tile_samples(code, t, to);
    if (n > std::min(p.max_samples, kMaxSamples))
      throw Error(ErrorCode::kResource,
                  "tile " + std::to_string(t) + ": more coefficients than " +
                      std::to_string(std::min(p.max_samples, kMaxSamples)) +
                      ", the limit (DecodeParams::max_samples, --max-samples)");
    max_tile_samples = std::max(max_tile_samples, n);
  }
  return max_tile_samples;
}

// The output component k covers [ceil(x0'/dx), ...) on the reduced component grid.
std::pair<uint32_t, uint32_t> component_origin(const Image& image, const Component& c) {
  return {(image.x0 + c.dx - 1) / c.dx, (image.y0 + c.dy - 1) / c.dy};
}

// The buffers of a placed tile that the image did not take, for the next tile or decode
// (codec/sample_cache.h).
void keep_tile_samples(std::vector<codec::TileComponentSamples>& tcs) {
  for (codec::TileComponentSamples& s : tcs) codec::keep_samples(s.samples);
}

// Copies decoded tile-components into the output image; safe from several threads at once.
// A component's buffer is allocated, not filled, when the first tile is placed: pages no tile
// writes cost nothing until the end, where zero_unwritten() zeroes the areas of the tiles that
// placed nothing. A single tile covering a component hands its buffer over.
class TilePlacer {
 public:
  TilePlacer(Image& image, const std::vector<uint32_t>& order, bool single_tile)
      : image_(image), order_(order), single_tile_(single_tile) {}

  void place(std::vector<codec::TileComponentSamples>& tcs) {
    for (size_t k = 0; k < order_.size(); ++k) {
      auto& src = tcs[order_[k]];
      Component& dst = image_.components[k];
      if (src.samples.empty()) continue;
      const auto [ox, oy] = component_origin(image_, dst);
      if (single_tile_ && src.rect == Rect{ox, oy, ox + dst.width, oy + dst.height}) {
        dst.samples = std::move(src.samples);  // one tile covers the component
        continue;
      }
      {
        const std::lock_guard<std::mutex> lock(alloc_mutex_);
        if (dst.samples.empty()) dst.samples.resize(size_t{dst.width} * dst.height);
      }
      const uint32_t x0 = std::max(src.rect.x0, ox), y0 = std::max(src.rect.y0, oy);
      const uint32_t x1 = std::min(src.rect.x1, ox + dst.width);
      const uint32_t y1 = std::min(src.rect.y1, oy + dst.height);
      for (uint32_t y = y0; y < y1; ++y)
        std::copy_n(
            src.samples.data() + size_t{y - src.rect.y0} * src.rect.width() + (x0 - src.rect.x0),
            x1 > x0 ? x1 - x0 : 0, dst.samples.data() + size_t{y - oy} * dst.width + (x0 - ox));
    }
  }

 private:
  Image& image_;
  const std::vector<uint32_t>& order_;
  const bool single_tile_;
  std::mutex alloc_mutex_;
};

// Packs decoded tile-components straight into a caller's buffer (Decoder::decode_into);
// safe from several threads at once. Tile-components the GPU packed already (`packed`) only
// count as placed. `threads` packs the rows of one tile-component.
class BufferPlacer {
 public:
  BufferPlacer(const codec::PackTarget& target, const std::vector<uint32_t>& order, int threads)
      : target_(target),
        order_(order),
        threads_(threads),
        placed_(std::make_unique<std::atomic<bool>[]>(order.size())) {}

  void place(std::vector<codec::TileComponentSamples>& tcs) {
    if (target_.interleaved && place_pixels(tcs)) return;
    for (size_t k = 0; k < order_.size(); ++k) {
      const codec::TileComponentSamples& src = tcs[order_[k]];
      if (!src.packed && src.samples.empty()) continue;
      placed_[k].store(true, std::memory_order_relaxed);
      if (src.packed) continue;
      Rect cut;
      uint8_t* dst = target_.place(order_[k], src.rect, cut);
      if (!dst) continue;
      const transform::PackRect r{cut.width(), cut.height(), src.rect.width(), target_.row_stride,
                                  target_.pixel_step};
      transform::pack_rect(
          src.samples.data() + size_t{cut.y0 - src.rect.y0} * r.src_pitch + (cut.x0 - src.rect.x0),
          dst, r, target_.format, threads_);
    }
  }
  bool placed(size_t k) const { return placed_[k].load(std::memory_order_relaxed); }

 private:
  // Interleaved outputs of one rect, none packed yet: whole pixels in one pass
  // (transform::pack_pixels). False, placing nothing, otherwise.
  bool place_pixels(std::vector<codec::TileComponentSamples>& tcs) {
    const codec::TileComponentSamples& first = tcs[order_[0]];
    for (uint32_t c : order_)
      if (tcs[c].packed || tcs[c].samples.empty() || tcs[c].rect != first.rect) return false;
    for (size_t k = 0; k < order_.size(); ++k) placed_[k].store(true, std::memory_order_relaxed);
    Rect cut;  // output 0 holds the pixels' first byte (pack_target: components[order[k]].k = k)
    uint8_t* dst = target_.place(order_[0], first.rect, cut);
    if (!dst) return true;
    const transform::PackRect r{cut.width(), cut.height(), first.rect.width(), target_.row_stride,
                                target_.pixel_step};
    const size_t at = size_t{cut.y0 - first.rect.y0} * r.src_pitch + (cut.x0 - first.rect.x0);
    std::vector<const int32_t*> src(order_.size());
    for (size_t k = 0; k < order_.size(); ++k) src[k] = tcs[order_[k]].samples.data() + at;
    transform::pack_pixels(src.data(), src.size(), dst, r, target_.format, threads_);
    return true;
  }

  const codec::PackTarget& target_;
  const std::vector<uint32_t>& order_;
  const int threads_;
  std::unique_ptr<std::atomic<bool>[]> placed_;
};

// The caller's buffer as a PackTarget for the output `image` (geometry) of the components
// `order` of `ncomp`.
codec::PackTarget pack_target(const Image& image, const std::vector<uint32_t>& order, size_t ncomp,
                              const codec::BufferLayout& g, const OutputBuffer& out) {
  codec::PackTarget t;
  t.data = static_cast<uint8_t*>(out.data);
  t.format = g.format;
  t.row_stride = g.row;
  t.pixel_step = g.pixel;
  t.comp_step = g.comp_step;
  t.interleaved = out.interleaved;
  t.components.resize(ncomp);
  for (size_t k = 0; k < order.size(); ++k) {
    const Component& comp = image.components[k];
    const auto [ox, oy] = component_origin(image, comp);
    t.components[order[k]] = {static_cast<int32_t>(k),
                              Rect{ox, oy, ox + comp.width, oy + comp.height}};
  }
  return t;
}

// The tiles' samples on the reduced grid of a component (B-12, B-14).
Rect reduced_tile_rect(const codec::Siz& siz, uint32_t t, const Component& comp, uint32_t R) {
  return transform::resolution_rect(
      transform::tile_component_rect(codec::tile_rect(siz, t), comp.dx, comp.dy),
      static_cast<int>(R), 0);
}

// zero_unwritten for a caller's buffer: zeros where no tile wrote (all of a component no tile
// placed).
void zero_unwritten(const codec::PackTarget& target, const BufferPlacer& placer, const Image& image,
                    const std::vector<uint32_t>& order, const codec::Siz& siz, uint32_t R,
                    const std::vector<uint32_t>& unwritten) {
  auto zero = [&](uint32_t c, const Rect& r) {
    Rect cut;
    uint8_t* dst = target.place(c, r, cut);
    if (!dst) return;
    const size_t bytes = target.format.bytes;
    for (uint32_t y = 0; y < cut.height(); ++y) {
      uint8_t* row = dst + size_t{y} * target.row_stride;
      if (target.pixel_step == bytes) {
        std::fill_n(row, size_t{cut.width()} * bytes, uint8_t{0});
        continue;
      }
      for (uint32_t x = 0; x < cut.width(); ++x)
        std::fill_n(row + size_t{x} * target.pixel_step, bytes, uint8_t{0});
    }
  };
  for (size_t k = 0; k < order.size(); ++k) {
    if (!placer.placed(k)) {
      zero(order[k], target.components[order[k]].area);
      continue;
    }
    for (uint32_t t : unwritten) zero(order[k], reduced_tile_rect(siz, t, image.components[k], R));
  }
}

// Zeros where no tile wrote: `unwritten` lists absent tiles and tiles that a partial decode gave
// up on; a component no tile placed is all zeros.
void zero_unwritten(Image& image, const codec::Siz& siz, uint32_t R,
                    const std::vector<uint32_t>& unwritten) {
  for (Component& comp : image.components) {
    const size_t n = size_t{comp.width} * comp.height;
    if (comp.samples.empty()) {
      comp.samples.assign(n, 0);
      continue;
    }
    const auto [ox, oy] = component_origin(image, comp);
    for (uint32_t t : unwritten) {
      // The tile's samples on the reduced component grid, cut to the output.
      const Rect r = reduced_tile_rect(siz, t, comp, R);
      const uint32_t x0 = std::max(r.x0, ox), y0 = std::max(r.y0, oy);
      const uint32_t x1 = std::min(r.x1, ox + comp.width), y1 = std::min(r.y1, oy + comp.height);
      for (uint32_t y = y0; y < y1 && x0 < x1; ++y)
        std::fill_n(comp.samples.data() + size_t{y - oy} * comp.width + (x0 - ox), x1 - x0, 0);
    }
  }
}

// Decodes `tiles` with decode_tile and places each into the output; the tiles side by side
// (tile_parallel, one thread each) or one after the other with the threads inside each tile.
// Sets placed[i] for every tile placed. Reports progress; throws the first tile's error, or
// kCancelled when the progress callback asked to stop. Warnings come in tile order.
void decode_tiles(std::span<const uint8_t> cs, const Codestream& code, const DecodeParams& p,
                  const std::vector<uint32_t>& tiles, const codec::TileDecodeOptions& to,
                  bool tile_parallel, int threads,
                  const std::function<void(std::vector<codec::TileComponentSamples>&)>& place,
                  std::vector<char>& placed, std::vector<std::string>& warnings) {
  // The error of the first failing tile in `tiles` order, whichever thread met it first, so that
  // a stream with several damaged tiles fails the same way on every run and device.
  std::string error;
  ErrorCode error_code = ErrorCode::kInternal;
  size_t error_at = SIZE_MAX;
  size_t tiles_done = 0;  // under `mutex`
  std::atomic<bool> cancelled{false};
  std::vector<std::vector<std::string>> tile_warnings(tiles.size());
  std::mutex mutex;  // error and progress
  auto decode_one = [&](size_t i) {
    if (cancelled.load(std::memory_order_relaxed)) return;
    auto failed = [&](ErrorCode c, const std::string& what) {
      const std::lock_guard lock(mutex);
      if (i < error_at) {
        error = what;
        error_code = c;
        error_at = i;
      }
    };
    try {
      auto tcs = codec::decode_tile(cs, code, tiles[i], to, &tile_warnings[i]);
      place(tcs);
      placed[i] = 1;
      if (p.progress) {
        // Counted under the lock: tiles finishing at once report in rising order, the last 1.
        const std::lock_guard lock(mutex);
        const size_t done = ++tiles_done;
        if (!p.progress("decode", double(done) / double(tiles.size()))) cancelled = true;
      }
    } catch (const Error& e) {
      failed(e.code(), e.what());
    } catch (const std::bad_alloc&) {
      failed(ErrorCode::kResource, "tile " + std::to_string(tiles[i]) + ": out of memory");
    } catch (const std::exception& e) {
      failed(ErrorCode::kInternal, "tile " + std::to_string(tiles[i]) + ": " + e.what());
    } catch (...) {
      failed(ErrorCode::kInternal, "tile " + std::to_string(tiles[i]) + ": unknown failure");
    }
  };
  // The serial loop is a plain loop, so that the loops inside a tile (the DWT runs two per
  // level and component) get the threads; inside a parallel_for they would run serially.
  if (tile_parallel) {
    core::parallel_for(0, tiles.size(), 1, decode_one, threads);
  } else {
    for (size_t i = 0; i < tiles.size(); ++i) decode_one(i);
  }
  for (const auto& tw : tile_warnings) warnings.insert(warnings.end(), tw.begin(), tw.end());
  if (cancelled) throw Error(ErrorCode::kCancelled, "decode cancelled by the progress callback");
  if (!error.empty()) throw Error(error_code, error);
}

}  // namespace

uint64_t default_max_samples() {
  static const uint64_t value = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return uint64_t{1} << 28;
    return std::max<uint64_t>(uint64_t(pages) * uint64_t(page) / 32, uint64_t{1} << 24);
  }();
  return value;
}

struct __attribute__((visibility("hidden"))) Decoder::Impl {
  std::string name;            // the file read, for messages; empty for memory input
  std::vector<uint8_t> owned;  // memory input
  std::vector<uint8_t, DefaultInitAllocator<uint8_t>> file;  // a file, not zero-filled first
  std::span<const uint8_t> bytes;                            // the input: owned or file
  bool header_read = false;
  bool is_jp2 = false;
  codec::Jp2Header jp2;
  codec::Jp2Color color;
  size_t cs_begin = 0, cs_end = 0;
  codec::MainHeader main;

  std::span<const uint8_t> codestream() const {
    return std::span<const uint8_t>(bytes).subspan(cs_begin, cs_end - cs_begin);
  }

  void read_header() {
    if (header_read) return;
    if (codec::is_jp2(bytes)) {
      is_jp2 = true;
      jp2 = codec::read_jp2(bytes);
      cs_begin = static_cast<size_t>(jp2.codestream_offset);
      cs_end = static_cast<size_t>(
          std::min<uint64_t>(jp2.codestream_offset + jp2.codestream_length, bytes.size()));
      if (cs_begin > cs_end) cs_begin = cs_end;
      color = to_color(jp2);
    } else {
      cs_begin = 0;
      cs_end = bytes.size();
    }
    main = codec::read_main_header(codestream());
    if (is_jp2) check_ihdr(jp2, main.siz);
    header_read = true;
  }

  HeaderInfo header_info();
  // The output's geometry (no samples) and whether a decode into a buffer can place the tiles
  // straight into it (Decoder::direct_output).
  std::optional<Image> direct_output(const DecodeParams& p) const;
  // Into an Image (out null), or, for a direct decode, straight into `out` (the returned image
  // then has no samples).
  Image decode(const DecodeParams& p, std::vector<std::string>& warnings,
               const OutputBuffer* out = nullptr);
  void apply_colour(Image& image, const DecodeParams& p, std::vector<std::string>& warnings) const;
};

Decoder::Decoder(const std::filesystem::path& path) {
  const std::string name = path.string();
  detail::guard(name, "reading the file", [&] {
    codec::TraceStage trace("read file");
    impl_ = std::make_unique<Impl>();
    impl_->name = name;
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec) throw Error(ErrorCode::kIo, name + ": cannot open: " + ec.message());
    if (std::filesystem::is_directory(status))
      throw Error(ErrorCode::kIo, name + ": is a directory, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCode::kIo, name + ": cannot open");
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0);
    if (size < 0) throw Error(ErrorCode::kIo, name + ": cannot read");
    if (size == 0) throw Error(ErrorCode::kTruncated, name + ": empty file");
    impl_->file.resize(static_cast<size_t>(size));
    if (!in.read(reinterpret_cast<char*>(impl_->file.data()), size))
      throw Error(ErrorCode::kIo, name + ": cannot read");
    impl_->bytes = impl_->file;
  });
}
Decoder::Decoder(std::span<const uint8_t> bytes) {
  detail::guard("", "copying the input", [&] {
    impl_ = std::make_unique<Impl>();
    impl_->owned.assign(bytes.begin(), bytes.end());
    impl_->bytes = impl_->owned;
  });
}
Decoder::Decoder(std::vector<uint8_t> bytes) {
  detail::guard("", "taking the input", [&] {
    impl_ = std::make_unique<Impl>();
    impl_->owned = std::move(bytes);
    impl_->bytes = impl_->owned;
  });
}
Decoder::~Decoder() = default;
Decoder::Decoder(Decoder&&) noexcept = default;
Decoder& Decoder::operator=(Decoder&&) noexcept = default;

HeaderInfo Decoder::read_header() {
  if (!impl_) throw Error(ErrorCode::kInvalidArgument, "read_header on a moved-from Decoder");
  return detail::guard(impl_->name, "reading the header", [&] { return impl_->header_info(); });
}

HeaderInfo Decoder::Impl::header_info() {
  read_header();
  const codec::MainHeader& m = main;
  HeaderInfo h = siz_geometry(m.siz);
  h.is_jp2 = is_jp2;
  h.levels = m.cod.component.levels;
  h.min_levels = h.levels;
  for (const auto& [c, coc] : m.coc) h.min_levels = std::min<uint32_t>(h.min_levels, coc.levels);
  h.layers = m.cod.layers;
  h.reversible = m.cod.component.wavelet == codec::Wavelet::k53;
  h.progression = static_cast<uint32_t>(m.cod.progression);
  h.color_space = color.color_space;
  h.icc_profile = color.icc_profile;
  h.output_components = static_cast<uint32_t>(
      color.cmap.empty() || color.palette.empty() ? h.components.size() : color.cmap.size());
  return h;
}

namespace {

// A decode's frame: the header read, params.threads for every parallel region, the warnings
// reported (each once) whether `f` returns or throws.
template <class F>
Image run_decode(Decoder::Impl& impl, const DecodeParams& params, F&& f) {
  impl.read_header();
  // Every parallel region of this decode (including the transforms') uses params.threads.
  const codec::ThreadScope scope(static_cast<int>(params.threads));
  std::vector<std::string> warnings = impl.jp2.warnings;
  auto report = [&] {
    if (!params.on_warning) return;
    std::vector<std::string> seen;
    for (const std::string& w : warnings) {
      if (std::find(seen.begin(), seen.end(), w) != seen.end()) continue;
      seen.push_back(w);
      params.on_warning(w);
    }
  };
  try {
    Image image = f(warnings);
    report();
    return image;
  } catch (...) {
    report();
    throw;
  }
}

}  // namespace

Image Decoder::decode(const DecodeParams& params) {
  if (!impl_) throw Error(ErrorCode::kInvalidArgument, "decode on a moved-from Decoder");
  return detail::guard(impl_->name, "decoding", [&] {
    return run_decode(*impl_, params,
                      [&](std::vector<std::string>& w) { return impl_->decode(params, w); });
  });
}

std::optional<Image> Decoder::direct_output(const DecodeParams& params) {
  if (!impl_) throw Error(ErrorCode::kInvalidArgument, "direct_output on a moved-from Decoder");
  return detail::guard(impl_->name, "reading the header", [&] {
    impl_->read_header();
    return impl_->direct_output(params);
  });
}

Image Decoder::decode_into(const DecodeParams& params, const OutputBuffer& out) {
  if (!impl_) throw Error(ErrorCode::kInvalidArgument, "decode_into on a moved-from Decoder");
  return detail::guard(impl_->name, "decoding", [&] {
    return run_decode(*impl_, params, [&](std::vector<std::string>& w) {
      // Bad parameters are left to decode(), which reports them where it meets them (after a
      // damaged codestream's own error, for one).
      std::optional<Image> shape;
      try {
        shape = impl_->direct_output(params);
      } catch (const Error&) {
      }
      if (shape) {
        codec::checked_layout(*shape, out);  // before anything is decoded
        return impl_->decode(params, w, &out);
      }
      Image image = impl_->decode(params, w);
      codec::TraceStage trace("copy to buffer");
      copy_to(image, out);
      for (Component& c : image.components) Samples().swap(c.samples);
      return image;
    });
  });
}

std::optional<Image> Decoder::Impl::direct_output(const DecodeParams& p) const {
  const codec::Siz& siz = main.siz;
  std::vector<bool> wanted;
  const std::vector<uint32_t> order = output_components(p, siz.components.size(), wanted);
  Image image = output_image(p, siz, output_area(p, siz, codec::num_tiles(siz)), order);
  image.color_space = color.color_space;
  image.icc_profile = color.icc_profile;
  // What apply_colour would do to the whole image.
  const ColorSpace cs = color.color_space;
  if (is_jp2 && p.apply_jp2_color && p.components.empty() &&
      ((!color.palette.empty() && !color.cmap.empty()) || !color.cdef.empty()))
    return std::nullopt;
  if (p.force_rgb && (cs == ColorSpace::kSYCC || cs == ColorSpace::kICC)) return std::nullopt;
  if (p.icc_to_srgb && cs == ColorSpace::kICC && !color.icc_profile.empty()) return std::nullopt;
  bool subsampled = false;
  for (const Component& c : image.components) subsampled |= c.dx != 1 || c.dy != 1;
  if (p.upsample && subsampled) return std::nullopt;
  if (p.render != DecodeParams::Render::kNone) {
    if (subsampled) return std::nullopt;
    if (p.components.empty() && (cs == ColorSpace::kSYCC || cs == ColorSpace::kESYCC ||
                                 cs == ColorSpace::kCMYK || cs == ColorSpace::kCIELab))
      return std::nullopt;
  }
  return image;
}

Image Decoder::Impl::decode(const DecodeParams& p, std::vector<std::string>& warnings,
                            const OutputBuffer* out) {
  // The device: unless --device cpu, the GPU query, CUDA context and the tiles' buffers are
  // made on a background thread while the codestream is parsed and Tier-2 reads the tiles;
  // decode_tile asks for the answer (--device gpu without a GPU throws the reason there).
  const transform::Device device = choose_device(p, main.siz, codestream().size(), true);
  std::optional<codec::GpuWarmUp> warm_up;
  if (device != transform::Device::kCpu) warm_up.emplace(device == transform::Device::kGpu);
  codec::ReadOptions ro;
  ro.allow_truncated = p.allow_partial;
  codec::TraceStage trace_parse("parse");
  const Codestream code = codec::read_codestream(codestream(), ro);
  trace_parse.end();
  warnings.insert(warnings.end(), code.main.warnings.begin(), code.main.warnings.end());
  warnings.insert(warnings.end(), code.warnings.begin(), code.warnings.end());
  const codec::Siz& siz = code.main.siz;
  const size_t ncomp = siz.components.size();

  std::vector<bool> wanted;
  const std::vector<uint32_t> order = output_components(p, ncomp, wanted);
  const Rect area = output_area(p, siz, codec::num_tiles(siz));
  Image image = output_image(p, siz, area, order);
  const TileSelection sel = select_tiles(p, code, area, order, warnings);
  const std::vector<uint32_t>& tiles = sel.tiles;

  const int threads = p.threads ? static_cast<int>(p.threads) : core::max_threads();
  codec::TileDecodeOptions to;
  to.reduce = p.reduce;
  to.max_layers = p.max_layers;
  if (p.region) to.region = area;
  to.components = wanted;
  to.allow_partial = p.allow_partial;
  to.skip_mct = p.skip_mct;
  if (warm_up) to.gpu = &*warm_up;
  const bool tile_parallel = tiles.size() >= static_cast<size_t>(threads) && threads > 1;
  to.threads = tile_parallel ? 1 : threads;

  const uint64_t max_tile_samples = largest_tile(p, code, tiles, to);
  if (warm_up)
    warm_up->prepare(static_cast<size_t>(max_tile_samples), ncomp,
                     tile_parallel ? static_cast<int>(std::min<size_t>(tiles.size(), threads)) : 1);
  std::vector<char> placed(tiles.size(), 0);
  auto unwritten = [&] {
    std::vector<uint32_t> u = sel.absent;
    for (size_t i = 0; i < tiles.size(); ++i)
      if (!placed[i]) u.push_back(tiles[i]);
    return u;
  };
  if (out) {  // straight into the caller's buffer (direct_output said it can be)
    const codec::BufferLayout layout = codec::checked_layout(image, *out);
    // Tiles and rows are packed by several threads: a fresh buffer is faulted in first, each
    // 2 MiB by one thread, so that no two fault the same huge page at once (core/memory.h).
    if (threads > 1) core::prefault(out->data, layout.needed);
    const codec::PackTarget target = pack_target(image, order, ncomp, layout, *out);
    to.pack = &target;
    BufferPlacer placer(target, order, to.threads);
    codec::TraceStage trace_tiles("tiles");
    decode_tiles(
        codestream(), code, p, tiles, to, tile_parallel, threads,
        [&](std::vector<codec::TileComponentSamples>& tcs) {
          placer.place(tcs);
          keep_tile_samples(tcs);
        },
        placed, warnings);
    trace_tiles.end();
    codec::TraceStage trace_output("output");
    zero_unwritten(target, placer, image, order, siz, p.reduce, unwritten());
    image.color_space = color.color_space;
    image.icc_profile = color.icc_profile;
    return image;
  }
  TilePlacer placer(image, order, tiles.size() == 1);
  codec::TraceStage trace_tiles("tiles");
  decode_tiles(
      codestream(), code, p, tiles, to, tile_parallel, threads,
      [&](std::vector<codec::TileComponentSamples>& tcs) {
        placer.place(tcs);
        keep_tile_samples(tcs);
      },
      placed, warnings);
  trace_tiles.end();
  codec::TraceStage trace_colour("output and colour");
  zero_unwritten(image, siz, p.reduce, unwritten());
  apply_colour(image, p, warnings);
  return image;
}

// JP2 colour (palette, channel definitions) and the conversions DecodeParams asks for.
void Decoder::Impl::apply_colour(Image& image, const DecodeParams& p,
                                 std::vector<std::string>& warnings) const {
  image.color_space = color.color_space;
  image.icc_profile = color.icc_profile;
  if (is_jp2 && p.apply_jp2_color && p.components.empty()) {
    codec::apply_palette(image, color);
    codec::apply_channel_definitions(image, color);
  }
  if (p.force_rgb && image.color_space == ColorSpace::kSYCC) codec::sycc_to_rgb(image);
  if (p.force_rgb && image.color_space == ColorSpace::kICC &&
      codec::icc_to_srgb(image, image.icc_profile))
    image.icc_profile.clear();
  if (p.icc_to_srgb && image.color_space == ColorSpace::kICC && !image.icc_profile.empty())
    codec::icc_to_srgb_lcms(image, std::vector<uint8_t>(image.icc_profile), warnings);
  if (p.render != DecodeParams::Render::kNone)
    codec::render_like_openjpeg(image, p.render == DecodeParams::Render::kRgbKeepCmyk,
                                p.components.empty(), warnings, color.lab);
  if (p.upsample) codec::upsample(image);
}

namespace codec {

DecodeExtent decode_extent(const DecodeParams& p, const HeaderInfo& h, uint64_t bytes) {
  const uint32_t ax0 = p.region ? std::max(p.region->x0, h.x0) : h.x0;
  const uint32_t ay0 = p.region ? std::max(p.region->y0, h.y0) : h.y0;
  const uint32_t ax1 = p.region ? std::min(p.region->x1, h.x1) : h.x1;
  const uint32_t ay1 = p.region ? std::min(p.region->y1, h.y1) : h.y1;
  DecodeExtent e;
  uint64_t full = 0;
  for (const ComponentInfo& c : h.components)
    full += uint64_t{component_extent(h.x0, h.x1, c.dx)} * component_extent(h.y0, h.y1, c.dy);
  if (ax0 < ax1 && ay0 < ay1)
    for (const ComponentInfo& c : h.components)
      e.samples +=
          (uint64_t{component_extent(ax0, ax1, c.dx)} * component_extent(ay0, ay1, c.dy)) >>
          (2 * std::min<uint32_t>(p.reduce, 31));
  e.bytes = full > e.samples
                ? static_cast<uint64_t>(double(bytes) * double(e.samples) / double(full))
                : bytes;
  // The tiles that meet the area (B.3), or the one asked for.
  if (!p.tile && ax0 < ax1 && ay0 < ay1 && h.tile_width > 0 && h.tile_height > 0) {
    const uint64_t tx0 = (ax0 - std::min(ax0, h.tile_x0)) / h.tile_width;
    const uint64_t tx1 = (ax1 - 1 - std::min(ax1 - 1, h.tile_x0)) / h.tile_width + 1;
    const uint64_t ty0 = (ay0 - std::min(ay0, h.tile_y0)) / h.tile_height;
    const uint64_t ty1 = (ay1 - 1 - std::min(ay1 - 1, h.tile_y0)) / h.tile_height + 1;
    e.tiles = (tx1 - tx0) * (ty1 - ty0);
  }
  return e;
}

namespace {
// The main header of the file at `path` (from its first megabyte) and the file's size in bytes,
// or nothing where the headers do not fit or do not parse.
std::optional<std::pair<Siz, uint64_t>> probe_header(const std::filesystem::path& path) {
  try {
    constexpr size_t kPrefix = size_t{1} << 20;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::vector<uint8_t> prefix(kPrefix);
    in.read(reinterpret_cast<char*>(prefix.data()), static_cast<std::streamsize>(kPrefix));
    prefix.resize(static_cast<size_t>(in.gcount()));
    Decoder::Impl impl;
    impl.owned = std::move(prefix);
    impl.bytes = impl.owned;
    impl.read_header();
    std::error_code ec;
    const uintmax_t size = std::filesystem::file_size(path, ec);
    return std::pair{impl.main.siz, ec ? uint64_t{impl.bytes.size()} : uint64_t{size}};
  } catch (...) {
    return std::nullopt;
  }
}
}  // namespace

transform::Device likely_decode_device(const std::filesystem::path& path, const DecodeParams& p) {
  if (p.device == DecodeDevice::kCpu) return transform::Device::kCpu;
  const auto header = probe_header(path);
  if (!header) return transform::Device::kCpu;  // the decode decides
  return choose_device(p, header->first, header->second, false);
}

transform::Device likely_batch_decode_device(const std::filesystem::path& path,
                                             const DecodeParams& p, int threads, int workers,
                                             size_t files) {
  if (p.device != DecodeDevice::kAuto) return to_transform(p.device);
  const auto header = probe_header(path);
  if (!header) return transform::Device::kCpu;  // the decode decides
  const DecodeExtent e = decode_extent(p, siz_geometry(header->first), header->second);
  return batch_auto_likely_gpu(e.samples, e.bytes, threads, workers, e.tiles,
                               files > 0 ? files - 1 : 0)
             ? transform::Device::kAuto
             : transform::Device::kCpu;
}

}  // namespace codec

Image decode_file(const std::filesystem::path& path, const DecodeParams& params) {
  return Decoder(path).decode(params);
}

Image decode_memory(std::span<const uint8_t> bytes, const DecodeParams& params) {
  return Decoder(bytes).decode(params);
}

}  // namespace gj2k
