// TIFF reader and writer through libtiff (io/image_io.h). All TIFF I/O goes through memory
// (TIFFClientOpenExt) with per-handle error and warning handlers, so libtiff prints nothing and
// its first error becomes the gj2k::Error message.
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "codec/file_output.h"
#include "io/image_io.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::fail;
using detail::mul_sat;
using detail::sign_extend;

namespace {

// ---- libtiff plumbing: memory streams and message capture ------------------------------------

struct Stream {
  std::span<const uint8_t> input;          // reading
  std::vector<uint8_t>* output = nullptr;  // writing
  uint64_t pos = 0;
  std::string error;  // libtiff's first error message
  uint64_t size() const { return output ? output->size() : input.size(); }
};

Stream* stream_of(thandle_t h) {
  return static_cast<Stream*>(h);
}

tmsize_t stream_read(thandle_t h, void* buf, tmsize_t n) {
  Stream* s = stream_of(h);
  if (n <= 0 || s->pos >= s->size()) return 0;
  const uint64_t k = std::min<uint64_t>(static_cast<uint64_t>(n), s->size() - s->pos);
  const uint8_t* src = s->output ? s->output->data() : s->input.data();
  std::memcpy(buf, src + s->pos, k);
  s->pos += k;
  return static_cast<tmsize_t>(k);
}

tmsize_t stream_write(thandle_t h, void* buf, tmsize_t n) {
  Stream* s = stream_of(h);
  if (!s->output || n < 0) return -1;
  const uint64_t end = s->pos + static_cast<uint64_t>(n);
  if (end > s->output->size()) s->output->resize(end);
  if (n > 0) std::memcpy(s->output->data() + s->pos, buf, static_cast<size_t>(n));
  s->pos = end;
  return n;
}

toff_t stream_seek(thandle_t h, toff_t off, int whence) {
  Stream* s = stream_of(h);
  uint64_t base = 0;
  if (whence == SEEK_CUR) base = s->pos;
  if (whence == SEEK_END) base = s->size();
  const uint64_t target = base + off;
  if (target < base) return static_cast<toff_t>(-1);
  s->pos = target;
  return s->pos;
}

int stream_close(thandle_t) {
  return 0;
}

toff_t stream_size(thandle_t h) {
  return stream_of(h)->size();
}

int stream_map(thandle_t h, void** base, toff_t* size) {
  Stream* s = stream_of(h);
  if (s->output) return 0;
  *base = const_cast<uint8_t*>(s->input.data());
  *size = s->input.size();
  return 1;
}

void stream_unmap(thandle_t, void*, toff_t) {}

int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  Stream* s = static_cast<Stream*>(user);
  if (s->error.empty()) {
    char text[512];
    std::vsnprintf(text, sizeof text, fmt, ap);
    s->error = (module && *module ? std::string(module) + ": " : std::string()) + text;
  }
  return 1;  // handled: libtiff's global handlers (which print to stderr) are not called
}

int on_warning(TIFF*, void*, const char*, const char*, va_list) {
  return 1;  // dropped: the library prints nothing
}

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffHandle = std::unique_ptr<TIFF, TiffCloser>;

TiffHandle open_stream(Stream& stream, const char* mode, const std::string& name) {
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, &stream);
  TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, &stream);
  TIFF* t = TIFFClientOpenExt(name.c_str(), mode, &stream, stream_read, stream_write, stream_seek,
                              stream_close, stream_size, stream_map, stream_unmap, opts);
  TIFFOpenOptionsFree(opts);
  if (!t) {
    const bool short_file = !stream.output && stream.input.size() < 8;
    fail(
        short_file ? ErrorCode::kTruncated : ErrorCode::kFormat, name,
        "not a readable TIFF" + (stream.error.empty() ? std::string() : " (" + stream.error + ")"));
  }
  return TiffHandle(t);
}

// Opens a file through libtiff itself (memory-mapped when reading), with the same handlers.
TiffHandle open_file(Stream& stream, const char* mode, const std::string& name) {
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, &stream);
  TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, &stream);
  TIFF* t = TIFFOpenExt(name.c_str(), mode, opts);
  TIFFOpenOptionsFree(opts);
  if (!t) {
    const bool reading = mode[0] == 'r';
    fail(reading ? ErrorCode::kFormat : ErrorCode::kIo, name,
         std::string(reading ? "not a readable TIFF" : "cannot create the TIFF") +
             (stream.error.empty() ? std::string() : " (" + stream.error + ")"));
  }
  return TiffHandle(t);
}

