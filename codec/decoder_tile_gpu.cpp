// Decoder tile tail on the GPU (decoder_gpu.h): pinned coefficients up, inverse DWT (15444-1
// F.3.1 / F.4), inverse RCT / ICT (G.2 / G.3), DC level shift (G.1.2) and clipping on the
// device, samples down into pinned memory and in parallel into the output vectors.
#include "codec/decoder_gpu.h"
#include "codec/parallel.h"

#include "gj2k/error.h"
#include "transform/device.h"

#if defined(GJ2K_HAVE_CUDA)

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <string>

#include "transform/cuda/cuda_check.h"
#include "transform/cuda/cuda_memory.h"
#include "transform/cuda/dwt_cuda.h"
#include "transform/cuda/mct_cuda.h"
#include "transform/cuda/resource_pool.h"

namespace gj2k::codec {
namespace {

namespace cu = transform::cuda;
using transform::Rect;

constexpr int kStreams = 3;    // component c runs on stream c % kStreams
constexpr size_t kAlign = 64;  // samples: every component starts on a 256-byte boundary
constexpr cu::GpuDwtVariant kVariant = cu::GpuDwtVariant::kDefault;

// One tile's worth of resources: streams, the pinned coefficient / sample buffer, device
// coefficients and samples (same layout), DWT scratch per stream, events.
struct Slot {
  cu::Stream streams[kStreams];
  cu::PinnedBuffer host;
  cu::DeviceBuffer coef, samp;
  cu::DeviceBuffer ws[kStreams];
  std::vector<std::unique_ptr<cu::Event>> events;

