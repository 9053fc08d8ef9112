// PNM (netpbm P1..P6) reader and P4/P5/P6 writer (io/image_io.h).
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "codec/encoder_internal.h"
#include "codec/file_output.h"
#include "core/thread_pool.h"
#include "io/image_io.h"
#include "io/io_util.h"
#include "transform/pack.h"

namespace gj2k::io {

using detail::at_byte;
using detail::bits_for;
using detail::fail;
using detail::File;
using detail::mul_sat;

namespace {

bool is_space(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Walks a PNM's header and text samples: whitespace and '#' comments (to end of line) separate
// decimal tokens.
class Scanner {
 public:
  Scanner(std::span<const uint8_t> data, const std::string& name, size_t pos)
      : data_(data), name_(name), pos_(pos) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

  void skip_space_and_comments() {
    while (pos_ < data_.size()) {
      if (is_space(data_[pos_])) {
        ++pos_;
      } else if (data_[pos_] == '#') {
        while (pos_ < data_.size() && data_[pos_] != '\n' && data_[pos_] != '\r') ++pos_;
      } else {
        break;
      }
    }
  }

  // A decimal number <= limit; `what` names it in errors.
  uint32_t number(const char* what, uint64_t limit) {
    skip_space_and_comments();
    if (pos_ >= data_.size())
      fail(ErrorCode::kTruncated, name_, std::string("file ends before the ") + what);
    const size_t start = pos_;
    if (data_[pos_] < '0' || data_[pos_] > '9')
      fail(ErrorCode::kFormat, name_,
           std::string("expected a decimal ") + what + " " + at_byte(start) + ", found byte 0x" +
               hex(data_[pos_]));
    uint64_t v = 0;
    while (pos_ < data_.size() && data_[pos_] >= '0' && data_[pos_] <= '9') {
      v = v * 10 + (data_[pos_] - '0');
      if (v > limit)
        fail(ErrorCode::kFormat, name_,
             std::string(what) + " " + at_byte(start) + " exceeds " + std::to_string(limit));
      ++pos_;
    }
    if (pos_ < data_.size() && !is_space(data_[pos_]) && data_[pos_] != '#')
      fail(ErrorCode::kFormat, name_,
           std::string("unexpected byte 0x") + hex(data_[pos_]) + " after the " + what + " " +
               at_byte(pos_));
    return static_cast<uint32_t>(v);
  }

  // One '0' or '1' of a P1 bitmap (they need no separators).
  uint32_t bit() {
    skip_space_and_comments();
    if (pos_ >= data_.size()) fail(ErrorCode::kTruncated, name_, "file ends inside the bitmap");
    const uint8_t c = data_[pos_];
    if (c != '0' && c != '1')
      fail(ErrorCode::kFormat, name_,
           "expected '0' or '1' in the bitmap " + at_byte(pos_) + ", found byte 0x" + hex(c));
    ++pos_;
    return c - '0';
  }

  // The single whitespace byte that ends a binary PNM header.
  void end_of_header() {
    if (pos_ >= data_.size()) fail(ErrorCode::kTruncated, name_, "file ends inside the header");
    if (!is_space(data_[pos_]))
      fail(ErrorCode::kFormat, name_, "header does not end in whitespace " + at_byte(pos_));
    ++pos_;
  }

  static std::string hex(uint8_t c) {
    const char* d = "0123456789abcdef";
    return {d[c >> 4], d[c & 15]};
  }

 private:
  std::span<const uint8_t> data_;
  const std::string& name_;
  size_t pos_ = 0;
};

// A P1..P6 header: what the magic says and the numbers that follow it.
struct PnmHeader {
  bool text = false, bitmap = false;
  uint32_t channels = 1, width = 0, height = 0, maxval = 1;
  uint64_t samples = 0;  // width * height * channels
};

// Reads the header after the magic (P1..P6) and checks that the data can hold the samples
// before anything is allocated for them; leaves `s` at the first sample. `file_size`: the
// whole file's size when `data` is only its start (0: data is the whole file).
PnmHeader read_header(std::span<const uint8_t> data, const std::string& name, Scanner& s,
                      uint64_t file_size = 0) {
  const int kind = data[1] - '0';
  PnmHeader h;
  h.text = kind <= 3;
  h.bitmap = kind == 1 || kind == 4;
  h.channels = (kind == 3 || kind == 6) ? 3 : 1;
  if (s.remaining() > 0 && !is_space(data[2]) && data[2] != '#')
    fail(ErrorCode::kFormat, name, "not a PNM file (no whitespace after the magic)");
  h.width = s.number("width", UINT32_MAX);
  h.height = s.number("height", UINT32_MAX);
  if (h.width == 0 || h.height == 0)
    fail(ErrorCode::kFormat, name, "zero width or height in the header");
  if (!h.bitmap) {
    const size_t at = s.pos();
    h.maxval = s.number("maxval", 65535);
    if (h.maxval == 0)
      fail(ErrorCode::kFormat, name, "maxval 0 " + at_byte(at) + " (must be 1..65535)");
  }
  h.samples = mul_sat(h.width, h.height, h.channels);

  uint64_t need = 0;
  if (h.text) {
    s.skip_space_and_comments();
    need = h.bitmap ? h.samples : mul_sat(h.samples, 2) - 1;  // a digit each, separators between
  } else {
    s.end_of_header();
    need = h.bitmap ? mul_sat((uint64_t{h.width} + 7) / 8, h.height)
                    : mul_sat(h.samples, h.maxval > 255 ? 2 : 1);
  }
  const uint64_t remaining = file_size ? file_size - s.pos() : s.remaining();
  if (need > remaining)
    fail(ErrorCode::kTruncated, name,
         std::to_string(h.width) + "x" + std::to_string(h.height) + " image needs " +
             (h.text ? "at least " : "") + std::to_string(need) + " bytes of samples after " +
             at_byte(s.pos()) + ", the file has " + std::to_string(remaining));
  return h;
}

// Stores sample i (pixel-interleaved order) into `image`, refusing one above maxval; `where`
// is its byte offset, for the message.
struct SampleStore {
  Image& image;
  const PnmHeader& h;
  const std::string& name;
  void operator()(uint64_t i, uint32_t v, size_t where) const {
    if (v > h.maxval)
      fail(ErrorCode::kFormat, name,
           "sample " + std::to_string(v) + " " + at_byte(where) + " exceeds maxval " +
               std::to_string(h.maxval));
    image.components[i % h.channels].samples[i / h.channels] = static_cast<int32_t>(v);
  }
};

// P4: rows of packed bits, 1 is black; stored as 1-bit greyscale, 0 black.
void read_raw_bitmap(const uint8_t* p, const PnmHeader& h, Image& image) {
  const size_t row_bytes = (h.width + 7) / 8;
  for (uint32_t y = 0; y < h.height; ++y, p += row_bytes)
    for (uint32_t x = 0; x < h.width; ++x)
      image.components[0].samples[size_t{y} * h.width + x] = 1 - ((p[x >> 3] >> (7 - (x & 7))) & 1);
}

// Binary P5/P6 rows [y0, y1) from `rows` (row y0's first byte): pixel-interleaved, 16-bit
// samples big-endian, into `image`, the rows side by side on the threads when the image is
// large (`parallel`), every channel of a row in one pass. Returns whether a sample may exceed
// maxval (report_above_maxval then finds the first).
bool read_raw_rows(const uint8_t* rows, uint32_t y0, uint32_t y1, const PnmHeader& h, Image& image,
                   bool parallel) {
  const size_t bytes = h.maxval > 255 ? 2 : 1;
  const uint32_t channels = h.channels;
  const size_t step = channels * bytes;
  const size_t width = h.width;
  std::atomic<bool> too_large{false};  // a sample above maxval
  core::parallel_for_static(
      y0, y1,
      [&](size_t y) {
        const size_t first = static_cast<size_t>(y) * width;
        const uint8_t* p = rows + (y - y0) * width * step;
        if (bytes == 1 && channels == 3) {
          // P6 8-bit, the common case: the three channels of a pixel in one pass.
          int32_t* o0 = image.components[0].samples.data() + first;
          int32_t* o1 = image.components[1].samples.data() + first;
          int32_t* o2 = image.components[2].samples.data() + first;
          const uint8_t* q = p;
          uint32_t row_worst = 0;
          for (size_t i = 0; i < width; ++i, q += 3) {
            o0[i] = q[0];
            o1[i] = q[1];
            o2[i] = q[2];
            row_worst |= uint32_t{q[0]} | q[1] | q[2];
          }
          // An OR bounds the maximum by the next power of two less one: exact for maxval 255,
          // else a hint that report_above_maxval settles.
          if (row_worst > h.maxval) too_large.store(true, std::memory_order_relaxed);
          return;
        }
        for (uint32_t c = 0; c < channels; ++c) {
          int32_t* out = image.components[c].samples.data() + first;
          const uint8_t* q = p + c * bytes;
          uint32_t row_worst = 0;
          if (bytes == 2) {
            for (size_t i = 0; i < width; ++i, q += step) {
              const uint32_t v = (uint32_t{q[0]} << 8) | q[1];
              row_worst = std::max(row_worst, v);
              out[i] = static_cast<int32_t>(v);
            }
          } else {
            for (size_t i = 0; i < width; ++i, q += step) {
              row_worst = std::max<uint32_t>(row_worst, q[0]);
              out[i] = q[0];
            }
          }
          if (row_worst > h.maxval) too_large.store(true, std::memory_order_relaxed);
        }
      },
      parallel ? 0 : 1);
  return too_large.load();
}

// Throws the error of the first sample above maxval in file order, if any; `base` is the
// byte offset of the first sample, for the message.
void report_above_maxval(size_t base, const PnmHeader& h, const SampleStore& store,
                         const Image& image) {
  const size_t bytes = h.maxval > 255 ? 2 : 1;
  const size_t count = size_t{h.width} * h.height;
  for (size_t i = 0; i < count; ++i)
    for (uint32_t c = 0; c < h.channels; ++c) {
      const int32_t v = image.components[c].samples[i];
      if (static_cast<uint32_t>(v) > h.maxval)
        store(i * h.channels + c, static_cast<uint32_t>(v), base + (i * h.channels + c) * bytes);
    }
}

// Whether the rows of a binary image go to the threads side by side.
bool parallel_rows(const PnmHeader& h) {
  return uint64_t{h.width} * h.height * h.channels >= (uint64_t{1} << 20);
}

// Binary P5/P6 from byte `base` of `data` on.
void read_raw_samples(std::span<const uint8_t> data, size_t base, const PnmHeader& h,
                      const SampleStore& store, Image& image) {
  if (read_raw_rows(data.data() + base, 0, h.height, h, image, parallel_rows(h)))
    report_above_maxval(base, h, store, image);
}

// Bytes of samples read from a file at a time by read_pnm(path): about this many, whole rows.
constexpr size_t kStreamBytes = size_t{4} << 20;
// The start of a file read to find its header.
constexpr size_t kHeaderBytes = size_t{64} << 10;

}  // namespace

Image read_pnm(std::span<const uint8_t> data, const std::string& name) {
  if (data.size() < 2) fail(ErrorCode::kTruncated, name, "too short for a PNM header");
  if (data[0] == 'P' && data[1] == '7') return read_pam(data, name);
  if (data[0] != 'P' || data[1] < '1' || data[1] > '6')
    fail(ErrorCode::kFormat, name, "not a PNM file (magic is not P1..P7)");
  Scanner s(data, name, 2);
  const PnmHeader h = read_header(data, name, s);
  // Every sample is written below (binary or text; a short text body throws).
  Image image = codec::make_image_for_overwrite(h.width, h.height, h.channels, bits_for(h.maxval));
  const SampleStore store{image, h, name};
  if (h.bitmap && h.text) {
    // P1: 1 is black; stored as 1-bit greyscale, 0 black.
    for (uint64_t i = 0; i < h.samples; ++i) store(i, 1 - s.bit(), s.pos());
  } else if (h.text) {
    for (uint64_t i = 0; i < h.samples; ++i) {
      const size_t at = s.pos();
      store(i, s.number("sample", 65535), at);
    }
  } else if (h.bitmap) {
    read_raw_bitmap(data.data() + s.pos(), h, image);
  } else {
    read_raw_samples(data, s.pos(), h, store, image);
  }
  return image;
}

namespace {

// A binary P5/P6 file larger than its first kHeaderBytes, open after its header: the header
// read from those bytes, the samples from byte `base` on (the first of them in `head`).
struct BinaryFile {
  File f;
  FileBytes head;
  PnmHeader h;
  size_t base = 0;
};

// The file as BinaryFile, or nullopt for anything read_pnm reads whole (text, bitmaps, PAM,
// small files, a header longer than kHeaderBytes, samples past the file's end, pipes).
std::optional<BinaryFile> open_binary(const std::filesystem::path& path, const std::string& name) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size <= kHeaderBytes) return std::nullopt;
  BinaryFile b;
  b.f.reset(std::fopen(name.c_str(), "rb"));
  if (!b.f) fail(ErrorCode::kIo, name, std::string("cannot open: ") + std::strerror(errno));
  b.head.resize(kHeaderBytes);
  b.head.resize(std::fread(b.head.data(), 1, b.head.size(), b.f.get()));
  if (b.head.size() != kHeaderBytes || b.head[0] != 'P' || (b.head[1] != '5' && b.head[1] != '6'))
    return std::nullopt;
  Scanner s(b.head, name, 2);
  try {
    b.h = read_header(b.head, name, s, size);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kTruncated) throw;  // else: read whole, read_pnm says which
    return std::nullopt;
  }
  b.base = s.pos();
  return b;
}

}  // namespace

