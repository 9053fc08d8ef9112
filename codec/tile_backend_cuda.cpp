// The CUDA backend of the per-tile stages (tile_backend.h), the GPU decode of a tile from its
// code-blocks (cuda_decode_tile), and the decoder's GPU warm-up (gpu_warm_up.h).
// Inverse: host coefficients up, inverse DWT (15444-1 F.3.1 / F.4), inverse RCT / ICT
// (G.2 / G.3), DC level shift (G.1.2) and clipping on the device, samples down.
// From code-blocks: the CodeBlockTable up, Tier-1 (entropy/cuda/t1_dec_cuda.h) into the zeroed
// coefficient planes, reconstruct_blocks (transform/quant_block.h) in place, then the same
// inverse tail without the coefficient upload. Where Tier-1 takes a thread per block, the
// costliest blocks may go to the host's threads instead (HostShare: decode_block and
// reconstruct_block there, their coefficients up and placed before the inverse DWT).
//
// Each component goes up through a pinned StagingRing (transform/cuda/staging_ring.h) on its
// own stream (components c % 3), its inverse DWT is enqueued at once, the MCT joins streams
// 0..2, DC shift + clamp, and the samples come down through the ring. From code-blocks, the
// table and Tier-1 run on stream 0 and the others wait for it; a tile decoded in parts
// (GpuTileDecode: Tier-2 still reading the higher resolutions) runs part k on stream k at once
// beside the others. With a PackTarget
// (Decoder::decode_into) the final samples are packed on the device into the caller's sample
// format (transform/cuda/pack_cuda.h; into interleaved pixels with an MCT, the inverse RCT / ICT
// writes the packed bytes itself: rct_inverse_pack / ict_inverse_pack) and only those bytes
// come down, row by row into the caller's buffer (StagingRing::download_rows). Tiles finished
// by several threads at once use separate slots, so their transfers and kernels overlap.
//
// Memory: slots come from a process-wide pool (transform/cuda/resource_pool.h) and keep their
// buffers, sized by the largest tile seen, until the process ends: device 8 bytes per sample
// (coefficients + samples), up to 4 more for packed samples (decode_into), plus the DWT
// scratch of the largest component per stream, and for decodes from code-blocks the table
// (code-block bytes, segments, jobs) and the Tier-1 decoders' state; pinned host only the
// slot's ring (at most 32 MB, sized by the tile). The first decode of a process takes its
// slot once Tier-2 is done, so that GpuWarmUp's device query, CUDA context and slot allocation
// overlap reading, parsing and Tier-2; later ones take it before Tier-2 and decode in parts. The
// pool holds as many slots as tiles were decoded at once: a warm-up adds only those its decode
// needs beyond the free ones. CUDA failures throw Error(kDevice); a slot whose work failed is
// dropped.
#include "codec/encoder_internal.h"
#include "codec/gpu_warm_up.h"
#include "codec/tile_backend.h"
#include "codec/trace.h"
#include "core/thread_pool.h"

#include "gj2k/error.h"
#include "transform/device.h"

#if defined(GJ2K_HAVE_CUDA)

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <optional>
#include <string>

#include "codec/context.h"
#include "codec/encoder_gpu.h"
#include "codec/parallel.h"
#include "entropy/cuda/t1_dec_cuda.h"
#include "entropy/t1.h"
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/cuda_memory.h"
#include "transform/cuda/dwt_cuda.h"
#include "transform/cuda/mct_cuda.h"
#include "transform/cuda/pack_cuda.h"
#include "transform/cuda/quant_cuda.h"
#include "transform/cuda/resource_pool.h"
#include "transform/cuda/staging_ring.h"
#include "transform/dwt.h"
#include "transform/quant.h"

namespace gj2k::codec {
namespace {

namespace cu = transform::cuda;

// The Tier-1 kernel's mapping (entropy/cuda/t1_dec_cuda.h): chosen per batch by its costs, or
// fixed with GJ2K_GPU_T1_MAPPING=threads or warps (measurements, tests; read at each launch).
// A comma list sets the parts of a decode one by one (the last entry for the rest): "auto" as
// unset, "own" for a part that chooses by its own costs rather than taking part 0's mapping.
struct PartMapping {
  entropy::cuda::DecodeMapping want = entropy::cuda::DecodeMapping::kAuto;
  bool own = false;
};
PartMapping t1_decode_mapping(size_t part) {
  using M = entropy::cuda::DecodeMapping;
  const char* v = std::getenv("GJ2K_GPU_T1_MAPPING");
  std::string s = v ? v : "";
  for (size_t k = 0, at = 0;; ++k) {
    const size_t comma = s.find(',', at);
    if (k == part || comma == std::string::npos) {
      s = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      break;
    }
    at = comma + 1;
  }
  return {s == "threads" ? M::kThreads : s == "warps" ? M::kWarps : M::kAuto, s == "own"};
}

std::atomic<uint64_t> g_host_blocks{0};  // gpu_decode_host_blocks()
using transform::Rect;

// The host's share of a thread-mapping Tier-1 launch (entropy::cuda::HostShare): by the cost
// model (default, "auto"), none ("off"), exactly N of the costliest blocks ("N"), or the model
// with the host's cost per unit scaled by f ("xF"), for tests and measurements. Read at each
// launch (tests change it).
// The host share takes `fraction` of the decode's threads (GpuTileDecode::decode: half, a
// quarter for a middle part): the first part of a tile decoded in parts runs while Tier-2
// reads on and the next table is built on the pool, and the later parts' shares run beside
// the first's (their threads then help each other: drain_host_blocks).
entropy::cuda::HostShare host_share_setting(int threads, double fraction) {
  entropy::cuda::HostShare h;
  h.threads = static_cast<int>(threads * fraction);
  const char* v = std::getenv("GJ2K_GPU_T1_HOST");
  const std::string s = v ? v : "";
  if (s == "off") {
    h.forced = 0;
  } else if (!s.empty() && s[0] == 'x') {
    h.ms_per_unit = entropy::cuda::kHostMs * std::atof(s.c_str() + 1);
  } else if (!s.empty() && s != "auto") {
    h.forced = std::max<int64_t>(0, std::atoll(s.c_str()));
  }
  return h;
}

constexpr int kStreams = 3;  // component c runs on stream c % kStreams
// The Tier-1 launches of one decode from code-blocks (GpuTileDecode): part k runs on stream k.
constexpr size_t kTier1Parts = 3;
// Slot events beside those of components 0..2: the planes zeroed, a later part done.
constexpr size_t kZeroedEvent = 3, kPartEvent = 4;
constexpr size_t kAlign = 64;  // samples: every component starts on a 256-byte boundary

// What one Tier-1 launch of a decode from code-blocks keeps on the device: the table's bytes
// and segments, its jobs and reconstructions, the decoders' state, statuses and counter.
struct Tier1Buffers {
  cu::DeviceBuffer bytes, segs, jobs, recon, state, status, counter;
  cu::DeviceBuffer host_values, host_place;  // the blocks the host decoded (HostBlocks)
};

// One tile's worth of resources: streams, the staging ring, device coefficients and samples
// (same layout), DWT scratch per stream, events; for a decode from code-blocks
// (cuda_decode_tile, GpuTileDecode) the Tier-1 buffers of each of its parts.
struct Slot {
  cu::Stream streams[kStreams];
  cu::StagingRing ring;
  cu::DeviceBuffer coef, samp;
  cu::DeviceBuffer packed;  // decode_into: the tile's samples in the caller's format
  cu::DeviceBuffer ws[kStreams];
  Tier1Buffers t1[kTier1Parts];
  std::vector<std::unique_ptr<cu::Event>> events;