[[noreturn]] void libtiff_failed(const Stream& s, const std::string& name,
                                 const std::string& what) {
  fail(ErrorCode::kFormat, name, what + (s.error.empty() ? std::string() : ": " + s.error));
}

// ---- reading --------------------------------------------------------------------------------

// Sample `k` (bits bits wide, MSB-first packing; 16-bit samples in native order as libtiff
// delivers them) of a decoded row of row_bytes bytes.
uint32_t get_sample(const uint8_t* row, size_t row_bytes, uint64_t k, uint32_t bits) {
  if (bits == 8) return row[k];
  if (bits == 16) {
    uint16_t v;
    std::memcpy(&v, row + 2 * k, 2);
    return v;
  }
  const uint64_t bit = k * bits;
  const size_t byte = static_cast<size_t>(bit >> 3);
  uint32_t v = 0;
  for (size_t i = 0; i < 3; ++i) v = (v << 8) | (byte + i < row_bytes ? row[byte + i] : 0);
  return (v >> (24 - (bit & 7) - bits)) & ((uint32_t{1} << bits) - 1);
}

const char* photometric_name(uint16_t p) {
  switch (p) {
    case PHOTOMETRIC_YCBCR:
      return "YCbCr";
    case PHOTOMETRIC_CIELAB:
    case PHOTOMETRIC_ICCLAB:
    case PHOTOMETRIC_ITULAB:
      return "Lab";
    case PHOTOMETRIC_LOGL:
    case PHOTOMETRIC_LOGLUV:
      return "LogL/LogLuv";
    case PHOTOMETRIC_MASK:
      return "transparency mask";
    case PHOTOMETRIC_CFA:
      return "colour filter array";
    default:
      return "unknown";
  }
}

// The most a strip or tile of this compression can expand: none 1; PackBits 128 bytes from 2;
// Deflate 1032 (RFC 1951: 258 bytes from one 2-bit code at best, ~1032:1 over a stream); LZW
// (TIFF 6.0 section 13, 9..12-bit codes, one longer string per code until the table's 4094
// entries) about 1300. Other schemes (CCITT fax, LZMA, ZSTD, JBIG, ...) can code blank pages
// far better: 65536, and the sample limit bounds the rest.
uint64_t max_expansion(uint16_t compression) {
  switch (compression) {
    case COMPRESSION_NONE:
      return 1;
    case COMPRESSION_PACKBITS:
      return 64;
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE:
      return 1100;
    case COMPRESSION_LZW:
      return 1400;
    default:
      return 65536;
  }
}

// The fields of a TIFF image that decoding needs, checked.
struct TiffLayout {
  uint32_t width = 0, height = 0;
  uint16_t spp = 1, bps = 1, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG;
  uint16_t compression = COMPRESSION_NONE, photometric = 0;
  bool is_signed = false;
  uint32_t color_samples = 1;  // samples per pixel the photometric interpretation uses
  bool palette = false;
  uint16_t *map_r = nullptr, *map_g = nullptr, *map_b = nullptr;  // palette colour map
};

// The samples per pixel that `photometric` interprets as colour; throws for what gj2k cannot
// read (subsampled YCbCr, other interpretations).
uint32_t colour_samples(TIFF* tif, uint16_t photometric, uint16_t spp, const std::string& name) {
  switch (photometric) {
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_MINISWHITE:
    case PHOTOMETRIC_PALETTE:
      return 1;
    case PHOTOMETRIC_RGB:
      return 3;
    case PHOTOMETRIC_SEPARATED:  // inks (CMYK by default), read as they are
      return std::min<uint32_t>(spp, 4);
    case PHOTOMETRIC_YCBCR: {
      uint16_t sub_h = 1, sub_v = 1;
      TIFFGetFieldDefaulted(tif, TIFFTAG_YCBCRSUBSAMPLING, &sub_h, &sub_v);
      if (sub_h != 1 || sub_v != 1)
        fail(ErrorCode::kUnsupported, name,
             "subsampled YCbCr (" + std::to_string(sub_h) + "x" + std::to_string(sub_v) + ")");
      return 3;
    }
    default:
      fail(ErrorCode::kUnsupported, name,
           std::string("photometric interpretation ") + photometric_name(photometric) + " (" +
               std::to_string(photometric) + ")");
  }
}

