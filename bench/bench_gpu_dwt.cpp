// GPU DWT benchmark: 5-level forward and inverse 2-D DWT, 5/3 (int32) and 9/7 (float32), of
// square single-component images already on the device, per GPU variant.
//
// Figures: Gsamples/s (image samples / time) and achieved bandwidth, counting one read and one
// write of every sample of every level's input: bytes = 2 * 4 * sum over levels of the level's
// area. It is given as a percentage of the device-to-device copy bandwidth measured in the
// same run (cudaMemcpyDeviceToDevice of a 1 GiB buffer, bytes read + written). Device memory
// is measured with cudaMemGetInfo around the allocations. A CPU figure (dwt_ops(kCpu), all
// cores) gives the ratio. Times: CUDA events, median of the iterations after warm-up.
//
// Environment: GJ2K_BENCH_SIZES (comma list, default 2048,8192,16384), GJ2K_BENCH_CPU=0 to
// skip the CPU figures, GJ2K_BENCH_STAGING_ONLY=1 for the host staging tables alone. Prints a
// summary table last.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "transform/device.h"
#include "transform/dwt.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/cuda_memory.h"
#include "transform/cuda/dwt_cuda.h"
#include "transform/cuda/staging_ring.h"
#include "transform/cuda/tile_transformer.h"
#endif
#include "transform/mct.h"
#include "transform/quant.h"