  Slot() = default;
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  ~Slot() {  // a slot dropped after a failure may still have work in flight
    for (const cu::Stream& s : streams) cudaStreamSynchronize(s.get());
  }
  void reserve(size_t samples) {
    coef.reserve(samples * 4);
    samp.reserve(samples * 4);
    ring.reserve(samples * 4);  // no transfer is larger than the tile
  }
  cudaEvent_t event(size_t i) {
    while (events.size() <= i) events.push_back(std::make_unique<cu::Event>());
    return events[i]->get();
  }
};

// The slots of context c (codec/context.h), or without one the process-wide pool, never
// destroyed.
cu::Pool<Slot>& slot_pool(ContextResources* c) {
  auto make = [] { return new cu::Pool<Slot>([] { return std::make_unique<Slot>(); }); };
  if (c) return c->gpu_object<cu::Pool<Slot>>(GpuObject::kDecoderSlots, make);
  static cu::Pool<Slot>* p = make();
  return *p;
}

// The current context's slots; selects the context's device for the calling thread.
cu::Pool<Slot>& pool() {
  use_context_device();
  return slot_pool(current_context());
}

size_t padded(size_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

class CudaBackend final : public TileBackend {
 public:
  const char* name() const override { return "cuda"; }
  void inverse(std::span<CoefficientPlane> planes, bool mct, int threads,
               std::vector<TileComponentSamples>& out) const override;
  TileCoefficients forward(const Image& image, const EncodeSetup& setup, uint32_t t,
                           ForwardPipeline* pipeline) const override {
    return transform_tile_gpu(image, setup, t, dynamic_cast<GpuLookAhead*>(pipeline));
  }
  std::unique_ptr<ForwardPipeline> forward_pipeline() const override {
    return std::make_unique<GpuLookAhead>();
  }
  TileCoding encode(const Image& image, const EncodeSetup& setup, const EncodeParams& params,
                    uint32_t t, ForwardPipeline* pipeline) const override {
    return encode_tile_gpu(image, setup, params, t, dynamic_cast<GpuLookAhead*>(pipeline));
  }
};

}  // namespace

// One call of CudaBackend::inverse: the slot, the layout of its device buffers, and where each
// component's data is after each stage.
class InverseRun {
 public:
  InverseRun(std::span<CoefficientPlane> comps, bool mct, int threads,
             const PackTarget* pack = nullptr)
      : comps_(comps),
        pack_(pack),
        mct_(mct),
        threads_(std::max(1, threads)),
        variant_(static_cast<cu::GpuDwtVariant>(transform::codec_gpu_dwt())),
        S_(comps.size(), nullptr),
        R_(comps.size(), nullptr),
        F_(comps.size(), nullptr) {
    if (mct_) check_mct();
    take_slot();
  }

  // The host's helpers claim blocks of every part (drain_host_blocks), so none may outlive any
  // part's lists: after an error on this thread, the blocks left unclaimed are dropped and the
  // helpers waited for before any member goes.
  ~InverseRun() {
    for (HostBlocks& h : host_) h.next.store(SIZE_MAX / 2);
    for (HostBlocks& h : host_)
      if (h.done.valid()) h.done.wait();
  }
  InverseRun(const InverseRun&) = delete;
  InverseRun& operator=(const InverseRun&) = delete;

  // From host coefficients (TileBackend::inverse).
  void run(std::vector<TileComponentSamples>& out) {
    // Each component up through the ring (the host copies of one overlap the DMA and the
    // inverse DWT of the previous), its inverse DWT enqueued at once.
    for (size_t c = 0; c < comps_.size(); ++c)
      if (needed(c)) {
        upload(c);
        idwt(c);
      }
    finish(out);
  }