// Reads and checks the image's fields; throws for what gj2k cannot read.
TiffLayout read_layout(TIFF* tif, Stream& stream, const std::string& name) {
  TiffLayout l;
  if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l.width) ||
      !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l.height))
    libtiff_failed(stream, name, "missing image width or length");
  if (l.width == 0 || l.height == 0) fail(ErrorCode::kFormat, name, "zero image width or length");
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &l.spp);
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &l.bps);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &l.format);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &l.planar);
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &l.compression);
  if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &l.photometric))
    l.photometric = l.spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;

  if (l.spp == 0) fail(ErrorCode::kFormat, name, "zero samples per pixel");
  if (l.format == SAMPLEFORMAT_IEEEFP || l.format == SAMPLEFORMAT_COMPLEXINT ||
      l.format == SAMPLEFORMAT_COMPLEXIEEEFP)
    fail(ErrorCode::kUnsupported, name, "floating-point or complex samples");
  if (l.bps == 0 || l.bps > kMaxFilePrecision)
    fail(l.bps == 0 ? ErrorCode::kFormat : ErrorCode::kUnsupported, name,
         std::to_string(l.bps) + " bits per sample (gj2k reads 1..16)");
  l.is_signed = l.format == SAMPLEFORMAT_INT;
  if (l.compression == COMPRESSION_JPEG || l.compression == COMPRESSION_OJPEG)
    fail(ErrorCode::kUnsupported, name, "JPEG-compressed TIFF");
  if (!TIFFIsCODECConfigured(l.compression))
    fail(ErrorCode::kUnsupported, name,
         "compression scheme " + std::to_string(l.compression) + " is not available in libtiff");

  l.color_samples = colour_samples(tif, l.photometric, l.spp, name);
  if (l.spp < l.color_samples)
    fail(ErrorCode::kFormat, name,
         std::to_string(l.spp) + " samples per pixel, photometric interpretation needs " +
             std::to_string(l.color_samples));
  l.palette = l.photometric == PHOTOMETRIC_PALETTE;
  if (l.palette) {
    if (l.spp != 1)
      fail(ErrorCode::kUnsupported, name,
           "palette image with " + std::to_string(l.spp) + " samples per pixel");
    if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &l.map_r, &l.map_g, &l.map_b))
      libtiff_failed(stream, name, "palette image without a colour map");
  }
  return l;
}

// Refuses sizes the data cannot justify before allocating for them: uncompressed data must be
// in the file, compressed data expands at most max_expansion() times; then the limit on
// samples. Returns the expansion bound.
uint64_t check_data_size(const TiffLayout& l, uint64_t data_size, uint64_t max_samples,
                         const std::string& name) {
  const uint64_t samples = mul_sat(l.width, l.height, l.spp);
  const uint64_t packed_bytes = mul_sat((mul_sat(l.width, l.spp, l.bps) + 7) / 8, l.height);
  const uint64_t ratio = max_expansion(l.compression);
  if (packed_bytes > mul_sat(data_size, ratio))
    fail(l.compression == COMPRESSION_NONE ? ErrorCode::kTruncated : ErrorCode::kFormat, name,
         std::to_string(l.width) + "x" + std::to_string(l.height) + "x" + std::to_string(l.spp) +
             " samples at " + std::to_string(l.bps) + " bits cannot come from " +
             std::to_string(data_size) + " bytes (compression " + std::to_string(l.compression) +
             " expands at most " + std::to_string(ratio) + " times)");
  if (samples > max_samples)
    fail(ErrorCode::kResource, name,
         std::to_string(l.width) + "x" + std::to_string(l.height) + "x" + std::to_string(l.spp) +
             " samples exceed the limit of " + std::to_string(max_samples) +
             " (io::ReadOptions::max_samples)");
  return ratio;
}