  void reserve(size_t samples) {
    host.reserve(samples * 4);
    coef.reserve(samples * 4);
    samp.reserve(samples * 4);
  }
  cudaEvent_t event(size_t i) {
    while (events.size() <= i) events.push_back(std::make_unique<cu::Event>());
    return events[i]->get();
  }
};

cu::Pool<Slot>& pool() {
  static auto* p = new cu::Pool<Slot>([] { return std::make_unique<Slot>(); });
  return *p;
}

size_t area(const Rect& r) {
  return size_t{r.width()} * r.height();
}
size_t padded(size_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

struct GpuTileDecoder::Impl {
  std::vector<GpuComponent> comps;
  bool mct = false;
  int threads = 1;
  std::vector<size_t> offset;  // first sample of each component in the slot's buffers
  cu::Lease<Slot> lease{pool()};
  bool finished = false;
  size_t n(size_t c) const { return comps[c].decode ? area(comps[c].rect) : 0; }
};

GpuTileDecoder::GpuTileDecoder(std::vector<GpuComponent> comps, bool mct, int threads)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.comps = std::move(comps);
  m.mct = mct;
  m.threads = std::max(1, threads);
  if (mct) {
    if (m.comps.size() < 3)
      throw Error(ErrorCode::kInternal, "GpuTileDecoder: the MCT needs 3 components");
    for (size_t c = 0; c < 3; ++c)
      if (!m.comps[c].decode || m.comps[c].rect != m.comps[0].rect)
        throw Error(ErrorCode::kInternal,
                    "GpuTileDecoder: MCT components 0..2 must be decoded with equal sizes");
  }
  size_t total = 0;
  size_t ws[kStreams] = {};
  for (size_t c = 0; c < m.comps.size(); ++c) {
    m.offset.push_back(total);
    total += padded(m.n(c));
    const GpuComponent& k = m.comps[c];
    if (m.n(c) && k.levels > 0)
      ws[c % kStreams] =
          std::max(ws[c % kStreams], cu::dwt_workspace_bytes(kVariant, k.rect, k.levels, false));
  }
  m.offset.push_back(total);
  Slot& s = *m.lease;
  s.reserve(total);
  for (int i = 0; i < kStreams; ++i) s.ws[i].reserve(ws[i]);
  // No zero fill: the caller writes every sample (decode_blocks zeroes blocks without data).
  m.lease.succeeded();  // nothing in flight: the slot may go back as it is
}

GpuTileDecoder::~GpuTileDecoder() = default;

int32_t* GpuTileDecoder::ints(size_t c) {
  const Impl& m = *impl_;
  if (c >= m.comps.size() || !m.comps[c].decode)
    throw Error(ErrorCode::kInternal,
                "GpuTileDecoder: component " + std::to_string(c) + " is not decoded");
  return (*m.lease).host.as<int32_t>() + m.offset[c];
}
float* GpuTileDecoder::floats(size_t c) {
  return reinterpret_cast<float*>(ints(c));
}

void GpuTileDecoder::finish(std::vector<TileComponentSamples>& out) {
  Impl& m = *impl_;
  if (m.finished) throw Error(ErrorCode::kInternal, "GpuTileDecoder: finish called twice");
  m.finished = true;
  Slot& s = *m.lease;
  m.lease.in_use();
  const size_t nc = m.comps.size();
  auto st = [&](size_t c) { return s.streams[c % kStreams].get(); };
  auto A = [&](size_t c) { return s.coef.as<int32_t>() + m.offset[c]; };
  auto B = [&](size_t c) { return s.samp.as<int32_t>() + m.offset[c]; };
  int32_t* host = s.host.as<int32_t>();
  // After the inverse DWT: S (5/3 integers) or F (9/7 floats), in A or B; the final samples R.
  std::vector<int32_t*> S(nc, nullptr), R(nc, nullptr);
  std::vector<float*> F(nc, nullptr);
  // The buffer of c that p (one of c's) is not in.
  auto other = [&](size_t c, const void* p) { return p == A(c) ? B(c) : A(c); };

  for (size_t c = 0; c < nc; ++c) {
    const GpuComponent& k = m.comps[c];
    const size_t n = m.n(c);
    if (n == 0 || !(k.wanted || (m.mct && c < 3))) continue;  // nothing, or not needed
    const size_t w = k.rect.width();
    GJ2K_CUDA_CHECK(
        cudaMemcpyAsync(A(c), host + m.offset[c], n * 4, cudaMemcpyHostToDevice, st(c)));
    cu::DeviceBuffer& ws = s.ws[c % kStreams];
    if (k.reversible) {
      S[c] = A(c);
      if (k.levels > 0) {
        cu::dwt53_inverse(kVariant, {A(c), w}, {B(c), w}, k.rect, k.levels, ws.get(), ws.bytes(),
                          st(c));
        S[c] = B(c);
      }
    } else {
      float* af = reinterpret_cast<float*>(A(c));
      float* bf = reinterpret_cast<float*>(B(c));
      F[c] = af;
      if (k.levels > 0) {
        cu::dwt97_inverse(kVariant, {af, w}, {bf, w}, k.rect, k.levels, ws.get(), ws.bytes(),
                          st(c));
        F[c] = bf;
      }
    }
  }

  const size_t first_single = m.mct ? 3 : 0;
  if (m.mct && m.n(0) > 0) {
    // G.2 / G.3 on stream 0 once streams 1 and 2 have their inverse DWTs done.
    const size_t n = m.n(0);
    cu::Int3 off, lo, hi;
    for (size_t c = 0; c < 3; ++c) {
      off.v[c] = m.comps[c].offset;
      lo.v[c] = m.comps[c].lo;
      hi.v[c] = m.comps[c].hi;
    }
    for (size_t c = 1; c < 3; ++c) {
      GJ2K_CUDA_CHECK(cudaEventRecord(s.event(nc + c), st(c)));
      GJ2K_CUDA_CHECK(cudaStreamWaitEvent(st(0), s.event(nc + c), 0));
    }
    if (m.comps[0].reversible && m.comps[1].reversible && m.comps[2].reversible) {
      cu::rct_inverse_dc_shift(S[0], S[1], S[2], n, off, lo, hi, st(0));
      for (size_t c = 0; c < 3; ++c) R[c] = S[c];
    } else {
      for (size_t c = 0; c < 3; ++c)
        if (m.comps[c].reversible) {  // mixed kernels: the integers to float, in place
          F[c] = reinterpret_cast<float*>(S[c]);
          cu::dc_shift_to_float(S[c], F[c], n, 0, st(0));
        }
      for (size_t c = 0; c < 3; ++c) R[c] = other(c, F[c]);
      cu::ict_inverse_dc_shift(F[0], F[1], F[2], R[0], R[1], R[2], n, off, lo, hi, st(0));
    }
    GJ2K_CUDA_CHECK(cudaEventRecord(s.event(nc), st(0)));
    for (size_t c = 1; c < 3; ++c) GJ2K_CUDA_CHECK(cudaStreamWaitEvent(st(c), s.event(nc), 0));
  }
  for (size_t c = first_single; c < nc; ++c) {
    const GpuComponent& k = m.comps[c];
    const size_t n = m.n(c);
    if (n == 0 || !k.wanted) continue;
    if (k.reversible) {
      cu::dc_shift_inverse_clamp(S[c], n, k.offset, k.lo, k.hi, st(c));
      R[c] = S[c];
    } else {
      R[c] = other(c, F[c]);
      cu::float_to_int_dc_shift(F[c], R[c], n, k.offset, k.lo, k.hi, st(c));
    }
  }
  for (size_t c = 0; c < nc; ++c) {
    const size_t n = m.n(c);
    if (n == 0 || !m.comps[c].wanted) continue;
    GJ2K_CUDA_CHECK(
        cudaMemcpyAsync(host + m.offset[c], R[c], n * 4, cudaMemcpyDeviceToHost, st(c)));
    GJ2K_CUDA_CHECK(cudaEventRecord(s.event(c), st(c)));
  }

  // While the device works: the output vectors (their allocation, fill and page faults),
  // components side by side; then each component is copied out as soon as its download has
  // ended.
  out.resize(nc);
  std::vector<size_t> wanted;
  for (size_t c = 0; c < nc; ++c)
    if (m.comps[c].decode && m.comps[c].wanted) wanted.push_back(c);
  const int64_t nw = static_cast<int64_t>(wanted.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(m.threads) if (nw > 1)
  for (int64_t i = 0; i < nw; ++i) {
    const size_t c = wanted[static_cast<size_t>(i)];
    out[c].rect = m.comps[c].rect;
    out[c].samples.resize(m.n(c));
  }
  for (size_t c : wanted) {
    if (m.n(c) == 0) continue;
    GJ2K_CUDA_CHECK(cudaEventSynchronize(s.event(c)));
    const int32_t* src = host + m.offset[c];
    int32_t* dst = out[c].samples.data();
    in_chunks(
        m.n(c), [&](size_t i, size_t len) { std::memcpy(dst + i, src + i, len * 4); }, m.threads);
  }
  for (const cu::Stream& stream : s.streams) stream.synchronize();  // and any late fault
  m.lease.succeeded();
  transform::note_gpu_started();  // --device auto may take the GPU from now on (device.h)
}

struct GpuDecodeWarmUp::Impl {
  struct Sizes {
    size_t samples = 0;
    int slots = 0;
  };
  bool required = false;
  std::promise<bool> gpu;
  std::shared_future<bool> present;
  std::promise<Sizes> sizes;
  std::future<void> done;
  bool posted = false;
};

GpuDecodeWarmUp::GpuDecodeWarmUp(bool required) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.required = required;
  m.present = m.gpu.get_future().share();
  try {
    m.done = std::async(std::launch::async, [&gpu = m.gpu, f = m.sizes.get_future()]() mutable {
      if (!transform::gpu_info().available) return gpu.set_value(false);
      cudaFree(nullptr);  // creates the context; an error shows again at the first real call
      cudaGetLastError();
      const Impl::Sizes s = f.get();  // the destructor posts {0, 0} if prepare() never did
      pool().expect(s.slots);         // before any taker can see the answer
      gpu.set_value(true);
      for (int i = 0; i < s.slots; ++i) {
        std::unique_ptr<Slot> slot;
        try {
          slot = std::make_unique<Slot>();
          slot->reserve(s.samples);
        } catch (...) {
          slot.reset();  // a taker makes its own and meets the error there
        }
        pool().fulfil(std::move(slot));
      }
    });
  } catch (...) {  // no thread: ask here
    m.gpu.set_value(transform::gpu_info().available);
  }
}

void GpuDecodeWarmUp::prepare(size_t tile_samples, size_t components, int slots) {
  Impl& m = *impl_;
  if (!m.done.valid() || m.posted) return;
  m.posted = true;
  m.sizes.set_value({tile_samples + components * kAlign, std::max(0, slots)});
}

bool GpuDecodeWarmUp::use() const {
  if (impl_->present.get()) return true;
  if (impl_->required) transform::resolve_device(transform::Device::kGpu);  // throws why
  return false;
}

GpuDecodeWarmUp::~GpuDecodeWarmUp() {
  if (!impl_->done.valid()) return;
  if (!impl_->posted) impl_->sizes.set_value({0, 0});
  impl_->done.wait();
}

}  // namespace gj2k::codec

#else  // built without CUDA: the GPU is never used, GpuTileDecoder refuses if called

namespace gj2k::codec {

struct GpuTileDecoder::Impl {};
GpuTileDecoder::GpuTileDecoder(std::vector<GpuComponent>, bool, int) {
  throw Error(ErrorCode::kDevice, "GpuTileDecoder: gj2k was built without CUDA");
}
GpuTileDecoder::~GpuTileDecoder() = default;
int32_t* GpuTileDecoder::ints(size_t) {
  throw Error(ErrorCode::kDevice, "GpuTileDecoder: gj2k was built without CUDA");
}
float* GpuTileDecoder::floats(size_t) {
  throw Error(ErrorCode::kDevice, "GpuTileDecoder: gj2k was built without CUDA");
}
void GpuTileDecoder::finish(std::vector<TileComponentSamples>&) {
  throw Error(ErrorCode::kDevice, "GpuTileDecoder: gj2k was built without CUDA");
}

struct GpuDecodeWarmUp::Impl {
  bool required = false;
};
GpuDecodeWarmUp::GpuDecodeWarmUp(bool required) : impl_(std::make_unique<Impl>()) {
  impl_->required = required;
}
void GpuDecodeWarmUp::prepare(size_t, size_t, int) {}
bool GpuDecodeWarmUp::use() const {
  if (impl_->required) transform::resolve_device(transform::Device::kGpu);  // throws why
  return false;
}
GpuDecodeWarmUp::~GpuDecodeWarmUp() = default;

}  // namespace gj2k::codec

#endif  // GJ2K_HAVE_CUDA