  // From code-blocks (GpuTileDecode): Tier-1 and reconstruct_blocks of one part of the tile's
  // code-blocks (at most kTier1Parts, disjoint), part k on stream k, each at once, so that the
  // host may read and arrange the next part while the device decodes this one. The coefficient
  // planes are zeroed on stream 0 before the first (blocks without data stay zero).
  void decode(const CodeBlockTable& table, double share, double host_threads = 0.5) {
    if (parts_ == kTier1Parts)
      throw Error(ErrorCode::kInternal, "cuda backend: more Tier-1 parts than a slot holds");
    use_context_device();  // the caller may be another thread than the constructor's
    const size_t k = parts_++;
    if (k == 0) {
      for (size_t c = 0; c < comps_.size(); ++c)
        if (n_of(c)) GJ2K_CUDA_CHECK(cudaMemsetAsync(A(c), 0, n_of(c) * 4, st(0)));
      GJ2K_CUDA_CHECK(cudaEventRecord(slot().event(kZeroedEvent), st(0)));
    } else {
      GJ2K_CUDA_CHECK(cudaStreamWaitEvent(st(k), slot().event(kZeroedEvent), 0));
    }
    if (trace_enabled()) times_.push_back(std::make_unique<DeviceTimes>(st(k), k));
    decode_blocks(table, k, share, host_threads, times_.empty() ? nullptr : times_.back().get());
  }
  // After the parts: every stream waits for all of them, then the inverse DWTs and the rest of
  // the tail (finish). With GJ2K_TRACE, the device time of each part.
  void finish_blocks(std::vector<TileComponentSamples>& out) {
    if (parts_ == 0) decode(CodeBlockTable{}, 1.0);  // no blocks: zero planes
    // Every part's host blocks decoded (this thread helps), whichever helper claimed them.
    drain_host_blocks(0);
    for (HostBlocks& h : host_)
      if (h.done.valid()) h.done.wait();
    for (HostBlocks& h : host_)
      if (h.done.valid()) h.done.get();  // a helper's error
    for (size_t k = 0; k < parts_; ++k) place_host_blocks(k);
    for (size_t k = 1; k < parts_; ++k) {
      GJ2K_CUDA_CHECK(cudaEventRecord(slot().event(kPartEvent), st(k)));
      GJ2K_CUDA_CHECK(cudaStreamWaitEvent(st(0), slot().event(kPartEvent), 0));
    }
    join_stream0();
    if (!times_.empty()) tail_ = std::make_unique<TailTimes>(st(0));
    for (size_t c = 0; c < comps_.size(); ++c)
      if (needed(c)) idwt(c);
    if (tail_)
      for (size_t c = 0; c < kStreams; ++c) tail_->idwt[c].record(st(c));
    finish(out);
    for (const auto& t : times_) t->report(*times_.front());
    if (tail_) tail_->report();
  }

 private:
  bool needed(size_t c) const { return n_of(c) && (comps_[c].wanted || (mct_ && c < 3)); }

  // MCT or DC shift and clipping, then the samples down.
  void finish(std::vector<TileComponentSamples>& out) {
    colour_packed_ = mct_ && n_of(0) > 0 && colour_packs();
    if (mct_ && n_of(0) > 0 && !colour_packed_) inverse_mct();
    for (size_t c = mct_ ? 3 : 0; c < comps_.size(); ++c)
      if (n_of(c) && comps_[c].wanted) inverse_single(c);
    if (tail_) tail_->colour.record(st(0));
    download(out);
    lease_->succeeded();
  }

  void check_mct() const {
    if (comps_.size() < 3)
      throw Error(ErrorCode::kInternal, "cuda backend: the MCT needs 3 components");
    for (size_t c = 0; c < 3; ++c)
      if (!comps_[c].decode || comps_[c].rect != comps_[0].rect)
        throw Error(ErrorCode::kInternal,
                    "cuda backend: MCT components 0..2 must be decoded with equal sizes");
  }
  size_t n_of(size_t c) const { return comps_[c].decode ? comps_[c].rect.area() : 0; }
  cudaStream_t st(size_t c) const { return slot().streams[c % kStreams].get(); }
  Slot& slot() const { return **lease_; }
  int32_t* A(size_t c) const { return slot().coef.as<int32_t>() + offset_[c]; }
  int32_t* B(size_t c) const { return slot().samp.as<int32_t>() + offset_[c]; }
  // The buffer of c that p (one of c's) is not in.
  int32_t* other(size_t c, const void* p) const { return p == A(c) ? B(c) : A(c); }

  // Lays out the device buffers and takes a slot from the pool (it waits for the warm-up's
  // slots, GpuWarmUp), sized for this tile.
  void take_slot() {
    size_t total = 0;
    size_t ws_bytes[kStreams] = {};
    for (size_t c = 0; c < comps_.size(); ++c) {
      offset_.push_back(total);
      total += padded(n_of(c));
      const CoefficientPlane& k = comps_[c];
      if (n_of(c) && k.levels > 0)
        ws_bytes[c % kStreams] = std::max(
            ws_bytes[c % kStreams], cu::dwt_workspace_bytes(variant_, k.rect, k.levels, false));
    }
    lease_.emplace(pool());
    slot().reserve(total);
    for (int i = 0; i < kStreams; ++i) slot().ws[i].reserve(ws_bytes[i]);
    lease_->in_use();
  }

  // Coefficients of c up into A.
  void upload(size_t c) {
    const CoefficientPlane& k = comps_[c];
    const size_t n = n_of(c);
    if (k.ints.size() < n)
      throw Error(ErrorCode::kInternal,
                  "cuda backend: component " + std::to_string(c) + " has too few coefficients");
    slot().ring.upload(A(c), k.ints.data(), n * 4, st(c), threads_);  // 9/7: the floats' words
  }

  // From the coefficients in A: after the inverse DWT, S (5/3 integers) or F (9/7 floats) of c
  // is in A or B.
  void idwt(size_t c) {
    const CoefficientPlane& k = comps_[c];
    const size_t w = k.rect.width();
    cu::DeviceBuffer& ws = slot().ws[c % kStreams];
    if (k.reversible) {
      S_[c] = A(c);
      if (k.levels == 0) return;
      cu::dwt53_inverse(variant_, {A(c), w}, {B(c), w}, k.rect, k.levels, ws.get(), ws.bytes(),
                        st(c));
      S_[c] = B(c);
      return;
    }
    float* af = reinterpret_cast<float*>(A(c));
    float* bf = reinterpret_cast<float*>(B(c));
    F_[c] = af;
    if (k.levels == 0) return;
    cu::dwt97_inverse(variant_, {af, w}, {bf, w}, k.rect, k.levels, ws.get(), ws.bytes(), st(c));
    F_[c] = bf;
  }