// Planar int32 components for the layout, allocated but not filled: every sample is written by
// its strip or tile as it is decoded, so memory is touched only as far as the data goes.
Image allocate_image(const TiffLayout& l) {
  Image image;
  image.x1 = l.width;
  image.y1 = l.height;
  image.components.resize(l.spp);
  for (Component& comp : image.components) {
    comp.precision = l.bps;
    comp.is_signed = l.is_signed;
    comp.width = l.width;
    comp.height = l.height;
    comp.samples.resize(size_t{l.width} * l.height);
  }
  return image;
}

// The strips or tiles of a TIFF image: their size and the bytes of one decoded row.
struct Chunking {
  bool tiled = false;
  uint32_t planes = 1;  // spp planes when planar, else 1
  uint32_t nsamp = 1;   // samples per pixel in one plane
  uint32_t chunk_w = 0, chunk_h = 0;
  uint64_t row_bytes = 0;
  tmsize_t chunk_size = 0;
};

Chunking chunking(TIFF* tif, Stream& stream, const TiffLayout& l, uint64_t data_size,
                  uint64_t ratio, const std::string& name) {
  Chunking k;
  k.tiled = TIFFIsTiled(tif);
  k.planes = l.planar == PLANARCONFIG_SEPARATE ? l.spp : 1;
  k.nsamp = l.planar == PLANARCONFIG_SEPARATE ? 1 : l.spp;
  k.chunk_w = l.width;
  if (k.tiled) {
    if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &k.chunk_w) ||
        !TIFFGetField(tif, TIFFTAG_TILELENGTH, &k.chunk_h) || k.chunk_w == 0 || k.chunk_h == 0)
      libtiff_failed(stream, name, "tiled TIFF without a valid tile size");
  } else {
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &k.chunk_h);
    k.chunk_h = std::clamp<uint32_t>(k.chunk_h, 1, l.height);
  }
  k.row_bytes = (uint64_t{k.chunk_w} * k.nsamp * l.bps + 7) / 8;
  k.chunk_size = k.tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
  if (k.chunk_size <= 0) libtiff_failed(stream, name, "cannot size the strips or tiles");
  if (static_cast<uint64_t>(k.chunk_size) > mul_sat(data_size, ratio))
    fail(ErrorCode::kFormat, name,
         std::string(k.tiled ? "tile" : "strip") + " of " + std::to_string(k.chunk_size) +
             " bytes cannot come from " + std::to_string(data_size) + " bytes");
  if (static_cast<uint64_t>(k.chunk_size) < k.row_bytes * std::min(k.chunk_h, l.height))
    fail(ErrorCode::kFormat, name, "strip or tile size smaller than its rows");
  return k;
}

// Decodes every strip or tile into the components of `image`.
void read_chunks(TIFF* tif, Stream& stream, const TiffLayout& l, const Chunking& k,
                 const std::string& name, Image& image) {
  const uint32_t width = l.width, height = l.height;
  std::vector<uint8_t> buffer(static_cast<size_t>(k.chunk_size));
  for (uint32_t p = 0; p < k.planes; ++p) {
    for (uint32_t y0 = 0; y0 < height; y0 += k.chunk_h) {
      for (uint32_t x0 = 0; x0 < width; x0 += k.chunk_w) {
        const uint32_t rows = std::min(k.chunk_h, height - y0);
        const uint32_t cols = std::min(k.chunk_w, width - x0);
        tmsize_t got;
        uint64_t expect;
        std::string what;
        if (k.tiled) {
          const uint32_t tile = TIFFComputeTile(tif, x0, y0, 0, static_cast<uint16_t>(p));
          got = TIFFReadEncodedTile(tif, tile, buffer.data(), k.chunk_size);
          expect = k.row_bytes * k.chunk_h;
          what = "tile " + std::to_string(tile);
        } else {
          const uint32_t strip = TIFFComputeStrip(tif, y0, static_cast<uint16_t>(p));
          got = TIFFReadEncodedStrip(tif, strip, buffer.data(), k.chunk_size);
          expect = k.row_bytes * rows;
          what = "strip " + std::to_string(strip);
        }
        if (got < 0) libtiff_failed(stream, name, "cannot decode " + what);
        if (static_cast<uint64_t>(got) < expect)
          fail(ErrorCode::kTruncated, name,
               what + " decodes to " + std::to_string(got) + " bytes, expected " +
                   std::to_string(expect));
        for (uint32_t r = 0; r < rows; ++r) {
          const uint8_t* row = buffer.data() + r * k.row_bytes;
          for (uint32_t s = 0; s < k.nsamp; ++s) {
            Component& comp = image.components[k.planes > 1 ? p : s];
            int32_t* out = comp.samples.data() + size_t{y0 + r} * width + x0;
            for (uint32_t x = 0; x < cols; ++x) {
              const uint32_t v = get_sample(row, k.row_bytes, uint64_t{x} * k.nsamp + s, l.bps);
              out[x] = l.is_signed ? sign_extend(v, l.bps) : static_cast<int32_t>(v);
            }
          }
        }
      }
    }
  }
}

