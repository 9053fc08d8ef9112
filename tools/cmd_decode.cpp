// `gj2k decode IN OUT`: decode a codestream or JP2 file to PNG, TIFF, PNM, PGX or raw (by the
// output extension; PGX writes one file per component, name_k.pgx). The options are
// opj_decompress's (-r -l -d -t -c -ImgDir -OutFor -threads), plus long names. Several inputs
// (-i repeated, a folder, --img-dir) decode as one batch (run_batch).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "codec/batch.h"
#include "codec/device.h"
#include "codec/gpu_warm_up.h"
#include "codec/parallel.h"
#include "codec/trace.h"
#include "gj2k/decoder.h"
#include "io/image_io.h"
#include "tools/batch_pipeline.h"
#include "tools/cli_common.h"
#include "tools/command.h"

namespace {

struct Options {
  gj2k::cli::IoArgs io;
  uint32_t reduce = 0, layers = 0, threads = 0;
  std::string region, components, device = "auto";
  int64_t tile = -1;
  uint64_t max_samples = gj2k::default_max_samples();
  bool upsample = false, force_rgb = false, icc_to_srgb = false, allow_partial = false,
       quiet = false;
};

std::vector<uint32_t> parse_list(const std::string& text, const char* option) {
  std::vector<uint32_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      unsigned long v = std::stoul(item, &used);
      if (used != item.size() || v > 0xFFFFFFFFul) throw std::invalid_argument(item);
      out.push_back(static_cast<uint32_t>(v));
    } catch (const std::exception&) {
      throw gj2k::Error(gj2k::ErrorCode::kInvalidArgument,
                        std::string(option) + ": '" + item + "' is not a non-negative integer");
    }
  }
  return out;
}

gj2k::DecodeParams make_params(const Options& o) {
  gj2k::DecodeParams p;
  p.reduce = o.reduce;
  p.max_layers = o.layers;
  p.threads = o.threads;
  p.upsample = o.upsample;
  p.force_rgb = o.force_rgb;
  p.icc_to_srgb = o.icc_to_srgb;
  p.allow_partial = o.allow_partial;
  p.max_samples = o.max_samples;
  p.device = gj2k::cli::device_choice<gj2k::DecodeDevice>(o.device);
  if (!o.quiet)
    p.on_warning = [](const std::string& w) { std::fprintf(stderr, "warning: %s\n", w.c_str()); };
  if (o.tile >= 0) p.tile = static_cast<uint32_t>(o.tile);
  if (!o.components.empty()) p.components = parse_list(o.components, "--components");
  if (!o.region.empty()) {
    auto v = parse_list(o.region, "--region");
    if (v.size() != 4 || v[2] <= v[0] || v[3] <= v[1])
      throw gj2k::Error(gj2k::ErrorCode::kInvalidArgument,
                        "--region: expected x0,y0,x1,y1 with x1 > x0 and y1 > y0");
    p.region = gj2k::Region{v[0], v[1], v[2], v[3]};
  }
  return p;
}