  // Events of one Tier-1 part on its stream for the trace: start, inputs up, Tier-1 and
  // reconstruction done; the end is when the tile's download returns.
  struct DeviceTimes {
    cu::Event start, up, tier1;
    size_t part;
    std::chrono::steady_clock::time_point host_start = std::chrono::steady_clock::now();
    DeviceTimes(cudaStream_t s, size_t k) : part(k) { start.record(s); }
    // `first`: part 0's times (the device clock's origin for the part's start and end).
    void report(const DeviceTimes& first) {
      const double host =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start)
              .count();
      const double upload = cu::Event::elapsed_ms(start, up);
      const double t1 = cu::Event::elapsed_ms(up, tier1);
      trace_note(
          "gpu tile part %zu: %.1f ms (host, to the end), of which device: inputs up %.1f ms, "
          "tier-1 %.1f ms; device from part 0's start: %.1f to %.1f ms",
          part, host, upload, t1, cu::Event::elapsed_ms(first.start, start),
          cu::Event::elapsed_ms(first.start, tier1));
    }
  };

  // Events of the tail after the Tier-1 parts (from code-blocks, for the trace): the parts
  // joined, each stream's inverse DWTs, the colour stage (stream 0), the interleaved packing;
  // the download's host time.
  struct TailTimes {
    cu::Event joined, idwt[kStreams], colour, packed;
    bool was_packed = false;
    double download_ms = 0;
    size_t download_bytes = 0;
    explicit TailTimes(cudaStream_t s) { joined.record(s); }
    void report() {
      double idwt_ms = 0;
      for (const cu::Event& e : idwt)
        idwt_ms = std::max<double>(idwt_ms, cu::Event::elapsed_ms(joined, e));
      const double colour_ms = cu::Event::elapsed_ms(joined, colour);
      trace_note(
          "gpu tile tail: inverse DWTs %.2f ms, colour and DC shift to %.2f ms, packed to %.2f ms "
          "(device, from the parts' join); download %.2f ms, %zu bytes (%.1f GB/s)",
          idwt_ms, colour_ms, was_packed ? cu::Event::elapsed_ms(joined, packed) : colour_ms,
          download_ms, download_bytes,
          download_ms > 0 ? double(download_bytes) / download_ms / 1e6 : 0.0);
    }
  };

  // Tier-1 and reconstruct_blocks of the table into A on stream k with the slot's buffers of
  // part k. The first part's mapping is chosen by its costs as `share` of the tile's blocks
  // (arrange_for_decode); a later part takes the same one: the parts run at once, and a part
  // chosen as if alone took the thread mapping where the whole tile decodes faster in warps.
  void decode_blocks(const CodeBlockTable& t, size_t k, double share, double host_threads,
                     DeviceTimes* times) {
    namespace ecu = entropy::cuda;
    cudaStream_t s = st(k);
    Slot& sl = slot();
    Tier1Buffers& b = sl.t1[k];
    auto put = [&](cu::DeviceBuffer& d, const void* src, size_t bytes) {
      d.reserve(std::max<size_t>(bytes, 4));
      if (bytes) sl.ring.upload(d.get(), src, bytes, s, threads_);
    };
    // The segments and their bytes (the referenced source, then the copied bytes) go up on a
    // helper thread, which copies through the ring with the pool's threads, while this one
    // makes and arranges the jobs: the two took about as long each, one after the other. The
    // ring and stream 0 are the helper's until it is joined (bytes_up.get() below, or the
    // future's destructor, which waits, when this thread throws first).
    std::future<void> bytes_up = async_in_scope([&] {
      use_context_device();  // the caller's (async_in_scope carries its context)
      b.bytes.reserve(std::max<size_t>(t.source.size() + t.bytes.size(), 4));
      if (!t.source.empty())
        sl.ring.upload(b.bytes.get(), t.source.data(), t.source.size(), s, threads_);
      if (!t.bytes.empty())
        sl.ring.upload(b.bytes.as<uint8_t>() + t.source.size(), t.bytes.data(), t.bytes.size(), s,
                       threads_);
      put(b.segs, t.segments.data(), t.segments.size() * sizeof(t.segments[0]));
    });
    TraceStage trace_jobs("gpu tier-1 jobs");
    // Each block's job and reconstruction, in runs of blocks on the pool's threads.
    std::vector<ecu::BlockJob> jobs(t.blocks.size());
    std::vector<cu::ReconstructJob> recon(t.blocks.size());
    std::atomic<size_t> most_words{0};
    core::parallel_blocks(
        t.blocks.size(),
        [&](size_t first, size_t last) {
          size_t words = 0;
          for (size_t i = first; i < last; ++i) {
            const CodeBlockTable::Block& b = t.blocks[i];
            if (b.component >= comps_.size() || !n_of(b.component))
              throw Error(ErrorCode::kInternal,
                          "cuda backend: a code-block of an undecoded component");
            const CoefficientPlane& k = comps_[b.component];
            const uint64_t at = offset_[b.component] + uint64_t{b.y} * k.rect.width() + b.x;
            jobs[i] = {at,  k.rect.width(), b.seg_first, b.seg_count, b.w,
                       b.h, b.planes,       b.band,      b.style};
            recon[i] = {at, k.rect.width(), b.w, b.h, b.q};
            words = std::max(words, entropy::t1::state_words(b.w, b.h));
          }
          for (size_t seen = most_words.load(); words > seen;)
            if (most_words.compare_exchange_weak(seen, words)) break;
        },
        threads_);
    const size_t state_words = most_words.load();
    if (jobs.empty()) {
      bytes_up.get();
      if (times) times->up.record(s), times->tier1.record(s);
      return;
    }
    trace_jobs.end();
    TraceStage trace_arrange("gpu tier-1 arrange");
    const int sms = std::max(1, transform::gpu_info().multiprocessors);
    ecu::WarpSlot warp_slot;
    const PartMapping set = t1_decode_mapping(k);
    const ecu::DecodeMapping want =
        k > 0 && set.want == ecu::DecodeMapping::kAuto && !set.own ? mapping_ : set.want;
    ecu::HostShare host = host_share_setting(threads_, host_threads);
    mapping_ = ecu::arrange_for_decode(jobs, t.segments, sms, want, &warp_slot, share, &host);
    const bool warps = mapping_ == ecu::DecodeMapping::kWarps;
    if (!host.blocks.empty()) {
      decode_on_host(t, k, host.blocks, std::max(1, host.threads), recon);
      std::vector<uint8_t> on_host(recon.size(), 0);
      for (const size_t i : host.blocks) on_host[i] = 1;
      size_t n = 0;  // the device reconstructs only its own blocks
      for (size_t i = 0; i < recon.size(); ++i)
        if (!on_host[i]) recon[n++] = recon[i];
      recon.resize(n);
    }
    const size_t workspace =
        warps ? ecu::warp_workspace_words(static_cast<uint32_t>(jobs.size()), sms, warp_slot)
              : ecu::decode_threads(static_cast<uint32_t>(jobs.size()), sms) * state_words;
    trace_arrange.end();
    trace_note("gpu tier-1 part %zu: %zu code-blocks, %s mapping, %zu of them on the host", k,
               t.blocks.size(), warps ? "warp" : "thread", host.blocks.size());
    TraceStage trace_up("gpu tier-1 inputs up");
    bytes_up.get();  // the helper's error, if any, is thrown here
    put(b.jobs, jobs.data(), jobs.size() * sizeof(jobs[0]));
    put(b.recon, recon.data(), recon.size() * sizeof(recon[0]));
    b.state.reserve(std::max<size_t>(workspace, 1) * 4);
    b.status.reserve(jobs.size());
    b.counter.reserve(4);
    if (times) times->up.record(s);
    trace_up.end();
    if (warps)
      ecu::decode_blocks_in_warps(b.jobs.as<ecu::BlockJob>(), static_cast<uint32_t>(jobs.size()),
                                  b.segs.as<entropy::t1::SegmentRef>(), b.bytes.as<uint8_t>(),
                                  sl.coef.as<int32_t>(), b.status.as<uint8_t>(),
                                  b.state.as<uint32_t>(), b.state.bytes() / 4, warp_slot,
                                  b.counter.as<uint32_t>(), sms, s);
    else
      ecu::decode_blocks(b.jobs.as<ecu::BlockJob>(), static_cast<uint32_t>(jobs.size()),
                         b.segs.as<entropy::t1::SegmentRef>(), b.bytes.as<uint8_t>(),
                         sl.coef.as<int32_t>(), b.status.as<uint8_t>(), b.state.as<uint32_t>(),
                         b.state.bytes() / 4, state_words, b.counter.as<uint32_t>(), sms, s);
    cu::reconstruct_blocks(b.recon.as<cu::ReconstructJob>(), static_cast<uint32_t>(recon.size()),
                           sl.coef.as<int32_t>(), s);
    if (times) times->tier1.record(s);
  }
  // The costliest blocks of part k that the host decodes while the device decodes the rest
  // (entropy::cuda::HostShare): entropy::decode_block and transform::reconstruct_block, the
  // CPU decode's functions (identical values to the kernels'), each block's coefficients packed
  // into `values`. The blocks are claimed one at a time (`next`, costliest first), so that the
  // threads of a part whose blocks are done, and the decode's own thread once it waits in
  // finish_blocks, help with the others' blocks instead of idling.
  struct HostBlocks {
    const CodeBlockTable* table = nullptr;
    std::vector<size_t> blocks;  // indices into table->blocks, costliest first
    std::vector<transform::BlockReconstruction> rules;
    std::vector<int32_t, DefaultInitAllocator<int32_t>> values;
    std::vector<entropy::cuda::PlaceJob> place;
    std::atomic<size_t> next{0};    // the next block to claim
    std::atomic<bool> open{false};  // the fields above are set (release / acquire)
    std::future<void> done;         // destroyed first: waits for the helper
  };

