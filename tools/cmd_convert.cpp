// `gj2k convert -i IN -o OUT`: converts between the image formats of io/ (by extension).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "gj2k/gj2k.h"
#include "io/image_io.h"
#include "tools/command.h"

namespace {

struct ConvertArgs {
  std::string input, output, compression = "none", raw;
  bool pgx_lm = false;
};

// "W,H,C,P,s|u" -> RawGeometry.
gj2k::io::RawGeometry parse_raw(const std::string& text) {
  gj2k::io::RawGeometry g;
  unsigned w = 0, h = 0, c = 0, p = 0;
  char sign = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%u,%u,%u,%u,%c%n", &w, &h, &c, &p, &sign, &used) != 5 ||
      used != static_cast<int>(text.size()) || (sign != 's' && sign != 'u'))
    throw gj2k::Error(gj2k::ErrorCode::kInvalidArgument,
                      "--raw '" + text + "': expected WIDTH,HEIGHT,COMPONENTS,PRECISION,s|u");
  g.width = w;
  g.height = h;
  g.num_components = c;
  g.precision = p;
  g.is_signed = sign == 's';
  return g;
}

const bool registered = gj2k::cli::register_command(
    {"convert", "Convert an image between TIFF, PNM/PAM, PGX and raw (format from the extension)",
     [](CLI::App& app) -> gj2k::cli::RunFn {
       auto args = std::make_shared<ConvertArgs>();
       app.add_option("-i,--input", args->input,
                      "input image (.tif .tiff .pnm .pbm .pgm .ppm .pam .pgx .raw .rawl)")
           ->required();
       app.add_option(
              "-o,--output", args->output,
              "output image; a .pgx of N > 1 components writes NAME_0.pgx .. NAME_<N-1>.pgx")
           ->required();
       app.add_option("--compression", args->compression, "TIFF compression")
           ->check(CLI::IsMember({"none", "deflate", "lzw", "packbits"}))
           ->capture_default_str();
       app.add_option("--raw", args->raw,
                      "geometry of a .raw (big-endian) or .rawl (little-endian) input: "
                      "WIDTH,HEIGHT,COMPONENTS,PRECISION,s|u");
       app.add_flag("--pgx-lm", args->pgx_lm, "write PGX samples little-endian (LM)");
       return [args] {
         gj2k::io::ReadOptions read_options;
         if (!args->raw.empty()) read_options.raw = parse_raw(args->raw);
         gj2k::io::WriteOptions write_options;
         write_options.pgx_little_endian = args->pgx_lm;
         if (args->compression == "deflate")
           write_options.tiff_compression = gj2k::io::TiffCompression::kDeflate;
         if (args->compression == "lzw")
           write_options.tiff_compression = gj2k::io::TiffCompression::kLzw;
         if (args->compression == "packbits")
           write_options.tiff_compression = gj2k::io::TiffCompression::kPackBits;
         const gj2k::Image image = gj2k::io::read_image(args->input, read_options);
         gj2k::io::write_image(image, args->output, write_options);
         std::printf("%s -> %s: %s\n", args->input.c_str(), args->output.c_str(),
                     gj2k::describe(image).c_str());
         return 0;
       };
     }});

}  // namespace
