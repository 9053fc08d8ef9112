// PNM, PGX and raw readers and writers: synthetic files, header variations, malformed input.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/shared_data.h"
#include "gj2k/gj2k.h"
#include "io/image_io.h"

namespace gj2k {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> bytes_of(const std::string& s) {
  return {s.begin(), s.end()};
}

Image random_image(uint32_t w, uint32_t h, uint32_t n, uint32_t precision, bool is_signed,
                   uint32_t seed) {
  Image im = make_image(w, h, n, precision, is_signed);
  std::mt19937 rng(seed);
  for (Component& c : im.components) {
    std::uniform_int_distribution<int64_t> d(c.min_value(), c.max_value());
    for (int32_t& v : c.samples) v = static_cast<int32_t>(d(rng));
  }
  return im;
}

// Expects Error(code) whose message starts with the name given to the reader.
template <typename F>
void expect_error(F&& read, ErrorCode code, const std::string& what) {
  try {
    read();
    ADD_FAILURE() << what << ": no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << what << ": " << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("in.x: ", 0), 0u) << what << ": " << e.what();
  }
}

// ---- PNM ------------------------------------------------------------------------------------

TEST(IoPnm, BinaryAndTextAtEveryMaxval) {
  uint32_t seed = 100;
  for (uint32_t maxval : {1u, 3u, 100u, 255u, 256u, 1000u, 4095u, 65535u})
    for (uint32_t channels : {1u, 3u})
      for (bool text : {false, true}) {
        ++seed;
        std::mt19937 rng(seed);
        const uint32_t w = 5, h = 3;
        std::vector<uint32_t> v(w * h * channels);
        for (uint32_t& x : v) x = rng() % (maxval + 1);
        std::string header = std::string("P") +
                             char('0' + (text ? 2 : 5) + (channels == 3 ? 1 : 0)) +
                             "\n# a comment\n" + std::to_string(w) + "  " + std::to_string(h) +
                             "\t#another\n" + std::to_string(maxval) + "\n";
        std::vector<uint8_t> file = bytes_of(header);
        for (uint32_t x : v) {
          if (text) {
            const std::string s = std::to_string(x) + (x % 2 ? "\n" : " ");
            file.insert(file.end(), s.begin(), s.end());
          } else if (maxval > 255) {
            file.push_back(static_cast<uint8_t>(x >> 8));
            file.push_back(static_cast<uint8_t>(x));
          } else {
            file.push_back(static_cast<uint8_t>(x));
          }
        }
        const Image im = io::read_pnm(file, "in.x");
        ASSERT_EQ(im.components.size(), channels);
        uint32_t bits = 0;
        while ((1u << bits) <= maxval) ++bits;
        for (uint32_t c = 0; c < channels; ++c) {
          EXPECT_EQ(im.components[c].precision, bits) << "maxval " << maxval;
          for (uint32_t i = 0; i < w * h; ++i)
            ASSERT_EQ(im.components[c].samples[i], static_cast<int32_t>(v[i * channels + c]))
                << "maxval " << maxval << " text " << text << " seed " << seed;
        }
        // Written back (binary) and read again: same samples and precision.
        auto diff = compare(im, io::read_pnm(io::encode_pnm(im)));
        EXPECT_FALSE(diff) << "maxval " << maxval << ": " << *diff;
      }
}

// A binary PNM file larger than the reader's first read streams its samples in bands of rows
// (read_pnm(path)); it must read exactly as the same bytes read whole (read_pnm(span)):
// the same image, or the same error.
TEST(IoPnm, LargeBinaryFilesReadAsTheirBytes) {
  struct Case {
    const char* what;
    uint32_t w, h, channels, maxval;
    std::string comment;  // after the magic
    size_t cut = 0;       // bytes cut from the end
    bool above = false;   // one sample above maxval, late in the file
  };
  const std::vector<Case> cases = {
      {"P6 8-bit, two bands", 1500, 1200, 3, 255, ""},
      {"P5 16-bit", 2100, 1100, 1, 65535, ""},
      {"P6 maxval 1000", 1300, 700, 3, 1000, ""},
      {"P5 8-bit, one band", 500, 300, 1, 255, ""},
      {"header past the first read", 800, 600, 3, 255, std::string(70000, 'c')},
      {"truncated", 1500, 1200, 3, 255, "", 10},
      {"above maxval in the last band", 1500, 1200, 3, 200, "", 0, true},
      {"above 16-bit maxval", 1200, 1100, 1, 4000, "", 0, true},
  };
  const fs::path file = fs::path(testing::TempDir()) / "gj2k_large.ppm";
  uint32_t seed = 7;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const size_t bytes = c.maxval > 255 ? 2 : 1;
    std::string header = std::string("P") + (c.channels == 3 ? "6" : "5") + "\n";
    if (!c.comment.empty()) header += "#" + c.comment + "\n";
    header +=
        std::to_string(c.w) + " " + std::to_string(c.h) + "\n" + std::to_string(c.maxval) + "\n";
    std::vector<uint8_t> data(header.begin(), header.end());
    const size_t body = size_t{c.w} * c.h * c.channels;
    std::mt19937 rng(seed++);
    std::uniform_int_distribution<uint32_t> d(0, c.maxval);
    for (size_t i = 0; i < body; ++i) {
      uint32_t v = d(rng);
      if (c.above && i == body - 5) v = c.maxval + 1;
      if (bytes == 2) data.push_back(static_cast<uint8_t>(v >> 8));
      data.push_back(static_cast<uint8_t>(v));
    }
    data.resize(data.size() - c.cut);
    {
      std::FILE* f = std::fopen(file.c_str(), "wb");
      ASSERT_NE(f, nullptr);
      ASSERT_EQ(std::fwrite(data.data(), 1, data.size(), f), data.size());
      std::fclose(f);
    }
    std::optional<Image> whole, streamed;
    std::string whole_error, streamed_error;
    try {
      whole = io::read_pnm(data, file.string());
    } catch (const Error& e) {
      whole_error = e.what();
    }
    try {
      streamed = io::read_pnm(file);
    } catch (const Error& e) {
      streamed_error = e.what();
    }
    EXPECT_EQ(streamed_error, whole_error);
    EXPECT_EQ(whole_error.empty(), !c.above && c.cut == 0) << whole_error;
    ASSERT_EQ(streamed.has_value(), whole.has_value());
    if (whole) {
      EXPECT_EQ(compare(*whole, *streamed), std::nullopt);
    }
    // The rows as the file stores them: for full-range maxvals of whole files whose header
    // fits the first read; they hold read_pnm's samples, 16-bit big-endian.
    const std::optional<io::PnmRows> rows = io::read_pnm_rows(file);
    const bool full_range = c.maxval == 255 || c.maxval == 65535;
    EXPECT_EQ(rows.has_value(), whole.has_value() && full_range && c.comment.empty());
    if (rows) {
      const InputBuffer in = rows->buffer();
      EXPECT_EQ(in.size, body * bytes);
      EXPECT_TRUE(in.interleaved && in.big_endian);
      EXPECT_EQ(static_cast<size_t>(in.type), bytes);
      Image from_rows = rows->layout;
      for (uint32_t k = 0; k < c.channels; ++k) {
        Component& comp = from_rows.components[k];
        EXPECT_TRUE(comp.samples.empty());
        comp.samples.resize(size_t{c.w} * c.h);
        for (size_t i = 0; i < comp.samples.size(); ++i) {
          const uint8_t* p = rows->bytes.data() + (i * c.channels + k) * bytes;
          comp.samples[i] = bytes == 2 ? p[0] << 8 | p[1] : p[0];
        }
      }
      EXPECT_EQ(compare(*whole, from_rows), std::nullopt);
      EXPECT_EQ(from_rows.color_space, whole->color_space);
    }
  }
  fs::remove(file);
}

