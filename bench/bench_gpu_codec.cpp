// Whole-codec benchmark, CPU against GPU: Encoder::encode of a real-photograph mosaic RGB
// 8-bit (bench_images.h photo_mosaic; one tile, 5 levels, 64x64 code-blocks), lossless (5/3)
// and irreversible (9/7) at rate 20, with --device cpu and --device gpu (whose codestream must
// be the CPU's: it says whether it is); and the transform stage alone
// (cpu_backend() / cuda_backend() forward of the whole image, host memory in and out, results
// in TileCoefficients as the coding stage reads them).
//
// Whole decode of the same image's codestreams (made on the CPU first, lossless and 9/7 at rate
// 20): decode_memory with
// --device cpu (all cores) and --device gpu (gpu_warm_up.h), and the first GPU decode of the
// process on its own (cold: CUDA initialisation, pinned and device allocation included; it runs
// before any other GPU work of this program). The peak sample difference GPU vs CPU is printed
// (0: the GPU decodes 5/3 and 9/7 as the CPU does).
//
// Figures: median wall time of the iterations after the first (warm-up: pinned and device
// buffers, page faults), and Mpixel/s of image pixels. Environment: GJ2K_BENCH_CODEC_SIZE=WxH
// (default 10240x6400), GJ2K_BENCH_ITERS (default 3, the first not counted),
// GJ2K_BENCH_WRITE_DIR (optional: the two codestreams are written there as bench53.j2k and
// bench97.j2k, for timing whole `gj2k decode` processes), GJ2K_BENCH_DECODE_ONLY=1 (the decode
// rows only).
// The encodes run twice: from the Image (int32 planes) and from the same samples as a caller's
// interleaved 8-bit RGB buffer (Encoder::encode(layout, InputBuffer)); both must give the CPU's
// codestream of the Image.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_images.h"
#include "codec/encoder_internal.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "transform/device.h"

#if defined(GJ2K_HAVE_CUDA)
#include <cuda_runtime.h>

#include "transform/cuda/cuda_memory.h"
#endif

