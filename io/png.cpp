// PNG through libpng (io/image_io.h).
//
// libpng reports errors by longjmp. Every libpng call runs inside one of the small functions
// below that call setjmp first and own no object with a destructor, so a longjmp skips nothing;
// the message is kept in the Session and thrown as gj2k::Error once back in C++ code.
#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <string>

#include "io/image_io.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::fail;

namespace {

// The deflate ratio bound: no PNG expands to more than about 1032 bytes per compressed byte.
constexpr uint64_t kMaxExpansion = 1032;

struct Session {
  png_structp png = nullptr;
  png_infop info = nullptr;
  bool writing = false;
  char message[256] = "";
  // Reading: the input and how much of it was consumed.
  const uint8_t* data = nullptr;
  size_t size = 0, offset = 0;
  // Writing: where the bytes go.
  std::vector<uint8_t>* out = nullptr;
};

void on_error(png_structp png, png_const_charp message) {
  auto* s = static_cast<Session*>(png_get_error_ptr(png));
  std::snprintf(s->message, sizeof s->message, "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

void read_bytes(png_structp png, png_bytep dst, png_size_t n) {
  auto* s = static_cast<Session*>(png_get_io_ptr(png));
  if (n > s->size - s->offset) png_error(png, "the data ends early");
  std::memcpy(dst, s->data + s->offset, n);
  s->offset += n;
}

void write_bytes(png_structp png, png_bytep src, png_size_t n) {
  auto* s = static_cast<Session*>(png_get_io_ptr(png));
  s->out->insert(s->out->end(), src, src + n);
}

void flush_nothing(png_structp) {}

// Geometry and colour facts of the header, after the read transforms.
struct Header {
  png_uint_32 width = 0, height = 0;
  int color_type = 0, bit_depth = 0, channels = 0;
  size_t row_bytes = 0;
  uint32_t precision = 0;  // bits per sample the samples carry (sBIT when present)
  png_bytep icc = nullptr;
  png_uint_32 icc_size = 0;
};

// Reads the header and sets the transforms: palette and tRNS expanded to RGB(A); grey below
// 8 bits unpacked to a byte each without scaling; an sBIT below the depth shifted back out.
bool read_header(Session& s, Header& h) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_set_option(s.png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);  // ICC kept as it is
  png_set_read_fn(s.png, &s, read_bytes);
  png_read_info(s.png, s.info);
  const int type = png_get_color_type(s.png, s.info);
  const int depth = png_get_bit_depth(s.png, s.info);
  h.precision = static_cast<uint32_t>(depth);
  if (type == PNG_COLOR_TYPE_PALETTE) {
    png_set_palette_to_rgb(s.png);
    h.precision = 8;
  }
  if (png_get_valid(s.png, s.info, PNG_INFO_tRNS)) {
    png_set_tRNS_to_alpha(s.png);
    h.precision = std::max(h.precision, 8u);
  } else if (depth < 8) {
    png_set_packing(s.png);
  }
  png_color_8p sig = nullptr;
  if (type != PNG_COLOR_TYPE_PALETTE && png_get_sBIT(s.png, s.info, &sig) && sig) {
    const bool grey = !(type & PNG_COLOR_MASK_COLOR);
    const int bits = grey ? sig->gray : sig->red;
    bool uniform = bits > 0 && bits < static_cast<int>(h.precision);
    if (!grey) uniform = uniform && sig->green == bits && sig->blue == bits;
    if (type & PNG_COLOR_MASK_ALPHA) uniform = uniform && sig->alpha == bits;
    if (uniform) {
      png_set_shift(s.png, sig);
      h.precision = static_cast<uint32_t>(bits);
    }
  }
  png_charp name = nullptr;
  int compression = 0;
  if (png_get_valid(s.png, s.info, PNG_INFO_iCCP))
    png_get_iCCP(s.png, s.info, &name, &compression, &h.icc, &h.icc_size);
  png_set_interlace_handling(s.png);
  png_read_update_info(s.png, s.info);
  h.width = png_get_image_width(s.png, s.info);
  h.height = png_get_image_height(s.png, s.info);
  h.color_type = png_get_color_type(s.png, s.info);
  h.bit_depth = png_get_bit_depth(s.png, s.info);
  h.channels = png_get_channels(s.png, s.info);
  h.row_bytes = png_get_rowbytes(s.png, s.info);
  return true;
}

bool read_rows(Session& s, png_bytepp rows) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_read_image(s.png, rows);
  png_read_end(s.png, nullptr);
  return true;
}

struct WriteSpec {
  png_uint_32 width, height;
  int color_type, bit_depth;
  png_color_8 sig;
  bool write_sig;
  const uint8_t* icc;
  png_uint_32 icc_size;
};

bool write_all(Session& s, const WriteSpec& w, png_bytepp rows) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_set_option(s.png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);  // ICC kept as it is
  png_set_write_fn(s.png, &s, write_bytes, flush_nothing);
  png_set_IHDR(s.png, s.info, w.width, w.height, w.bit_depth, w.color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (w.write_sig) png_set_sBIT(s.png, s.info, &w.sig);
  if (w.icc) png_set_iCCP(s.png, s.info, "ICC", PNG_COMPRESSION_TYPE_BASE, w.icc, w.icc_size);
  png_write_info(s.png, s.info);
  png_write_image(s.png, rows);
  png_write_end(s.png, s.info);
  return true;
}

}  // namespace

