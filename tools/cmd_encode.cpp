// `gj2k encode IN OUT [options]`: an image file (or a generated scene) to .j2k/.j2c/.jp2.
// The options are opj_compress's, with its one-letter names and value syntax (-r 20,10,1,
// -b 32,32, -c [256,256],[128,128], -p RPCL, -M 5, -TP R ...), plus long names; the
// multi-letter opj names are translated in tools/cli_common.cpp. Several inputs (-i repeated,
// a folder, --img-dir) encode as one batch (run_batch_jobs).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codec/batch.h"
#include "codec/device.h"
#include "codec/gpu_warm_up.h"
#include "codec/parallel.h"
#include "codec/synthetic.h"
#include "codec/trace.h"
#include "entropy/t1.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "io/image_io.h"
#include "tools/batch_pipeline.h"
#include "tools/cli_common.h"
#include "tools/command.h"
#include "transform/device.h"

namespace gj2k::cli {
namespace {

std::vector<double> parse_doubles(const std::string& option, const std::string& s) {
  std::vector<double> out;
  for (const auto& part : split(s, ',')) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size()) bad_option(option, "'" + part + "' is not a number");
    out.push_back(v);
  }
  return out;
}

// Code-block styles (Table A.19): names ("bypass,reset"), or opj_compress -M's number, the
// sum of 1 BYPASS, 2 RESET, 4 RESTART, 8 VSC, 16 ERTERM, 32 SEGMARK (the same bits).
uint8_t parse_modes(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
    const uint32_t mask = parse_u32("-M", s);
    if (mask > entropy::cblk_style::kAll)
      bad_option("-M", "'" + s + "' is not a sum of 1, 2, 4, 8, 16, 32");
    return static_cast<uint8_t>(mask);
  }
  uint8_t style = 0;
  for (const auto& m : split(s, ',')) {
    if (m == "bypass" || m == "lazy")
      style |= entropy::cblk_style::kBypass;
    else if (m == "reset")
      style |= entropy::cblk_style::kReset;
    else if (m == "termall" || m == "restart")
      style |= entropy::cblk_style::kTermAll;
    else if (m == "vsc" || m == "causal")
      style |= entropy::cblk_style::kVerticalCausal;
    else if (m == "pterm" || m == "erterm")
      style |= entropy::cblk_style::kPredictableTerm;
    else if (m == "segsym" || m == "segmark")
      style |= entropy::cblk_style::kSegmentation;
    else
      bad_option("--modes", "unknown mode '" + m +
                                "' (choose from bypass, reset, termall, vsc, pterm, segsym)");
  }
  return style;
}

// Precinct sizes for each resolution, highest first, from opj's "[W,H],[W,H]..." or
// "WxH,WxH...". Listed sizes must be powers of two in the WxH form; in opj's form they are
// rounded down to one, as opj_compress does. Either way each unlisted lower resolution halves
// the last listed size again (opj_compress -c), a size below 1 becoming 2.
std::vector<std::pair<uint32_t, uint32_t>> parse_precincts(const std::string& s,
                                                           uint32_t resolutions) {
  std::vector<std::pair<uint32_t, uint32_t>> listed;
  if (s.find('[') != std::string::npos) {
    // "[W,H]" items joined by ','.
    size_t i = 0;
    while (i < s.size()) {
      const size_t close = s.find(']', i);
      if (s[i] != '[' || close == std::string::npos)
        bad_option("-c", "'" + s + "' is not of the form [W,H],[W,H],...");
      listed.push_back(parse_pair("-c", s.substr(i + 1, close - i - 1)));
      i = close + 1;
      if (i < s.size() && (s[i] != ',' || i + 1 == s.size()))
        bad_option("-c", "'" + s + "' is not of the form [W,H],[W,H],...");
      if (i < s.size()) ++i;
    }
  } else {
    for (const auto& part : split(s, ',')) {
      auto xy = split(part, 'x');
      if (xy.size() != 2) bad_option("--precincts", "'" + part + "' is not of the form WxH");
      listed.emplace_back(parse_u32("--precincts", xy[0]), parse_u32("--precincts", xy[1]));
      for (uint32_t v : {listed.back().first, listed.back().second})
        if (v == 0 || (v & (v - 1)) != 0)
          bad_option("--precincts", "'" + part + "': sizes must be powers of two");
    }
  }
  auto pow2_floor = [](uint64_t v) -> uint32_t {
    if (v < 1) return 2;
    uint32_t e = 0;
    while ((uint64_t{2} << e) <= v) ++e;
    return uint32_t{1} << e;
  };
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t r = 0; r < resolutions; ++r) {
    if (r < listed.size()) {
      out.emplace_back(pow2_floor(listed[r].first), pow2_floor(listed[r].second));
    } else {
      const uint32_t shift = r - static_cast<uint32_t>(listed.size()) + 1;
      const auto& last = listed.back();
      out.emplace_back(pow2_floor(shift >= 32 ? 0 : last.first >> shift),
                       pow2_floor(shift >= 32 ? 0 : last.second >> shift));
    }
  }
  return out;
}