namespace {

using gj2k::transform::Rect;
constexpr int kLevels = 5;

std::vector<uint32_t> bench_sizes() {
  std::vector<uint32_t> s;
  const char* env = std::getenv("GJ2K_BENCH_SIZES");
  std::string list = env && *env ? env : "2048,8192,16384";
  size_t pos = 0;
  while (pos < list.size()) {
    const size_t comma = list.find(',', pos);
    s.push_back(static_cast<uint32_t>(std::stoul(list.substr(pos, comma - pos))));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return s;
}

// Bytes the transform must move: one read + one write of each level's input, 4-byte samples.
[[maybe_unused]] double counted_bytes(uint32_t n, int levels) {
  double b = 0;
  const Rect tc{0, 0, n, n};
  for (int l = 0; l < levels; ++l) {
    const double w = gj2k::transform::ceil_div_pow2(tc.x1, l);
    const double h = gj2k::transform::ceil_div_pow2(tc.y1, l);
    b += 2.0 * 4.0 * w * h;
  }
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Row {
  std::string name;
  std::string key, variant;  // "5/3 fwd 8192", variant name (+ " in-place")
  double ms = 0, gsps = 0, gbps = 0, pct = 0, mem_x = 0, cpu_ratio = 0;
};
std::vector<Row> g_rows;
std::map<std::string, double> g_cpu_ms;   // "53f/8192" -> ms
[[maybe_unused]] double g_copy_gbps = 0;  // set by the GPU benchmarks only

std::string key(bool is97, bool fwd, uint32_t n) {
  return std::string(is97 ? "97" : "53") + (fwd ? "f/" : "i/") + std::to_string(n);
}

#if defined(GJ2K_HAVE_CUDA)
namespace gc = gj2k::transform::cuda;

double measure_copy_gbps() {
  const size_t bytes = size_t{1} << 30;
  gc::DeviceBuffer a(bytes), b(bytes);
  GJ2K_CUDA_CHECK(cudaMemset(a.get(), 1, bytes));
  gc::Event e0, e1;
  std::vector<double> t;
  for (int i = 0; i < 12; ++i) {
    e0.record(nullptr);
    GJ2K_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, nullptr));
    e1.record(nullptr);
    const double ms = gc::Event::elapsed_ms(e0, e1);
    if (i >= 2) t.push_back(ms);
  }
  return 2.0 * bytes / (median(t) * 1e-3) / 1e9;
}

void fill_random(gc::DeviceBuffer& d, size_t n, bool is97) {
  std::vector<int32_t> h(n);
  std::mt19937 rng(12345);
  for (size_t i = 0; i < n; ++i) {
    const int32_t v = static_cast<int32_t>(rng() & 0xff) - 128;
    if (is97) {
      const float f = static_cast<float>(v);
      std::memcpy(&h[i], &f, 4);
    } else {
      h[i] = v;
    }
  }
  GJ2K_CUDA_CHECK(cudaMemcpy(d.get(), h.data(), n * 4, cudaMemcpyHostToDevice));
}

void BM_GpuDwt(benchmark::State& state, gc::GpuDwtVariant v, bool is97, bool fwd, bool in_place,
               uint32_t n) {
  const Rect tc{0, 0, n, n};
  const size_t samples = size_t{n} * n;
  size_t free0 = 0, free1 = 0, total = 0;
  GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
  GJ2K_CUDA_CHECK(cudaMemGetInfo(&free0, &total));
  gc::DeviceBuffer src(samples * 4), dst(in_place ? 0 : samples * 4);
  const size_t wsb = gc::dwt_workspace_bytes(v, tc, kLevels, in_place);
  gc::DeviceBuffer ws(wsb);
  GJ2K_CUDA_CHECK(cudaMemGetInfo(&free1, &total));
  const double mem_x = double(free0 - free1) / double(samples * 4);
  fill_random(src, samples, is97);
  // Inverse input: a forward transform of the random data (realistic coefficients).
  if (!fwd) {
    gc::DeviceBuffer tmp(samples * 4), tws(gc::dwt_workspace_bytes(v, tc, kLevels, false));
    GJ2K_CUDA_CHECK(cudaMemcpy(tmp.get(), src.get(), samples * 4, cudaMemcpyDeviceToDevice));
    if (is97)
      gc::dwt97_forward(v, {tmp.as<const float>(), n}, {src.as<float>(), n}, tc, kLevels, tws.get(),
                        tws.bytes(), nullptr);
    else
      gc::dwt53_forward(v, {tmp.as<const int32_t>(), n}, {src.as<int32_t>(), n}, tc, kLevels,
                        tws.get(), tws.bytes(), nullptr);
    GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
  }
  auto run = [&] {
    if (in_place) {
      if (is97) {
        gc::DevicePlane<float> p{src.as<float>(), n};
        fwd ? gc::dwt97_forward(v, p, tc, kLevels, ws.get(), wsb, nullptr)
            : gc::dwt97_inverse(v, p, tc, kLevels, ws.get(), wsb, nullptr);
      } else {
        gc::DevicePlane<int32_t> p{src.as<int32_t>(), n};
        fwd ? gc::dwt53_forward(v, p, tc, kLevels, ws.get(), wsb, nullptr)
            : gc::dwt53_inverse(v, p, tc, kLevels, ws.get(), wsb, nullptr);
      }
    } else if (is97) {
      gc::DevicePlane<const float> s{src.as<const float>(), n};
      gc::DevicePlane<float> d{dst.as<float>(), n};
      fwd ? gc::dwt97_forward(v, s, d, tc, kLevels, ws.get(), wsb, nullptr)
          : gc::dwt97_inverse(v, s, d, tc, kLevels, ws.get(), wsb, nullptr);
    } else {
      gc::DevicePlane<const int32_t> s{src.as<const int32_t>(), n};
      gc::DevicePlane<int32_t> d{dst.as<int32_t>(), n};
      fwd ? gc::dwt53_forward(v, s, d, tc, kLevels, ws.get(), wsb, nullptr)
          : gc::dwt53_inverse(v, s, d, tc, kLevels, ws.get(), wsb, nullptr);
    }
  };
  run();
  run();  // warm-up
  GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
  gc::Event e0, e1;
  std::vector<double> times;
  for (auto _ : state) {
    e0.record(nullptr);
    run();
    e1.record(nullptr);
    const double ms = gc::Event::elapsed_ms(e0, e1);
    state.SetIterationTime(ms * 1e-3);
    times.push_back(ms);
  }
  GJ2K_CUDA_CHECK(cudaDeviceSynchronize());
  Row r;
  r.name = std::string(is97 ? "9/7 " : "5/3 ") + (fwd ? "fwd " : "inv ") + std::to_string(n) + " " +
           gc::to_string(v) + (in_place ? " in-place" : "");
  r.key = std::string(is97 ? "9/7 " : "5/3 ") + (fwd ? "fwd " : "inv ") + std::to_string(n);
  r.variant = std::string(gc::to_string(v)) + (in_place ? " in-place" : "");
  r.ms = median(times);
  r.gsps = samples / (r.ms * 1e-3) / 1e9;
  r.gbps = counted_bytes(n, kLevels) / (r.ms * 1e-3) / 1e9;
  r.pct = g_copy_gbps > 0 ? 100.0 * r.gbps / g_copy_gbps : 0;
  r.mem_x = mem_x;
  if (auto it = g_cpu_ms.find(key(is97, fwd, n)); it != g_cpu_ms.end())
    r.cpu_ratio = it->second / r.ms;
  g_rows.push_back(r);
  state.counters["Gsamples/s"] = r.gsps;
  state.counters["GB/s"] = r.gbps;
  state.counters["pct_copy"] = r.pct;
  state.counters["mem_x_data"] = mem_x;
}
#endif

// CPU fast path (dwt_ops(kCpu)), all cores: median of 3 after one warm-up.
void measure_cpu(uint32_t n) {
  const auto& ops = gj2k::transform::dwt_ops(gj2k::transform::DwtVariant::kCpu);
  if (!ops.forward53 || !ops.inverse53 || !ops.forward97 || !ops.inverse97) return;
  const Rect tc{0, 0, n, n};
  std::vector<int32_t> a(size_t{n} * n);
  std::vector<float> f(size_t{n} * n);
  std::mt19937 rng(5);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int32_t>(rng() & 0xff) - 128;
    f[i] = static_cast<float>(a[i]);
  }
  auto time = [&](auto&& fn) {
    std::vector<double> t;
    for (int i = 0; i < 4; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      fn();
      const auto t1 = std::chrono::steady_clock::now();
      if (i > 0) t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return median(t);
  };
  gj2k::transform::Plane<int32_t> pa{a.data(), n};
  gj2k::transform::Plane<float> pf{f.data(), n};
  g_cpu_ms[key(false, true, n)] = time([&] { ops.forward53(pa, tc, kLevels); });
  g_cpu_ms[key(false, false, n)] = time([&] { ops.inverse53(pa, tc, kLevels); });
  g_cpu_ms[key(true, true, n)] = time([&] { ops.forward97(pf, tc, kLevels); });
  g_cpu_ms[key(true, false, n)] = time([&] { ops.inverse97(pf, tc, kLevels); });
  std::printf(
      "CPU %s DWT %u^2 (%u threads): 5/3 fwd %.1f ms inv %.1f ms, 9/7 fwd %.1f ms inv %.1f ms\n",
      ops.name, n, std::thread::hardware_concurrency(), g_cpu_ms[key(false, true, n)],
      g_cpu_ms[key(false, false, n)], g_cpu_ms[key(true, true, n)], g_cpu_ms[key(true, false, n)]);
}

// ---- transform stage of the codec: 10240 x 6400 RGB, 8 bits --------------------------------
// Encoder side: samples in pageable host memory -> (pinned staging ring) -> DC shift + RCT/ICT ->
// 5-level DWT -> quantization (9/7) -> coefficients back in host memory. GPU through
// TileTransformer (whole image as one tile, and 1024 x 1024 tiles through 3 overlapping
// slots); CPU through the same functions of transform/ with dwt_ops(kCpu) on all cores.
struct StageRow {
  std::string name;
  double ms = 0;
};
std::vector<StageRow> g_stage;

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::vector<float> steps_97(int levels) {
  std::vector<float> d(3 * levels + 1);
  for (size_t i = 0; i < d.size(); ++i) d[i] = 1.0f + 0.1f * static_cast<float>(i);
  return d;
}

void cpu_stage(const std::vector<std::vector<int32_t>>& img, uint32_t w, uint32_t h, bool rev) {
  const auto& ops = gj2k::transform::dwt_ops(gj2k::transform::DwtVariant::kCpu);
  const size_t n = size_t{w} * h;
  const Rect tc{0, 0, w, h};
  const int32_t off[3] = {128, 128, 128};
  std::vector<std::vector<int32_t>> a(3, std::vector<int32_t>(n));
  std::vector<std::vector<float>> f(3, std::vector<float>(rev ? 0 : n));
  const std::vector<float> deltas = steps_97(kLevels);
  std::vector<double> t;
  for (int it = 0; it < 3; ++it) {
    // The 5/3 path works in place on the image's own planes: refresh them outside the timing.
    if (rev)
      for (int c = 0; c < 3; ++c) std::memcpy(a[c].data(), img[c].data(), n * 4);
    const double t0 = now_ms();
    if (rev) {
      gj2k::transform::dc_shift_rct_forward(a[0].data(), a[1].data(), a[2].data(), n, off);
      for (int c = 0; c < 3; ++c) ops.forward53({a[c].data(), w}, tc, kLevels);
    } else {
      gj2k::transform::dc_shift_ict_forward(img[0].data(), img[1].data(), img[2].data(),
                                            f[0].data(), f[1].data(), f[2].data(), n, off);
      for (int c = 0; c < 3; ++c) {
        ops.forward97({f[c].data(), w}, tc, kLevels);
        for (int lvl = kLevels; lvl >= 0; --lvl) {
          for (auto b : {gj2k::transform::Band::kLL, gj2k::transform::Band::kHL,
                         gj2k::transform::Band::kLH, gj2k::transform::Band::kHH}) {
            if ((lvl == kLevels) != (b == gj2k::transform::Band::kLL) || lvl == 0) continue;
            const auto pl = gj2k::transform::band_placement(tc, kLevels, lvl, b);
            const float d = deltas[gj2k::transform::qcd_index(kLevels, lvl, b)];
#pragma omp parallel for
            for (uint32_t r = 0; r < pl.rect.height(); ++r) {
              const size_t at = size_t{pl.y_off + r} * w + pl.x_off;
              gj2k::transform::quantize(&f[c][at], &a[c][at], pl.rect.width(), d);
            }
          }
        }
      }
    }
    if (it > 0) t.push_back(now_ms() - t0);
  }
  g_stage.push_back({std::string("CPU ") + (rev ? "5/3+RCT" : "9/7+ICT+quant") + " " + ops.name +
                         " (" + std::to_string(std::thread::hardware_concurrency()) + " threads)",
                     median(t)});
}

#if defined(GJ2K_HAVE_CUDA)
// bytes = 4: the int32 planes of gj2k::Image; 1: 8-bit planes uploaded narrow. The staging
// copies run on all cores; results come back through the slot's staging ring into pageable
// host planes, where Tier-1 would read them (as codec/encoder_tile_gpu.cpp does).
void gpu_stage(const std::vector<std::vector<int32_t>>& img,
               const std::vector<std::vector<uint8_t>>& img8, uint32_t w, uint32_t h, bool rev,
               uint32_t tile, int slots, int bytes) {
  gc::TileTransformer tt(slots);
  const std::vector<float> deltas = steps_97(kLevels);
  std::vector<double> t;
  int64_t checksum = 0;
  // Host planes for each slot's results, as large as a tile (touched once, before timing).
  const size_t tile_samples = size_t{std::min(w, tile)} * std::min(h, tile);
  std::vector<std::vector<std::vector<int32_t>>> results(
      slots, std::vector<std::vector<int32_t>>(3, std::vector<int32_t>(tile_samples)));
  for (int it = 0; it < 3; ++it) {
    const double t0 = now_ms();
    std::vector<int> pending;
    auto collect = [&](int slot) {
      for (int c = 0; c < 3; ++c) {
        tt.output(slot, c, results[slot][c].data());
        checksum += results[slot][c][0];
      }
    };
    int k = 0;
    for (uint32_t ty = 0; ty < h; ty += tile) {
      for (uint32_t tx = 0; tx < w; tx += tile, ++k) {
        const Rect r{tx, ty, std::min(w, tx + tile), std::min(h, ty + tile)};
        gc::TileSpec spec;
        spec.levels = kLevels;
        spec.reversible = rev;
        spec.mct = true;
        spec.sample_bytes = bytes;
        for (int c = 0; c < 3; ++c) {
          gc::TileComponentSpec cs;
          cs.rect = r;
          cs.dc_offset = 128;
          cs.deltas = deltas;
          spec.comps.push_back(cs);
        }
        const int slot = k % slots;
        if (static_cast<int>(pending.size()) >= slots) {
          collect(pending.front());
          pending.erase(pending.begin());
        }
        for (int c = 0; c < 3; ++c) {
          char* in = static_cast<char*>(tt.input_raw(slot, spec, c));
          const char* src = bytes == 1 ? reinterpret_cast<const char*>(img8[c].data())
                                       : reinterpret_cast<const char*>(img[c].data());
#pragma omp parallel for
          for (uint32_t y = 0; y < r.height(); ++y)
            std::memcpy(in + size_t{y} * r.width() * bytes,
                        src + (size_t{r.y0 + y} * w + r.x0) * bytes, size_t{r.width()} * bytes);
        }
        tt.encode(slot, spec);
        pending.push_back(slot);
      }
    }
    for (int p : pending) collect(p);
    if (it > 0) t.push_back(now_ms() - t0);
  }
  benchmark::DoNotOptimize(checksum);
  g_stage.push_back({std::string("GPU ") + (rev ? "5/3+RCT" : "9/7+ICT+quant") +
                         (bytes == 1 ? ", 8-bit upload" : ", int32 upload") + ", " +
                         (tile >= w ? std::string("1 tile") : std::to_string(tile) + "^2 tiles") +
                         ", " + std::to_string(slots) + " slots",
                     median(t)});
}
#endif

void codec_stage() {
  const uint32_t w = 10240, h = 6400;
  std::vector<std::vector<int32_t>> img(3, std::vector<int32_t>(size_t{w} * h));
  std::mt19937 rng(7);
  std::vector<std::vector<uint8_t>> img8(3, std::vector<uint8_t>(size_t{w} * h));
  for (int c = 0; c < 3; ++c) {
    for (size_t i = 0; i < img[c].size(); ++i) {
      img8[c][i] = static_cast<uint8_t>((i % 251 + (rng() & 63)) & 0xff);
      img[c][i] = img8[c][i];
    }
  }
  for (bool rev : {true, false}) {
    cpu_stage(img, w, h, rev);
#if defined(GJ2K_HAVE_CUDA)
    if (gj2k::transform::gpu_info().available) {
      gpu_stage(img, img8, w, h, rev, 16384, 1, 4);
      gpu_stage(img, img8, w, h, rev, 2048, 3, 4);
      gpu_stage(img, img8, w, h, rev, 16384, 1, 1);
      gpu_stage(img, img8, w, h, rev, 1024, 3, 1);
      gpu_stage(img, img8, w, h, rev, 2048, 3, 1);
    }
#endif
  }
  std::printf("\nTransform stage, 10240 x 6400 RGB 8-bit, host memory in and out, 5 levels\n");
  std::printf("%-52s %9s %10s\n", "path", "ms", "Mpixel/s");
  for (const auto& r : g_stage)
    std::printf("%-52s %9.1f %10.0f\n", r.name.c_str(), r.ms, double(w) * h / (r.ms * 1e3));
}

#if defined(GJ2K_HAVE_CUDA)
// Host staging of the codec's transfers (transform/cuda/staging_ring.h): what pinning a buffer
// the size of the data costs against the staging ring, and what each moves, for the int32
// coefficients of 10240 x 6400 RGB (786 MB). Best of 3 for the transfers.
void staging_table() {
  const size_t n = size_t{10240} * 6400 * 3 * 4;
  const int threads = static_cast<int>(std::thread::hardware_concurrency());
  std::vector<char> host(n);  // pageable, touched
  for (size_t i = 0; i < n; i += 4096) host[i] = static_cast<char>(i >> 12);
  gc::DeviceBuffer dev(n);
  gc::Stream s;
  auto best = [](auto&& fn) {
    double b = 1e30;
    for (int i = 0; i < 3; ++i) {
      const double t0 = now_ms();
      fn();
      b = std::min(b, now_ms() - t0);
    }
    return b;
  };
  auto once = [](auto&& fn) {
    const double t0 = now_ms();
    fn();
    return now_ms() - t0;
  };
  std::printf("\nHost staging of 786 MB (10240 x 6400 RGB int32), ms\n");
  gc::PinnedBuffer pinned;
  const double t_pin = once([&] { pinned = gc::PinnedBuffer(n); });
  std::memset(pinned.get(), 1, n);
  const double pin_up = best([&] {
    GJ2K_CUDA_CHECK(cudaMemcpyAsync(dev.get(), pinned.get(), n, cudaMemcpyHostToDevice, s.get()));
    s.synchronize();
  });
  const double pin_down = best([&] {
    GJ2K_CUDA_CHECK(cudaMemcpyAsync(pinned.get(), dev.get(), n, cudaMemcpyDeviceToHost, s.get()));
    s.synchronize();
  });
  const double t_unpin = once([&] { pinned = gc::PinnedBuffer(); });
  const double page_up =
      best([&] { GJ2K_CUDA_CHECK(cudaMemcpy(dev.get(), host.data(), n, cudaMemcpyHostToDevice)); });
  const double page_down =
      best([&] { GJ2K_CUDA_CHECK(cudaMemcpy(host.data(), dev.get(), n, cudaMemcpyDeviceToHost)); });
  std::unique_ptr<gc::StagingRing> ring;
  const double t_ring = once([&] {
    ring = std::make_unique<gc::StagingRing>();
    ring->reserve(n);
  });
  const double ring_up = best([&] {
    ring->upload(dev.get(), host.data(), n, s.get(), threads);
    s.synchronize();
  });
  const double ring_down =
      best([&] { ring->download(host.data(), dev.get(), n, s.get(), threads); });
  std::printf("%-44s %9s %9s %9s %9s\n", "staging", "pin", "unpin", "up", "down");
  std::printf("%-44s %9.1f %9.1f %9.1f %9.1f\n", "pinned buffer of 786 MB (cudaMallocHost)", t_pin,
              t_unpin, pin_up, pin_down);
  std::printf("%-44s %9s %9s %9.1f %9.1f\n", "pageable cudaMemcpy", "-", "-", page_up, page_down);
  std::printf("%-44s %9.1f %9s %9.1f %9.1f\n", "StagingRing 4 x 8 MB (codec)", t_ring, "-", ring_up,
              ring_down);
  ring.reset();

  // The ring's shape (chunks x bytes, at most 64 MB pinned) for a download the size of
  // decode_into's 8-bit RGB output of the 10240 x 6400 mosaic (196.6 MB) into a resident
  // pageable buffer, against the link alone (one DMA into a pinned buffer of that size).
  // Median of 7, ms and GB/s.
  const size_t m = size_t{10240} * 6400 * 3;
  auto median7 = [](auto&& fn) {
    std::vector<double> t;
    for (int i = 0; i < 7; ++i) {
      const double t0 = now_ms();
      fn();
      t.push_back(now_ms() - t0);
    }
    return median(std::move(t));
  };
  {
    gc::PinnedBuffer link(m);
    const double ms = median7([&] {
      GJ2K_CUDA_CHECK(cudaMemcpyAsync(link.get(), dev.get(), m, cudaMemcpyDeviceToHost, s.get()));
      s.synchronize();
    });
    std::printf("\nDownload of 196.6 MB into pageable memory, %d threads (median of 7)\n", threads);
    std::printf("%-44s %9.2f ms %7.1f GB/s\n", "link alone (one pinned buffer)", ms, m / ms / 1e6);
  }
  for (const size_t kb : {2048, 4096, 8192, 16384}) {
    for (const int chunks : {4, 8, 16}) {
      if (kb * chunks > (size_t{64} << 10)) continue;  // at most 64 MB pinned
      gc::StagingRing r(kb << 10, chunks);
      r.reserve(m);
      const double ms = median7([&] { r.download(host.data(), dev.get(), m, s.get(), threads); });
      const std::string name =
          "StagingRing " + std::to_string(chunks) + " x " + std::to_string(kb) + " KB";
      std::printf("%-44s %9.2f ms %7.1f GB/s\n", name.c_str(), ms, m / ms / 1e6);
    }
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const gj2k::transform::GpuInfo info = gj2k::transform::gpu_info();
  const std::vector<uint32_t> sizes = bench_sizes();
  const char* cpu_env = std::getenv("GJ2K_BENCH_CPU");
  const bool cpu = !(cpu_env && std::string(cpu_env) == "0");
  if (cpu) {
    for (uint32_t n : sizes)
      if (n <= 8192) measure_cpu(n);
  }
#if defined(GJ2K_HAVE_CUDA)
  if (!info.available) {
    std::printf("no GPU: %s\n", info.reason.c_str());
    return 0;
  }
  std::printf("GPU: %s, %d SMs, %.1f GiB\n", info.name.c_str(), info.multiprocessors,
              info.global_memory / 1073741824.0);
  if (const char* only = std::getenv("GJ2K_BENCH_STAGING_ONLY"); only && std::string(only) == "1") {
    staging_table();
    return 0;
  }
  g_copy_gbps = measure_copy_gbps();
  std::printf("device-to-device copy: %.0f GB/s (read + write)\n", g_copy_gbps);
  for (uint32_t n : sizes) {
    for (bool is97 : {false, true}) {
      for (bool fwd : {true, false}) {
        for (gc::GpuDwtVariant v :
             {gc::GpuDwtVariant::kBlock, gc::GpuDwtVariant::kBlockWide, gc::GpuDwtVariant::kFused,
              gc::GpuDwtVariant::kFusedShort, gc::GpuDwtVariant::kLaan, gc::GpuDwtVariant::kInplace,
              gc::GpuDwtVariant::kLattice}) {
          const std::string name = std::string("gpu_dwt/") + (is97 ? "97/" : "53/") +
                                   (fwd ? "fwd/" : "inv/") + gc::to_string(v) + "/" +
                                   std::to_string(n);
          benchmark::RegisterBenchmark(
              name.c_str(), BM_GpuDwt, v, is97, fwd,
              v == gc::GpuDwtVariant::kLaan || v == gc::GpuDwtVariant::kInplace, n)
              ->UseManualTime()
              ->Iterations(n >= 16384 ? 5 : 15)
              ->Unit(benchmark::kMillisecond);
        }
        if (n == 8192) {
          const std::string name = std::string("gpu_dwt/") + (is97 ? "97/" : "53/") +
                                   (fwd ? "fwd/" : "inv/") + "default-in-place/" +
                                   std::to_string(n);
          benchmark::RegisterBenchmark(name.c_str(), BM_GpuDwt, gc::GpuDwtVariant::kDefault, is97,
                                       fwd, true, n)
              ->UseManualTime()
              ->Iterations(15)
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("\nGPU DWT, %d levels, data on the device; copy bandwidth %.0f GB/s\n", kLevels,
              g_copy_gbps);
  std::printf("%-34s %9s %10s %8s %7s %7s %9s\n", "case", "ms", "Gsample/s", "GB/s", "%copy",
              "mem/N", "x CPU");
  for (const Row& r : g_rows) {
    std::printf(
        "%-34s %9.3f %10.2f %8.0f %6.1f%% %7.2f %9s\n", r.name.c_str(), r.ms, r.gsps, r.gbps, r.pct,
        r.mem_x,
        r.cpu_ratio > 0 ? std::to_string(static_cast<int>(r.cpu_ratio + 0.5)).c_str() : "-");
  }
#endif
  const char* codec_env = std::getenv("GJ2K_BENCH_CODEC");
  if (!(codec_env && std::string(codec_env) == "0")) codec_stage();
#if defined(GJ2K_HAVE_CUDA)
  staging_table();
#endif
#if defined(GJ2K_HAVE_CUDA)
  // Summary: the default variant (what the codec uses) and the fastest out-of-place one.
  std::printf(
      "\nSummary: 5-level DWT on %s, default variant (fused-short forward, fused "
      "inverse); copy %.0f GB/s\n",
      info.name.c_str(), g_copy_gbps);
  std::printf("%-16s %10s %7s %7s %8s   %-14s %7s\n", "case", "Gsample/s", "%copy", "mem/N",
              "x CPU", "fastest", "%copy");
  std::vector<std::string> keys;
  for (const Row& r : g_rows)
    if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) keys.push_back(r.key);
  for (const std::string& k : keys) {
    const Row* d = nullptr;
    const Row* best = nullptr;
    for (const Row& r : g_rows) {
      if (r.key != k) continue;
      const bool fwd = r.key.find("fwd") != std::string::npos;
      if (r.variant == (fwd ? "fused-short" : "fused")) d = &r;
      if (r.variant.find("in-place") == std::string::npos && (!best || r.ms < best->ms)) best = &r;
    }
    if (!d || !best) continue;
    std::printf(
        "%-16s %10.1f %6.1f%% %7.2f %8s   %-14s %6.1f%%\n", k.c_str(), d->gsps, d->pct, d->mem_x,
        d->cpu_ratio > 0 ? std::to_string(static_cast<int>(d->cpu_ratio + 0.5)).c_str() : "-",
        best->variant.c_str(), best->pct);
  }
#endif
#if !defined(GJ2K_HAVE_CUDA)
  std::printf("built without CUDA: %s\n", info.reason.c_str());
  benchmark::RunSpecifiedBenchmarks();
#endif
  return 0;
}