Image read_png(std::span<const uint8_t> data, const std::string& name) {
  if (data.size() < 8 || png_sig_cmp(data.data(), 0, 8) != 0)
    fail(ErrorCode::kFormat, name, "not a PNG file (bad signature)");
  Session s;
  s.data = data.data();
  s.size = data.size();
  s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
  if (!s.png) fail(ErrorCode::kInternal, name, "libpng: cannot create a reader");
  s.info = png_create_info_struct(s.png);
  struct Release {
    Session& s;
    ~Release() { png_destroy_read_struct(&s.png, s.info ? &s.info : nullptr, nullptr); }
  } release{s};
  if (!s.info) fail(ErrorCode::kInternal, name, "libpng: cannot create the info struct");
  const auto failed = [&](const char* stage) {
    const bool ended = std::strstr(s.message, "ends early") != nullptr;
    fail(ended ? ErrorCode::kTruncated : ErrorCode::kFormat, name,
         std::string(stage) + ": " + s.message + " (libpng, near " + detail::at_byte(s.offset) +
             ")");
  };

  Header h;
  if (!read_header(s, h)) failed("header");
  if (h.bit_depth != 8 && h.bit_depth != 16)
    fail(ErrorCode::kUnsupported, name, "unexpected bit depth after expansion");
  const uint64_t total = detail::mul_sat(h.row_bytes, h.height);
  if (total > detail::mul_sat(data.size(), kMaxExpansion))
    fail(ErrorCode::kFormat, name,
         std::to_string(h.width) + "x" + std::to_string(h.height) + " needs " +
             std::to_string(total) + " bytes of samples, more than " + std::to_string(data.size()) +
             " compressed bytes can hold");
  std::vector<uint8_t> pixels(static_cast<size_t>(total));
  std::vector<png_bytep> rows(h.height);
  for (png_uint_32 y = 0; y < h.height; ++y) rows[y] = pixels.data() + size_t{y} * h.row_bytes;
  if (!read_rows(s, rows.data())) failed("image data");

  const uint32_t nc = static_cast<uint32_t>(h.channels);
  Image image = make_image(h.width, h.height, nc, h.precision);
  const bool alpha = (h.color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if (alpha) image.components.back().is_alpha = true;
  image.color_space = (h.color_type & PNG_COLOR_MASK_COLOR) ? ColorSpace::kSRGB : ColorSpace::kGrey;
  if (h.icc && h.icc_size) {
    image.color_space = ColorSpace::kICC;
    image.icc_profile.assign(h.icc, h.icc + h.icc_size);
  }
  const size_t bytes = h.bit_depth == 16 ? 2 : 1;
  for (uint32_t y = 0; y < h.height; ++y) {
    const uint8_t* p = rows[y];
    for (uint32_t x = 0; x < h.width; ++x)
      for (uint32_t c = 0; c < nc; ++c, p += bytes)
        image.components[c].samples[size_t{y} * h.width + x] =
            bytes == 2 ? (p[0] << 8) | p[1] : p[0];
  }
  return image;
}

Image read_png(const std::filesystem::path& path) {
  const FileBytes bytes = read_file<FileBytes>(path);
  return read_png(bytes, path.string());
}

namespace {

// Throws unless every component fits one PNG: 1 to 4 unsigned components of one size and one
// precision of 1..16 bits, every sample within it.
void check_png_layout(const Image& image, const std::string& name) {
  const size_t nc = image.components.size();
  if (nc < 1 || nc > 4)
    fail(ErrorCode::kUnsupported, name,
         std::to_string(nc) +
             " components: PNG holds 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 "
             "(RGBA)");
  const Component& first = image.components[0];
  for (size_t c = 0; c < nc; ++c) {
    const Component& k = image.components[c];
    const std::string which = "component " + std::to_string(c) + ": ";
    if (k.is_signed) fail(ErrorCode::kUnsupported, name, which + "PNG holds no signed samples");
    if (k.precision < 1 || k.precision > 16)
      fail(ErrorCode::kUnsupported, name,
           which + "precision " + std::to_string(k.precision) + " does not fit PNG (1..16)");
    if (k.dx != 1 || k.dy != 1 || k.width != first.width || k.height != first.height ||
        k.precision != first.precision)
      fail(ErrorCode::kUnsupported, name,
           which + "PNG needs every component at one size (subsampling 1x1) and precision");
    const int64_t hi = k.max_value();
    for (int32_t v : k.samples)
      if (v < 0 || v > hi)
        fail(ErrorCode::kInvalidArgument, name,
             which + "sample " + std::to_string(v) + " outside its precision");
  }
}

// The PNG header for a checked image. Bit depth: grey may be 1, 2, 4, 8 or 16 bits; colour
// and alpha 8 or 16. A precision between depths is stored scaled up (by `shift` bits) to the
// next depth with sBIT saying the true precision.
WriteSpec png_spec(const Image& image, uint32_t& shift) {
  const size_t nc = image.components.size();
  const Component& first = image.components[0];
  const uint32_t p = first.precision;
  int depth = p <= 8 ? 8 : 16;
  if (nc == 1 && (p == 1 || p == 2 || p == 4)) depth = static_cast<int>(p);
  shift = static_cast<uint32_t>(depth) - (depth < 8 ? depth : p);
  WriteSpec w{};
  w.width = first.width;
  w.height = first.height;
  w.color_type = nc == 1   ? PNG_COLOR_TYPE_GRAY
                 : nc == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
                 : nc == 3 ? PNG_COLOR_TYPE_RGB
                           : PNG_COLOR_TYPE_RGB_ALPHA;
  w.bit_depth = depth;
  w.write_sig = shift != 0;
  w.sig.red = w.sig.green = w.sig.blue = w.sig.gray = w.sig.alpha = static_cast<png_byte>(p);
  if (image.color_space == ColorSpace::kICC && !image.icc_profile.empty()) {
    w.icc = image.icc_profile.data();
    w.icc_size = static_cast<png_uint_32>(image.icc_profile.size());
  }
  return w;
}

// Rows: samples interleaved, big-endian when 16-bit, packed when below 8 bits. Fills `pixels`
// and returns a pointer per row into it.
std::vector<png_bytep> pack_rows(const Image& image, const WriteSpec& w, uint32_t shift,
                                 std::vector<uint8_t>& pixels) {
  const size_t nc = image.components.size();
  const int depth = w.bit_depth;
  const size_t row_bytes =
      depth < 8 ? (size_t{w.width} * depth + 7) / 8 : size_t{w.width} * nc * (depth / 8);
  pixels.assign(row_bytes * w.height, 0);
  std::vector<png_bytep> rows(w.height);
  for (uint32_t y = 0; y < w.height; ++y) {
    uint8_t* row = rows[y] = pixels.data() + y * row_bytes;
    for (uint32_t x = 0; x < w.width; ++x)
      for (size_t c = 0; c < nc; ++c) {
        const uint32_t v =
            static_cast<uint32_t>(image.components[c].samples[size_t{y} * w.width + x]) << shift;
        if (depth < 8) {
          const size_t bit = size_t{x} * depth;
          row[bit / 8] |= static_cast<uint8_t>(v << (8 - depth - bit % 8));
        } else if (depth == 8) {
          row[x * nc + c] = static_cast<uint8_t>(v);
        } else {
          row[2 * (x * nc + c)] = static_cast<uint8_t>(v >> 8);
          row[2 * (x * nc + c) + 1] = static_cast<uint8_t>(v);
        }
      }
  }
  return rows;
}

}  // namespace

std::vector<uint8_t> encode_png(const Image& image, const std::string& name) {
  check_png_layout(image, name);
  uint32_t shift = 0;
  const WriteSpec w = png_spec(image, shift);
  std::vector<uint8_t> pixels;
  std::vector<png_bytep> rows = pack_rows(image, w, shift, pixels);

  std::vector<uint8_t> out;
  Session s;
  s.writing = true;
  s.out = &out;
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
  if (!s.png) fail(ErrorCode::kInternal, name, "libpng: cannot create a writer");
  s.info = png_create_info_struct(s.png);
  struct Release {
    Session& s;
    ~Release() { png_destroy_write_struct(&s.png, s.info ? &s.info : nullptr); }
  } release{s};
  if (!s.info) fail(ErrorCode::kInternal, name, "libpng: cannot create the info struct");
  if (!write_all(s, w, rows.data()))
    fail(w.icc ? ErrorCode::kUnsupported : ErrorCode::kInternal, name,
         std::string("libpng: ") + s.message);
  return out;
}

void write_png(const Image& image, const std::filesystem::path& path) {
  write_file(path, encode_png(image, path.string()));
}

}  // namespace gj2k::io