// Expands palette indices to RGB. The colour map holds 16-bit values; palettes of <= 8 bits
// become 8-bit RGB (value >> 8, or the value itself where every entry is <= 255, as some
// writers store 8-bit values), wider palettes 16-bit RGB.
Image expand_palette(const Image& image, const TiffLayout& l, const std::string& name) {
  if (l.is_signed) fail(ErrorCode::kFormat, name, "palette image with signed indices");
  const size_t entries = size_t{1} << l.bps;
  const uint32_t out_precision = l.bps <= 8 ? 8 : 16;
  bool eight_bit_map = out_precision == 8;
  for (size_t i = 0; i < entries && eight_bit_map; ++i)
    eight_bit_map = l.map_r[i] <= 255 && l.map_g[i] <= 255 && l.map_b[i] <= 255;
  const int shift = out_precision == 8 && !eight_bit_map ? 8 : 0;
  Image rgb = make_image(l.width, l.height, 3, out_precision);
  const Samples& index = image.components[0].samples;
  const uint16_t* maps[3] = {l.map_r, l.map_g, l.map_b};
  for (int c = 0; c < 3; ++c)
    for (size_t i = 0; i < index.size(); ++i)
      rgb.components[c].samples[i] = maps[c][index[i]] >> shift;
  rgb.color_space = ColorSpace::kSRGB;
  return rgb;
}

// Alpha where marked so, MinIsWhite inverted, the colour space, a palette expanded to RGB and
// the ICC profile.
void apply_photometric(TIFF* tif, const TiffLayout& l, const std::string& name, Image& image) {
  uint16_t extra_count = 0;
  uint16_t* extra_types = nullptr;
  if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) && extra_types) {
    for (uint32_t e = 0; e < extra_count && l.color_samples + e < l.spp; ++e)
      image.components[l.color_samples + e].is_alpha =
          extra_types[e] == EXTRASAMPLE_ASSOCALPHA || extra_types[e] == EXTRASAMPLE_UNASSALPHA;
  }

  if (l.photometric == PHOTOMETRIC_MINISWHITE) {
    // Invert to MinIsBlack: v -> max - v (unsigned), v -> -1 - v (signed); extras untouched.
    Component& grey = image.components[0];
    const int32_t top = static_cast<int32_t>(l.is_signed ? -1 : grey.max_value());
    for (int32_t& v : grey.samples) v = top - v;
  }

  image.color_space = ColorSpace::kUnknown;
  if (l.photometric == PHOTOMETRIC_MINISBLACK || l.photometric == PHOTOMETRIC_MINISWHITE)
    image.color_space = ColorSpace::kGrey;
  if (l.photometric == PHOTOMETRIC_RGB) image.color_space = ColorSpace::kSRGB;
  if (l.palette) image = expand_palette(image, l, name);

  uint32_t icc_size = 0;
  void* icc = nullptr;
  if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc && icc_size > 0) {
    const uint8_t* b = static_cast<const uint8_t*>(icc);
    image.icc_profile.assign(b, b + icc_size);
    image.color_space = ColorSpace::kICC;
  }
}

// Decodes the first image of an open TIFF whose file holds data_size bytes.
Image decode(TIFF* tif, Stream& stream, uint64_t data_size, const std::string& name,
             uint64_t max_samples) {
  const TiffLayout layout = read_layout(tif, stream, name);
  const uint64_t ratio = check_data_size(layout, data_size, max_samples, name);
  Image image = allocate_image(layout);
  const Chunking k = chunking(tif, stream, layout, data_size, ratio, name);
  read_chunks(tif, stream, layout, k, name, image);
  apply_photometric(tif, layout, name, image);
  return image;
}

}  // namespace

