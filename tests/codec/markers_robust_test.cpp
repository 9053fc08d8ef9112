// Truncated, corrupted and hostile headers end in gj2k::Error (never a crash, hang or other
// exception), and errors name the marker and the byte offset.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>

#include "codec/jp2/boxes.h"
#include "codec/markers/reader.h"
#include "codec/markers/writer.h"
#include "common/shared_data.h"

namespace gj2k::codec {
namespace {

std::vector<uint8_t> load(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Parses `data` as codestream or JP2 + codestream; true on success, false on gj2k::Error.
// Any other exception propagates and fails the test.
bool try_parse(std::span<const uint8_t> data, bool allow_truncated) {
  try {
    std::span<const uint8_t> cs = data;
    if (is_jp2(data)) {
      const Jp2Header h = read_jp2(data);
      cs = data.subspan(h.codestream_offset, h.codestream_length);
    }
    ReadOptions o;
    o.allow_truncated = allow_truncated;
    read_codestream(cs, o);
    return true;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("offset"), std::string::npos) << e.what();
    return false;
  }
}

// Offsets worth attacking: every byte of the headers (main header and the first tile-part
// headers, the JP2 boxes before the codestream), sampled down to at most `limit`.
std::vector<size_t> header_offsets(std::span<const uint8_t> data, std::mt19937& rng, size_t limit) {
  size_t base = 0, len = data.size();
  if (is_jp2(data)) {
    const Jp2Header h = read_jp2(data);
    base = h.codestream_offset;
    len = h.codestream_length;
  }
  const Codestream cs = read_codestream(data.subspan(base, len));
  std::vector<size_t> offs;
  for (size_t i = 0; i < base + cs.main.end; ++i) offs.push_back(i);
  for (size_t k = 0; k < cs.tile_parts.size() && k < 8; ++k)
    for (size_t i = cs.tile_parts[k].sot_offset; i < cs.tile_parts[k].body_begin; ++i)
      offs.push_back(base + i);
  std::shuffle(offs.begin(), offs.end(), rng);
  if (offs.size() > limit) offs.resize(limit);
  return offs;
}

TEST(MarkersRobust, TruncatedConformanceHeaders) {
  GJ2K_REQUIRE_SHARED("conformance/input");
  const uint32_t seed = 7;
  std::mt19937 rng(seed);
  for (const auto& e :
       std::filesystem::directory_iterator(test::shared_dir() / "conformance/input")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".j2k" && ext != ".j2c" && ext != ".jp2") continue;
    SCOPED_TRACE(e.path().filename().string() + ", seed " + std::to_string(seed));
    const std::vector<uint8_t> data = load(e.path());
    std::vector<size_t> cuts = header_offsets(data, rng, 150);
    for (int i = 0; i < 20; ++i)
      cuts.push_back(std::uniform_int_distribution<size_t>(0, data.size())(rng));
    int failed = 0;
    for (size_t n : cuts) {
      std::span<const uint8_t> prefix(data.data(), n);
      failed += !try_parse(prefix, false);
      try_parse(prefix, true);
    }
    // Most cuts fall inside a header, which must then fail to parse.
    EXPECT_GT(failed, static_cast<int>(cuts.size() / 2));
  }
}

TEST(MarkersRobust, CorruptedConformanceHeaders) {
  GJ2K_REQUIRE_SHARED("conformance/input");
  const uint32_t seed = 11;
  std::mt19937 rng(seed);
  int failures = 0, runs = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(test::shared_dir() / "conformance/input")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".j2k" && ext != ".j2c" && ext != ".jp2") continue;
    SCOPED_TRACE(e.path().filename().string() + ", seed " + std::to_string(seed));
    std::vector<uint8_t> data = load(e.path());
    for (size_t at : header_offsets(data, rng, 200)) {
      const uint8_t keep = data[at];
      const uint8_t values[] = {0x00, 0xFF, static_cast<uint8_t>(keep ^ (1u << (rng() % 8))),
                                static_cast<uint8_t>(rng())};
      for (uint8_t v : values) {
        data[at] = v;
        failures += !try_parse(data, false);
        try_parse(data, true);
        ++runs;
      }
      data[at] = keep;
    }
  }
  EXPECT_GT(failures, runs / 20);  // corruption is noticed (most bytes are checked)
}

// A small valid codestream to damage by hand.
std::vector<uint8_t> small_codestream(uint16_t csiz = 3) {
  MainHeader mh;
  mh.siz.xsiz = 64;
  mh.siz.ysiz = 48;
  mh.siz.xtsiz = 32;
  mh.siz.ytsiz = 32;
  mh.siz.components.resize(csiz);
  mh.cod.component.levels = 2;
  mh.qcd.steps.resize(7);
  ByteWriter w;
  write_main_header(w, mh);
  for (uint16_t t = 0; t < 4; ++t) {
    TilePartHeader tp;
    tp.isot = t;
    tp.tnsot = 1;
    const size_t at = write_tile_part_header(w, tp, csiz);
    w.bytes(std::vector<uint8_t>(10, 0x55));
    patch_psot(w, at);
  }
  write_eoc(w);
  return w.release();
}