TEST(IoPnm, Bitmaps) {
  // P1 without separators between digits, P4 with a partial last byte per row: 1 is black.
  const Image p1 = io::read_pnm(bytes_of("P1\n# c\n3 2\n011\n1 0 0\n"), "in.x");
  ASSERT_EQ(p1.components[0].precision, 1u);
  const int32_t want[] = {1, 0, 0, 0, 1, 1};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p1.components[0].samples[i], want[i]) << i;
  std::vector<uint8_t> p4 = bytes_of("P4\n10 2\n");
  p4.insert(p4.end(), {0b10000000, 0b01000000, 0b11111111, 0b11000000});
  const Image b = io::read_pnm(p4, "in.x");
  EXPECT_EQ(b.components[0].at(0, 0), 0);
  EXPECT_EQ(b.components[0].at(1, 0), 1);
  EXPECT_EQ(b.components[0].at(9, 0), 0);
  EXPECT_EQ(b.components[0].at(8, 0), 1);
  EXPECT_EQ(b.components[0].at(9, 1), 0);
  // P4 written and read back.
  const Image r = random_image(13, 5, 1, 1, false, 7);
  auto diff = compare(r, io::read_pnm(io::encode_pnm(r, true)));
  EXPECT_FALSE(diff) << *diff;
  const fs::path pbm = test::scratch_dir() / "bits.pbm";
  io::write_image(r, pbm);
  EXPECT_EQ(io::read_file(pbm)[1], '4');
}

