// JPEG input through libjpeg-turbo (io/image_io.h).
//
// libjpeg reports errors through error_exit, which must not return: it longjmps back into
// decompress(), whose frame (after setjmp) owns no object with a destructor.
#include <cstdio>
// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>
#include <cstdlib>
#include <string>

#include "io/image_io.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::fail;

namespace {

struct ErrorManager {
  jpeg_error_mgr base;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = "";
};

void on_error(j_common_ptr info) {
  auto* e = reinterpret_cast<ErrorManager*>(info->err);
  info->err->format_message(info, e->message);
  std::longjmp(e->jump, 1);
}

void on_message(j_common_ptr) {}

// The decoded pixels, interleaved 8-bit, in `pixels` (allocated with malloc by the caller's
// request through `allocate`); icc (malloc'd by libjpeg) when the file carries a profile.
struct Decoded {
  JDIMENSION width = 0, height = 0;
  int components = 0;
  J_COLOR_SPACE space = JCS_UNKNOWN;
  unsigned char* pixels = nullptr;
  JOCTET* icc = nullptr;
  unsigned int icc_size = 0;
  size_t limit = 0;  // the most pixel bytes the caller accepts
  bool too_large = false;
};

bool decompress(const uint8_t* data, size_t size, Decoded& d, ErrorManager& err) {
  jpeg_decompress_struct info;
  info.err = jpeg_std_error(&err.base);
  err.base.error_exit = on_error;
  err.base.output_message = on_message;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, data, static_cast<unsigned long>(size));
  jpeg_save_markers(&info, JPEG_APP0 + 2, 0xFFFF);  // ICC profile chunks
  jpeg_read_header(&info, TRUE);
  if (info.jpeg_color_space == JCS_GRAYSCALE)
    info.out_color_space = JCS_GRAYSCALE;
  else if (info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK)
    info.out_color_space = JCS_CMYK;
  else
    info.out_color_space = JCS_RGB;
  jpeg_read_icc_profile(&info, &d.icc, &d.icc_size);
  // Checked before libjpeg sizes its buffers (a progressive scan keeps every coefficient).
  if (uint64_t{info.image_width} * info.image_height * info.num_components > d.limit) {
    d.width = info.image_width;
    d.height = info.image_height;
    d.too_large = true;
    jpeg_destroy_decompress(&info);
    return true;
  }
  jpeg_start_decompress(&info);
  d.width = info.output_width;
  d.height = info.output_height;
  d.components = info.output_components;
  d.space = info.out_color_space;
  const size_t row = size_t{d.width} * d.components;
  if (row * d.height > d.limit) {
    d.too_large = true;
    jpeg_destroy_decompress(&info);
    return true;
  }
  d.pixels = static_cast<unsigned char*>(std::malloc(std::max<size_t>(row * d.height, 1)));
  if (!d.pixels) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW rows[1] = {d.pixels + size_t{info.output_scanline} * row};
    jpeg_read_scanlines(&info, rows, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return true;
}

}  // namespace

Image read_jpeg(std::span<const uint8_t> data, const std::string& name) {
  if (data.size() < 3 || data[0] != 0xFF || data[1] != 0xD8)
    fail(ErrorCode::kFormat, name, "not a JPEG file (no SOI marker)");
  ErrorManager err;
  Decoded d;
  // A baseline JPEG holds at most about 64 * 3 samples per coded bit; allow a generous margin.
  d.limit = static_cast<size_t>(detail::mul_sat(data.size(), 2048));
  const bool ok = decompress(data.data(), data.size(), d, err);
  struct Free {
    Decoded& d;
    ~Free() {
      std::free(d.pixels);
      std::free(d.icc);
    }
  } release{d};
  if (!ok)
    fail(ErrorCode::kFormat, name,
         std::string("libjpeg: ") + (err.message[0] ? err.message : "out of memory"));
  if (d.too_large)
    fail(ErrorCode::kFormat, name,
         std::to_string(d.width) + "x" + std::to_string(d.height) +
             " is more than its compressed data can describe");
  const uint32_t nc = static_cast<uint32_t>(d.components);
  Image image = make_image(d.width, d.height, nc, 8);
  for (size_t i = 0, n = size_t{d.width} * d.height; i < n; ++i)
    for (uint32_t c = 0; c < nc; ++c) image.components[c].samples[i] = d.pixels[i * nc + c];
  image.color_space = d.space == JCS_GRAYSCALE ? ColorSpace::kGrey
                      : d.space == JCS_RGB     ? ColorSpace::kSRGB
                                               : ColorSpace::kUnknown;
  if (d.icc && d.icc_size) {
    image.color_space = ColorSpace::kICC;
    image.icc_profile.assign(d.icc, d.icc + d.icc_size);
  }
  return image;
}

}  // namespace gj2k::io