  // Decodes the next unclaimed block of h; false when none is left (or h is not open yet).
  static bool decode_one_on_host(HostBlocks& h) {
    if (!h.open.load(std::memory_order_acquire)) return false;
    const size_t r = h.next.fetch_add(1, std::memory_order_relaxed);
    if (r >= h.blocks.size()) return false;
    const CodeBlockTable& t = *h.table;
    const CodeBlockTable::Block& b = t.blocks[h.blocks[r]];
    thread_local std::vector<entropy::Segment> segs;
    segs.clear();
    for (uint32_t s = 0; s < b.seg_count; ++s) {
      const entropy::t1::SegmentRef& ref = t.segments[b.seg_first + s];
      const uint8_t* data = ref.offset < t.source.size()
                                ? t.source.data() + ref.offset
                                : t.bytes.data() + (ref.offset - t.source.size());
      segs.push_back({data, ref.length, ref.passes});
    }
    int32_t* v = h.values.data() + h.place[r].src_offset;
    auto decode = [&](int32_t* out) {
      entropy::decode_block(segs.data(), segs.size(), b.planes, static_cast<core::Band>(b.band),
                            b.style, out, b.w, b.w, b.h);
    };
    if (h.rules[r].reversible) {
      decode(v);
      transform::reconstruct_block(v, b.w, b.w, b.h, h.rules[r]);
      return true;
    }
    // 9/7: the floats' bits, as reconstruct_blocks leaves them in the device's buffer.
    thread_local std::vector<int32_t> half;
    half.resize(size_t{b.w} * b.h);
    decode(half.data());
    transform::reconstruct_block(half.data(), b.w, b.w, b.h, h.rules[r],
                                 reinterpret_cast<float*>(v), b.w);
    return true;
  }

  // Claims and decodes blocks of part `first`, then of the other parts, until none is left.
  void drain_host_blocks(size_t first) {
    for (size_t j = 0; j < kTier1Parts; ++j)
      while (decode_one_on_host(host_[(first + j) % kTier1Parts])) {
      }
  }

  // Starts the host's decode of t.blocks[i] for i in `blocks` (costliest first) on `threads`
  // threads; recon: every block's reconstruction, as decode_blocks made them. t must live
  // until finish_blocks.
  void decode_on_host(const CodeBlockTable& t, size_t k, const std::vector<size_t>& blocks,
                      int threads, const std::vector<cu::ReconstructJob>& recon) {
    HostBlocks& h = host_[k];
    h.table = &t;
    h.blocks = blocks;
    h.place.resize(blocks.size());
    h.rules.resize(blocks.size());
    uint64_t at = 0;
    for (size_t r = 0; r < blocks.size(); ++r) {
      const cu::ReconstructJob& q = recon[blocks[r]];
      h.place[r] = {q.offset, at, q.stride, q.w, q.h};
      h.rules[r] = q.q;
      at += uint64_t{q.w} * q.h;
    }
    h.values.resize(at);
    h.open.store(true, std::memory_order_release);
    g_host_blocks += blocks.size();
    trace_note("host tier-1 of gpu part %zu: %zu code-blocks", k, blocks.size());
    h.done = async_in_scope([this, k, threads] {
      TraceStage trace("host tier-1 of a gpu part");
      core::parallel_for(
          0, static_cast<size_t>(threads), 1, [&](size_t) { drain_host_blocks(k); }, threads);
    });
  }