TEST(IoPnm, Malformed) {
  const std::vector<std::pair<std::string, ErrorCode>> cases = {
      {"", ErrorCode::kTruncated},
      {"P", ErrorCode::kTruncated},
      {"P7\n1 1\n255\n\x01", ErrorCode::kFormat},
      {"X5\n1 1\n255\n\x01", ErrorCode::kFormat},
      {"P5\n2 2\n255\n\x01\x02\x03", ErrorCode::kTruncated},
      {"P5\n2 2\n", ErrorCode::kTruncated},
      {"P5\n2", ErrorCode::kTruncated},
      {"P5\n100000 100000\n255\n\x01", ErrorCode::kTruncated},
      {"P6\n4294967295 4294967295\n65535\n\x01", ErrorCode::kTruncated},
      {"P5\n99999999999 1\n255\n\x01", ErrorCode::kFormat},
      {"P5\n1 1\n0\n\x01", ErrorCode::kFormat},
      {"P5\n1 1\n70000\n\x01\x01", ErrorCode::kFormat},
      {"P5\n0 1\n255\n", ErrorCode::kFormat},
      {"P5\nab 1\n255\n\x01", ErrorCode::kFormat},
      {"P5\n1 1\n255x\x01", ErrorCode::kFormat},
      {"P5\n1 1\n100\n\xc8", ErrorCode::kFormat},  // sample 200 > maxval 100
      {"P2\n2 1\n255\n1 300\n", ErrorCode::kFormat},
      {"P2\n2 2\n255\n1 2 3\n", ErrorCode::kTruncated},
      {"P3\n1 1\n255\n1 2 x\n", ErrorCode::kFormat},
      {"P1\n2 2\n1 0 2 1\n", ErrorCode::kFormat},
  };
  for (const auto& [text, code] : cases)
    expect_error([&] { io::read_pnm(bytes_of(text), "in.x"); }, code, "'" + text + "'");
}

TEST(IoPnm, WriterRefuses) {
  EXPECT_THROW(io::encode_pnm(make_image(2, 2, 2, 8)), Error);
  EXPECT_THROW(io::encode_pnm(make_image(2, 2, 4, 8)), Error);
  EXPECT_THROW(io::encode_pnm(make_image(2, 2, 1, 8, true)), Error);
  EXPECT_THROW(io::encode_pnm(make_image(2, 2, 1, 17)), Error);
  Image mixed = make_image(2, 2, 3, 8);
  mixed.components[2].precision = 9;
  EXPECT_THROW(io::encode_pnm(mixed), Error);
  EXPECT_THROW(io::encode_pnm(make_image(2, 2, 1, 8), true), Error);  // PBM needs 1 bit
}

TEST(IoPnm, SixteenBitIsBigEndian) {
  Image im = make_image(1, 1, 1, 12);
  im.components[0].samples[0] = 0x0abc;
  const auto bytes = io::encode_pnm(im);
  ASSERT_EQ(std::string(bytes.begin(), bytes.end() - 2), "P5\n1 1\n4095\n");
  EXPECT_EQ(bytes[bytes.size() - 2], 0x0a);
  EXPECT_EQ(bytes[bytes.size() - 1], 0xbc);
}