// Colour rendered as opj_decompress writes each format (PGX, raw: components as they are).
gj2k::DecodeParams::Render render_for(const std::filesystem::path& output) {
  const auto format = gj2k::io::format_from_extension(output);
  return !format                              ? gj2k::DecodeParams::Render::kNone
         : *format == gj2k::io::Format::kTiff ? gj2k::DecodeParams::Render::kRgbKeepCmyk
         : *format == gj2k::io::Format::kPnm || *format == gj2k::io::Format::kPng
             ? gj2k::DecodeParams::Render::kRgb
             : gj2k::DecodeParams::Render::kNone;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string result_line(const gj2k::cli::Job& job, const gj2k::Image& image, double seconds) {
  return gj2k::cli::format("%s -> %s: %s, decoded in %.3f s", job.first.c_str(), job.second.c_str(),
                           gj2k::describe(image).c_str(), seconds);
}

// Raw files (io::encode_raw) are a planar buffer when every component has one size and one
// sample width: 1 byte up to 8 bits, else 2, in the file's byte order.
bool raw_is_planar_buffer(const gj2k::Image& shape) {
  const gj2k::Component& c0 = shape.components[0];
  for (const gj2k::Component& c : shape.components)
    if (c.width != c0.width || c.height != c0.height || c.precision < 1 ||
        c.precision > gj2k::kMaxFilePrecision || (c.precision > 8) != (c0.precision > 8))
      return false;
  return true;
}

// A PGM/PPM or raw output straight from the decoder (Decoder::decode_into): the file's bytes
// are the header (PNM) and the samples the decoder packs into the buffer after it, no image of
// int32 samples in between. nullopt, deciding nothing, when the decode needs whole-image work
// or the format cannot hold the output as one buffer (write_image then writes, or refuses, as
// for every format), and, unless `in_batch`, for PNM of one tile decoded on the CPU (--device
// cpu): its int32 samples are the image anyway, which write_image streams to the file in
// slices, while a file-sized buffer costs its first touch (measured a wash, docs/PERFORMANCE.md
// "Twenty-sixth run" and "Twenty-seventh run"). In a batch the decoder's planes are kept from file
// to file (codec/sample_cache.h) only when they do not become the image, which favours the buffer.
using FileBytes = std::vector<uint8_t, gj2k::DefaultInitAllocator<uint8_t>>;
std::optional<FileBytes> decode_file_direct(gj2k::Decoder& decoder, const gj2k::DecodeParams& p,
                                            const std::filesystem::path& output,
                                            gj2k::Image& described, bool in_batch) {
  using gj2k::io::Format;
  const std::optional<Format> format = gj2k::io::format_from_extension(output);
  if (!format ||
      (*format != Format::kPnm && *format != Format::kRaw && *format != Format::kRawLittle))
    return std::nullopt;
  std::optional<gj2k::Image> shape;
  try {
    if (*format == Format::kPnm && p.device == gj2k::DecodeDevice::kCpu && !in_batch) {
      const gj2k::HeaderInfo h = decoder.read_header();
      if (p.tile || uint64_t{h.num_tiles_x} * h.num_tiles_y == 1) return std::nullopt;
    }
    shape = decoder.direct_output(p);
  } catch (const gj2k::Error&) {
    return std::nullopt;  // decode() reports it where it meets it, as for every format
  }
  if (!shape) return std::nullopt;
  std::string header;
  gj2k::OutputBuffer out;
  if (*format == Format::kPnm) {
    const std::optional<std::string> h = gj2k::io::pnm_header(*shape, output);
    if (!h) return std::nullopt;
    header = *h;
    out.interleaved = true;
    out.big_endian = true;
  } else {
    if (!raw_is_planar_buffer(*shape)) return std::nullopt;
    out.big_endian = *format == Format::kRaw;
  }
  out.type = shape->components[0].precision > 8 ? gj2k::SampleType::k16 : gj2k::SampleType::k8;
  const size_t payload = gj2k::output_bytes(*shape, out);
  FileBytes bytes(header.size() + payload);  // not zeroed: the decoder writes every sample
  std::memcpy(bytes.data(), header.data(), header.size());
  out.data = bytes.data() + header.size();
  out.size = payload;
  described = decoder.decode_into(p, out);
  return bytes;
}

int run_one(const Options& o, gj2k::DecodeParams p, const gj2k::cli::Job& job) {
  const auto& [input, output] = job;
  gj2k::io::check_output(output);  // a bad name costs nothing
  gj2k::cli::ProgressLine progress(o.quiet);
  p.progress = [&progress](const char* stage, double f) { return progress.update(stage, f); };
  const auto start = std::chrono::steady_clock::now();
  progress.set_prefix("decode");
  progress.update("decode", 0.0);  // then once per tile (DecodeParams::progress)
  p.render = render_for(output);
  // CUDA starts while the file is read when its headers say the decode will use the GPU (the
  // decoder's own warm-up then finds the context made).
  std::optional<gj2k::codec::GpuWarmUp> gpu_start;
  if (gj2k::codec::likely_decode_device(input, p) != gj2k::transform::Device::kCpu)
    gpu_start.emplace(false);
  gj2k::Decoder decoder(input);
  gj2k::Image image;
  const std::optional<FileBytes> direct = decode_file_direct(decoder, p, output, image, false);
  if (!direct) image = decoder.decode(p);
  const double seconds = seconds_since(start);
  progress.update(("writing " + output.filename().string()).c_str(), -1);
  if (direct) {
    gj2k::codec::TraceStage trace("write image");
    gj2k::io::write_file(output, *direct);
  } else {
    gj2k::io::write_image(image, output);
  }
  progress.clear();
  if (!o.quiet) {
    std::printf("%s\n", result_line(job, image, seconds).c_str());
    std::fflush(stdout);
  }
  return 0;
}

// A batch: files read ahead, several small ones decoded at once, outputs written behind
// (tools/batch_pipeline.h). A file that fails is reported and the rest go on; the status is 1
// when any failed.
int run_batch(const Options& o, const gj2k::DecodeParams& params,
              const std::vector<gj2k::cli::Job>& jobs) {
  for (const auto& job : jobs) gj2k::io::check_output(job.second);  // bad names cost nothing
  gj2k::cli::ProgressLine progress(o.quiet);
  const auto batch_start = std::chrono::steady_clock::now();
  const int threads = gj2k::codec::batch_threads(static_cast<int>(o.threads));
  const int coders = gj2k::codec::batch_workers(threads, jobs.size());
  gj2k::codec::ThreadBudget budget(threads);
  gj2k::codec::ThreadBudget gpu_places(gj2k::codec::kBatchGpuInFlight);
  // CUDA starts once for the batch, while the first file is read, when the batch will use the
  // GPU for it (placed as place_batch_decode will place it, the files after it sharing the
  // start-up).
  std::optional<gj2k::codec::GpuWarmUp> gpu_start;
  if (gj2k::codec::likely_batch_decode_device(jobs.front().first, params, threads, coders,
                                              jobs.size()) != gj2k::transform::Device::kCpu)
    gpu_start.emplace(false);
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<size_t> started{0};
  struct Decoded {
    gj2k::Image image;              // without samples when `file` holds them
    std::optional<FileBytes> file;  // a PNM decoded straight into its bytes
    double seconds = 0;
    uint64_t bytes = 0;
  };
  const int writers = std::clamp(coders / 4, 1, 4);  // a PNM's write is about a decode's time
  gj2k::cli::BatchStages<std::vector<uint8_t>, Decoded> stages;
  stages.read = [&](size_t k) { return gj2k::io::read_file(jobs[k].first); };
  stages.code = [&](size_t k, std::vector<uint8_t> bytes) {
    const size_t order = ++started;
    const std::string prefix = gj2k::cli::batch_prefix(
        order, jobs.size(), seconds_since(batch_start), bytes_in, jobs[k].first);
    Decoded out;
    out.bytes = bytes.size();
    gj2k::Decoder decoder(std::move(bytes));
    // Placed by what it decodes (the resolution, region or tile asked for), as the decoder and
    // the probe above weigh it.
    const gj2k::codec::DecodeExtent extent =
        gj2k::codec::decode_extent(params, decoder.read_header(), out.bytes);
    gj2k::DecodeParams p = params;
    gj2k::codec::BatchDecodePlace place;
    gj2k::codec::place_batch_decode(place, gj2k::codec::to_transform(p.device), extent.samples,
                                    extent.bytes, threads, coders, extent.tiles, gpu_places,
                                    jobs.size() - order, gj2k::transform::gpu_opened());
    place.apply(p);
    p.render = render_for(jobs[k].second);
    p.progress = [&progress, &prefix](const char* stage, double f) {
      return progress.update_as(prefix, stage, f);
    };
    progress.update_as(prefix, "decode", 0.0);
    const gj2k::codec::ThreadBudget::Lease lease(budget, place.budget_threads());
    const auto start = std::chrono::steady_clock::now();  // the decode, not the wait
    const gj2k::transform::DecodeLookahead ahead(place.ahead);
    out.file = decode_file_direct(decoder, p, jobs[k].second, out.image, true);
    if (!out.file) out.image = decoder.decode(p);
    out.seconds = seconds_since(start);
    return out;
  };
  stages.write = [&](size_t k, Decoded out) {
    const gj2k::codec::ThreadScope scope(threads);  // a writer thread's loops: --threads too
    if (out.file)
      gj2k::io::write_file(jobs[k].second, *out.file);
    else
      gj2k::io::write_image(out.image, jobs[k].second);
    bytes_in += out.bytes;
    if (!o.quiet) progress.print(stdout, result_line(jobs[k], out.image, out.seconds));
  };
  stages.failed = [&](size_t k, const std::exception& e) {
    progress.print(stderr, gj2k::cli::batch_failure(jobs[k].first, e));
  };
  const size_t failed = gj2k::cli::run_batch(jobs.size(), coders, stages, writers);
  progress.clear();
  if (!o.quiet) gj2k::cli::print_batch_summary(jobs.size() - failed, batch_start, bytes_in);
  if (failed) std::fprintf(stderr, "gj2k: %zu of %zu files failed\n", failed, jobs.size());
  return failed ? 1 : 0;
}

int run(const Options& o) {
  // --threads bounds the whole command, writing the image included: with --threads 1 no
  // helper thread is started (a pool of every core cost a one-thread decode its system time).
  const gj2k::codec::ThreadScope scope(static_cast<int>(o.threads));
  const gj2k::DecodeParams p = make_params(o);
  const auto jobs = gj2k::cli::resolve_io(o.io, gj2k::cli::is_jpeg2000_path);
  if (!gj2k::cli::is_batch(o.io)) return run_one(o, p, jobs.front());
  return run_batch(o, p, jobs);
}

const bool registered = gj2k::cli::register_command(
    {"decode", "Decode a JPEG 2000 codestream or JP2 file to an image, as opj_decompress",
     [](CLI::App& app) -> gj2k::cli::RunFn {
       auto o = std::make_shared<Options>();
       gj2k::cli::add_io_options(
           app, o->io, "input .j2k/.j2c/.jpc/.jp2",
           "output image: .png, .tif, .pgm/.ppm/.pnm/.pam, .pgx (name_k.pgx per component), .raw");
       app.add_option("-r,--reduce", o->reduce, "discard this many highest resolution levels");
       app.add_option("-l,--layers", o->layers, "decode at most this many quality layers");
       app.add_option("-d,--region", o->region,
                      "x0,y0,x1,y1: decode only this area of the reference grid");
       app.add_option("-t,--tile", o->tile, "decode only this tile (raster index)");
       app.add_option("-c,--components", o->components, "i,j,...: decode only these components");
       app.add_flag("--upsample", o->upsample, "resample subsampled components to full size");
       app.add_flag("--force-rgb", o->force_rgb, "convert sYCC to RGB");
       app.add_flag("--icc-to-srgb", o->icc_to_srgb,
                    "convert ICC-described images to sRGB through lcms2 (as opj_decompress)");
       app.add_flag("--allow-partial", o->allow_partial,
                    "decode what a truncated or damaged stream holds");
       app.add_option("--threads", o->threads, "worker threads (0 = all) (opj -threads)");
       app.add_option("--max-samples", o->max_samples,
                      "refuse outputs (or tiles) of more samples than this (default: physical "
                      "memory / 32 = " +
                          std::to_string(gj2k::default_max_samples()) + ")");
       gj2k::cli::add_device_option(app, o->device);
       app.add_flag("--quiet", o->quiet, "no progress and no summary");
       return [o] { return run(*o); };
     }});

}  // namespace