  // Part k's host-decoded blocks (decode_on_host), once done, up and into place on stream k,
  // after its Tier-1 and reconstruction (which skipped them).
  void place_host_blocks(size_t k) {
    HostBlocks& h = host_[k];
    if (h.blocks.empty()) return;
    Tier1Buffers& b = slot().t1[k];
    b.host_values.reserve(std::max<size_t>(h.values.size() * 4, 4));
    b.host_place.reserve(std::max<size_t>(h.place.size() * sizeof(h.place[0]), 4));
    slot().ring.upload(b.host_values.get(), h.values.data(), h.values.size() * 4, st(k), threads_);
    slot().ring.upload(b.host_place.get(), h.place.data(), h.place.size() * sizeof(h.place[0]),
                       st(k), threads_);
    entropy::cuda::place_blocks(b.host_place.as<entropy::cuda::PlaceJob>(),
                                static_cast<uint32_t>(h.place.size()), b.host_values.as<int32_t>(),
                                slot().coef.as<int32_t>(), st(k));
  }

  void join_stream0() {
    GJ2K_CUDA_CHECK(cudaEventRecord(slot().event(0), st(0)));
    for (size_t c = 1; c < kStreams; ++c)
      GJ2K_CUDA_CHECK(cudaStreamWaitEvent(st(c), slot().event(0), 0));
  }

  // The DC shifts and sample ranges of components 0..2 (G.1.2), for the colour kernels.
  void mct_bounds(cu::Int3& off, cu::Int3& lo, cu::Int3& hi) const {
    for (size_t c = 0; c < 3; ++c) {
      off.v[c] = comps_[c].offset;
      lo.v[c] = comps_[c].lo;
      hi.v[c] = comps_[c].hi;
    }
  }

  // Whether the MCT is left to download_packed, fused with the packing (rct_inverse_pack /
  // ict_inverse_pack: the bytes of inverse_mct then pack_rect, without the int32 samples):
  // components 0..2 all go into interleaved pixels and all take the same transform.
  bool colour_packs() const {
    if (!pack_ || !pack_->interleaved) return false;
    for (size_t c = 0; c < 3; ++c)
      if (!packs(c) || comps_[c].reversible != comps_[0].reversible) return false;
    return true;
  }

  // G.2 / G.3 with DC shift and clipping on stream 0 once streams 1 and 2 have their inverse
  // DWTs done; the final samples R of 0..2.
  void inverse_mct() {
    const size_t n = n_of(0);
    cu::Int3 off, lo, hi;
    mct_bounds(off, lo, hi);
    for (size_t c = 1; c < 3; ++c) {
      GJ2K_CUDA_CHECK(cudaEventRecord(slot().event(c), st(c)));
      GJ2K_CUDA_CHECK(cudaStreamWaitEvent(st(0), slot().event(c), 0));
    }
    if (comps_[0].reversible && comps_[1].reversible && comps_[2].reversible) {
      cu::rct_inverse_dc_shift(S_[0], S_[1], S_[2], n, off, lo, hi, st(0));
      for (size_t c = 0; c < 3; ++c) R_[c] = S_[c];
    } else {
      for (size_t c = 0; c < 3; ++c)
        if (comps_[c].reversible) {  // mixed kernels: the integers to float, in place
          F_[c] = reinterpret_cast<float*>(S_[c]);
          cu::dc_shift_to_float(S_[c], F_[c], n, 0, st(0));
        }
      for (size_t c = 0; c < 3; ++c) R_[c] = other(c, F_[c]);
      cu::ict_inverse_dc_shift(F_[0], F_[1], F_[2], R_[0], R_[1], R_[2], n, off, lo, hi, st(0));
    }
    GJ2K_CUDA_CHECK(cudaEventRecord(slot().event(0), st(0)));
    for (size_t c = 1; c < 3; ++c) GJ2K_CUDA_CHECK(cudaStreamWaitEvent(st(c), slot().event(0), 0));
  }

  // G.1.2 and clipping of a component without MCT; its final samples R.
  void inverse_single(size_t c) {
    const CoefficientPlane& k = comps_[c];
    const size_t n = n_of(c);
    if (k.reversible) {
      cu::dc_shift_inverse_clamp(S_[c], n, k.offset, k.lo, k.hi, st(c));
      R_[c] = S_[c];
    } else {
      R_[c] = other(c, F_[c]);
      cu::float_to_int_dc_shift(F_[c], R_[c], n, k.offset, k.lo, k.hi, st(c));
    }
  }

  // Whether c's samples go to the caller's buffer packed (PackTarget): an output, and for an
  // interleaved buffer every output of the tile with the same rect (one download of whole
  // pixels).
  bool packs(size_t c) const {
    if (!pack_ || !comps_[c].decode || !comps_[c].wanted || pack_->components[c].k < 0)
      return false;
    if (!pack_->interleaved) return true;
    for (size_t d = 0; d < comps_.size(); ++d)
      if (pack_->components[d].k >= 0 &&
          (!comps_[d].decode || !comps_[d].wanted || comps_[d].rect != comps_[c].rect))
        return false;
    return true;
  }

  // The final samples of R of c over `cut` (within c's rect).
  const int32_t* final_at(size_t c, const Rect& cut) const {
    const Rect& r = comps_[c].rect;
    return R_[c] + size_t{cut.y0 - r.y0} * r.width() + (cut.x0 - r.x0);
  }