TEST(IoPam, ReadWriteAndAlpha) {
  std::vector<uint8_t> file = bytes_of(
      "P7\n# comment\nWIDTH 2\nHEIGHT 1\nDEPTH 2\r\nMAXVAL 1000\n"
      "TUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n");
  file.insert(file.end(), {0x03, 0xe8, 0x00, 0x01, 0x00, 0x02, 0x01, 0x00});
  const Image im = io::read_pnm(file, "in.x");
  ASSERT_EQ(im.components.size(), 2u);
  EXPECT_EQ(im.components[0].precision, 10u);
  EXPECT_EQ(im.components[0].samples, (Samples{1000, 2}));
  EXPECT_EQ(im.components[1].samples, (Samples{1, 256}));
  EXPECT_FALSE(im.components[0].is_alpha);
  EXPECT_TRUE(im.components[1].is_alpha);
  EXPECT_EQ(im.color_space, ColorSpace::kGrey);
  uint32_t seed = 200;
  for (uint32_t n : {1u, 2u, 3u, 4u, 5u})
    for (uint32_t precision : {1u, 8u, 9u, 16u}) {
      Image r = random_image(7, 3, n, precision, false, ++seed);
      if (n == 2 || n == 4) r.components.back().is_alpha = true;
      const Image back = io::read_pnm(io::encode_pam(r), "in.x");
      auto diff = compare(r, back);
      EXPECT_FALSE(diff) << n << " components, " << precision << " bits: " << *diff;
      for (uint32_t c = 0; c < n; ++c)
        EXPECT_EQ(back.components[c].is_alpha, r.components[c].is_alpha);
    }
  EXPECT_THROW(io::encode_pam(make_image(2, 2, 1, 8, true)), Error);
  Image alpha_first = make_image(2, 2, 2, 8);
  alpha_first.components[0].is_alpha = true;
  EXPECT_THROW(io::encode_pam(alpha_first), Error);
}

TEST(IoPam, Malformed) {
  const std::string ok = "WIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\nENDHDR\n";
  const std::vector<std::pair<std::string, ErrorCode>> cases = {
      {"P7", ErrorCode::kTruncated},
      {"P7 WIDTH 2\n", ErrorCode::kFormat},
      {"P7\n" + ok + "abc", ErrorCode::kTruncated},
      {"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\n", ErrorCode::kTruncated},
      {"P7\nWIDTH 2\nHEIGHT 2\nMAXVAL 255\nENDHDR\nabcd", ErrorCode::kFormat},
      {"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 0\nENDHDR\nabcd", ErrorCode::kFormat},
      {"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 70000\nENDHDR\nabcd", ErrorCode::kFormat},
      {"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 99999\nMAXVAL 255\nENDHDR\nabcd", ErrorCode::kFormat},
      {"P7\nWIDTH x\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\nENDHDR\nabcd", ErrorCode::kFormat},
      {"P7\nWIDTH 4294967295\nHEIGHT 4294967295\nDEPTH 16384\nMAXVAL 65535\nENDHDR\nab",
       ErrorCode::kTruncated},
      {"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 100\nENDHDR\n\x01\x02\x03\xff", ErrorCode::kFormat},
      {"P7\nWIDTH 2\nCOLOUR 2\n", ErrorCode::kFormat},
  };
  for (const auto& [text, code] : cases)
    expect_error([&] { io::read_pnm(bytes_of(text), "in.x"); }, code, "'" + text + "'");
  EXPECT_NO_THROW(io::read_pnm(bytes_of("P7\n" + ok + "abcd"), "in.x"));  // control
}

// ---- PGX ------------------------------------------------------------------------------------

TEST(IoPgx, HeaderVariationsAndByteOrders) {
  // Headers as seen in the conformance references: no sign, sign attached, CR LF, two spaces.
  struct Case {
    std::string header;
    bool is_signed, little;
    uint32_t precision;
  };
  const Case cases[] = {
      {"PG ML  8 2 3\n", false, false, 8},  {"PG ML +8 2 3\n", false, false, 8},
      {"PG ML + 8 2 3\n", false, false, 8}, {"PG ML -4 2 3\r\n", true, false, 4},
      {"PG LM -12 2 3\n", true, true, 12},  {"PG\tML 16 2 3 \n", false, false, 16},
      {"PG LM +9 2 3\n", false, true, 9}};
  uint32_t seed = 300;
  for (const Case& c : cases) {
    const Image expect = random_image(2, 3, 1, c.precision, c.is_signed, ++seed);
    std::vector<uint8_t> file = bytes_of(c.header);
    for (int32_t v : expect.components[0].samples) {
      const uint32_t u = static_cast<uint32_t>(v);
      if (c.precision <= 8) {
        file.push_back(static_cast<uint8_t>(u));
      } else if (c.little) {
        file.insert(file.end(), {static_cast<uint8_t>(u), static_cast<uint8_t>(u >> 8)});
      } else {
        file.insert(file.end(), {static_cast<uint8_t>(u >> 8), static_cast<uint8_t>(u)});
      }
    }
    const Image got = io::read_pgx(file, "in.x");
    auto diff = compare(expect, got);
    EXPECT_FALSE(diff) << "'" << c.header << "' seed " << seed << ": " << *diff;
    // Our writer's output reads back the same in both byte orders.
    for (bool little : {false, true}) {
      diff = compare(expect, io::read_pgx(io::encode_pgx(got.components[0], little)));
      EXPECT_FALSE(diff) << "rewrite '" << c.header << "': " << *diff;
    }
  }
}

