// Format dispatch by extension and whole-file helpers (io/image_io.h).
#include "io/image_io.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "codec/api_guard.h"
#include "codec/file_output.h"
#include "codec/trace.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::fail;
using detail::File;

std::optional<Format> format_from_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".tif" || ext == ".tiff") return Format::kTiff;
  if (ext == ".pnm" || ext == ".pbm" || ext == ".pgm" || ext == ".ppm" || ext == ".pam")
    return Format::kPnm;
  if (ext == ".pgx") return Format::kPgx;
  if (ext == ".raw") return Format::kRaw;
  if (ext == ".rawl") return Format::kRawLittle;
  if (ext == ".png") return Format::kPng;
  if (ext == ".bmp") return Format::kBmp;
  if (ext == ".tga") return Format::kTga;
  if (ext == ".jpg" || ext == ".jpeg") return Format::kJpeg;
  return std::nullopt;
}

namespace {

Format need_format(const std::filesystem::path& path) {
  auto format = format_from_extension(path);
  if (!format)
    fail(ErrorCode::kInvalidArgument, path.string(),
         "unknown image format extension '" + path.extension().string() +
             "' (known: .png .tif .tiff .pnm .pbm .pgm .ppm .pam .pgx .raw .rawl .bmp .tga .jpg "
             ".jpeg)");
  return *format;
}

Image read_any(const std::filesystem::path& path, const ReadOptions& options);
void write_any(const Image& image, const std::filesystem::path& path, const WriteOptions& options);

}  // namespace

template <class Bytes>
Bytes read_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  File f(std::fopen(name.c_str(), "rb"));
  if (!f) fail(ErrorCode::kIo, name, std::string("cannot open: ") + std::strerror(errno));
  // Read in one go when the size is known (regular files), in chunks otherwise (pipes).
  Bytes bytes;
  std::error_code ec;
  const uintmax_t expected = std::filesystem::file_size(path, ec);
  if (!ec && expected > 0) {
    bytes.resize(static_cast<size_t>(expected));
    bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f.get()));
  }
  if (ec || bytes.size() == expected) {
    uint8_t buffer[1 << 16];
    for (;;) {
      const size_t n = std::fread(buffer, 1, sizeof buffer, f.get());
      bytes.insert(bytes.end(), buffer, buffer + n);
      if (n < sizeof buffer) break;
    }
  }
  if (std::ferror(f.get())) fail(ErrorCode::kIo, name, "read failed");
  return bytes;
}
template std::vector<uint8_t> read_file(const std::filesystem::path&);
template FileBytes read_file(const std::filesystem::path&);

void write_file(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  gj2k::detail::write_bytes_replacing(path, bytes);
}

Format check_output(const std::filesystem::path& path) {
  const Format format = need_format(path);
  gj2k::detail::check_output_folder(path);
  return format;
}

Image read_image(const std::filesystem::path& path, const ReadOptions& options) {
  return gj2k::detail::guard(path.string(), "reading", [&] { return read_any(path, options); });
}

void write_image(const Image& image, const std::filesystem::path& path,
                 const WriteOptions& options) {
  check_output(path);
  codec::TraceStage trace("write image");
  gj2k::detail::guard(path.string(), "writing", [&] { write_any(image, path, options); });
}

namespace {

Image read_any(const std::filesystem::path& path, const ReadOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    fail(ErrorCode::kIo, path.string(), "is a directory, not an image file");
  switch (need_format(path)) {
    case Format::kTiff:
      return read_tiff(path, options.max_samples);
    case Format::kPnm:
      return read_pnm(path);
    case Format::kPgx:
      return read_pgx(path);
    case Format::kRaw:
    case Format::kRawLittle: {
      if (!options.raw)
        fail(ErrorCode::kInvalidArgument, path.string(),
             "raw samples need their geometry (width, height, components, precision, sign)");
      RawGeometry g = *options.raw;
      g.big_endian = need_format(path) == Format::kRaw;
      return read_raw(path, g);
    }
    case Format::kPng:
      return read_png(path);
    case Format::kBmp:
      return read_bmp(read_file<FileBytes>(path), path.string());
    case Format::kTga:
      return read_tga(read_file<FileBytes>(path), path.string());
    case Format::kJpeg:
      return read_jpeg(read_file<FileBytes>(path), path.string());
  }
  fail(ErrorCode::kInternal, path.string(), "unhandled format");
}

void write_any(const Image& image, const std::filesystem::path& path, const WriteOptions& options) {
  switch (need_format(path)) {
    case Format::kTiff:
      return write_tiff(image, path, options.tiff_compression);
    case Format::kPnm:
      return write_pnm(image, path);
    case Format::kPgx:
      write_pgx(image, path, options.pgx_little_endian);
      return;
    case Format::kRaw:
      return write_raw(image, path, true);
    case Format::kRawLittle:
      return write_raw(image, path, false);
    case Format::kPng:
      return write_png(image, path);
    case Format::kBmp:
    case Format::kTga:
    case Format::kJpeg:
      fail(ErrorCode::kUnsupported, path.string(),
           "gj2k reads " + path.extension().string() + " files but does not write them");
  }
  fail(ErrorCode::kInternal, path.string(), "unhandled format");
}

}  // namespace

}  // namespace gj2k::io
