// PAM (netpbm P7, arbitrary depth) reader and writer (io/image_io.h).
#include <algorithm>
#include <string>

#include "io/image_io.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::at_byte;
using detail::bits_for;
using detail::fail;
using detail::mul_sat;

namespace {

// The most components a PAM may carry here: Csiz's limit (15444-1 A.5.1).
constexpr uint32_t kMaxDepth = 16384;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The value of a PAM header line `key value`: a decimal number in 1..limit.
uint64_t header_number(const std::string& key, const std::string& value, size_t line_start,
                       uint64_t limit, const std::string& name) {
  if (value.empty() || value.size() > 10 ||
      value.find_first_not_of("0123456789") != std::string::npos)
    fail(ErrorCode::kFormat, name,
         "PAM " + key + " '" + value + "' is not a decimal number " + at_byte(line_start));
  const uint64_t v = std::stoull(value);
  if (v == 0 || v > limit)
    fail(ErrorCode::kFormat, name,
         "PAM " + key + " " + value + " " + at_byte(line_start) + " outside 1.." +
             std::to_string(limit));
  return v;
}

struct PamHeader {
  uint64_t width = 0, height = 0, depth = 0, maxval = 0;
  std::string tupltype;
  size_t data_at = 0;  // first byte after ENDHDR's line
};

// The header lines after "P7\n" up to ENDHDR: `KEY value`, blank lines and '#' comments.
PamHeader read_header(std::span<const uint8_t> data, const std::string& name) {
  PamHeader h;
  size_t pos = 3;
  bool ended = false;
  while (!ended) {
    if (pos >= data.size()) fail(ErrorCode::kTruncated, name, "file ends before ENDHDR");
    const size_t line_start = pos;
    size_t end = pos;
    while (end < data.size() && data[end] != '\n') ++end;
    if (end >= data.size()) fail(ErrorCode::kTruncated, name, "file ends inside the PAM header");
    std::string line(data.begin() + pos, data.begin() + end);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const size_t key_end = line.find_first_of(" \t", first);
    const std::string key = line.substr(first, key_end - first);
    std::string value;
    if (key_end != std::string::npos) {
      const size_t v = line.find_first_not_of(" \t", key_end);
      if (v != std::string::npos) value = line.substr(v, line.find_last_not_of(" \t") + 1 - v);
    }
    auto number = [&](uint64_t limit) {
      return header_number(key, value, line_start, limit, name);
    };
    if (key == "WIDTH") {
      h.width = number(UINT32_MAX);
    } else if (key == "HEIGHT") {
      h.height = number(UINT32_MAX);
    } else if (key == "DEPTH") {
      h.depth = number(kMaxDepth);
    } else if (key == "MAXVAL") {
      h.maxval = number(65535);
    } else if (key == "TUPLTYPE") {
      h.tupltype += (h.tupltype.empty() ? "" : " ") + value;
    } else if (key == "ENDHDR") {
      ended = true;
    } else {
      fail(ErrorCode::kFormat, name,
           "unknown PAM header line '" + key + "' " + at_byte(line_start));
    }
  }
  h.data_at = pos;
  return h;
}

}  // namespace

Image read_pam(std::span<const uint8_t> data, const std::string& name) {
  if (data.size() < 3 || data[0] != 'P' || data[1] != '7' || data[2] != '\n')
    fail(data.size() < 3 ? ErrorCode::kTruncated : ErrorCode::kFormat, name,
         "not a PAM file (does not start with \"P7\" and a newline)");
  const PamHeader h = read_header(data, name);
  const uint64_t width = h.width, height = h.height, depth = h.depth, maxval = h.maxval;
  const size_t pos = h.data_at;
  if (!width || !height || !depth || !maxval)
    fail(ErrorCode::kFormat, name, "PAM header lacks WIDTH, HEIGHT, DEPTH or MAXVAL");
  const size_t bytes = maxval > 255 ? 2 : 1;
  const uint64_t need = mul_sat(width, height, depth, bytes);
  if (need > data.size() - pos)
    fail(ErrorCode::kTruncated, name,
         std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(depth) +
             " samples need " + std::to_string(need) + " bytes after " + at_byte(pos) +
             ", the file has " + std::to_string(data.size() - pos));

  Image image = make_image(static_cast<uint32_t>(width), static_cast<uint32_t>(height),
                           static_cast<uint32_t>(depth), bits_for(static_cast<uint32_t>(maxval)));
  const size_t count = size_t{width} * height;
  const size_t step = depth * bytes;
  for (size_t c = 0; c < depth; ++c) {
    int32_t* out = image.components[c].samples.data();
    const uint8_t* q = data.data() + pos + c * bytes;
    for (size_t i = 0; i < count; ++i, q += step) {
      const uint32_t v = bytes == 2 ? (uint32_t{q[0]} << 8) | q[1] : q[0];
      if (v > maxval)
        fail(ErrorCode::kFormat, name,
             "sample " + std::to_string(v) + " " + at_byte(q - data.data()) + " exceeds MAXVAL " +
                 std::to_string(maxval));
      out[i] = static_cast<int32_t>(v);
    }
  }
  image.color_space = ColorSpace::kUnknown;
  if (h.tupltype.rfind("GRAYSCALE", 0) == 0 || h.tupltype.rfind("BLACKANDWHITE", 0) == 0)
    image.color_space = ColorSpace::kGrey;
  if (h.tupltype.rfind("RGB", 0) == 0) image.color_space = ColorSpace::kSRGB;
  if (ends_with(h.tupltype, "_ALPHA") && depth >= 2) image.components.back().is_alpha = true;
  return image;
}