  // inverse_mct fused with the packing of components 0..2 (colour_packs) over `cut`, into the
  // interleaved pixels at d_packed, on stream 0 (download_packed has it wait for 1 and 2).
  void colour_pack(const Rect& cut, uint8_t* d_packed, const transform::PackRect& r) {
    const PackTarget& t = *pack_;
    const Rect& rect = comps_[0].rect;
    const size_t at = size_t{cut.y0 - rect.y0} * rect.width() + (cut.x0 - rect.x0);
    cu::Int3 off, lo, hi, to;
    mct_bounds(off, lo, hi);
    for (size_t c = 0; c < 3; ++c)
      to.v[c] = t.components[c].k * static_cast<int32_t>(t.format.bytes);
    if (comps_[0].reversible)
      cu::rct_inverse_pack(S_[0] + at, S_[1] + at, S_[2] + at, d_packed, r, t.format, to, off, lo,
                           hi, st(0));
    else
      cu::ict_inverse_pack(F_[0] + at, F_[1] + at, F_[2] + at, d_packed, r, t.format, to, off, lo,
                           hi, st(0));
  }

  // The outputs packed on the device into `packed`, their bytes down into the caller's buffer:
  // planar, each component on its stream as soon as it is done; interleaved, once all are,
  // whole pixels on stream 0. Marks them packed in out.
  void download_packed(std::vector<TileComponentSamples>& out) {
    const PackTarget& t = *pack_;
    const size_t bytes = t.format.bytes;
    size_t total = 0;
    for (size_t c = 0; c < comps_.size(); ++c)
      if (packs(c)) total += n_of(c) * bytes;
    slot().packed.reserve(std::max<size_t>(total, 4));
    uint8_t* d_packed = slot().packed.as<uint8_t>();
    if (t.interleaved) {
      for (size_t c = 1; c < kStreams; ++c) {
        GJ2K_CUDA_CHECK(cudaEventRecord(slot().event(c), st(c)));
        GJ2K_CUDA_CHECK(cudaStreamWaitEvent(st(0), slot().event(c), 0));
      }
    }
    Rect cut;
    uint8_t* dst = nullptr;
    for (size_t c = 0; c < comps_.size(); ++c) {
      if (!packs(c)) continue;
      out[c].rect = comps_[c].rect;
      out[c].packed = true;
      Samples().swap(out[c].samples);
      dst = t.place(c, comps_[c].rect, cut);
      if (!dst) continue;
      transform::PackRect r;
      r.width = cut.width();
      r.height = cut.height();
      r.src_pitch = comps_[c].rect.width();
      r.dst_pixel = t.pixel_step;
      if (t.interleaved) {  // pixels of all outputs, component k at byte k * bytes
        r.dst_row = size_t{cut.width()} * t.pixel_step;
        if (colour_packed_ && c < 3) {  // 0..2 at once, from the inverse DWTs' output
          if (c == 0) colour_pack(cut, d_packed, r);
          continue;
        }
        cu::pack_rect(final_at(c, cut), d_packed + size_t(t.components[c].k) * bytes, r, t.format,
                      st(0));
        continue;
      }
      r.dst_row = size_t{cut.width()} * bytes;
      cu::pack_rect(final_at(c, cut), d_packed, r, t.format, st(c));
      slot().ring.download_rows(dst, t.row_stride, d_packed, r.dst_row, cut.height(), st(c),
                                threads_);
      d_packed += r.dst_row * cut.height();
    }
    if (t.interleaved && dst) {  // dst: output 0's place, the pixels' first byte
      for (size_t c = 0; c < comps_.size(); ++c)
        if (packs(c) && t.components[c].k == 0) dst = t.place(c, comps_[c].rect, cut);
      if (tail_) {  // the download timed alone: from the packed samples' readiness
        tail_->packed.record(st(0));
        tail_->was_packed = true;
        GJ2K_CUDA_CHECK(cudaEventSynchronize(tail_->packed.get()));
      }
      const auto start = std::chrono::steady_clock::now();
      slot().ring.download_rows(dst, t.row_stride, d_packed, size_t{cut.width()} * t.pixel_step,
                                cut.height(), st(0), threads_);
      if (tail_) {
        tail_->download_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        tail_->download_bytes = size_t{cut.width()} * t.pixel_step * cut.height();
      }
    }
  }

  // Samples down through the ring, a component as soon as its stream is done, into out[c];
  // with a PackTarget, those packs() takes go packed into the caller's buffer instead.
  void download(std::vector<TileComponentSamples>& out) {
    out.resize(comps_.size());
    if (pack_) download_packed(out);
    for (size_t c = 0; c < comps_.size(); ++c) {
      CoefficientPlane& k = comps_[c];
      if (!k.decode || !k.wanted || out[c].packed) continue;
      const size_t n = n_of(c);
      out[c].rect = k.rect;
      if (out[c].samples.size() != n && k.reversible && k.ints.size() == n)
        out[c].samples = std::move(k.ints);  // reused: every coefficient is up by now
      if (out[c].samples.size() != n) {
        Samples().swap(out[c].samples);
        out[c].samples.resize(n);  // not zeroed: the download writes every sample
      }
      if (n) slot().ring.download(out[c].samples.data(), R_[c], n * 4, st(c), threads_);
    }
    for (const cu::Stream& stream : slot().streams) stream.synchronize();  // and any late fault
  }