TEST(IoPgx, WriterHeader) {
  Image im = make_image(3, 2, 1, 12, true);
  im.components[0].samples = {-2048, -1, 0, 1, 2047, 0x123};
  const auto bytes = io::encode_pgx(im.components[0], true);
  const std::string header = "PG LM - 12 3 2\n";
  ASSERT_EQ(std::string(bytes.begin(), bytes.begin() + header.size()), header);
  ASSERT_EQ(bytes.size(), header.size() + 12);
  EXPECT_EQ(bytes[header.size()], 0x00);  // -2048 little-endian: 00 f8
  EXPECT_EQ(bytes[header.size() + 1], 0xf8);
  EXPECT_EQ(bytes[header.size() + 10], 0x23);
  EXPECT_EQ(bytes[header.size() + 11], 0x01);
}

TEST(IoPgx, Malformed) {
  const std::vector<std::pair<std::string, ErrorCode>> cases = {
      {"", ErrorCode::kTruncated},
      {"PX ML 8 1 1\n\x01", ErrorCode::kFormat},
      {"PG MM 8 1 1\n\x01", ErrorCode::kFormat},
      {"PG ML 8 2 2\n\x01\x02\x03", ErrorCode::kTruncated},
      {"PG ML 8 2 2\n\x01\x02\x03\x04\x05", ErrorCode::kFormat},
      {"PG ML 8 1 1", ErrorCode::kTruncated},
      {"PG ML 0 1 1\n\x01", ErrorCode::kFormat},
      {"PG ML 17 1 1\n\x01\x01\x01\x01", ErrorCode::kUnsupported},
      {"PG ML 8 0 1\n", ErrorCode::kFormat},
      {"PG ML 8 100000 100000\n\x01", ErrorCode::kTruncated},
      {"PG ML 16 4294967295 4294967295\n\x01", ErrorCode::kTruncated},
      {"PG ML 8 99999999999 1\n\x01", ErrorCode::kFormat},
      {"PG ML 4 1 1\n\x10", ErrorCode::kFormat},   // 16 > 4-bit max
      {"PG ML -4 1 1\n\x08", ErrorCode::kFormat},  // 8 > signed 4-bit max
      {"PG ML 8 1 1 x\n\x01", ErrorCode::kFormat},
  };
  for (const auto& [text, code] : cases)
    expect_error([&] { io::read_pgx(bytes_of(text), "in.x"); }, code, "'" + text + "'");
}

TEST(IoPgx, MultiComponentWritesOneFilePerComponent) {
  Image im = random_image(6, 4, 3, 10, true, 400);
  im.components[1].precision = 5;
  im.components[1].is_signed = false;
  for (int32_t& v : im.components[1].samples) v &= 31;
  const fs::path dir = test::scratch_dir();
  io::write_image(im, dir / "multi.pgx");
  for (int c = 0; c < 3; ++c) {
    const Image one = io::read_image(dir / ("multi_" + std::to_string(c) + ".pgx"));
    ASSERT_EQ(one.components.size(), 1u);
    Image expect = im;
    expect.components = {im.components[c]};
    auto diff = compare(expect, one);
    EXPECT_FALSE(diff) << c << ": " << *diff;
  }
  // One component: the path itself.
  Image single = random_image(3, 3, 1, 8, false, 401);
  io::write_image(single, dir / "single.pgx");
  EXPECT_FALSE(compare(single, io::read_image(dir / "single.pgx")));
}

// ---- raw ------------------------------------------------------------------------------------