ProgressionOrder parse_order(const std::string& s) {
  static const char* names[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  std::string up = s;
  std::transform(up.begin(), up.end(), up.begin(), ::toupper);
  for (int i = 0; i < 5; ++i)
    if (up == names[i]) return static_cast<ProgressionOrder>(i);
  bad_option("--order", "'" + s + "' is not one of LRCP, RLCP, RPCL, PCRL, CPRL");
}

struct Options {
  IoArgs io;
  std::string synthetic, save_input, raw, subsampling, index;
  std::string rate, bpp, psnr, cblk, precincts, order, tile, tile_origin, image_origin, modes,
      tile_parts, device;
  bool irreversible = false, sop = false, eph = false, tlm = false, plt = false, quiet = false,
       no_comment = false;
  int levels = 5, resolutions = 0, mct = -1, layers = 0, guard_bits = 2, threads = 0;
  double base_step = 0;
  std::string comment;
};

EncodeParams make_params(const Options& o) {
  EncodeParams p;
  p.irreversible = o.irreversible;
  p.levels = o.resolutions > 0 ? o.resolutions - 1 : o.levels;
  p.mct = o.mct;
  p.layers = o.layers;
  p.guard_bits = o.guard_bits;
  p.threads = o.threads;
  p.base_step = o.base_step;
  p.sop = o.sop;
  p.eph = o.eph;
  p.tlm = o.tlm;
  p.plt = o.plt;
  p.comment = o.comment;
  p.no_comment = o.no_comment;
  if (!o.rate.empty()) p.rates = parse_doubles("-r/--rate", o.rate);
  if (!o.bpp.empty()) p.bpp = parse_doubles("--bpp", o.bpp);
  if (!o.psnr.empty()) p.psnr = parse_doubles("-q/--psnr", o.psnr);
  if (!o.cblk.empty()) std::tie(p.cblk_width, p.cblk_height) = parse_pair("-b/--cblk", o.cblk);
  if (!o.precincts.empty())
    p.precincts = parse_precincts(o.precincts, static_cast<uint32_t>(std::max(p.levels, 0)) + 1);
  if (!o.order.empty()) p.order = parse_order(o.order);
  if (!o.tile.empty()) {
    std::tie(p.tile_width, p.tile_height) = parse_pair("-t/--tile", o.tile);
    if (p.tile_width == 0 || p.tile_height == 0) bad_option("-t/--tile", "tile sizes must be >= 1");
  }
  if (!o.tile_origin.empty())
    std::tie(p.tile_x0, p.tile_y0) = parse_pair("-T/--tile-origin", o.tile_origin);
  if (!o.image_origin.empty()) {
    std::tie(p.image_x0, p.image_y0) = parse_pair("-d/--image-origin", o.image_origin);
    p.set_image_origin = true;
  }
  if (!o.modes.empty()) p.cblk_style = parse_modes(o.modes);
  if (!o.tile_parts.empty()) {
    const std::string& t = o.tile_parts;
    if (t == "R" || t == "r")
      p.tile_parts = TilePartSplit::kResolution;
    else if (t == "L" || t == "l")
      p.tile_parts = TilePartSplit::kLayer;
    else if (t == "C" || t == "c")
      p.tile_parts = TilePartSplit::kComponent;
    else
      bad_option("-TP/--tile-parts", "'" + t + "' is not R, L or C");
  }
  p.device = device_choice<EncodeParams::Device>(o.device);
  return p;
}

// opj_compress -s DX,DY: every component samples the reference grid every (DX, DY) points, so
// the image area grows to x1 = x0 + (w - 1) * DX + 1 (and likewise y).
void apply_subsampling(Image& image, std::pair<uint32_t, uint32_t> s, EncodeParams& params) {
  if (s.first < 1 || s.first > 255 || s.second < 1 || s.second > 255)
    bad_option("-s/--subsampling", "factors must be 1..255");
  const uint32_t w = image.components.at(0).width, h = image.components[0].height;
  for (const Component& c : image.components)
    if (c.width != w || c.height != h)
      bad_option("-s/--subsampling", "the input's components differ in size");
  if (params.set_image_origin) image.x0 = params.image_x0, image.y0 = params.image_y0;
  params.set_image_origin = false;
  image.x1 = image.x0 + (w - 1) * s.first + 1;
  image.y1 = image.y0 + (h - 1) * s.second + 1;
  for (Component& c : image.components) c.dx = s.first, c.dy = s.second;
  validate(image);
}

bool accept_input(const std::filesystem::path& path) {
  return is_image_path(path);
}

// The (input, output) pairs to encode: from the file arguments, or one output for --synthetic.
std::vector<Job> encode_jobs(const Options& o) {
  std::vector<Job> jobs;
  if (o.synthetic.empty()) return resolve_io(o.io, accept_input);
  IoArgs only_output = o.io;
  if (!o.io.inputs.empty() || !o.io.img_dir.empty())
    bad_option("--synthetic", "give --synthetic or an input, not both");
  if (only_output.output.empty()) std::swap(only_output.output, only_output.input_pos);
  if (only_output.output.empty()) bad_option("output", "missing");
  jobs.emplace_back("", only_output.output);
  return jobs;
}

// What the input will hold, in bytes, before it is read: the file's size, or 3 bytes per pixel
// of the --synthetic size (set in `size`); 0 when the file cannot be sized (read_image then
// says what is wrong with it).
uint64_t expected_input_bytes(const Options& o, const std::filesystem::path& input,
                              std::pair<uint32_t, uint32_t>& size) {
  if (!o.synthetic.empty()) {
    size = parse_pair("--synthetic", o.synthetic);
    return uint64_t{size.first} * size.second * 3;
  }
  std::error_code ec;
  const uint64_t bytes = std::filesystem::file_size(input, ec);
  return ec ? 0 : bytes;
}

// The one-line result of an encode.
std::string result_line(const std::filesystem::path& output, const Image& image,
                        const EncodeStats& stats, FileFormat format) {
  uint64_t raw_bytes = 0;
  for (const auto& c : image.components)
    raw_bytes += uint64_t{c.width} * c.height * ((c.precision + 7) / 8);
  const double pixels = double(image.width()) * image.height();
  return cli::format(
      "%s: %s -> %zu bytes (%s), ratio %.2f:1, %.3f bpp, %.3f s, %.1f Mpixel/s, "
      "coded on the %s",
      output.c_str(), describe(image).c_str(), stats.bytes,
      format == FileFormat::kJp2 ? "JP2" : "codestream",
      stats.bytes ? double(raw_bytes) / stats.bytes : 0.0, stats.bytes * 8.0 / pixels,
      stats.seconds, stats.seconds > 0 ? pixels / stats.seconds / 1e6 : 0.0,
      stats.gpu ? "GPU" : "CPU");
}

// Reads (or generates) one input and encodes it to `output`.
void encode_job(const Options& o, const EncodeParams& params, const io::ReadOptions& read_options,
                const Job& job, ProgressLine& progress) {
  const auto& [input, output] = job;
  // CUDA start-up overlaps reading or making the image when the encode may well run on the
  // GPU: --device gpu, or auto with an input file as large as the samples the GPU is faster
  // from (8-bit samples: bytes count as samples; transform::auto_choice_encode). The encoder
  // decides on the image it gets.
  std::optional<codec::GpuWarmUp> gpu_start;
  std::pair<uint32_t, uint32_t> size{0, 0};
  const uint64_t expected = expected_input_bytes(o, input, size);
  if (transform::auto_choice_encode(codec::to_transform(params.device), expected,
                                    codec::batch_threads(params.threads)) !=
      transform::Device::kCpu)
    gpu_start.emplace(false);
  const FileFormat format = format_from_extension(output);
  Encoder encoder;
  EncodeStats stats;
  auto report = [&](const Image& geometry) {  // result_line reads the geometry only
    progress.clear();
    if (o.quiet) return;
    std::printf("%s\n", result_line(output, geometry, stats, format).c_str());
    std::fflush(stdout);
  };
  // A binary PGM/PPM that the GPU will likely encode is encoded from its rows as the file
  // stores them (Encoder::encode(layout, InputBuffer)): no int32 image of 4 bytes a sample is
  // made, and the GPU stages the rows as they lie. (On the CPU the image's own buffers become
  // the encoder's planes, which the rows cannot.)
  if (gpu_start && o.synthetic.empty() && o.subsampling.empty() && o.save_input.empty() &&
      io::format_from_extension(input) == io::Format::kPnm) {
    progress.update(("reading " + input.filename().string()).c_str(), -1);
    codec::TraceStage trace("read image rows");
    if (std::optional<io::PnmRows> rows = io::read_pnm_rows(input)) {
      trace.end();
      encoder.encode_to_file(rows->layout, rows->buffer(), params, output, &stats);
      return report(rows->layout);
    }
  }
  Image image;
  if (o.synthetic.empty()) {
    progress.update(("reading " + input.filename().string()).c_str(), -1);
    codec::TraceStage trace("read image");
    image = io::read_image(input, read_options);
  } else {
    progress.update("generating the scene", -1);
    image = codec::synthetic_image(size.first, size.second, 3, 8, 1);
  }
  EncodeParams file_params = params;
  if (!o.subsampling.empty())
    apply_subsampling(image, parse_pair("-s/--subsampling", o.subsampling), file_params);
  if (!o.save_input.empty()) io::write_image(image, o.save_input);
  // The image is not needed after the encode (result_line reads its geometry only): its
  // buffers may become the encoder's planes.
  encoder.encode_to_file(std::move(image), file_params, output, &stats);
  report(image);
}

// A batch: images read ahead, several small ones encoded at once, outputs written behind
// (tools/batch_pipeline.h). A file that fails is reported and the rest go on; the status is 1
// when any failed.
int run_batch_jobs(const Options& o, const EncodeParams& params,
                   const io::ReadOptions& read_options, const std::vector<Job>& jobs) {
  for (const Job& job : jobs) format_from_extension(job.second);  // bad names cost nothing
  // CUDA starts once for the batch, while the first image is read, when the encodes may well
  // run on the GPU (as encode_job decides for one file).
  std::optional<codec::GpuWarmUp> gpu_start;
  std::pair<uint32_t, uint32_t> unused{0, 0};
  const int threads = codec::batch_threads(o.threads);
  const int coders = codec::batch_workers(threads, jobs.size());
  if (!codec::batch_on_cpu(codec::to_transform(params.device),
                           expected_input_bytes(o, jobs.front().first, unused),
                           std::max(1, threads / coders)))
    gpu_start.emplace(false);
  ProgressLine progress(o.quiet);
  const auto batch_start = std::chrono::steady_clock::now();
  codec::ThreadBudget budget(threads);
  codec::ThreadBudget gpu_places(codec::kBatchGpuInFlight);
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<size_t> started{0};
  struct Encoded {
    Image image;  // the input's geometry, for the summary line (samples dropped)
    std::vector<uint8_t> bytes;
    EncodeStats stats;
    uint64_t input_bytes = 0;
  };
  BatchStages<Image, Encoded> stages;
  stages.read = [&](size_t k) {
    const codec::ThreadScope scope(threads);  // the reader thread's loops: --threads too
    return io::read_image(jobs[k].first, read_options);
  };
  stages.code = [&](size_t k, Image image) {
    const auto& [input, output] = jobs[k];
    const std::string prefix = batch_prefix(
        ++started, jobs.size(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - batch_start).count(),
        bytes_in, input);
    progress.update_as(prefix, ("reading " + input.filename().string()).c_str(), -1);
    Encoded out;
    std::pair<uint32_t, uint32_t> size{0, 0};
    out.input_bytes = expected_input_bytes(o, input, size);
    EncodeParams p = params;
    if (!o.subsampling.empty())
      apply_subsampling(image, parse_pair("-s/--subsampling", o.subsampling), p);
    if (!o.save_input.empty()) io::write_image(image, o.save_input);
    uint64_t samples = 0;
    for (const Component& c : image.components) samples += uint64_t{c.width} * c.height;
    const codec::BatchShare share =
        codec::batch_encode_share(codec::to_transform(p.device), samples, threads, coders);
    p.threads = share.threads;
    p.progress = [&progress, &prefix](const char* stage, double f) {
      return progress.update_as(prefix, stage, f);
    };
    std::optional<codec::ThreadBudget::Lease> gpu_place;
    if (share.gpu) gpu_place.emplace(gpu_places, 1);
    const codec::ThreadBudget::Lease lease(budget, p.threads);
    out.bytes = Encoder().encode(std::move(image), p, format_from_extension(output), &out.stats);
    for (Component& c : image.components) Samples().swap(c.samples);
    out.image = std::move(image);
    return out;
  };
  stages.write = [&](size_t k, Encoded out) {
    io::write_file(jobs[k].second, out.bytes);
    bytes_in += out.input_bytes;
    if (!o.quiet)
      progress.print(stdout, result_line(jobs[k].second, out.image, out.stats,
                                         format_from_extension(jobs[k].second)));
  };
  stages.failed = [&](size_t k, const std::exception& e) {
    progress.print(stderr, batch_failure(jobs[k].first, e));
  };
  const size_t failed = run_batch(jobs.size(), coders, stages);
  progress.clear();
  if (!o.quiet) print_batch_summary(jobs.size() - failed, batch_start, bytes_in);
  if (failed) std::fprintf(stderr, "gj2k: %zu of %zu files failed\n", failed, jobs.size());
  return failed ? 1 : 0;
}

int run(const Options& o) {
  // --threads bounds the whole command, reading the image included: with --threads 1 no
  // helper thread is started (a pool of every core cost a one-thread encode its system time).
  const codec::ThreadScope scope(o.threads);
  EncodeParams params = make_params(o);
  if (!o.index.empty())
    std::fprintf(stderr,
                 "gj2k: -x/--index: index files are not written (opj_compress 2.5 ignores -x "
                 "too); '%s' ignored\n",
                 o.index.c_str());
  const std::vector<Job> jobs = encode_jobs(o);
  io::ReadOptions read_options;
  if (!o.raw.empty()) read_options.raw = parse_raw("--raw", o.raw);
  if (o.synthetic.empty() && is_batch(o.io)) return run_batch_jobs(o, params, read_options, jobs);
  ProgressLine progress(o.quiet);
  params.progress = [&progress](const char* stage, double f) { return progress.update(stage, f); };
  progress.set_prefix("encode");
  encode_job(o, params, read_options, jobs.front(), progress);
  return 0;
}

const bool registered = register_command(
    {"encode", "Encode an image to JPEG 2000 (.j2k/.j2c codestream or .jp2), as opj_compress",
     [](CLI::App& app) -> RunFn {
       auto o = std::make_shared<Options>();
       add_io_options(app, o->io,
                      "input image (.png .tif .pgm .ppm .pnm .pam .pgx .bmp .tga .jpg .raw)",
                      "output file (.j2k .j2c .jp2)");
       app.add_option("--synthetic", o->synthetic,
                      "encode a generated photo-like RGB 8-bit scene of W,H instead of an input");
       app.add_option("--save-input", o->save_input,
                      "also write the input image (e.g. the --synthetic scene) to this file");
       app.add_option("-F,--raw", o->raw,
                      "geometry of a .raw (big-endian) or .rawl (little-endian) input: "
                      "WIDTH,HEIGHT,COMPONENTS,PRECISION,s|u");
       app.add_option("-r,--rate", o->rate,
                      "compression ratios per layer, decreasing; 1 = lossless last layer");
       app.add_option("-q,--psnr", o->psnr, "PSNR in dB per layer, increasing");
       app.add_option("--bpp", o->bpp, "bits per pixel per layer, increasing");
       app.add_flag("-I,--irreversible", o->irreversible, "9/7 wavelet + ICT (lossy)");
       app.add_option("-n,--resolutions", o->resolutions,
                      "number of resolutions = decomposition levels + 1 (default 6)");
       app.add_option("--levels", o->levels, "decomposition levels (default 5)");
       app.add_option("-b,--cblk", o->cblk, "code-block size W,H (default 64,64)");
       app.add_option("-c,--precincts", o->precincts,
                      "precinct sizes [W,H],[W,H],... from the highest resolution down; lower "
                      "ones halve the last (also WxH,WxH)");
       app.add_option("-p,--order", o->order, "progression order LRCP|RLCP|RPCL|PCRL|CPRL");
       app.add_option("--layers", o->layers, "number of quality layers");
       app.add_option("-t,--tile", o->tile, "tile size W,H (default: one tile)");
       app.add_option("-T,--tile-origin", o->tile_origin, "tile grid origin X,Y");
       app.add_option("-d,--image-origin", o->image_origin, "image origin X,Y on the grid");
       app.add_option("-s,--subsampling", o->subsampling,
                      "sample every component every DX,DY grid points");
       app.add_option("--mct", o->mct, "multi-component transform 0|1 (default: auto)")
           ->check(CLI::Range(0, 1));
       app.add_option("-M,--modes", o->modes,
                      "code-block styles: opj's sum (1 bypass, 2 reset, 4 restart, 8 vsc, "
                      "16 erterm, 32 segmark) or names bypass,reset,termall,vsc,pterm,segsym");
       app.add_flag("--sop", o->sop, "SOP marker before each packet (opj -SOP)");
       app.add_flag("--eph", o->eph, "EPH marker after each packet header (opj -EPH)");
       app.add_flag("--tlm", o->tlm, "TLM marker in the main header (opj -TLM)");
       app.add_flag("--plt", o->plt, "PLT markers in tile-part headers (opj -PLT)");
       app.add_option("--tile-parts", o->tile_parts,
                      "new tile-part on each resolution (R), layer (L) or component (C) (opj -TP)");
       app.add_option("--guard-bits", o->guard_bits, "guard bits 0..7 (default 2)");
       app.add_option("--base-step", o->base_step,
                      "9/7 base quantization step in sample units (default 2^(precision-8) at <= "
                      "0.5 bit per sample, else 2^(precision-9))");
       app.add_option("-C,--comment", o->comment, "COM marker text");
       app.add_flag("--no-comment", o->no_comment, "write no COM marker");
       app.add_option("-x,--index", o->index,
                      "opj's index file: accepted and ignored, as opj_compress 2.5 does");
       app.add_option("--threads", o->threads, "threads (default: all cores) (opj -threads)");
       add_device_option(app, o->device);
       app.add_flag("--quiet", o->quiet, "no progress and no summary");
       return [o] { return run(*o); };
     }});

}  // namespace
}  // namespace gj2k::cli
