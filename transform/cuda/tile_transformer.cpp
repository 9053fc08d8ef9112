// TileTransformer (tile_transformer.h): per-slot streams, staging rings, device buffers.
#include "transform/cuda/tile_transformer.h"

#include <algorithm>
#include <string>

#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "gj2k/image.h"
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/mct_cuda.h"
#include "transform/cuda/quant_cuda.h"
#include "transform/cuda/staging_ring.h"

namespace gj2k::transform::cuda {

struct TileTransformer::Slot {
  Stream stream;
  StagingRing ring;                                  // the only pinned memory (staging_ring.h)
  std::vector<char, DefaultInitAllocator<char>> in;  // pageable input, not zeroed
  DeviceBuffer a, b, ws;
  std::vector<size_t> offset;  // first sample of each component in the packed buffers
  bool busy = false;           // kernels in flight
  bool done = false;           // b holds the results of the last encode / decode
};

namespace {

void check_spec(const TileSpec& spec) {
  if (spec.comps.empty())
    throw Error(ErrorCode::kInvalidArgument, "TileTransformer: no components");
  if (spec.sample_bytes != 1 && spec.sample_bytes != 2 && spec.sample_bytes != 4)
    throw Error(ErrorCode::kInvalidArgument, "TileTransformer: sample_bytes must be 1, 2 or 4");
  if (spec.interleaved) {
    if (spec.sample_bytes == 4)
      throw Error(ErrorCode::kInvalidArgument,
                  "TileTransformer: interleaved input needs 1- or 2-byte samples");
    for (const auto& c : spec.comps)
      if (c.rect.width() != spec.comps[0].rect.width() ||
          c.rect.height() != spec.comps[0].rect.height())
        throw Error(ErrorCode::kInvalidArgument,
                    "TileTransformer: interleaved input needs components of one size");
  }
  if (spec.levels < 0 || spec.levels > kMaxLevels)
    throw Error(ErrorCode::kInvalidArgument, "TileTransformer: levels outside 0..32");
  if (spec.mct) {
    if (spec.comps.size() < 3)
      throw Error(ErrorCode::kInvalidArgument, "TileTransformer: MCT needs 3 components");
    for (int c = 1; c < 3; ++c)
      if (spec.comps[c].rect.width() != spec.comps[0].rect.width() ||
          spec.comps[c].rect.height() != spec.comps[0].rect.height())
        throw Error(ErrorCode::kInvalidArgument,
                    "TileTransformer: MCT components 0..2 differ in size (G.2/G.3)");
  }
  if (!spec.reversible) {
    for (const auto& c : spec.comps)
      if (c.deltas.size() < size_t(3 * spec.levels + 1))
        throw Error(ErrorCode::kInvalidArgument,
                    "TileTransformer: 9/7 needs 3 levels + 1 quantization steps per component");
  }
}

}  // namespace

TileTransformer::TileTransformer(int slots, GpuDwtVariant variant) : variant_(variant) {
  if (slots < 1) throw Error(ErrorCode::kInvalidArgument, "TileTransformer: slots < 1");
  for (int i = 0; i < slots; ++i) slots_.push_back(std::make_unique<Slot>());
}

TileTransformer::~TileTransformer() {
  for (auto& s : slots_) cudaStreamSynchronize(s->stream.get());
}

int32_t* TileTransformer::input(int slot, const TileSpec& spec, int c) {
  if (spec.sample_bytes != 4)
    throw Error(ErrorCode::kInvalidArgument, "TileTransformer::input: samples are not int32");
  return static_cast<int32_t*>(input_raw(slot, spec, c));
}

void* TileTransformer::input_raw(int slot, const TileSpec& spec, int c) {
  Slot& s = *slots_.at(slot);
  prepare(s, spec);
  const size_t total = s.offset.back();
  if (s.in.size() < total * spec.sample_bytes) {  // grows only; the caller writes it all
    s.in.clear();  // nothing to keep: the larger buffer is not filled from the old one
    s.in.resize(total * spec.sample_bytes);  // not zeroed
  }
  return s.in.data() + s.offset.at(c) * spec.sample_bytes;
}

void TileTransformer::prepare(Slot& s, const TileSpec& spec) {
  check_spec(spec);
  if (s.busy) {
    s.stream.synchronize();
    s.busy = false;
  }
  size_t total = 0, ws = 0;
  s.offset.clear();
  for (const auto& comp : spec.comps) {
    s.offset.push_back(total);
    total += comp.rect.area();
    ws = std::max(ws, dwt_workspace_bytes(variant_, comp.rect, spec.levels, false));
  }
  s.offset.push_back(total);
  s.done = false;
  s.a.reserve(total * 4);
  s.b.reserve(total * 4);
  s.ws.reserve(ws);
}

void TileTransformer::encode(int slot, const TileSpec& spec) {
  Slot& s = *slots_.at(slot);
  check_spec(spec);
  if (s.offset.size() != spec.comps.size() + 1)
    throw Error(ErrorCode::kInvalidArgument, "TileTransformer: call input() for this tile first");
  const size_t total = s.offset.back();
  const int threads = core::max_threads();
  s.ring.upload(upload_target(s, spec), s.in.data(), total * spec.sample_bytes, s.stream.get(),
                threads);
  enqueue_transform(s, spec);
}

bool TileTransformer::encode(int slot, const TileSpec& spec, const SampleFill& fill) {
  Slot& s = *slots_.at(slot);
  prepare(s, spec);
  const size_t sb = static_cast<size_t>(spec.sample_bytes);
  const size_t total = s.offset.back();
  s.busy = true;  // transfers may be in flight even when fill stops them
  if (!s.ring.upload_with(
          upload_target(s, spec), total * sb, s.stream.get(),
          [&](size_t at, void* dst, size_t len) { return fill(at / sb, len / sb, dst); }))
    return false;
  enqueue_transform(s, spec);
  return true;
}

// Where the upload goes: narrow samples into B (widened into A by enqueue_transform), int32
// straight into A.
void* TileTransformer::upload_target(Slot& s, const TileSpec& spec) {
  return spec.sample_bytes != 4 ? static_cast<void*>(s.b.get()) : s.a.get();
}

void TileTransformer::enqueue_transform(Slot& s, const TileSpec& spec) {
  const cudaStream_t st = s.stream.get();
  const size_t total = s.offset.back();
  const size_t ncomp = spec.comps.size();
  int32_t* ai = s.a.as<int32_t>();
  int32_t* bi = s.b.as<int32_t>();
  float* af = s.a.as<float>();
  float* bf = s.b.as<float>();
  auto A = [&](size_t c) { return ai + s.offset[c]; };
  auto B = [&](size_t c) { return bi + s.offset[c]; };
  auto Af = [&](size_t c) { return af + s.offset[c]; };
  auto Bf = [&](size_t c) { return bf + s.offset[c]; };
  auto n_of = [&](size_t c) { return spec.comps[c].rect.area(); };
  auto w_of = [&](size_t c) { return size_t{spec.comps[c].rect.width()}; };
  const size_t first_single = spec.mct ? 3 : 0;
  Int3 off;
  for (int c = 0; c < 3 && c < int(ncomp); ++c) off.v[c] = spec.comps[c].dc_offset;
  if (spec.interleaved)
    widen_interleaved(bi, spec.sample_bytes, spec.sample_signed, ai, ncomp, n_of(0), st);
  else if (spec.sample_bytes != 4)
    widen_samples(bi, spec.sample_bytes, spec.sample_signed, ai, total, st);
  if (spec.reversible) {
    if (spec.mct) dc_shift_rct_forward(A(0), A(1), A(2), n_of(0), off, st);
    for (size_t c = first_single; c < ncomp; ++c)
      dc_shift_forward(A(c), n_of(c), spec.comps[c].dc_offset, st);
    for (size_t c = 0; c < ncomp; ++c)
      dwt53_forward(variant_, {A(c), w_of(c)}, {B(c), w_of(c)}, spec.comps[c].rect, spec.levels,
                    s.ws.get(), s.ws.bytes(), st);
  } else {
    if (spec.mct) dc_shift_ict_forward(A(0), A(1), A(2), Bf(0), Bf(1), Bf(2), n_of(0), off, st);
    for (size_t c = first_single; c < ncomp; ++c)
      dc_shift_to_float(A(c), Bf(c), n_of(c), spec.comps[c].dc_offset, st);
    for (size_t c = 0; c < ncomp; ++c) {
      dwt97_forward(variant_, {Bf(c), w_of(c)}, {Af(c), w_of(c)}, spec.comps[c].rect, spec.levels,
                    s.ws.get(), s.ws.bytes(), st);
      quantize_bands(Af(c), w_of(c), B(c), w_of(c), spec.comps[c].rect, spec.levels,
                     spec.comps[c].deltas.data(), st);
    }
  }
  s.busy = true;
  s.done = true;
}

void TileTransformer::output(int slot, int c, int32_t* dst) {
  Slot& s = *slots_.at(slot);
  if (!s.done || c < 0 || static_cast<size_t>(c) + 1 >= s.offset.size())
    throw Error(ErrorCode::kInvalidArgument, "TileTransformer::output: no result for component " +
                                                 std::to_string(c) + " in slot " +
                                                 std::to_string(slot));
  const size_t at = s.offset[static_cast<size_t>(c)];
  s.ring.download(dst, s.b.as<int32_t>() + at, (s.offset[static_cast<size_t>(c) + 1] - at) * 4,
                  s.stream.get(), core::max_threads());
}

const int32_t* TileTransformer::device_output(int slot, int c) const {
  const Slot& s = *slots_.at(slot);
  if (!s.done || c < 0 || static_cast<size_t>(c) + 1 >= s.offset.size())
    throw Error(ErrorCode::kInvalidArgument,
                "TileTransformer::device_output: no result for component " + std::to_string(c) +
                    " in slot " + std::to_string(slot));
  return s.b.as<int32_t>() + s.offset[static_cast<size_t>(c)];
}

cudaStream_t TileTransformer::stream(int slot) const {
  return slots_.at(slot)->stream.get();
}

void TileTransformer::synchronize() {
  for (auto& s : slots_) {
    if (s->busy) s->stream.synchronize();
    s->busy = false;
  }
}

}  // namespace gj2k::transform::cuda