void expect_error(std::span<const uint8_t> data, ErrorCode code, const std::string& needle) {
  try {
    read_codestream(data);
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(MarkersRobust, HostileValuesAreNamed) {
  const std::vector<uint8_t> good = small_codestream();
  ASSERT_EQ(read_codestream(good).tile_parts.size(), 4u);
  // SIZ body starts at 6: Rsiz(2) Xsiz(4)@8 Ysiz@12 XOsiz@16 YOsiz@20 XTsiz@24 YTsiz@28
  // XTOsiz@32 YTOsiz@36 Csiz@40, components from 42.
  auto patched = [&](size_t at, std::vector<uint8_t> bytes) {
    std::vector<uint8_t> d = good;
    std::copy(bytes.begin(), bytes.end(), d.begin() + at);
    return d;
  };
  expect_error(patched(40, {0x40, 0x00}), ErrorCode::kFormat, "SIZ at offset 2");  // Csiz 16384
  expect_error(patched(40, {0x00, 0x00}), ErrorCode::kFormat, "Csiz");
  expect_error(patched(24, {0, 0, 0, 0}), ErrorCode::kFormat, "tile size");
  // 65536 x 65536 image in 1 x 1 tiles: more than the 65535 tiles Isot can number.
  expect_error(patched(8, {0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1}),
               ErrorCode::kFormat, "65535");
  expect_error(patched(16, {0, 0, 0, 64}), ErrorCode::kFormat, "empty image");
  expect_error(patched(43, {0}), ErrorCode::kFormat, "XRsiz");
  expect_error(patched(42, {37 + 2}), ErrorCode::kFormat, "precision");
  // COD follows SIZ (2 + 2 + 36 + 9 = 51): FF52 Lcod Scod prog layers(2) mct levels xcb ycb
  const size_t cod = 51;
  ASSERT_EQ(good[cod + 1], 0x52);
  expect_error(patched(cod + 5, {7}), ErrorCode::kFormat, "progression order");
  expect_error(patched(cod + 6, {0, 0}), ErrorCode::kFormat, "0 quality layers");
  expect_error(patched(cod + 9, {33}), ErrorCode::kFormat, "decomposition levels");
  expect_error(patched(cod + 10, {7, 7}), ErrorCode::kFormat, "code-block size");
  expect_error(patched(cod + 12, {0x40}), ErrorCode::kUnsupported, "HTJ2K");
  expect_error(patched(cod + 2, {0, 1}), ErrorCode::kFormat, "COD length 1 (byte offset 51)");
  expect_error(patched(cod + 2, {0xFF, 0xF0}), ErrorCode::kTruncated, "runs past the end");
  // QCD needs 3 * 2 + 1 = 7 step sizes for 2 levels: say 3 levels instead. A quirk OpenJPEG
  // accepts (the missing steps read as 0): a warning, not an error.
  const Codestream few = read_codestream(patched(cod + 9, {3}));
  ASSERT_FALSE(few.main.warnings.empty());  // one per component
  EXPECT_NE(few.main.warnings[0].find("gives 7 step sizes (needs 10)"), std::string::npos)
      << few.main.warnings[0];
  // First SOT: Psot past the end, tile index out of range.
  const Codestream cs = read_codestream(good);
  const size_t sot = cs.tile_parts[0].sot_offset;
  expect_error(patched(sot + 6, {0x7F, 0xFF, 0xFF, 0xFF}), ErrorCode::kTruncated, "tile 0");
  expect_error(patched(sot + 4, {0, 9}), ErrorCode::kFormat, "tile index 9");
  expect_error(patched(sot + 10, {1}), ErrorCode::kFormat, "TPsot");
  // Something that is not a marker where the next SOT should be.
  expect_error(patched(cs.tile_parts[1].sot_offset, {0x12}), ErrorCode::kFormat, "expected SOT");
  // Not a codestream at all.
  expect_error(patched(0, {0xFF, 0x4E}), ErrorCode::kFormat, "SOC");
  EXPECT_THROW(read_codestream(std::span<const uint8_t>()), Error);
}

TEST(MarkersRobust, PsotZeroAndAllowTruncated) {
  std::vector<uint8_t> d = small_codestream();
  Codestream cs = read_codestream(d);
  const TilePartHeader last = cs.tile_parts.back();
  // Psot = 0 on the last tile-part: its data runs to the EOC.
  for (int i = 0; i < 4; ++i) d[last.sot_offset + 6 + i] = 0;
  cs = read_codestream(d);
  EXPECT_EQ(cs.tile_parts.back().body_end, last.body_end);
  EXPECT_TRUE(cs.eoc_found);
  // Cut inside the third tile-part's data: an error, or with allow_truncated a clamped body.
  std::vector<uint8_t> cut(d.begin(),
                           d.begin() + static_cast<long>(cs.tile_parts[2].body_begin + 4));
  EXPECT_THROW(read_codestream(cut), Error);
  ReadOptions o;
  o.allow_truncated = true;
  const Codestream part = read_codestream(cut, o);
  EXPECT_TRUE(part.truncated);
  ASSERT_EQ(part.tile_parts.size(), 3u);
  EXPECT_EQ(part.tile_parts[2].body_end, cut.size());
}

TEST(MarkersRobust, ReservedMarkersWithoutLengthAreSkipped) {
  std::vector<uint8_t> d = small_codestream();
  const size_t sot = read_codestream(d).main.end;
  // Insert FF30 and FF3F before the first SOT, and an unknown FF6F segment of length 5.
  const std::vector<uint8_t> extra = {0xFF, 0x30, 0xFF, 0x3F, 0xFF, 0x6F, 0x00, 0x05, 1, 2, 3};
  d.insert(d.begin() + static_cast<long>(sot), extra.begin(), extra.end());
  const Codestream cs = read_codestream(d);
  EXPECT_EQ(cs.main.end, sot + extra.size());
  ASSERT_GE(cs.main.markers.size(), 3u);
  EXPECT_EQ(cs.main.markers[cs.main.markers.size() - 3].code, 0xFF30);
  EXPECT_EQ(cs.main.markers.back().code, 0xFF6F);
  EXPECT_EQ(cs.main.markers.back().length, 5u);
  EXPECT_EQ(cs.tile_parts.size(), 4u);
}

}  // namespace
}  // namespace gj2k::codec
