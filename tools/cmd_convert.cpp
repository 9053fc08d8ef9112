// `gj2k convert -i IN -o OUT`: converts between the image formats of io/ (by extension).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "gj2k/gj2k.h"
#include "io/image_io.h"
#include "tools/cli_common.h"
#include "tools/command.h"

namespace {

struct ConvertArgs {
  gj2k::cli::IoArgs io;
  std::string compression = "none", raw;
  bool pgx_lm = false;
};

const bool registered = gj2k::cli::register_command(
    {"convert", "Convert an image between formats (PNG, TIFF, PNM/PAM, PGX, BMP, TGA, JPEG, raw)",
     [](CLI::App& app) -> gj2k::cli::RunFn {
       auto args = std::make_shared<ConvertArgs>();
       gj2k::cli::add_io_options(
           app, args->io,
           "input image (.png .tif .pnm .pbm .pgm .ppm .pam .pgx .bmp .tga .jpg .raw .rawl; "
           ".j2k .jp2 are decoded)",
           "output image; a .pgx of N > 1 components writes NAME_0.pgx .. NAME_<N-1>.pgx");
       app.add_option("--compression", args->compression, "TIFF compression")
           ->check(CLI::IsMember({"none", "deflate", "lzw", "packbits"}))
           ->capture_default_str();
       app.add_option("--raw", args->raw,
                      "geometry of a .raw (big-endian) or .rawl (little-endian) input: "
                      "WIDTH,HEIGHT,COMPONENTS,PRECISION,s|u");
       app.add_flag("--pgx-lm", args->pgx_lm, "write PGX samples little-endian (LM)");
       return [args] {
         gj2k::io::ReadOptions read_options;
         if (!args->raw.empty()) read_options.raw = gj2k::cli::parse_raw("--raw", args->raw);
         gj2k::io::WriteOptions write_options;
         write_options.pgx_little_endian = args->pgx_lm;
         if (args->compression == "deflate")
           write_options.tiff_compression = gj2k::io::TiffCompression::kDeflate;
         if (args->compression == "lzw")
           write_options.tiff_compression = gj2k::io::TiffCompression::kLzw;
         if (args->compression == "packbits")
           write_options.tiff_compression = gj2k::io::TiffCompression::kPackBits;
         const auto accept = [](const std::filesystem::path& path) {
           return gj2k::cli::is_image_path(path) || gj2k::cli::is_jpeg2000_path(path);
         };
         for (const auto& [input, output] : gj2k::cli::resolve_io(args->io, accept)) {
           const gj2k::Image image = gj2k::cli::read_any_image(input, read_options);
           gj2k::io::write_image(image, output, write_options);
           std::printf("%s -> %s: %s\n", input.c_str(), output.c_str(),
                       gj2k::describe(image).c_str());
         }
         return 0;
       };
     }});

}  // namespace
