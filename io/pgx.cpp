// PGX (the JPEG 2000 conformance format) reader and writer (io/image_io.h).
#include <string>

#include "io/image_io.h"
#include "io/io_util.h"

namespace gj2k::io {

using detail::at_byte;
using detail::fail;
using detail::mul_sat;
using detail::sign_extend;

namespace {

bool is_blank(uint8_t c) {
  return c == ' ' || c == '\t';
}

// A cursor over the PGX header line; every method throws with the byte offset on bad input.
class HeaderCursor {
 public:
  HeaderCursor(std::span<const uint8_t> data, const std::string& name) : data_(data), name_(name) {}

  size_t pos = 0;

  void skip_blanks() {
    while (pos < data_.size() && is_blank(data_[pos])) ++pos;
  }
  void expect_blank(const char* after) {
    if (pos >= data_.size()) fail(ErrorCode::kTruncated, name_, "file ends inside the PGX header");
    if (!is_blank(data_[pos]))
      fail(ErrorCode::kFormat, name_,
           std::string("expected a space after ") + after + " in the PGX header " + at_byte(pos));
    skip_blanks();
  }
  uint32_t number(const char* what) {
    const size_t start = pos;
    uint64_t v = 0;
    while (pos < data_.size() && data_[pos] >= '0' && data_[pos] <= '9') {
      v = v * 10 + (data_[pos] - '0');
      if (v > UINT32_MAX)
        fail(ErrorCode::kFormat, name_, std::string(what) + " " + at_byte(start) + " is too large");
      ++pos;
    }
    if (pos == start) {
      if (pos >= data_.size())
        fail(ErrorCode::kTruncated, name_, std::string("file ends before the ") + what);
      fail(ErrorCode::kFormat, name_,
           std::string("expected the decimal ") + what + " in the PGX header " + at_byte(start));
    }
    return static_cast<uint32_t>(v);
  }