TEST(IoRaw, RoundTripAndGeometryChecks) {
  uint32_t seed = 500;
  for (uint32_t precision : {1u, 7u, 8u, 9u, 16u})
    for (bool is_signed : {false, true})
      for (bool big : {false, true}) {
        const Image im = random_image(5, 4, 2, precision, is_signed, ++seed);
        const auto bytes = io::encode_raw(im, big);
        EXPECT_EQ(bytes.size(), 5u * 4 * 2 * (precision > 8 ? 2 : 1));
        io::RawGeometry g{5, 4, 2, precision, is_signed, big};
        auto diff = compare(im, io::read_raw(bytes, g));
        EXPECT_FALSE(diff) << precision << (is_signed ? "s" : "u") << " seed " << seed << ": "
                           << *diff;
        auto shorter = bytes;
        shorter.pop_back();
        expect_error([&] { io::read_raw(shorter, g, "in.x"); }, ErrorCode::kTruncated, "short");
        auto longer = bytes;
        longer.push_back(0);
        expect_error([&] { io::read_raw(longer, g, "in.x"); }, ErrorCode::kFormat, "long");
      }
  const std::vector<uint8_t> one = {0x7f};
  expect_error(
      [&] {
        io::read_raw(one, {1, 1, 1, 4, false, true}, "in.x");
      },
      ErrorCode::kFormat, "sample beyond precision");
  expect_error(
      [&] {
        io::read_raw(one, {0, 1, 1, 8, false, true}, "in.x");
      },
      ErrorCode::kInvalidArgument, "zero width");
  expect_error(
      [&] {
        io::read_raw(one, {65536, 65536, 65536, 16, false, true}, "in.x");
      },
      ErrorCode::kTruncated, "absurd");
  EXPECT_THROW(io::read_image(test::scratch_dir() / "x.raw"), Error);  // no geometry given
}

TEST(IoDispatch, Extensions) {
  EXPECT_EQ(io::format_from_extension("a/b.TIF"), io::Format::kTiff);
  EXPECT_EQ(io::format_from_extension("b.tiff"), io::Format::kTiff);
  EXPECT_EQ(io::format_from_extension("b.pgm"), io::Format::kPnm);
  EXPECT_EQ(io::format_from_extension("b.PPM"), io::Format::kPnm);
  EXPECT_EQ(io::format_from_extension("b.pgx"), io::Format::kPgx);
  EXPECT_EQ(io::format_from_extension("b.rawl"), io::Format::kRawLittle);
  EXPECT_EQ(io::format_from_extension("b.PNG"), io::Format::kPng);
  EXPECT_EQ(io::format_from_extension("b.bmp"), io::Format::kBmp);
  EXPECT_EQ(io::format_from_extension("b.jpeg"), io::Format::kJpeg);
  EXPECT_FALSE(io::format_from_extension("b.gif"));
  EXPECT_THROW(io::read_image("nothing.bmp"), Error);
  try {
    io::read_image(test::scratch_dir() / "does-not-exist.pgm");
    ADD_FAILURE() << "no error for a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(e.what()).find("does-not-exist.pgm"), std::string::npos);
  }
  EXPECT_THROW(io::write_image(make_image(2, 2, 1, 8), "/nonexistent-dir/x.pgm"), Error);
}

}  // namespace
}  // namespace gj2k

namespace gj2k {
namespace {

// Seeded corruption (byte changes and truncation) of valid files: every outcome is an Error or
// a valid image, never a crash (the sanitizer build checks memory safety).
template <typename Read>
void corrupt_and_read(const std::vector<uint8_t>& good, Read read, uint32_t seed) {
  std::mt19937 rng(seed);
  int errors = 0;
  for (int trial = 0; trial < 400; ++trial) {
    auto bytes = good;
    if (trial % 2) {
      bytes.resize(rng() % bytes.size());
    } else {
      const int changes = 1 + rng() % 3;
      for (int k = 0; k < changes; ++k) {
        // Mostly the header, where the interesting lies are.
        const size_t at =
            rng() % (trial % 4 == 0 ? bytes.size() : std::min<size_t>(bytes.size(), 24));
        bytes[at] = static_cast<uint8_t>(rng() % 4 ? "0123456789 \n#-+PMLG"[rng() % 19] : rng());
      }
    }
    try {
      validate(read(bytes));
    } catch (const Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 0) << "seed " << seed << ": no corruption detected";
}

TEST(IoPnm, CorruptedNeverCrash) {
  const Image im = random_image(17, 9, 3, 10, false, 600);
  corrupt_and_read(
      io::encode_pnm(im), [](const auto& b) { return io::read_pnm(b, "f"); }, 601);
  const Image grey = random_image(17, 9, 1, 8, false, 602);
  auto text = bytes_of("P2\n17 9\n255\n");
  for (int32_t v : grey.components[0].samples) {
    const std::string s = std::to_string(v) + " ";
    text.insert(text.end(), s.begin(), s.end());
  }
  corrupt_and_read(
      text, [](const auto& b) { return io::read_pnm(b, "f"); }, 603);
}

TEST(IoPgx, CorruptedNeverCrash) {
  const Image im = random_image(17, 9, 1, 12, true, 700);
  corrupt_and_read(
      io::encode_pgx(im.components[0]), [](const auto& b) { return io::read_pgx(b, "f"); }, 701);
}

}  // namespace
}  // namespace gj2k
