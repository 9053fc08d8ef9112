// Batches of codestreams and images in memory (decode_batch, encode_batch) and the thread
// sharing they and the CLI's batches use (codec/batch.h).
#include "codec/batch.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "codec/api_guard.h"
#include "codec/device.h"
#include "core/thread_pool.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"

namespace gj2k {
namespace codec {

int batch_threads(int requested) {
  return requested > 0 ? requested : core::max_threads();
}

int batch_workers(int threads, size_t items) {
  return static_cast<int>(std::max<size_t>(1, std::min<size_t>(std::max(threads, 1), items)));
}

bool batch_on_cpu(transform::Device requested, uint64_t samples, int threads, uint64_t tiles) {
  return transform::auto_choice_encode(requested, samples, threads, tiles) ==
         transform::Device::kCpu;
}

bool batch_decode_on_cpu(transform::Device requested, uint64_t samples, uint64_t bytes, int threads,
                         uint64_t tiles) {
  return transform::auto_choice_decode(requested, samples, bytes, threads, tiles) ==
         transform::Device::kCpu;
}

namespace {

// Whether an image of `samples` runs alone on all the threads (batch.h, BatchShare).
bool runs_alone(int workers, uint64_t samples) {
  return workers <= 1 || samples >= kBatchConcurrentMaxSamples;
}

// The threads of an image that does not run alone, on the GPU or the CPU.
int shared_threads(int threads, int workers, bool gpu) {
  return std::max(1, threads / (gpu ? std::min(workers, kBatchGpuInFlight) : workers));
}

}  // namespace

BatchShare batch_encode_share(transform::Device requested, uint64_t samples, int threads,
                              int workers) {
  threads = std::max(threads, 1);
  BatchShare s;
  const bool alone = runs_alone(workers, samples);
  s.gpu =
      !batch_on_cpu(requested, samples, alone ? threads : shared_threads(threads, workers, false));
  s.threads = alone ? threads : shared_threads(threads, workers, s.gpu);
  return s;
}

BatchShare batch_decode_share(transform::Device requested, uint64_t samples, uint64_t bytes,
                              int threads, int workers, uint64_t tiles) {
  threads = std::max(threads, 1);
  BatchShare s;
  if (runs_alone(workers, samples)) {
    s.threads = threads;
    s.gpu = !batch_decode_on_cpu(requested, samples, bytes, threads, tiles);
    return s;
  }
  s.gpu = !batch_decode_on_cpu(requested, samples, bytes, shared_threads(threads, workers, false),
                               tiles);
  s.threads = shared_threads(threads, workers, s.gpu);
  return s;
}

void ThreadBudget::acquire(int n) {
  n = std::clamp(n, 1, total_);
  std::unique_lock lock(mutex_);
  const uint64_t ticket = next_ticket_++;
  changed_.wait(lock, [&] { return serving_ == ticket && free_ >= n; });
  free_ -= n;
  ++serving_;
  changed_.notify_all();
}

bool ThreadBudget::try_acquire(int n) {
  n = std::clamp(n, 1, total_);
  std::lock_guard lock(mutex_);
  if (serving_ != next_ticket_ || free_ < n) return false;
  ++next_ticket_;
  ++serving_;
  free_ -= n;
  return true;
}

// --device auto for an image of a decode batch, by the costs as the batch runs its images: on
// the CPU the batch's threads share the work, so an image costs what it would on all of them;
// on the GPU one that runs alone costs its decode, one beside others the batch's GPU throughput
// (kBatchStealCosts: host work between short kernels, kBatchGpuInFlight in flight); CUDA's
// start-up, not yet paid, is weighed against this image and the `remaining` ones after it,
// taken to be like it (transform::auto_choice_by_costs; `record`: what a CPU placement misses).
bool batch_auto_on_gpu(uint64_t samples, uint64_t bytes, int threads, bool alone, uint64_t tiles,
                       size_t remaining, bool record) {
  if (samples == 0) return false;
  const double cpu = transform::decode_cpu_ms(samples, bytes, threads);
  double gpu = transform::decode_gpu_ms(samples, bytes, tiles);
  if (!alone) gpu = std::max(gpu, double(samples) * kBatchStealCosts.gpu_ns_per_sample * 1e-6);
  return transform::auto_choice_by_costs(cpu, gpu, remaining, record) != transform::Device::kCpu;
}

bool batch_auto_likely_gpu(uint64_t samples, uint64_t bytes, int threads, int workers,
                           uint64_t tiles, size_t remaining) {
  return batch_auto_on_gpu(samples, bytes, std::max(threads, 1), runs_alone(workers, samples),
                           tiles, remaining, false);
}

void place_batch_decode(BatchDecodePlace& place, transform::Device requested, uint64_t samples,
                        uint64_t bytes, int threads, int workers, uint64_t tiles,
                        ThreadBudget& gpu_places, size_t remaining, bool gpu_open) {
  place.alone = runs_alone(workers, samples);
  place.ahead = remaining;
  if (requested == transform::Device::kAuto) {
    threads = std::max(threads, 1);
    place.share.gpu =
        batch_auto_on_gpu(samples, bytes, threads, place.alone, tiles, remaining, true);
    place.share.threads = place.alone ? threads : shared_threads(threads, workers, place.share.gpu);
  } else {
    place.share = batch_decode_share(requested, samples, bytes, threads, workers, tiles);
  }
  if (!place.share.gpu) return;
  const BatchStealCosts& k = kBatchStealCosts;
  const double cpu_ns = double(samples) * k.cpu_ns_per_sample + double(bytes) * k.cpu_ns_per_byte;
  const double gpu_ns_left = double(remaining) * double(samples) * k.gpu_ns_per_sample;
  const bool may_steal =
      requested == transform::Device::kAuto && !place.alone && cpu_ns <= gpu_ns_left;
  if (!may_steal) {
    place.gpu_place.emplace(gpu_places, 1);
    return;
  }
  if (gpu_open && gpu_places.try_acquire(1)) {
    place.gpu_place.emplace(gpu_places, 1, std::adopt_lock);
    return;
  }
  place.share.gpu = false;
  place.share.threads = shared_threads(std::max(threads, 1), workers, false);
}

void BatchDecodePlace::apply(DecodeParams& p) const {
  p.threads = static_cast<uint32_t>(share.threads);
  if (!share.gpu && p.device == DecodeDevice::kAuto) p.device = DecodeDevice::kCpu;
}

void ThreadBudget::release(int n) {
  n = std::clamp(n, 1, total_);
  {
    std::lock_guard lock(mutex_);
    free_ += n;
  }
  changed_.notify_all();
}

size_t ThreadBudget::waiting() const {
  std::lock_guard lock(mutex_);
  return static_cast<size_t>(next_ticket_ - serving_);
}

namespace {

// Calls item(k, workers, budget) for k in [0, n): batch_workers(threads, n) workers (the
// calling thread one of them) take the indices in order; each item leases its threads from
// `budget` (batch_encode_share, batch_decode_share).
void for_each_in_batch(size_t n, int threads,
                       const std::function<void(size_t, int, ThreadBudget&)>& item) {
  const int workers = batch_workers(threads, n);
  ThreadBudget budget(threads);
  std::atomic<size_t> next{0};
  // The items' own loops run on the caller's pool (core/thread_pool.h), each within its lease.
  const core::ThreadScope batch_scope(threads);
  core::ThreadPool* const pool = &core::current_pool();
  auto work = [&] {
    const core::ThreadScope scope(0, pool);
    for (size_t k = next++; k < n; k = next++) item(k, workers, budget);
  };
  std::vector<std::jthread> workers_of_batch;
  for (int w = 1; w < workers; ++w) workers_of_batch.emplace_back(work);
  work();
}

// The callbacks of a batch: called one at a time from the workers; warnings are prefixed with
// the input's index; once progress returns false, every later call returns false too.
class SharedCallbacks {
 public:
  SharedCallbacks(const std::function<bool(const char*, double)>& progress,
                  const std::function<void(const std::string&)>& on_warning)
      : progress_(progress), on_warning_(on_warning) {}