 private:
  std::span<const uint8_t> data_;
  const std::string& name_;
};

// "PG ML|LM [+|-]precision width height\n".
struct PgxHeader {
  bool big_endian = false, is_signed = false;
  uint32_t precision = 0, width = 0, height = 0;
  size_t precision_at = 0;  // byte offset of the precision, for messages
  size_t data_at = 0;       // first byte after the header line
};

PgxHeader read_header(std::span<const uint8_t> data, const std::string& name) {
  if (data.size() < 2 || data[0] != 'P' || data[1] != 'G')
    fail(data.size() < 2 ? ErrorCode::kTruncated : ErrorCode::kFormat, name,
         "not a PGX file (does not start with \"PG\")");
  PgxHeader h;
  HeaderCursor c(data, name);
  size_t& pos = c.pos;
  pos = 2;
  c.expect_blank("\"PG\"");
  if (pos + 2 > data.size()) fail(ErrorCode::kTruncated, name, "file ends inside the PGX header");
  if (data[pos] == 'M' && data[pos + 1] == 'L') {
    h.big_endian = true;
  } else if (data[pos] == 'L' && data[pos + 1] == 'M') {
    h.big_endian = false;
  } else {
    fail(ErrorCode::kFormat, name, "PGX byte order is neither ML nor LM " + at_byte(pos));
  }
  pos += 2;
  c.expect_blank("the byte order");
  if (pos < data.size() && (data[pos] == '+' || data[pos] == '-')) {
    h.is_signed = data[pos] == '-';
    ++pos;
    c.skip_blanks();
  }
  h.precision_at = pos;
  h.precision = c.number("precision");
  c.expect_blank("the precision");
  h.width = c.number("width");
  c.expect_blank("the width");
  h.height = c.number("height");
  c.skip_blanks();
  if (pos < data.size() && data[pos] == '\r') ++pos;
  if (pos >= data.size()) fail(ErrorCode::kTruncated, name, "file ends inside the PGX header");
  if (data[pos] != '\n')
    fail(ErrorCode::kFormat, name, "PGX header line does not end after the height " + at_byte(pos));
  h.data_at = pos + 1;
  return h;
}

// Refuses a precision outside 1..16, an empty image and data that is not exactly the samples.
void check_header(const PgxHeader& h, size_t data_size, const std::string& name) {
  const size_t pos = h.data_at;
  if (h.precision < 1 || h.precision > kMaxFilePrecision)
    fail(h.precision == 0 ? ErrorCode::kFormat : ErrorCode::kUnsupported, name,
         "PGX precision " + std::to_string(h.precision) + " " + at_byte(h.precision_at) +
             " outside 1..16");
  if (h.width == 0 || h.height == 0) fail(ErrorCode::kFormat, name, "zero width or height");
  const uint64_t bytes = h.precision <= 8 ? 1 : 2;
  const uint64_t need = mul_sat(h.width, h.height, bytes);
  const uint64_t have = data_size - pos;
  if (need > have)
    fail(ErrorCode::kTruncated, name,
         std::to_string(h.width) + "x" + std::to_string(h.height) + " samples need " +
             std::to_string(need) + " bytes after the header (" + at_byte(pos) +
             "), the file has " + std::to_string(have));
  if (need < have)
    fail(ErrorCode::kFormat, name,
         std::to_string(have - need) + " bytes after the last sample (header says " +
             std::to_string(h.width) + "x" + std::to_string(h.height) + ")");
}

}  // namespace

Image read_pgx(std::span<const uint8_t> data, const std::string& name) {
  const PgxHeader h = read_header(data, name);
  check_header(h, data.size(), name);
  const size_t pos = h.data_at;
  const uint64_t bytes = h.precision <= 8 ? 1 : 2;
  Image image = make_image(h.width, h.height, 1, h.precision, h.is_signed);
  Component& comp = image.components[0];
  const int64_t lo = comp.min_value(), hi = comp.max_value();
  const uint8_t* p = data.data() + pos;
  for (size_t i = 0; i < comp.samples.size(); ++i) {
    uint32_t raw;
    if (bytes == 1) {
      raw = p[i];
    } else {
      raw = h.big_endian ? (uint32_t{p[2 * i]} << 8) | p[2 * i + 1]
                         : (uint32_t{p[2 * i + 1]} << 8) | p[2 * i];
    }
    const int32_t v = h.is_signed ? sign_extend(raw, 8 * bytes) : static_cast<int32_t>(raw);
    if (v < lo || v > hi)
      fail(ErrorCode::kFormat, name,
           "sample " + std::to_string(v) + " " + at_byte(pos + i * bytes) + " outside " +
               (h.is_signed ? "signed " : "unsigned ") + std::to_string(h.precision) +
               "-bit range");
    comp.samples[i] = v;
  }
  image.color_space = ColorSpace::kUnknown;
  return image;
}

Image read_pgx(const std::filesystem::path& path) {
  const FileBytes bytes = read_file<FileBytes>(path);
  return read_pgx(bytes, path.string());
}

std::vector<uint8_t> encode_pgx(const Component& comp, bool little_endian,
                                const std::string& name) {
  if (comp.precision < 1 || comp.precision > kMaxFilePrecision)
    fail(ErrorCode::kUnsupported, name,
         "precision " + std::to_string(comp.precision) + " does not fit PGX (1..16)");
  if (comp.width == 0 || comp.height == 0 ||
      comp.samples.size() != size_t{comp.width} * comp.height)
    fail(ErrorCode::kInvalidArgument, name, "component size and sample buffer disagree");
  const std::string header = std::string("PG ") + (little_endian ? "LM " : "ML ") +
                             (comp.is_signed ? "- " : "+ ") + std::to_string(comp.precision) + " " +
                             std::to_string(comp.width) + " " + std::to_string(comp.height) + "\n";
  const size_t bytes = comp.precision <= 8 ? 1 : 2;
  std::vector<uint8_t> out(header.begin(), header.end());
  const int64_t lo = comp.min_value(), hi = comp.max_value();
  size_t at = out.size();
  out.resize(at + comp.samples.size() * bytes);
  for (size_t i = 0; i < comp.samples.size(); ++i) {
    const int32_t v = comp.samples[i];
    if (v < lo || v > hi)
      fail(ErrorCode::kInvalidArgument, name,
           "sample " + std::to_string(v) + " outside its precision");
    const uint32_t u = static_cast<uint32_t>(v);
    if (bytes == 1) {
      out[at++] = static_cast<uint8_t>(u);
    } else if (little_endian) {
      out[at++] = static_cast<uint8_t>(u);
      out[at++] = static_cast<uint8_t>(u >> 8);
    } else {
      out[at++] = static_cast<uint8_t>(u >> 8);
      out[at++] = static_cast<uint8_t>(u);
    }
  }
  return out;
}

std::vector<std::filesystem::path> write_pgx(const Image& image, const std::filesystem::path& path,
                                             bool little_endian) {
  if (image.components.empty())
    fail(ErrorCode::kInvalidArgument, path.string(), "image has no components");
  // Encode every component before writing any file, so a refused image leaves no files.
  std::vector<std::filesystem::path> written;
  std::vector<std::vector<uint8_t>> files;
  for (size_t c = 0; c < image.components.size(); ++c) {
    std::filesystem::path out = path;
    if (image.components.size() > 1)
      out.replace_filename(path.stem().string() + "_" + std::to_string(c) +
                           path.extension().string());
    files.push_back(encode_pgx(image.components[c], little_endian, out.string()));
    written.push_back(out);
  }
  for (size_t c = 0; c < files.size(); ++c) write_file(written[c], files[c]);
  return written;
}

}  // namespace gj2k::io
