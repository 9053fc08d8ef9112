// Encoder transform stage on the GPU (encoder_gpu.h): tile-component samples into pageable
// staging and up through the transformer's staging ring, DC level shift + MCT (Annex G), DWT (Annex
// F) and 9/7 quantization (Annex E) on the device through transform::cuda::TileTransformer, results
// back into TileCoefficients through its staging ring.
#if defined(GJ2K_HAVE_CUDA)

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "codec/context.h"
#include "codec/encoder_gpu.h"
#include "codec/input_buffer.h"
#include "codec/structure.h"
#include "codec/trace.h"
#include "core/memory.h"
#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/resource_pool.h"
#include "transform/cuda/tile_transformer.h"
#include "transform/dwt.h"
#include "transform/mct.h"
#include "transform/narrow.h"

namespace gj2k::codec {
namespace {

using transform::Rect;
using transform::cuda::TileComponentSpec;
using transform::cuda::TileSpec;
using transform::cuda::TileTransformer;

// The pool of one-slot transformers (resource_pool.h) of the current context (codec/context.h),
// or without one the process-wide pool, never destroyed. Selects the context's device for the
// calling thread.
transform::cuda::Pool<TileTransformer>& pool() {
  using TransformerPool = transform::cuda::Pool<TileTransformer>;
  use_context_device();
  auto make = [] {
    return new TransformerPool([] {
      return std::make_unique<TileTransformer>(
          1, static_cast<transform::cuda::GpuDwtVariant>(transform::codec_gpu_dwt()));
    });
  };
  if (ContextResources* c = current_context())
    return c->gpu_object<TransformerPool>(GpuObject::kEncoderTransformers, make);
  static TransformerPool* p = make();
  return *p;
}

std::atomic<uint32_t> g_cpu_tiles{0};  // gpu_path_cpu_tiles()

// fn(c, x, y, len, at) for the runs of samples [first, first + n) of the tile as
// TileTransformer::SampleFill lays them out (the spec's tile-components back to back, each its
// rect (B-12) in rows): `len` samples of component c from its sample (x, y) (counted from the
// component's first, as Component::at), bound for position `at` of the range. Rows in
// parallel. fn returns whether its samples lie in their component's range; so does this, for
// all of them.
template <class Fn>
bool over_staged_runs(const Image& image, const TileSpec& spec, size_t first, size_t n,
                      const Fn& fn) {
  std::atomic<bool> out_of_range{false};
  size_t base = 0;  // the component's first sample in the tile's layout
  for (size_t c = 0; c < spec.comps.size(); base += spec.comps[c].rect.area(), ++c) {
    const Rect& r = spec.comps[c].rect;
    const size_t w = r.width(), count = r.area();
    if (w == 0 || first >= base + count || first + n <= base) continue;
    const size_t a = std::max(first, base) - base, b = std::min(first + n, base + count) - base;
    const FirstSample origin = first_sample(image, c);
    const uint32_t bx = r.x0 - origin.x, by = r.y0 - origin.y;
    const size_t row0 = a / w, rows = (b + w - 1) / w - row0;
    core::parallel_blocks(rows, [&](size_t first_row, size_t last_row) {
      bool in_range = true;
      for (size_t i = first_row; i < last_row; ++i) {
        const size_t y = row0 + i;
        const size_t x0 = std::max(a, y * w) - y * w, x1 = std::min(b, (y + 1) * w) - y * w;
        in_range = fn(c, bx + static_cast<uint32_t>(x0), by + static_cast<uint32_t>(y), x1 - x0,
                      base + y * w + x0 - first) &&
                   in_range;
      }
      if (!in_range) out_of_range = true;
    });
  }
  return !out_of_range;
}

// The samples of over_staged_runs into dst, narrowed to T: from the image, or from a caller's
// buffer (src, checked already: codec/input_buffer.h) through a piece of int32 on the stack.
// Returns whether every one lies inside its component's range (validate_samples; the encoder
// leaves that check to this pass over the image's samples: the range check and the narrowing
// read each sample once).
template <class T>
bool stage_range(const Image& image, const InputSource* src, const TileSpec& spec, size_t first,
                 size_t n, T* dst) {
  return over_staged_runs(
      image, spec, first, n, [&](size_t c, uint32_t x, uint32_t y, size_t len, size_t at) {
        const Component& comp = image.components[c];
        const int64_t lo = comp.min_value(), hi = comp.max_value();
        if (!src)
          return transform::narrow_row(comp.samples.data() + size_t{y} * comp.width + x, len,
                                       dst + at, lo, hi);
        constexpr size_t kPiece = 1024;
        int32_t piece[kPiece];
        bool in_range = true;
        for (size_t k = 0; k < len; k += kPiece) {
          const size_t l = std::min(kPiece, len - k);
          read_samples(*src, c, x + static_cast<uint32_t>(k), y, l, piece);
          in_range = transform::narrow_row(piece, l, dst + at + k, lo, hi) && in_range;
        }
        return in_range;
      });
}

// fn(dst as T*) with T the type spec's samples are staged at (sample_bytes, sample_signed).
template <class Fn>
bool with_staged_type(const TileSpec& spec, void* dst, const Fn& fn) {
  if (spec.sample_bytes == 1)
    return spec.sample_signed ? fn(static_cast<int8_t*>(dst)) : fn(static_cast<uint8_t*>(dst));
  if (spec.sample_bytes == 2)
    return spec.sample_signed ? fn(static_cast<int16_t*>(dst)) : fn(static_cast<uint16_t*>(dst));
  return fn(static_cast<int32_t*>(dst));
}

// Samples [first, first + n) of the tile in the interleaved layout (TileSpec::interleaved: its
// rows of whole pixels, the components of a pixel together) into dst, straight from the
// caller's rows, which lie the same way (make_spec chose it so).
void stage_interleaved(const Image& image, const InputSource& src, const TileSpec& spec,
                       size_t first, size_t n, void* dst) {
  const Rect& r = spec.comps[0].rect;
  const size_t per_row = size_t{r.width()} * spec.comps.size();  // samples
  const size_t bytes = static_cast<size_t>(spec.sample_bytes);
  const FirstSample origin = first_sample(image, 0);
  const uint32_t bx = r.x0 - origin.x, by = r.y0 - origin.y;
  const size_t row0 = first / per_row, rows = (first + n + per_row - 1) / per_row - row0;
  core::parallel_blocks(rows, [&](size_t first_row, size_t last_row) {
    for (size_t i = first_row; i < last_row; ++i) {
      const size_t y = row0 + i;
      const size_t a = std::max(first, y * per_row), b = std::min(first + n, (y + 1) * per_row);
      const uint8_t* row = src.at(0, bx, by + static_cast<uint32_t>(y));
      core::copy_streaming(static_cast<uint8_t*>(dst) + (a - first) * bytes,
                           row + (a - y * per_row) * bytes, (b - a) * bytes);
    }
  });
}

// Throws validate_samples' error when a staged tile-component had a sample out of range.
void check_staged(bool in_range, const Image& image) {
  if (in_range) return;
  validate_samples(image);  // throws, naming the first bad sample of the image
  throw Error(ErrorCode::kInternal,
              "encoder: staging saw a sample out of range that validate_samples did not find");
}

// validate_samples for the tile-components of tile t only: for tiles that the CPU encodes on
// the GPU path (the corner cases below), which staging does not see.
void check_tile_samples(const Image& image, const EncodeSetup& setup, uint32_t t) {
  if (setup.input) return;  // a caller's buffer: checked whole before (checked_input)
  for (size_t c = 0; c < image.components.size(); ++c) {
    const Component& comp = image.components[c];
    const Rect r = tile_component_rect(setup.main.siz, t, static_cast<uint16_t>(c));
    const auto [cx0, cy0] = first_sample(image, c);
    const int64_t lo = comp.min_value(), hi = comp.max_value();
    bool in_range = true;
    for (uint32_t y = r.y0; y < r.y1 && in_range; ++y) {
      const int32_t* src = comp.samples.data() + size_t{y - cy0} * comp.width + (r.x0 - cx0);
      for (size_t x = 0; x < r.width(); ++x) in_range = in_range && src[x] >= lo && src[x] <= hi;
    }
    check_staged(in_range, image);
  }
}

// The transform spec of tile t; false when a tile-component is empty (subsampling larger
// than the tile: nothing to transform, the CPU stage handles that corner).
bool make_spec(const Image& image, const EncodeSetup& setup, uint32_t t, TileSpec& spec) {
  const MainHeader& mh = setup.main;
  const ComponentCoding& cc = mh.cod.component;
  const bool irreversible = cc.wavelet == Wavelet::k97;
  const size_t nc = image.components.size();
  spec = TileSpec{};
  spec.levels = cc.levels;
  spec.reversible = !irreversible;
  spec.mct = setup.mct;
  spec.comps.resize(nc);
  uint32_t max_precision = 0;
  bool all_signed = true, all_unsigned = true;
  for (size_t c = 0; c < nc; ++c) {
    const Component& comp = image.components[c];
    TileComponentSpec& cs = spec.comps[c];
    cs.rect = tile_component_rect(mh.siz, t, static_cast<uint16_t>(c));
    if (cs.rect.empty()) return false;
    cs.dc_offset = transform::dc_offset(static_cast<int>(comp.precision), comp.is_signed);
    if (irreversible) {
      const std::vector<double> d = band_deltas(setup, static_cast<uint16_t>(c), comp.precision);
      cs.deltas.assign(d.begin(), d.end());  // float, as the CPU stage quantizes
    }
    max_precision = std::max(max_precision, comp.precision);
    all_signed = all_signed && comp.is_signed;
    all_unsigned = all_unsigned && !comp.is_signed;
  }
  // Narrow upload when every sample fits (samples outside their precision stop the encode:
  // stage_range).
  spec.sample_bytes = !(all_signed || all_unsigned) ? 4
                      : max_precision <= 8          ? 1
                      : max_precision <= 16         ? 2
                                                    : 4;
  spec.sample_signed = all_signed;
  // A caller's interleaved buffer of the upload's width goes up as it lies, its rows unpacked
  // on the device, when the tile's components share one rectangle.
  if (const InputSource* src = setup.input) {
    bool same = src->interleaved && src->host_order() && spec.sample_bytes != 4 &&
                src->bytes == static_cast<uint32_t>(spec.sample_bytes);
    for (size_t c = 1; c < nc && same; ++c) same = spec.comps[c].rect == spec.comps[0].rect;
    spec.interleaved = same;
  }
  return true;
}

// Stages the tile's samples straight into tt's pinned staging as they go up (returns once they
// are read) and enqueues the transform; throws validate_samples' error for a sample out of its
// component's range. A caller's buffer (setup.input) is staged from its rows, its ranges
// checked before.
void enqueue(const Image& image, const EncodeSetup& setup, const TileSpec& spec,
             TileTransformer& tt) {
  const bool in_range = tt.encode(0, spec, [&](size_t first, size_t n, void* dst) {
    if (spec.interleaved) {
      stage_interleaved(image, *setup.input, spec, first, n, dst);
      return true;
    }
    return with_staged_type(
        spec, dst, [&](auto* d) { return stage_range(image, setup.input, spec, first, n, d); });
  });
  check_staged(in_range, image);
}

// A second transformer is made for the serial loop only when at least this many tiles remain
// after this one: making one (a stream and its staging ring) costs about as much as the device
// part of a few tiles' transform stage, which each later tile gains (figures in
// docs/PERFORMANCE.md). A free one in the pool is always used.
constexpr uint32_t kTilesToRepayTransformer = 2;

}  // namespace

struct GpuLookAhead::Impl {
  uint32_t t = 0;  // the tile enqueued ahead (never 0, where every loop starts)
  std::unique_ptr<TileTransformer> tt;
  ~Impl() { drop(); }
  void drop() {
    if (tt) pool().give(std::move(tt));  // the next user waits for work still in flight
  }
};
GpuLookAhead::GpuLookAhead() : impl(std::make_unique<Impl>()) {}
GpuLookAhead::~GpuLookAhead() = default;

namespace {

// This tile's transformer with its transform enqueued (by the previous call of a serial loop,
// or now), after the look-ahead has enqueued tile t + 1; the caller leases it. Null when the
// tile has an empty tile-component (the CPU stage handles that corner).
std::unique_ptr<TileTransformer> start(const Image& image, const EncodeSetup& setup, uint32_t t,
                                       GpuLookAhead* ahead, TileSpec& spec) {
  std::unique_ptr<TileTransformer> adopted;
  if (ahead) {
    GpuLookAhead::Impl& a = *ahead->impl;
    if (a.tt && a.t == t) adopted = std::move(a.tt);
    a.drop();
  }
  if (!make_spec(image, setup, t, spec)) {
    if (adopted) pool().give(std::move(adopted));
    return nullptr;
  }
  const bool enqueued = adopted != nullptr;
  transform::cuda::Lease<TileTransformer> lease(pool(), std::move(adopted));
  if (!enqueued) {
    TraceStage trace_stage("gpu samples staged");
    enqueue(image, setup, spec, *lease);
  }

  // A serial tile loop (one tile at a time, threads inside the tile) enqueues the next tile
  // now, so that its transfers and kernels run while Tier-1 codes this one. Failing that, its
  // own call does it.
  const uint32_t tiles = num_tiles(setup.main.siz);
  if (ahead && t + 1 < tiles) {
    try {
      TileSpec next;
      if (make_spec(image, setup, t + 1, next)) {
        std::unique_ptr<TileTransformer> spare = pool().try_take();
        if (!spare && tiles - t - 1 >= kTilesToRepayTransformer) spare = pool().take();
        if (spare) {
          transform::cuda::Lease<TileTransformer> next_lease(pool(), std::move(spare));
          enqueue(image, setup, next, *next_lease);
          ahead->impl->t = t + 1;
          ahead->impl->tt = next_lease.release();
        }
      }
    } catch (const Error&) {  // the look-ahead is optional: t + 1 is transformed when due
    } catch (const std::bad_alloc&) {
    }
  }
  return lease.release();
}

}  // namespace

TileCoefficients download_coefficients(TileTransformer& tt, std::vector<Rect> rects) {
  TileCoefficients out;
  out.data.resize(rects.size());
  for (size_t c = 0; c < rects.size(); ++c) {
    out.data[c].resize(size_t{rects[c].width()} * rects[c].height());  // not zeroed
    tt.output(0, static_cast<int>(c), out.data[c].data());             // waits for the slot's work
  }
  out.rects = std::move(rects);
  return out;
}

TileCoefficients transform_tile_gpu(const Image& image, const EncodeSetup& setup, uint32_t t,
                                    GpuLookAhead* ahead) {
  TileSpec spec;
  std::unique_ptr<TileTransformer> started = start(image, setup, t, ahead, spec);
  if (!started) {
    check_tile_samples(image, setup, t);
    return cpu_backend().forward(image, setup, t, nullptr);
  }
  transform::cuda::Lease<TileTransformer> lease(pool(), std::move(started));
  std::vector<Rect> rects;
  for (const TileComponentSpec& cs : spec.comps) rects.push_back(cs.rect);
  TileCoefficients out = download_coefficients(*lease, std::move(rects));
  lease.succeeded();
  return out;
}

namespace {

// Tiles whose GPU work is under way (they hold device memory), for the out-of-memory waits.
struct ActiveTiles {
  std::mutex mutex;
  std::condition_variable ended;
  int count = 0;
};
ActiveTiles& active_tiles() {
  static auto* a = new ActiveTiles;
  return *a;
}

class ActiveTile {
 public:
  ActiveTile() {
    std::lock_guard<std::mutex> lock(active_tiles().mutex);
    ++active_tiles().count;
  }
  ~ActiveTile() {
    {
      std::lock_guard<std::mutex> lock(active_tiles().mutex);
      --active_tiles().count;
    }
    active_tiles().ended.notify_all();
  }
  ActiveTile(const ActiveTile&) = delete;
  ActiveTile& operator=(const ActiveTile&) = delete;
};

}  // namespace

bool other_gpu_tiles_active() {
  std::lock_guard<std::mutex> lock(active_tiles().mutex);
  return active_tiles().count > 1;
}

TileCoding encode_tile_gpu(const Image& image, const EncodeSetup& setup, const EncodeParams& params,
                           uint32_t t, GpuLookAhead* ahead) {
  // A tile whose device memory does not fit (out of memory anywhere in its GPU work) waits for
  // other tiles to end theirs and tries again; once it has failed with no other tile active, it
  // is encoded on the CPU, with the same result. So tiles of an image larger than the device's
  // memory go through the GPU as many at a time as fit. Other failures stay failures.
  bool tried_alone = false;
  for (;;) {
    bool alone = false;
    {
      ActiveTile active;
      try {
        TileSpec spec;
        std::unique_ptr<TileTransformer> started = start(image, setup, t, ahead, spec);
        if (!started) break;  // an empty tile-component: the CPU stage
        transform::cuda::Lease<TileTransformer> lease(pool(), std::move(started));
        TileCoding tile = code_tile_gpu(*lease, image, setup, params, t);
        lease.succeeded();
        return tile;
      } catch (const Error& e) {
        if (!transform::cuda::out_of_memory(e)) throw;
      }
    }
    if (ahead) ahead->impl->drop();  // the look-ahead's tile holds device memory too
    release_encoder_gpu_pool();      // and so do the pools' idle buffers
    {
      std::unique_lock<std::mutex> lock(active_tiles().mutex);
      const int others = active_tiles().count;
      alone = others == 0;
      if (!alone)
        active_tiles().ended.wait(
            lock, [&] { return active_tiles().count < others || active_tiles().count == 0; });
    }
    if (alone && tried_alone) break;
    tried_alone = tried_alone || alone;
  }
  check_tile_samples(image, setup, t);
  g_cpu_tiles.fetch_add(1, std::memory_order_relaxed);
  return cpu_backend().encode(image, setup, params, t, nullptr);
}

uint32_t gpu_path_cpu_tiles() {
  return g_cpu_tiles.load();
}

size_t release_encoder_gpu_pool() {
  return pool().clear() + release_encoder_t1_pool();
}

}  // namespace gj2k::codec

#endif  // GJ2K_HAVE_CUDA