  bool cancelled() const { return cancelled_; }
  std::function<bool(const char*, double)> progress() {
    if (!progress_) return {};
    return [this](const char* stage, double fraction) {
      if (cancelled_) return false;
      std::lock_guard lock(mutex_);
      if (!cancelled_ && !progress_(stage, fraction)) cancelled_ = true;
      return !cancelled_;
    };
  }
  std::function<void(const std::string&)> on_warning(const std::string& name) {
    if (!on_warning_) return {};
    return [this, name](const std::string& w) {
      std::lock_guard lock(mutex_);
      on_warning_(name + ": " + w);
    };
  }

 private:
  std::function<bool(const char*, double)> progress_;
  std::function<void(const std::string&)> on_warning_;
  std::mutex mutex_;
  std::atomic<bool> cancelled_{false};
};

std::string input_name(const char* what, size_t k) {
  return std::string(what) + " " + std::to_string(k);
}

uint64_t image_samples(const Image& image) {
  uint64_t samples = 0;
  for (const Component& c : image.components) samples += uint64_t{c.width} * c.height;
  return samples;
}

}  // namespace
}  // namespace codec

std::vector<BatchResult<Image>> decode_batch(std::span<const std::span<const uint8_t>> streams,
                                             const DecodeParams& params) {
  std::vector<BatchResult<Image>> results(streams.size());
  const int threads = codec::batch_threads(static_cast<int>(params.threads));
  codec::SharedCallbacks callbacks(params.progress, params.on_warning);
  codec::ThreadBudget gpu_places(codec::kBatchGpuInFlight);
  codec::for_each_in_batch(
      streams.size(), threads, [&](size_t k, int workers, codec::ThreadBudget& budget) {
        const std::string name = codec::input_name("stream", k);
        try {
          detail::guard(name, "decoding", [&] {
            if (callbacks.cancelled())
              throw Error(ErrorCode::kCancelled, "cancelled before it started");
            Decoder decoder(streams[k]);
            // Placed by what it decodes (the resolution, region or tile asked for), as the
            // decoder weighs it.
            const codec::DecodeExtent extent =
                codec::decode_extent(params, decoder.read_header(), streams[k].size());
            DecodeParams p = params;
            codec::BatchDecodePlace place;
            codec::place_batch_decode(place, codec::to_transform(params.device), extent.samples,
                                      extent.bytes, threads, workers, extent.tiles, gpu_places,
                                      streams.size() - k - 1, transform::gpu_opened());
            place.apply(p);
            p.progress = callbacks.progress();
            p.on_warning = callbacks.on_warning(name);
            const codec::ThreadBudget::Lease lease(budget, place.budget_threads());
            const transform::DecodeLookahead ahead(place.ahead);
            results[k].value = decoder.decode(p);
          });
        } catch (const Error& e) {
          results[k].value = Image{};
          results[k].error = e;
        }
      });
  return results;
}

std::vector<BatchResult<std::vector<uint8_t>>> encode_batch(std::span<const Image> images,
                                                            const EncodeParams& params,
                                                            FileFormat format) {
  std::vector<BatchResult<std::vector<uint8_t>>> results(images.size());
  const int threads = codec::batch_threads(params.threads);
  codec::SharedCallbacks callbacks(params.progress, nullptr);
  codec::ThreadBudget gpu_places(codec::kBatchGpuInFlight);
  codec::for_each_in_batch(
      images.size(), threads, [&](size_t k, int workers, codec::ThreadBudget& budget) {
        try {
          detail::guard(codec::input_name("image", k), "encoding", [&] {
            if (callbacks.cancelled())
              throw Error(ErrorCode::kCancelled, "cancelled before it started");
            EncodeParams p = params;
            const uint64_t samples = codec::image_samples(images[k]);
            const codec::BatchShare share = codec::batch_encode_share(
                codec::to_transform(params.device), samples, threads, workers);
            p.threads = share.threads;
            p.progress = callbacks.progress();
            std::optional<codec::ThreadBudget::Lease> gpu_place;
            if (share.gpu) gpu_place.emplace(gpu_places, 1);
            const codec::ThreadBudget::Lease lease(budget, p.threads);
            results[k].value = Encoder().encode(images[k], p, format);
          });
        } catch (const Error& e) {
          results[k].value.clear();
          results[k].error = e;
        }
      });
  return results;
}

}  // namespace gj2k