  std::span<CoefficientPlane> comps_;
  const PackTarget* pack_;
  bool mct_;
  int threads_;
  cu::GpuDwtVariant variant_;
  std::optional<cu::Lease<Slot>> lease_;
  size_t parts_ = 0;  // Tier-1 parts enqueued (decode)
  entropy::cuda::DecodeMapping mapping_ = entropy::cuda::DecodeMapping::kAuto;  // the first's
  std::vector<std::unique_ptr<DeviceTimes>> times_;
  std::unique_ptr<TailTimes> tail_;  // with the trace, from code-blocks
  bool colour_packed_ = false;       // the MCT fused with the packing (colour_packs)
  std::vector<size_t> offset_;
  HostBlocks host_[kTier1Parts];  // last: destroyed first, waiting for the host's decodes
  std::vector<int32_t*> S_, R_;
  std::vector<float*> F_;
};

void CudaBackend::inverse(std::span<CoefficientPlane> comps, bool mct, int threads,
                          std::vector<TileComponentSamples>& out) const {
  InverseRun(comps, mct, threads).run(out);
}

struct GpuTileDecode::Impl {
  InverseRun run;
};

GpuTileDecode::GpuTileDecode(std::span<CoefficientPlane> planes, bool mct, int threads,
                             const PackTarget* pack)
    : impl_(new Impl{InverseRun(planes, mct, threads, pack)}) {}
GpuTileDecode::~GpuTileDecode() = default;
void GpuTileDecode::decode(const CodeBlockTable& table, double share, double host_threads) {
  impl_->run.decode(table, share, host_threads);
}
void GpuTileDecode::finish(std::vector<TileComponentSamples>& out) {
  impl_->run.finish_blocks(out);
}

uint64_t gpu_decode_host_blocks() {
  return g_host_blocks.load();
}

void cuda_decode_tile(std::span<CoefficientPlane> planes, const CodeBlockTable& table, bool mct,
                      int threads, std::vector<TileComponentSamples>& out, const PackTarget* pack) {
  GpuTileDecode gpu(planes, mct, threads, pack);
  gpu.decode(table);
  gpu.finish(out);
}

bool device_out_of_memory(const Error& e) {
  return cu::out_of_memory(e);
}

size_t release_gpu_pools() {
  return slot_pool(nullptr).clear() + release_encoder_gpu_pool() + release_context_gpu_objects();
}

struct GpuWarmUp::Impl {
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

GpuWarmUp::GpuWarmUp(bool required) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.required = required;
  m.present = m.gpu.get_future().share();
  try {
    // The caller's context: its device and its slots (codec/context.h).
    m.done = std::async(std::launch::async, [&gpu = m.gpu, f = m.sizes.get_future(),
                                             context = current_context()]() mutable {
      const core::ThreadScope scope(0, nullptr, context);
      try {
        use_context_device();
      } catch (...) {  // the decode meets the error when it selects the device
        return gpu.set_value(false);
      }
      if (!transform::open_gpu()) return gpu.set_value(false);  // the query, the context
      const Impl::Sizes s = f.get();  // the destructor posts {0, 0} if prepare() never did
      // Only the slots the pool lacks: those free now serve this decode (a taker regrows one
      // sized for a smaller tile), so that decodes one after another, or a batch's in flight,
      // reuse the same few slots instead of adding theirs each time.
      cu::Pool<Slot>& slots = pool();
      const int make = std::max(0, s.slots - static_cast<int>(slots.free_count()));
      slots.expect(make);  // before any taker can see the answer
      gpu.set_value(true);
      for (int i = 0; i < make; ++i) {
        std::unique_ptr<Slot> slot;
        try {
          slot = std::make_unique<Slot>();
          slot->reserve(s.samples);
        } catch (...) {
          slot.reset();  // a taker makes its own and meets the error there
        }
        slots.fulfil(std::move(slot));
      }
    });
  } catch (...) {  // no thread: ask here
    m.gpu.set_value(transform::gpu_info().available);
  }
}

void GpuWarmUp::prepare(size_t tile_samples, size_t components, int slots) {
  Impl& m = *impl_;
  if (!m.done.valid() || m.posted) return;
  m.posted = true;
  m.sizes.set_value({tile_samples + components * kAlign, std::max(0, slots)});
}

bool GpuWarmUp::use() const {
  if (impl_->present.get()) return true;
  if (impl_->required) transform::resolve_device(transform::Device::kGpu);  // throws why
  return false;
}

bool GpuWarmUp::may_use() const {
  const auto& f = impl_->present;
  return impl_->required || f.wait_for(std::chrono::seconds(0)) != std::future_status::ready ||
         f.get();
}

GpuWarmUp::~GpuWarmUp() {
  if (!impl_->done.valid()) return;
  if (!impl_->posted) impl_->sizes.set_value({0, 0});
  impl_->done.wait();
}

const TileBackend& cuda_backend() {
  static const CudaBackend backend;
  return backend;
}

}  // namespace gj2k::codec

#else  // built without CUDA: the GPU is never used, the backend refuses if called

namespace gj2k::codec {
namespace {

class CudaBackend final : public TileBackend {
 public:
  const char* name() const override { return "cuda"; }
  void inverse(std::span<CoefficientPlane>, bool, int,
               std::vector<TileComponentSamples>&) const override {
    throw Error(ErrorCode::kDevice, "cuda backend: gj2k was built without CUDA");
  }
  TileCoefficients forward(const Image&, const EncodeSetup&, uint32_t,
                           ForwardPipeline*) const override {
    throw Error(ErrorCode::kDevice, "cuda backend: gj2k was built without CUDA");
  }
};

}  // namespace

struct GpuWarmUp::Impl {
  bool required = false;
};
GpuWarmUp::GpuWarmUp(bool required) : impl_(std::make_unique<Impl>()) {
  impl_->required = required;
}
void GpuWarmUp::prepare(size_t, size_t, int) {}
bool GpuWarmUp::use() const {
  if (impl_->required) transform::resolve_device(transform::Device::kGpu);  // throws why
  return false;
}
bool GpuWarmUp::may_use() const {
  return impl_->required;
}
GpuWarmUp::~GpuWarmUp() = default;

const TileBackend& cuda_backend() {
  static const CudaBackend backend;
  return backend;
}

struct GpuTileDecode::Impl {};
GpuTileDecode::GpuTileDecode(std::span<CoefficientPlane>, bool, int, const PackTarget*) {
  throw Error(ErrorCode::kDevice, "cuda backend: gj2k was built without CUDA");
}
GpuTileDecode::~GpuTileDecode() = default;
void GpuTileDecode::decode(const CodeBlockTable&, double, double) {}
void GpuTileDecode::finish(std::vector<TileComponentSamples>&) {}

void cuda_decode_tile(std::span<CoefficientPlane>, const CodeBlockTable&, bool, int,
                      std::vector<TileComponentSamples>&, const PackTarget*) {
  throw Error(ErrorCode::kDevice, "cuda backend: gj2k was built without CUDA");
}

uint64_t gpu_decode_host_blocks() {
  return 0;
}

bool device_out_of_memory(const Error&) {
  return false;
}

size_t release_gpu_pools() {
  return 0;
}

}  // namespace gj2k::codec

#endif  // GJ2K_HAVE_CUDA