Image read_pnm(const std::filesystem::path& path) {
  // A binary P5/P6 file larger than its first kHeaderBytes goes through a buffer of about
  // kStreamBytes, rows converted as they come: the file is never in memory whole. Anything else
  // (text, bitmaps, PAM, small files, a header longer than kHeaderBytes, pipes) is read whole.
  const std::string name = path.string();
  std::optional<BinaryFile> b = open_binary(path, name);
  if (!b) return read_pnm(read_file<FileBytes>(path), name);
  File& f = b->f;
  const PnmHeader* h = &b->h;
  const size_t base = b->base;
  Image image =
      codec::make_image_for_overwrite(h->width, h->height, h->channels, bits_for(h->maxval));
  const size_t row_bytes = size_t{h->width} * h->channels * (h->maxval > 255 ? 2 : 1);
  const uint32_t band =
      static_cast<uint32_t>(std::clamp<size_t>(kStreamBytes / row_bytes, 1, h->height));
  FileBytes buffer(size_t{band} * row_bytes);
  if (std::fseek(f.get(), static_cast<long>(base), SEEK_SET) != 0)
    fail(ErrorCode::kIo, name, "cannot seek to the samples");
  bool too_large = false;
  for (uint32_t y = 0; y < h->height; y += band) {
    const uint32_t y1 = std::min(h->height, y + band);
    const size_t want = size_t{y1 - y} * row_bytes;
    if (std::fread(buffer.data(), 1, want, f.get()) != want) {
      if (std::ferror(f.get())) fail(ErrorCode::kIo, name, "read failed");
      fail(ErrorCode::kTruncated, name,
           "file ends inside the samples of row " + std::to_string(y) +
               " (it shrank while being read)");
    }
    too_large |= read_raw_rows(buffer.data(), y, y1, *h, image, parallel_rows(*h));
  }
  if (too_large) report_above_maxval(base, *h, SampleStore{image, *h, name}, image);
  return image;
}