std::vector<uint8_t> encode_pam(const Image& image, const std::string& name) {
  const size_t n = image.components.size();
  if (n == 0 || n > kMaxDepth)
    fail(ErrorCode::kUnsupported, name, "PAM holds 1..16384 components here");
  const Component& c0 = image.components[0];
  for (size_t c = 0; c < n; ++c) {
    const Component& comp = image.components[c];
    const std::string which = "component " + std::to_string(c) + ": ";
    if (comp.is_signed)
      fail(ErrorCode::kUnsupported, name, which + "PAM cannot hold signed samples");
    if (comp.precision < 1 || comp.precision > kMaxFilePrecision || comp.precision != c0.precision)
      fail(ErrorCode::kUnsupported, name,
           which + "PAM needs one precision 1..16 for all components");
    if (comp.width != c0.width || comp.height != c0.height ||
        comp.samples.size() != size_t{comp.width} * comp.height)
      fail(ErrorCode::kUnsupported, name, which + "PAM needs one size for all components");
  }
  const uint32_t maxval = (uint32_t{1} << c0.precision) - 1;
  const bool alpha_last = n >= 2 && image.components[n - 1].is_alpha;
  for (size_t c = 0; c + 1 < n; ++c)
    if (image.components[c].is_alpha)
      fail(ErrorCode::kUnsupported, name,
           "component " + std::to_string(c) + ": PAM marks only the last component as alpha");
  const size_t colour = n - (alpha_last ? 1 : 0);
  std::string tupltype;
  if (colour == 1 && image.color_space != ColorSpace::kSRGB) tupltype = "GRAYSCALE";
  if (colour == 3 && image.color_space != ColorSpace::kGrey) tupltype = "RGB";
  if (alpha_last) tupltype = tupltype.empty() ? std::string() : tupltype + "_ALPHA";
  if (alpha_last && tupltype.empty())
    fail(ErrorCode::kUnsupported, name, "PAM has alpha only after 1 (grey) or 3 (RGB) components");
  std::string header = "P7\nWIDTH " + std::to_string(c0.width) + "\nHEIGHT " +
                       std::to_string(c0.height) + "\nDEPTH " + std::to_string(n) + "\nMAXVAL " +
                       std::to_string(maxval) + "\n";
  if (!tupltype.empty()) header += "TUPLTYPE " + tupltype + "\n";
  header += "ENDHDR\n";
  const size_t bytes = maxval > 255 ? 2 : 1;
  const size_t count = size_t{c0.width} * c0.height;
  std::vector<uint8_t> out(header.begin(), header.end());
  size_t at = out.size();
  out.resize(at + count * n * bytes);
  for (size_t c = 0; c < n; ++c) {
    const Component& comp = image.components[c];
    uint8_t* q = out.data() + at + c * bytes;
    for (size_t i = 0; i < count; ++i, q += n * bytes) {
      const int32_t v = comp.samples[i];
      if (v < 0 || static_cast<uint32_t>(v) > maxval)
        fail(ErrorCode::kInvalidArgument, name,
             "component " + std::to_string(c) + ": sample " + std::to_string(v) +
                 " outside its precision");
      if (bytes == 2) {
        q[0] = static_cast<uint8_t>(v >> 8);
        q[1] = static_cast<uint8_t>(v);
      } else {
        q[0] = static_cast<uint8_t>(v);
      }
    }
  }
  return out;
}

}  // namespace gj2k::io