Image read_tiff(std::span<const uint8_t> data, const std::string& name, uint64_t max_samples) {
  Stream stream;
  stream.input = data;
  TiffHandle handle = open_stream(stream, "rm", name);
  return decode(handle.get(), stream, data.size(), name, max_samples);
}

Image read_tiff(const std::filesystem::path& path, uint64_t max_samples) {
  // Straight from the file (libtiff maps it), so large images are not copied into memory first.
  const std::string name = path.string();
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || !std::filesystem::is_regular_file(path, ec))
    fail(ErrorCode::kIo, name, "cannot open: " + (ec ? ec.message() : "not a regular file"));
  if (size < 8) fail(ErrorCode::kTruncated, name, "too short for a TIFF header");
  Stream stream;
  TiffHandle handle = open_file(stream, "r", name);
  return decode(handle.get(), stream, size, name, max_samples);
}

// ---- writing --------------------------------------------------------------------------------

namespace {

// Throws unless every component fits one TIFF (see encode_tiff); returns the photometric
// sample count (1 or 3).
uint32_t check_tiff_layout(const Image& image, const std::string& name) {
  const size_t n = image.components.size();
  if (n == 0) fail(ErrorCode::kInvalidArgument, name, "image has no components");
  if (n > 65535) fail(ErrorCode::kUnsupported, name, "more than 65535 components");
  const Component& c0 = image.components[0];
  for (size_t c = 0; c < n; ++c) {
    const Component& comp = image.components[c];
    const std::string which = "component " + std::to_string(c) + ": ";
    if (comp.precision < 1 || comp.precision > kMaxFilePrecision)
      fail(ErrorCode::kUnsupported, name,
           which + "precision " + std::to_string(comp.precision) + " does not fit TIFF (1..16)");
    if (comp.precision != c0.precision || comp.is_signed != c0.is_signed)
      fail(ErrorCode::kUnsupported, name,
           which + "TIFF needs one precision and signedness for all components");
    if (comp.dx != 1 || comp.dy != 1 || comp.width != c0.width || comp.height != c0.height)
      fail(ErrorCode::kUnsupported, name,
           which + "TIFF cannot hold subsampled components or components of different sizes");
    if (comp.samples.size() != size_t{comp.width} * comp.height)
      fail(ErrorCode::kInvalidArgument, name, which + "sample buffer does not match its size");
  }
  if (c0.width == 0 || c0.height == 0) fail(ErrorCode::kInvalidArgument, name, "empty image");
  const bool rgb = n >= 3 && image.color_space != ColorSpace::kGrey;
  const uint32_t color = rgb ? 3 : 1;
  for (uint32_t c = 0; c < color; ++c)
    if (image.components[c].is_alpha)
      fail(ErrorCode::kUnsupported, name,
           "component " + std::to_string(c) + " is alpha but TIFF puts a colour sample there");
  return color;
}

// Writes a checked image into an open TIFF.
void encode(const Image& image, TiffCompression compression, TIFF* tif, const Stream& stream,
            const std::string& name) {
  const uint32_t color = check_tiff_layout(image, name);
  const bool rgb = color == 3;
  const size_t n = image.components.size();
  const Component& c0 = image.components[0];
  const uint32_t width = c0.width, height = c0.height, bits = c0.precision;
  {
    const uint16_t spp = static_cast<uint16_t>(n);
    uint16_t scheme = COMPRESSION_NONE;
    if (compression == TiffCompression::kDeflate) scheme = COMPRESSION_ADOBE_DEFLATE;
    if (compression == TiffCompression::kLzw) scheme = COMPRESSION_LZW;
    if (compression == TiffCompression::kPackBits) scheme = COMPRESSION_PACKBITS;
    const uint64_t row_bytes = (uint64_t{width} * n * bits + 7) / 8;
    const uint32_t rows_per_strip = static_cast<uint32_t>(
        std::clamp<uint64_t>((1u << 16) / std::max<uint64_t>(row_bytes, 1), 1, height));
    bool ok =
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width) &&
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height) &&
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, spp) &&
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, static_cast<uint16_t>(bits)) &&
        TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT,
                     c0.is_signed ? SAMPLEFORMAT_INT : SAMPLEFORMAT_UINT) &&
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, rgb ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK) &&
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
        TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT) &&
        TIFFSetField(tif, TIFFTAG_COMPRESSION, scheme) &&
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
    if (ok && n > color) {
      std::vector<uint16_t> types(n - color);
      for (size_t e = 0; e < types.size(); ++e)
        types[e] =
            image.components[color + e].is_alpha ? EXTRASAMPLE_UNASSALPHA : EXTRASAMPLE_UNSPECIFIED;
      ok = TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, static_cast<uint16_t>(types.size()),
                        types.data());
    }
    if (ok && image.color_space == ColorSpace::kICC && !image.icc_profile.empty())
      ok = TIFFSetField(tif, TIFFTAG_ICCPROFILE, static_cast<uint32_t>(image.icc_profile.size()),
                        image.icc_profile.data());
    if (!ok) libtiff_failed(stream, name, "cannot set the TIFF tags");

    const uint32_t mask = (bits == 32) ? ~0u : ((uint32_t{1} << bits) - 1);
    std::vector<uint8_t> strip(static_cast<size_t>(row_bytes * rows_per_strip));
    for (uint32_t y0 = 0, index = 0; y0 < height; y0 += rows_per_strip, ++index) {
      const uint32_t rows = std::min(rows_per_strip, height - y0);
      std::fill(strip.begin(), strip.end(), 0);
      for (uint32_t r = 0; r < rows; ++r) {
        uint8_t* row = strip.data() + r * row_bytes;
        const size_t base = size_t{y0 + r} * width;
        uint64_t k = 0;
        for (uint32_t x = 0; x < width; ++x) {
          for (size_t c = 0; c < n; ++c, ++k) {
            const Component& comp = image.components[c];
            const int32_t v = comp.samples[base + x];
            if (v < comp.min_value() || v > comp.max_value())
              fail(ErrorCode::kInvalidArgument, name,
                   "component " + std::to_string(c) + ": sample " + std::to_string(v) +
                       " outside its precision");
            const uint32_t u = static_cast<uint32_t>(v) & mask;
            if (bits == 8) {
              row[k] = static_cast<uint8_t>(u);
            } else if (bits == 16) {
              const uint16_t w = static_cast<uint16_t>(u);
              std::memcpy(row + 2 * k, &w, 2);
            } else {
              // MSB-first bit packing across at most 3 bytes.
              const uint64_t bit = k * bits;
              const size_t byte = static_cast<size_t>(bit >> 3);
              const uint32_t shifted = u << (24 - (bit & 7) - bits);
              for (size_t i = 0; i < 3 && byte + i < row_bytes; ++i)
                row[byte + i] |= static_cast<uint8_t>(shifted >> (16 - 8 * i));
            }
          }
        }
      }
      if (TIFFWriteEncodedStrip(tif, index, strip.data(), static_cast<tmsize_t>(row_bytes * rows)) <
          0)
        libtiff_failed(stream, name, "cannot write strip " + std::to_string(index));
    }
    if (!TIFFWriteDirectory(tif)) libtiff_failed(stream, name, "cannot write the TIFF directory");
  }
}

}  // namespace

std::vector<uint8_t> encode_tiff(const Image& image, TiffCompression compression,
                                 const std::string& name) {
  check_tiff_layout(image, name);
  std::vector<uint8_t> out;
  Stream stream;
  stream.output = &out;
  TiffHandle handle = open_stream(stream, "w", name);
  encode(image, compression, handle.get(), stream, name);
  TIFFClose(handle.release());  // flushes
  if (!stream.error.empty()) fail(ErrorCode::kIo, name, stream.error);
  return out;
}

void write_tiff(const Image& image, const std::filesystem::path& path,
                TiffCompression compression) {
  // Straight to the file, so large images are not assembled in memory first. Nothing is
  // created for an image TIFF cannot hold; a failed write removes the partial file.
  const std::string name = path.string();
  check_tiff_layout(image, name);
  gj2k::detail::write_through_temporary(path, [&](const std::filesystem::path& tmp) {
    Stream stream;
    TiffHandle handle = open_file(stream, "w", tmp.string());
    encode(image, compression, handle.get(), stream, name);
    TIFFClose(handle.release());
    if (!stream.error.empty()) fail(ErrorCode::kIo, name, stream.error);
  });
}

}  // namespace gj2k::io