InputBuffer PnmRows::buffer() const {
  InputBuffer b;
  b.data = bytes.data();
  b.size = bytes.size();
  b.type = layout.components.empty() || layout.components[0].precision <= 8 ? SampleType::k8
                                                                            : SampleType::k16;
  b.interleaved = true;
  b.big_endian = true;
  return b;
}

std::optional<PnmRows> read_pnm_rows(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::optional<BinaryFile> b = open_binary(path, name);
  if (!b) return std::nullopt;
  const PnmHeader* h = &b->h;
  const FileBytes& head = b->head;
  File& f = b->f;
  if (h->maxval != 255 && h->maxval != 65535) return std::nullopt;
  PnmRows rows;
  rows.layout = make_layout(h->width, h->height, h->channels, bits_for(h->maxval));
  rows.bytes.resize(h->samples * (h->maxval > 255 ? 2 : 1));  // not zeroed: read whole below
  const size_t base = b->base;
  const size_t in_head = std::min(rows.bytes.size(), head.size() - base);
  std::memcpy(rows.bytes.data(), head.data() + base, in_head);
  const size_t rest = rows.bytes.size() - in_head;
  if (std::fread(rows.bytes.data() + in_head, 1, rest, f.get()) != rest) {
    if (std::ferror(f.get())) fail(ErrorCode::kIo, name, "read failed");
    fail(ErrorCode::kTruncated, name, "file ends inside the samples (it shrank while being read)");
  }
  return rows;
}

