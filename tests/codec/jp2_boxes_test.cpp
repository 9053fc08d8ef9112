// JP2 boxes (15444-1 Annex I): write -> read round trips with random values, box length
// forms (LBox 0, XLBox), JPX compatibility, truncation, and the conformance files' facts.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>

#include "codec/jp2/boxes.h"
#include "codec/markers/byte_reader.h"
#include "codec/markers/writer.h"
#include "common/shared_data.h"

namespace gj2k::codec {
namespace {

std::vector<uint8_t> load(const std::string& name) {
  std::ifstream in(test::shared_dir() / "conformance" / "input" / name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint32_t uni(std::mt19937& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

std::vector<uint8_t> fake_codestream(std::mt19937& rng) {
  std::vector<uint8_t> cs = {0xFF, 0x4F};
  for (uint32_t i = 0, n = uni(rng, 0, 500); i < n; ++i) cs.push_back(uint8_t(rng()));
  cs.push_back(0xFF);
  cs.push_back(0xD9);
  return cs;
}

TEST(Jp2Boxes, RandomHeadersRoundTrip) {
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    Jp2Header h;
    h.ihdr.width = uni(rng, 1, 0xFFFFFFFFu);
    h.ihdr.height = uni(rng, 1, 0xFFFFFFFFu);
    h.ihdr.components = static_cast<uint16_t>(uni(rng, 1, 20));
    h.ihdr.unknown_colourspace = uint8_t(uni(rng, 0, 1));
    h.ihdr.ipr = uint8_t(uni(rng, 0, 1));
    if (uni(rng, 0, 1)) {
      h.ihdr.depth = BitDepth{uint8_t(uni(rng, 1, 38)), uni(rng, 0, 1) == 1};
    } else {
      for (int c = 0; c < h.ihdr.components; ++c)
        h.bpcc.push_back({uint8_t(uni(rng, 1, 38)), uni(rng, 0, 1) == 1});
    }
    Colr e;
    e.enumerated = uni(rng, 0, 1) ? enum_cs::kSRGB : enum_cs::kSYCC;
    h.colr.push_back(e);
    if (uni(rng, 0, 1)) {
      Colr icc;
      icc.method = 2;
      icc.precedence = -3;
      icc.approximation = 1;
      for (int i = 0, n = int(uni(rng, 0, 300)); i < n; ++i) icc.icc.push_back(uint8_t(rng()));
      h.colr.push_back(icc);
    }
    if (uni(rng, 0, 1)) {
      Pclr p;
      p.entries = uint16_t(uni(rng, 1, 1024));
      const uint32_t npc = uni(rng, 1, 4);
      for (uint32_t k = 0; k < npc; ++k) {
        const bool sgn = uni(rng, 0, 1) == 1;
        p.columns.push_back({uint8_t(uni(rng, 1, sgn ? 32 : 31)), sgn});
      }
      for (uint32_t i = 0; i < p.entries; ++i)
        for (const BitDepth& d : p.columns) {
          const int64_t lo = d.is_signed ? -(int64_t{1} << (d.precision - 1)) : 0;
          const int64_t hi =
              d.is_signed ? (int64_t{1} << (d.precision - 1)) - 1 : (int64_t{1} << d.precision) - 1;
          p.values.push_back(int32_t(std::uniform_int_distribution<int64_t>(lo, hi)(rng)));
        }
      for (uint32_t k = 0; k < npc; ++k) h.cmap.push_back({0, 1, uint8_t(k)});
      h.pclr = std::move(p);
    }
    if (uni(rng, 0, 1))
      for (uint16_t c = 0; c < h.ihdr.components; ++c)
        h.cdef.push_back({c, uint16_t(uni(rng, 0, 2)), uint16_t(h.ihdr.components - c)});
    const std::vector<uint8_t> cs = fake_codestream(rng);
    const std::vector<uint8_t> file = write_jp2(h, cs);
    ASSERT_TRUE(is_jp2(file));
    const Jp2Header r = read_jp2(file);
    EXPECT_EQ(r.brand, h.brand);
    EXPECT_EQ(r.compatibility, h.compatibility);
    EXPECT_EQ(r.ihdr, h.ihdr);
    EXPECT_EQ(r.bpcc, h.bpcc);
    EXPECT_EQ(r.colr, h.colr);
    EXPECT_EQ(r.pclr, h.pclr);
    EXPECT_EQ(r.cmap, h.cmap);
    EXPECT_EQ(r.cdef, h.cdef);
    ASSERT_EQ(r.codestream_length, cs.size());
    EXPECT_TRUE(std::equal(cs.begin(), cs.end(), file.begin() + long(r.codestream_offset)));
    EXPECT_FALSE(r.codestream_truncated);
    for (uint16_t c = 0; c < h.ihdr.components; ++c)
      EXPECT_EQ(r.component_depth(c), h.bpcc.empty() ? *h.ihdr.depth : h.bpcc[c]);
    // Every prefix either parses (a clamped jp2c) or fails with gj2k::Error.
    for (size_t n = 0; n < file.size(); n += 1 + file.size() / 200) {
      try {
        const Jp2Header t = read_jp2(std::span(file.data(), n));
        EXPECT_TRUE(t.codestream_truncated || t.codestream_offset + t.codestream_length == n);
      } catch (const Error&) {
      }
    }
  }
}

TEST(Jp2Boxes, HeaderFromSiz) {
  Siz s;
  s.xosiz = 3;
  s.xsiz = 103;
  s.yosiz = 0;
  s.ysiz = 50;
  s.components = {{8, false, 1, 1}, {8, false, 2, 2}, {8, false, 2, 2}};
  Jp2Header h = make_jp2_header(s, enum_cs::kSYCC);
  EXPECT_EQ(h.ihdr.width, 100u);
  EXPECT_EQ(h.ihdr.height, 50u);
  EXPECT_EQ(h.ihdr.components, 3);
  ASSERT_TRUE(h.ihdr.depth.has_value());
  EXPECT_TRUE(h.bpcc.empty());
  s.components[2].precision = 12;
  h = make_jp2_header(s, enum_cs::kSRGB);
  EXPECT_FALSE(h.ihdr.depth.has_value());  // BPC = 255
  ASSERT_EQ(h.bpcc.size(), 3u);
  EXPECT_EQ(h.bpcc[2].precision, 12);
  const std::vector<uint8_t> cs = {0xFF, 0x4F, 0xFF, 0xD9};
  const Jp2Header r = read_jp2(write_jp2(h, cs));
  EXPECT_EQ(r.bpcc, h.bpcc);
  EXPECT_EQ(r.colr.at(0).enumerated, enum_cs::kSRGB);
}

// Builds signature + ftyp(brand, compat) + jp2h(ihdr, colr) by hand, then appends `tail`.
std::vector<uint8_t> hand_file(uint32_t brand, std::vector<uint32_t> compat,
                               const std::vector<uint8_t>& tail) {
  Jp2Header h;
  h.brand = brand;
  h.compatibility = std::move(compat);
  h.ihdr = {10, 20, 1, BitDepth{8, false}, 7, 0, 0};
  h.colr.push_back(Colr{});
  h.colr[0].enumerated = enum_cs::kGreyscale;
  std::vector<uint8_t> f = write_jp2(h, {});
  f.resize(f.size() - 8);  // drop the empty jp2c box
  f.insert(f.end(), tail.begin(), tail.end());
  return f;
}

TEST(Jp2Boxes, BoxLengthForms) {
  const std::vector<uint8_t> body = {0xFF, 0x4F, 1, 2, 3, 0xFF, 0xD9};
  // XLBox: LBox = 1, 64-bit length.
  ByteWriter w;
  w.u32(1);
  w.u32(box::kJp2c);
  w.u64(16 + body.size());
  w.bytes(body);
  w.u32(8);  // an empty xml box after it
  w.u32(box::kXml);
  Jp2Header h = read_jp2(hand_file(box::kBrandJp2, {box::kBrandJp2}, w.data()));
  EXPECT_EQ(h.codestream_length, body.size());
  // LBox = 0: the box runs to the end of the file.
  ByteWriter z;
  z.u32(0);
  z.u32(box::kJp2c);
  z.bytes(body);
  const auto f0 = hand_file(box::kBrandJp2, {box::kBrandJp2}, z.data());
  h = read_jp2(f0);
  EXPECT_EQ(h.codestream_length, body.size());
  EXPECT_EQ(h.codestream_offset + h.codestream_length, f0.size());
  // LBox = 3 is no length at all.
  ByteWriter bad;
  bad.u32(3);
  bad.u32(box::kJp2c);
  bad.bytes(body);
  try {
    read_jp2(hand_file(box::kBrandJp2, {box::kBrandJp2}, bad.data()));
    ADD_FAILURE() << "LBox = 3 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFormat);
    EXPECT_NE(std::string(e.what()).find("'jp2c' at offset"), std::string::npos) << e.what();
  }
}

TEST(Jp2Boxes, JpxNeedsJp2Compatibility) {
  ByteWriter z;
  z.u32(0);
  z.u32(box::kJp2c);
  z.u16(0xFF4F);
  EXPECT_NO_THROW(read_jp2(hand_file(box::kBrandJpx, {box::kBrandJpx, box::kBrandJp2}, z.data())));
  try {
    read_jp2(hand_file(box::kBrandJpx, {box::kBrandJpx}, z.data()));
    ADD_FAILURE() << "a JPX file without jp2 compatibility was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("ftyp"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_jp2(hand_file(box::kBrandJp2, {box::kBrandJp2}, {})), Error);  // no jp2c
  EXPECT_FALSE(is_jp2(std::vector<uint8_t>{0xFF, 0x4F, 0xFF, 0x51}));
}

TEST(Jp2Boxes, ConformanceFiles) {
  GJ2K_REQUIRE_SHARED("conformance/input/file9.jp2");
  const Jp2Header f1 = read_jp2(load("file1.jp2"));
  EXPECT_EQ(f1.ihdr.width, 768u);
  EXPECT_EQ(f1.ihdr.height, 512u);
  EXPECT_EQ(f1.ihdr.components, 3);
  EXPECT_EQ(f1.colr.at(0).enumerated, enum_cs::kSRGB);
  EXPECT_TRUE(std::any_of(f1.boxes.begin(), f1.boxes.end(),
                          [](const BoxInfo& b) { return b.type == box::kXml; }));
  const Jp2Header f2 = read_jp2(load("file2.jp2"));
  EXPECT_EQ(f2.colr.at(0).enumerated, enum_cs::kSYCC);
  ASSERT_EQ(f2.cdef.size(), 3u);
  for (uint16_t i = 0; i < 3; ++i) EXPECT_EQ(f2.cdef[i].association, 3 - i);  // reversed
  EXPECT_EQ(read_jp2(load("file3.jp2")).colr.at(0).enumerated, enum_cs::kSYCC);
  const Jp2Header f4 = read_jp2(load("file4.jp2"));
  EXPECT_EQ(f4.ihdr.components, 1);
  EXPECT_EQ(f4.colr.at(0).enumerated, enum_cs::kGreyscale);
  const Jp2Header f5 = read_jp2(load("file5.jp2"));
  EXPECT_EQ(f5.brand, box::kBrandJpx);
  EXPECT_TRUE(f5.has_rreq);
  ASSERT_EQ(f5.colr.size(), 2u);
  EXPECT_EQ(f5.colr[0].method, 2);
  EXPECT_GT(f5.colr[0].icc.size(), 128u);
  EXPECT_EQ(f5.colr[1].enumerated, 21u);  // ROMM-RGB
  EXPECT_EQ(read_jp2(load("file6.jp2")).ihdr.depth->precision, 12);
  const Jp2Header f7 = read_jp2(load("file7.jp2"));
  EXPECT_EQ(f7.ihdr.depth->precision, 16);
  EXPECT_EQ(f7.colr.at(0).method, 2);
  const Jp2Header f8 = read_jp2(load("file8.jp2"));
  EXPECT_EQ(f8.ihdr.width, 700u);
  EXPECT_EQ(f8.ihdr.height, 400u);
  EXPECT_EQ(f8.colr.at(0).method, 2);
  const Jp2Header f9 = read_jp2(load("file9.jp2"));
  ASSERT_TRUE(f9.pclr.has_value());
  EXPECT_EQ(f9.pclr->entries, 256);
  EXPECT_EQ(f9.pclr->columns.size(), 3u);
  EXPECT_EQ(f9.cmap.size(), 3u);
  EXPECT_EQ(f9.ihdr.components, 1);
}

}  // namespace
}  // namespace gj2k::codec