namespace {

using gj2k::EncodeParams;

struct Row {
  std::string name;
  double ms = 0;
  size_t bytes = 0;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <class F>
double time_ms(int iters, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < iters; ++i) {
    const double t0 = now_ms();
    f();
    if (i > 0 || iters == 1) t.push_back(now_ms() - t0);
  }
  return median(t);
}

// Largest |a - b| over the samples of two decodes of the same stream; -1 if shapes differ.
int64_t peak_difference(const gj2k::Image& a, const gj2k::Image& b) {
  if (a.components.size() != b.components.size()) return -1;
  int64_t peak = 0;
  for (size_t c = 0; c < a.components.size(); ++c) {
    const auto& x = a.components[c].samples;
    const auto& y = b.components[c].samples;
    if (x.size() != y.size()) return -1;
    for (size_t i = 0; i < x.size(); ++i)
      peak = std::max<int64_t>(peak, std::llabs(int64_t{x[i]} - y[i]));
  }
  return peak;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  uint32_t w = 10240, h = 6400;
  if (const char* s = std::getenv("GJ2K_BENCH_CODEC_SIZE")) std::sscanf(s, "%ux%u", &w, &h);
  int iters = 3;
  if (const char* s = std::getenv("GJ2K_BENCH_ITERS")) iters = std::max(1, std::atoi(s));
  // The first CUDA call of the process (driver initialisation), outside every figure below.
  const double t_info = now_ms();
  const gj2k::transform::GpuInfo info = gj2k::transform::gpu_info();
  std::printf("gpu_info (CUDA driver initialisation): %.0f ms\n", now_ms() - t_info);
  if (info.available)
    std::printf("GPU: %s, %d SMs\n", info.name.c_str(), info.multiprocessors);
  else
    std::printf("no GPU (%s): CPU rows only\n", info.reason.c_str());

  const double t0 = now_ms();
  const gj2k::Image image = gj2k::bench::photo_mosaic(w, h);
  std::printf("image %ux%u RGB 8-bit photo mosaic made in %.0f ms; %u threads, %d iterations\n", w,
              h, now_ms() - t0, std::thread::hardware_concurrency(), iters);
  // The same image as interleaved 8-bit RGB rows, as a caller holding a photo has it.
  const gj2k::Image layout = gj2k::make_layout(w, h, 3, 8);
  std::vector<uint8_t> rgb8_bytes(size_t{w} * h * 3);
  for (size_t i = 0; i < size_t{w} * h; ++i)
    for (size_t c = 0; c < 3; ++c)
      rgb8_bytes[i * 3 + c] = static_cast<uint8_t>(image.components[c].samples[i]);
  gj2k::InputBuffer rgb8;
  rgb8.data = rgb8_bytes.data();
  rgb8.size = rgb8_bytes.size();
  rgb8.interleaved = true;

  // Whole decode: streams made on the CPU, then the first GPU call of the process (cold).
  std::vector<Row> decode_rows;
  std::vector<std::vector<uint8_t>> streams;
  for (bool irreversible : {false, true}) {
    EncodeParams p;
    p.irreversible = irreversible;
    if (irreversible) p.rates = {20};  // 9/7 at rate 20, as the Tier-1 benchmark
    p.device = EncodeParams::Device::kCpu;
    streams.push_back(gj2k::Encoder().encode(image, p));
    if (const char* dir = std::getenv("GJ2K_BENCH_WRITE_DIR")) {
      std::ofstream out(std::string(dir) + (irreversible ? "/bench97.j2k" : "/bench53.j2k"),
                        std::ios::binary);
      out.write(reinterpret_cast<const char*>(streams.back().data()),
                static_cast<std::streamsize>(streams.back().size()));
    }
  }
  for (bool irreversible : {false, true}) {
    const char* kind = irreversible ? "9/7" : "5/3";
    const std::vector<uint8_t>& bytes = streams[irreversible ? 1 : 0];
    gj2k::DecodeParams p;
    gj2k::Image cpu, gpu;
    if (info.available && !irreversible) {
      p.device = gj2k::DecodeDevice::kGpu;
      decode_rows.push_back({"decode 5/3, --device gpu, first call (cold)",
                             time_ms(1, [&] { gpu = gj2k::decode_memory(bytes, p); }),
                             bytes.size()});
    }
    p.device = gj2k::DecodeDevice::kCpu;
    decode_rows.push_back({std::string("decode ") + kind + ", --device cpu",
                           time_ms(iters, [&] { cpu = gj2k::decode_memory(bytes, p); }),
                           bytes.size()});
    if (!info.available) continue;
    p.device = gj2k::DecodeDevice::kGpu;
    decode_rows.push_back({std::string("decode ") + kind + ", --device gpu",
                           time_ms(iters, [&] { gpu = gj2k::decode_memory(bytes, p); }),
                           bytes.size()});
    std::printf("decode %s: peak |gpu - cpu| = %lld\n", kind,
                static_cast<long long>(peak_difference(cpu, gpu)));
  }
  // The same decodes into a caller's 8-bit interleaved buffer (Decoder::decode_into: no int32
  // image; on the GPU the samples are packed on the device and only the packed bytes come down).
  for (bool irreversible : {false, true}) {
    const char* kind = irreversible ? "9/7" : "5/3";
    const std::vector<uint8_t>& bytes = streams[irreversible ? 1 : 0];
    std::vector<uint8_t> out_cpu(size_t{w} * h * 3), out_gpu(size_t{w} * h * 3);
    gj2k::OutputBuffer out{nullptr, out_cpu.size(), gj2k::SampleType::k8, /*interleaved=*/true};
    gj2k::DecodeParams p;
    gj2k::Decoder dec(bytes);  // the codestream in memory, copied once, outside the timing
    for (gj2k::DecodeDevice d : {gj2k::DecodeDevice::kCpu, gj2k::DecodeDevice::kGpu}) {
      const bool on_gpu = d == gj2k::DecodeDevice::kGpu;
      if (on_gpu && !info.available) continue;
      p.device = d;
      out.data = on_gpu ? out_gpu.data() : out_cpu.data();
      decode_rows.push_back({std::string("decode_into 8-bit interleaved ") + kind + ", --device " +
                                 (on_gpu ? "gpu" : "cpu"),
                             time_ms(iters, [&] { dec.decode_into(p, out); }), bytes.size()});
    }
    if (info.available)
      std::printf("decode_into %s: GPU bytes %s the CPU's\n", kind,
                  out_cpu == out_gpu ? "identical to" : "DIFFER from");
  }

  std::vector<Row> rows;
  const char* decode_only = std::getenv("GJ2K_BENCH_DECODE_ONLY");
  for (bool irreversible : {false, true}) {
    if (decode_only && *decode_only == '1') break;
    const char* kind = irreversible ? "9/7" : "5/3";
    EncodeParams p;
    p.irreversible = irreversible;
    // Transform stage alone.
    gj2k::validate(p, image);
    const gj2k::codec::EncodeSetup setup = gj2k::codec::make_setup(p, image);
    rows.push_back({std::string("transform stage ") + kind + ", cpu", time_ms(iters, [&] {
                      benchmark::DoNotOptimize(
                          gj2k::codec::cpu_backend().forward(image, setup, 0, nullptr));
                    })});
#if defined(GJ2K_HAVE_CUDA)
    if (info.available)
      rows.push_back({std::string("transform stage ") + kind + ", gpu", time_ms(iters, [&] {
                        benchmark::DoNotOptimize(
                            gj2k::codec::cuda_backend().forward(image, setup, 0, nullptr));
                      })});
#endif
    // Whole encode (9/7 at rate 20, as the decode streams), image in host memory to codestream
    // in host memory; the GPU's codestream must be the CPU's.
    if (irreversible) p.rates = {20};
    std::vector<uint8_t> out[2];
    for (EncodeParams::Device d : {EncodeParams::Device::kCpu, EncodeParams::Device::kGpu}) {
      if (d == EncodeParams::Device::kGpu && !info.available) continue;
      p.device = d;
      std::vector<uint8_t>& o = out[d == EncodeParams::Device::kGpu ? 1 : 0];
      const double ms = time_ms(iters, [&] { o = gj2k::Encoder().encode(image, p); });
      rows.push_back({std::string("encode ") + kind + (irreversible ? " rate 20" : "") +
                          ", --device " + (d == EncodeParams::Device::kGpu ? "gpu" : "cpu"),
                      ms, o.size()});
    }
    if (!out[1].empty())
      std::printf("encode %s: GPU codestream %s the CPU's\n", kind,
                  out[0] == out[1] ? "identical to" : "DIFFERS from");
    // The same image as the caller's 8-bit interleaved RGB rows (Encoder::encode(layout,
    // InputBuffer)): read from the buffer, never as int32 planes; the bytes must be the same.
    for (EncodeParams::Device d : {EncodeParams::Device::kCpu, EncodeParams::Device::kGpu}) {
      if (d == EncodeParams::Device::kGpu && !info.available) continue;
      p.device = d;
      std::vector<uint8_t> o;
      const double ms = time_ms(iters, [&] { o = gj2k::Encoder().encode(layout, rgb8, p); });
      const bool gpu = d == EncodeParams::Device::kGpu;
      rows.push_back({std::string("encode ") + kind + (irreversible ? " rate 20" : "") +
                          " from RGB8, --device " + (gpu ? "gpu" : "cpu"),
                      ms, o.size()});
      std::printf("encode %s from RGB8 on the %s: codestream %s the CPU's from the image\n", kind,
                  gpu ? "GPU" : "CPU", o == out[0] ? "identical to" : "DIFFERS from");
    }
  }

#if defined(GJ2K_HAVE_CUDA)
  if (info.available) {  // what pinning the decoder's staging for this image costs (warm context)
    const size_t bytes = size_t{w} * h * 3 * 4;
    const double t_pin = now_ms();
    {
      gj2k::transform::cuda::PinnedBuffer pinned(bytes);
      const double t_free = now_ms();
      std::printf("cudaMallocHost %.0f MB: %.0f ms; ", bytes / 1e6, t_free - t_pin);
    }
    std::printf("with cudaFreeHost: %.0f ms\n", now_ms() - t_pin);
    // The link's device-to-host copy rate into pinned memory, for the size of the 8-bit RGB
    // output decode_into brings down (its ring copies on from pinned chunks).
    const size_t out_bytes = size_t{w} * h * 3;
    gj2k::transform::cuda::PinnedBuffer host(out_bytes);
    gj2k::transform::cuda::DeviceBuffer dev(out_bytes);
    double best = 1e30;
    for (int i = 0; i < 4; ++i) {
      const double t0 = now_ms();
      if (cudaMemcpy(host.get(), dev.get(), out_bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        break;
      best = std::min(best, now_ms() - t0);
    }
    std::printf("device-to-host copy of %.0f MB into pinned memory: %.2f ms (%.1f GB/s)\n",
                out_bytes / 1e6, best, out_bytes / best / 1e6);
  }
#endif
  std::printf("\nCodec decode, %u x %u RGB 8-bit, 5 levels, one tile\n", w, h);
  std::printf("%-44s %9s %10s %12s\n", "path", "ms", "Mpixel/s", "bytes in");
  for (const Row& r : decode_rows)
    std::printf("%-44s %9.1f %10.1f %12zu\n", r.name.c_str(), r.ms, double(w) * h / (r.ms * 1e3),
                r.bytes);
  std::printf("\nCodec encode, %u x %u RGB 8-bit, 5 levels, one tile\n", w, h);
  std::printf("%-44s %9s %10s %12s\n", "path", "ms", "Mpixel/s", "bytes");
  for (const Row& r : rows)
    std::printf("%-44s %9.1f %10.1f %12zu\n", r.name.c_str(), r.ms, double(w) * h / (r.ms * 1e3),
                r.bytes);
  return 0;
}
