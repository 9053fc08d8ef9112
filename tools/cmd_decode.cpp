// `gj2k decode -i IN -o OUT`: decode a codestream or JP2 file to TIFF, PNM or PGX (by the output
// extension; PGX writes one file per component, name_k.pgx).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>

#include "gj2k/decoder.h"
#include "io/image_io.h"
#include "tools/command.h"

namespace {

struct Options {
  std::string input, output;
  uint32_t reduce = 0, layers = 0, threads = 0;
  std::string region, components, device = "auto";
  int64_t tile = -1;
  uint64_t max_samples = gj2k::default_max_samples();
  bool upsample = false, force_rgb = false, allow_partial = false, quiet = false;
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

int run(const Options& o) {
  gj2k::DecodeParams p;
  p.reduce = o.reduce;
  p.max_layers = o.layers;
  p.threads = o.threads;
  p.upsample = o.upsample;
  p.force_rgb = o.force_rgb;
  p.allow_partial = o.allow_partial;
  p.max_samples = o.max_samples;
  p.device = gj2k::cli::device_choice<gj2k::DecodeDevice>(o.device);
  if (o.tile >= 0) p.tile = static_cast<uint32_t>(o.tile);
  if (!o.components.empty()) p.components = parse_list(o.components, "--components");
  if (!o.region.empty()) {
    auto v = parse_list(o.region, "--region");
    if (v.size() != 4 || v[2] <= v[0] || v[3] <= v[1])
      throw gj2k::Error(gj2k::ErrorCode::kInvalidArgument,
                        "--region: expected x0,y0,x1,y1 with x1 > x0 and y1 > y0");
    p.region = gj2k::Region{v[0], v[1], v[2], v[3]};
  }
  gj2k::io::check_output(o.output);  // a bad output name costs nothing
  auto start = std::chrono::steady_clock::now();
  gj2k::Image image = gj2k::decode_file(o.input, p);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  gj2k::io::write_image(image, o.output);
  if (!o.quiet)
    std::printf("%s -> %s: %s, decoded in %.3f s\n", o.input.c_str(), o.output.c_str(),
                gj2k::describe(image).c_str(), seconds);
  return 0;
}

const bool registered = gj2k::cli::register_command(
    {"decode", "Decode a JPEG 2000 codestream or JP2 file to TIFF, PNM or PGX",
     [](CLI::App& app) -> gj2k::cli::RunFn {
       auto o = std::make_shared<Options>();
       app.add_option("-i,--input", o->input, "input .j2k/.j2c/.jp2")->required();
       app.add_option("-o,--output", o->output,
                      "output image: .tif/.tiff, .pgm/.ppm/.pnm, .pgx (name_k.pgx per component)")
           ->required();
       app.add_option("-r,--reduce", o->reduce, "discard this many highest resolution levels");
       app.add_option("-l,--layers", o->layers, "decode at most this many quality layers");
       app.add_option("-d,--region", o->region,
                      "x0,y0,x1,y1: decode only this area of the reference grid");
       app.add_option("-t,--tile", o->tile, "decode only this tile (raster index)");
       app.add_option("-c,--components", o->components, "i,j,...: decode only these components");
       app.add_flag("--upsample", o->upsample, "resample subsampled components to full size");
       app.add_flag("--force-rgb", o->force_rgb, "convert sYCC to RGB");
       app.add_flag("--allow-partial", o->allow_partial,
                    "decode what a truncated or damaged stream holds");
       app.add_option("--threads", o->threads, "worker threads (0 = all)");
       app.add_option("--max-samples", o->max_samples,
                      "refuse outputs (or tiles) of more samples than this (default: physical "
                      "memory / 32 = " +
                          std::to_string(gj2k::default_max_samples()) + ")");
       gj2k::cli::add_device_option(app, o->device);
       app.add_flag("-q,--quiet", o->quiet, "print nothing on success");
       return [o] { return run(*o); };
     }});

}  // namespace