namespace {

// A PNM output checked against what the format holds: its header and sample layout.
struct PnmLayout {
  std::string header;
  size_t components = 0, bytes = 1;  // bytes per sample: 1, or 2 big-endian
  uint32_t width = 0, height = 0, maxval = 0;
  bool bitmap = false;
  size_t row_bytes() const { return bitmap ? (width + 7) / 8 : width * components * bytes; }
};

// geometry_only: the samples are not looked at (pnm_header).
PnmLayout pnm_layout(const Image& image, bool bitmap, const std::string& name,
                     bool geometry_only = false) {
  const size_t n = image.components.size();
  if (n != 1 && n != 3)
    fail(ErrorCode::kUnsupported, name,
         "PNM holds 1 (grey) or 3 (RGB) components, the image has " + std::to_string(n) +
             " (PAM, .pam, holds any number)");
  const Component& c0 = image.components[0];
  for (size_t c = 0; c < n; ++c) {
    const Component& comp = image.components[c];
    const std::string which = "component " + std::to_string(c) + ": ";
    if (comp.is_signed)
      fail(ErrorCode::kUnsupported, name, which + "PNM cannot hold signed samples");
    if (comp.precision < 1 || comp.precision > kMaxFilePrecision)
      fail(ErrorCode::kUnsupported, name,
           which + "precision " + std::to_string(comp.precision) + " does not fit PNM (1..16)");
    if (comp.precision != c0.precision)
      fail(ErrorCode::kUnsupported, name, which + "PNM needs one precision for all components");
    if (comp.width != c0.width || comp.height != c0.height)
      fail(ErrorCode::kUnsupported, name, which + "PNM needs one size for all components");
    if (!geometry_only && comp.samples.size() != size_t{comp.width} * comp.height)
      fail(ErrorCode::kInvalidArgument, name, which + "sample buffer does not match its size");
  }
  if (bitmap && (n != 1 || c0.precision != 1))
    fail(ErrorCode::kUnsupported, name, "a PBM bitmap needs one component of precision 1");
  PnmLayout l;
  l.bitmap = bitmap;
  l.components = n;
  l.maxval = (uint32_t{1} << c0.precision) - 1;
  l.bytes = l.maxval > 255 ? 2 : 1;
  l.width = c0.width;
  l.height = c0.height;
  l.header = std::string("P") +
             (bitmap   ? "4"
              : n == 1 ? "5"
                       : "6") +
             "\n" + std::to_string(l.width) + " " + std::to_string(l.height) + "\n";
  if (!bitmap) l.header += std::to_string(l.maxval) + "\n";
  return l;
}

// Throws naming the first sample outside the precision, if there is one.
void check_samples(const Image& image, const PnmLayout& l, const std::string& name) {
  for (size_t c = 0; c < l.components; ++c) {
    const Component& comp = image.components[c];
    for (size_t i = 0; i < comp.samples.size(); ++i) {
      const int32_t v = comp.samples[i];
      if (v < 0 || static_cast<uint32_t>(v) > l.maxval)
        fail(ErrorCode::kInvalidArgument, name,
             "component " + std::to_string(c) + ": sample " + std::to_string(v) +
                 " outside its precision");
    }
  }
}

// Rows [y0, y1) as the file holds them, into dst (row_bytes() each), rows in parallel.
// Returns false when a sample lies outside the precision (check_samples names it).
bool pnm_rows(const Image& image, const PnmLayout& l, uint32_t y0, uint32_t y1, uint8_t* dst) {
  std::atomic<bool> outside{false};
  const uint32_t width = l.width, maxval = l.maxval;
  const size_t n = l.components, row_bytes = l.row_bytes();
  core::parallel_for_static(y0, y1, [&](size_t y) {
    const size_t first = static_cast<size_t>(y) * width;
    uint8_t* o = dst + static_cast<size_t>(y - y0) * row_bytes;
    uint32_t seen = 0;  // OR of the row's samples: above maxval or negative shows here
    if (l.bitmap) {
      std::memset(o, 0, row_bytes);
      const int32_t* v = image.components[0].samples.data() + first;
      for (uint32_t x = 0; x < width; ++x) {
        seen |= static_cast<uint32_t>(v[x]);
        if (v[x] == 0) o[x >> 3] |= uint8_t(0x80 >> (x & 7));
      }
    } else if ((n == 1 || n == 3) && l.bytes == 1) {
      const int32_t* rows[3];
      for (size_t c = 0; c < n; ++c) rows[c] = image.components[c].samples.data() + first;
      seen = transform::pack_row_u8(rows, n, width, o);
    } else {
      for (uint32_t x = 0; x < width; ++x)
        for (size_t c = 0; c < n; ++c) {
          const auto v = static_cast<uint32_t>(image.components[c].samples[first + x]);
          seen |= v;
          if (l.bytes == 2) *o++ = static_cast<uint8_t>(v >> 8);
          *o++ = static_cast<uint8_t>(v);
        }
    }
    if (seen > maxval) outside.store(true, std::memory_order_relaxed);  // maxval + 1: a power of 2
  });
  return !outside.load();
}

}  // namespace

