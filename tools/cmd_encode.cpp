// `gj2k encode -i IN -o OUT [options]`: image file (or a generated scene) to .j2k/.j2c/.jp2.
// Options follow opj_compress's meaning with long names (issue 5).
#include <CLI/CLI.hpp>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "codec/synthetic.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"
#include "io/image_io.h"
#include "tools/command.h"
#include "transform/device.h"

namespace gj2k::cli {
namespace {

[[noreturn]] void bad_option(const std::string& option, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument, option + ": " + why);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

uint32_t parse_u32(const std::string& option, const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 10)
    bad_option(option, "'" + s + "' is not a non-negative integer");
  const unsigned long long v = std::stoull(s);
  if (v > UINT32_MAX) bad_option(option, "'" + s + "' is too large");
  return static_cast<uint32_t>(v);
}

// "AxB" (sep 'x') or "A,B" (sep ',').
std::pair<uint32_t, uint32_t> parse_pair(const std::string& option, const std::string& s,
                                         char sep) {
  auto parts = split(s, sep);
  if (parts.size() != 2)
    bad_option(option, "'" + s + "' is not of the form A" + std::string(1, sep) + "B");
  return {parse_u32(option, parts[0]), parse_u32(option, parts[1])};
}

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

uint8_t parse_modes(const std::string& s) {
  uint8_t style = 0;
  for (const auto& m : split(s, ',')) {
    if (m == "bypass" || m == "lazy")
      style |= 0x01;
    else if (m == "reset")
      style |= 0x02;
    else if (m == "termall" || m == "restart")
      style |= 0x04;
    else if (m == "vsc" || m == "causal")
      style |= 0x08;
    else if (m == "pterm" || m == "erterm")
      style |= 0x10;
    else if (m == "segsym" || m == "segmark")
      style |= 0x20;
    else
      bad_option("--modes", "unknown mode '" + m +
                                "' (choose from bypass, reset, termall, vsc, pterm, segsym)");
  }
  return style;
}

ProgressionOrder parse_order(const std::string& s) {
  static const char* names[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  std::string up = s;
  std::transform(up.begin(), up.end(), up.begin(), ::toupper);
  for (int i = 0; i < 5; ++i)
    if (up == names[i]) return static_cast<ProgressionOrder>(i);
  bad_option("--order", "'" + s + "' is not one of LRCP, RLCP, RPCL, PCRL, CPRL");
}

// Prints "\rencode: <stage> NN%" on stderr at most every 1% change.
class Progress {
 public:
  void operator()(const char* stage, double fraction) {
    const int pct = static_cast<int>(fraction * 100);
    if (stage == last_stage_ && pct == last_pct_) return;
    last_stage_ = stage;
    last_pct_ = pct;
    std::fprintf(stderr, "\rencode: %-22s %3d%%", stage, pct);
    std::fflush(stderr);
    shown_ = true;
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\r%50s\r", "");
  }

 private:
  std::string last_stage_;
  int last_pct_ = -1;
  bool shown_ = false;
};

struct Options {
  std::string input, output, synthetic, save_input;
  std::string rate, bpp, psnr, cblk, precincts, order, tile, tile_origin, image_origin, modes,
      tile_parts, device;
  bool irreversible = false, sop = false, eph = false, tlm = false, plt = false, quiet = false,
       no_comment = false;
  int levels = 5, mct = -1, layers = 0, guard_bits = 2, threads = 0;
  double base_step = 0;
  std::string comment;
};

EncodeParams make_params(const Options& o) {
  EncodeParams p;
  p.irreversible = o.irreversible;
  p.levels = o.levels;
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
  if (!o.rate.empty()) p.rates = parse_doubles("--rate", o.rate);
  if (!o.bpp.empty()) p.bpp = parse_doubles("--bpp", o.bpp);
  if (!o.psnr.empty()) p.psnr = parse_doubles("--psnr", o.psnr);
  if (!o.cblk.empty()) std::tie(p.cblk_width, p.cblk_height) = parse_pair("--cblk", o.cblk, 'x');
  if (!o.precincts.empty())
    for (const auto& s : split(o.precincts, ','))
      p.precincts.push_back(parse_pair("--precincts", s, 'x'));
  if (!o.order.empty()) p.order = parse_order(o.order);
  if (!o.tile.empty()) {
    std::tie(p.tile_width, p.tile_height) = parse_pair("--tile", o.tile, 'x');
    if (p.tile_width == 0 || p.tile_height == 0) bad_option("--tile", "tile sizes must be >= 1");
  }
  if (!o.tile_origin.empty())
    std::tie(p.tile_x0, p.tile_y0) = parse_pair("--tile-origin", o.tile_origin, ',');
  if (!o.image_origin.empty()) {
    std::tie(p.image_x0, p.image_y0) = parse_pair("--image-origin", o.image_origin, ',');
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
      bad_option("--tile-parts", "'" + t + "' is not R, L or C");
  }
  p.device = device_choice<EncodeParams::Device>(o.device);
  return p;
}

int run(const Options& o) {
  if (o.input.empty() == o.synthetic.empty())
    bad_option("-i", "give exactly one of -i/--input and --synthetic");
  EncodeParams params = make_params(o);
  // CUDA start-up (about 0.23 s) overlaps reading or making the image when the encode may well
  // run on the GPU: --device gpu, or auto with an input file of at least kGpuAutoMinSamples
  // bytes (8-bit samples: that many samples). The encoder decides on the image it gets
  // (transform::auto_choice); a compressed file may hold more samples than bytes (then the
  // encoder starts CUDA itself), a 16-bit one fewer (then CUDA started for nothing costs the
  // process about 0.1 s of teardown at exit).
  std::optional<transform::GpuStartAhead> gpu_start;
  uint64_t expected = 0;
  std::pair<uint32_t, uint32_t> size{0, 0};
  if (!o.synthetic.empty()) {
    size = parse_pair("--synthetic", o.synthetic, 'x');
    expected = uint64_t{size.first} * size.second * 3;
  } else {
    std::error_code ec;
    expected = std::filesystem::file_size(o.input, ec);
    if (ec) expected = 0;  // read_image says what is wrong with the file
  }
  if (params.device == EncodeParams::Device::kGpu ||
      (params.device == EncodeParams::Device::kAuto && expected >= transform::kGpuAutoMinSamples))
    gpu_start.emplace();
  Image image = o.synthetic.empty() ? io::read_image(o.input)
                                    : codec::synthetic_image(size.first, size.second, 3, 8, 1);
  if (!o.save_input.empty()) io::write_image(image, o.save_input);
  const FileFormat format = format_from_extension(o.output);
  std::unique_ptr<Progress> progress;
  if (!o.quiet && ::isatty(::fileno(stderr))) {
    progress = std::make_unique<Progress>();
    params.progress = [&progress](const char* stage, double f) {
      (*progress)(stage, f);
      return true;
    };
  }
  Encoder encoder;
  EncodeStats stats;
  encoder.encode_to_file(image, params, o.output, &stats);
  if (progress) progress->finish();
  if (!o.quiet) {
    uint64_t raw_bytes = 0;
    for (const auto& c : image.components)
      raw_bytes += uint64_t{c.width} * c.height * ((c.precision + 7) / 8);
    const double pixels = double(image.width()) * image.height();
    std::printf(
        "%s: %s -> %zu bytes (%s), ratio %.2f:1, %.3f bpp, %.3f s, %.1f Mpixel/s, "
        "transform on the %s\n",
        o.output.c_str(), describe(image).c_str(), stats.bytes,
        format == FileFormat::kJp2 ? "JP2" : "codestream",
        stats.bytes ? double(raw_bytes) / stats.bytes : 0.0, stats.bytes * 8.0 / pixels,
        stats.seconds, stats.seconds > 0 ? pixels / stats.seconds / 1e6 : 0.0,
        stats.gpu ? "GPU" : "CPU");
  }
  return 0;
}

const bool registered = register_command(
    {"encode", "Encode an image to JPEG 2000 (.j2k/.j2c codestream or .jp2)",
     [](CLI::App& app) -> RunFn {
       auto o = std::make_shared<Options>();
       app.add_option("-i,--input", o->input, "input image (.tif .pgm .ppm .pnm .pgx .raw)");
       app.add_option("-o,--output", o->output, "output file (.j2k .j2c .jp2)")->required();
       app.add_option("--synthetic", o->synthetic,
                      "encode a generated photo-like RGB 8-bit scene of WxH instead of -i");
       app.add_option("--save-input", o->save_input,
                      "also write the input image (e.g. the --synthetic scene) to this file");
       app.add_option("--rate", o->rate,
                      "compression ratios per layer, decreasing (as opj_compress -r); "
                      "1 = lossless last layer");
       app.add_option("--bpp", o->bpp, "bits per pixel per layer, increasing");
       app.add_option("--psnr", o->psnr, "PSNR in dB per layer, increasing");
       app.add_flag("--irreversible", o->irreversible, "9/7 wavelet + ICT (lossy)");
       app.add_option("--levels", o->levels, "decomposition levels (default 5)");
       app.add_option("--cblk", o->cblk, "code-block size WxH (default 64x64)");
       app.add_option("--precincts", o->precincts,
                      "precinct sizes WxH[,WxH...] from the highest resolution down");
       app.add_option("--order", o->order, "progression order LRCP|RLCP|RPCL|PCRL|CPRL");
       app.add_option("--layers", o->layers, "number of quality layers");
       app.add_option("--tile", o->tile, "tile size WxH (default: one tile)");
       app.add_option("--tile-origin", o->tile_origin, "tile grid origin X,Y");
       app.add_option("--image-origin", o->image_origin, "image origin X,Y on the grid");
       app.add_option("--mct", o->mct, "multi-component transform 0|1 (default: auto)");
       app.add_option("--modes", o->modes,
                      "code-block styles: bypass,reset,termall,vsc,pterm,segsym");
       app.add_flag("--sop", o->sop, "SOP marker before each packet");
       app.add_flag("--eph", o->eph, "EPH marker after each packet header");
       app.add_flag("--tlm", o->tlm, "TLM marker (tile-part lengths) in the main header");
       app.add_flag("--plt", o->plt, "PLT markers (packet lengths) in tile-part headers");
       app.add_option("--tile-parts", o->tile_parts,
                      "new tile-part on each resolution (R), layer (L) or component (C)");
       app.add_option("--guard-bits", o->guard_bits, "guard bits 0..7 (default 2)");
       app.add_option("--base-step", o->base_step,
                      "9/7 base quantization step in sample units (default 2^(precision-8) at <= "
                      "0.5 bit per sample, else 2^(precision-9))");
       app.add_option("--comment", o->comment, "COM marker text");
       app.add_flag("--no-comment", o->no_comment, "write no COM marker");
       app.add_option("--threads", o->threads, "threads (default: all cores)");
       add_device_option(app, o->device);
       app.add_flag("-q,--quiet", o->quiet, "no progress and no summary");
       return [o] { return run(*o); };
     }});

}  // namespace
}  // namespace gj2k::cli