std::vector<uint8_t> encode_pnm(const Image& image, bool bitmap, const std::string& name) {
  const PnmLayout l = pnm_layout(image, bitmap, name);
  std::vector<uint8_t> out(l.header.size() + l.row_bytes() * l.height);
  std::memcpy(out.data(), l.header.data(), l.header.size());
  if (!pnm_rows(image, l, 0, l.height, out.data() + l.header.size())) check_samples(image, l, name);
  return out;
}

std::optional<std::string> pnm_header(const Image& image, const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext != ".pgm" && ext != ".ppm" && ext != ".pnm") return std::nullopt;
  try {
    return pnm_layout(image, false, path.string(), true).header;
  } catch (const Error&) {
    return std::nullopt;  // write_pnm names the problem
  }
}

// PNM goes to the file in slices of rows converted in parallel, without an image-sized
// buffer; PAM through encode_pam.
void write_pnm(const Image& image, const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::string name = path.string();
  if (ext == ".pam") return write_file(path, encode_pam(image, name));
  const PnmLayout l = pnm_layout(image, ext == ".pbm", name);
  // About 256 KB of output per thread and slice: the buffer stays in the caches between its
  // conversion and the write, and is faulted in once.
  const size_t slice_bytes =
      std::clamp<size_t>(size_t(std::max(1, core::max_threads())) << 18, 1 << 18, 8 << 20);
  const uint32_t slice = static_cast<uint32_t>(
      std::clamp<size_t>(slice_bytes / std::max<size_t>(1, l.row_bytes()), 1, 4096));
  gj2k::detail::write_stream_replacing(path, [&](const gj2k::detail::ByteSink& put) {
    put({reinterpret_cast<const uint8_t*>(l.header.data()), l.header.size()});
    // Not zero-filled: pnm_rows writes every byte of the rows it converts.
    const std::unique_ptr<uint8_t[]> buffer(new uint8_t[l.row_bytes() * std::min(slice, l.height)]);
    for (uint32_t y = 0; y < l.height; y += slice) {
      const uint32_t y1 = std::min(l.height, y + slice);
      if (!pnm_rows(image, l, y, y1, buffer.get())) check_samples(image, l, name);
      put({buffer.get(), l.row_bytes() * (y1 - y)});
    }
  });
}

}  // namespace gj2k::io
