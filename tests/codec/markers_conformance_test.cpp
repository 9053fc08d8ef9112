// Header parsing of every ISO/IEC 15444-4 conformance file, checked against the facts that
// ../shared/conformance/TOLERANCES.md lists for each stream, plus internal consistency of
// tile-parts, TLM and PPM that holds for every valid codestream.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <vector>

#include "codec/jp2/boxes.h"
#include "codec/markers/reader.h"
#include "common/shared_data.h"

namespace gj2k::codec {
namespace {

using transform::Band;

std::vector<uint8_t> load(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::filesystem::path input(const std::string& name) {
  return test::shared_dir() / "conformance" / "input" / name;
}

// Parses a codestream file, or the codestream inside a JP2 file.
Codestream parse(const std::string& name) {
  const std::vector<uint8_t> data = load(input(name));
  std::span<const uint8_t> cs(data);
  if (is_jp2(data)) {
    const Jp2Header h = read_jp2(data);
    cs = cs.subspan(h.codestream_offset, h.codestream_length);
  }
  return read_codestream(cs);
}

bool has_marker(const std::vector<MarkerInfo>& m, uint16_t code) {
  for (const auto& x : m)
    if (x.code == code) return true;
  return false;
}

bool any_tile_part_has(const Codestream& cs, uint16_t code) {
  for (const auto& tp : cs.tile_parts)
    if (has_marker(tp.markers, code)) return true;
  return false;
}

#define REQUIRE_INPUT(name) GJ2K_REQUIRE_SHARED("conformance/input/" name)

TEST(MarkersConformance, EveryFileParsesConsistently) {
  GJ2K_REQUIRE_SHARED("conformance/input");
  int files = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(test::shared_dir() / "conformance/input")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".j2k" && ext != ".j2c" && ext != ".jp2") continue;
    SCOPED_TRACE(e.path().filename().string());
    ++files;
    const std::vector<uint8_t> data = load(e.path());
    std::span<const uint8_t> span(data);
    if (ext == ".jp2") {
      const Jp2Header h = read_jp2(data);
      ASSERT_FALSE(h.codestream_truncated);
      span = span.subspan(h.codestream_offset, h.codestream_length);
    }
    Codestream cs;
    ASSERT_NO_THROW(cs = read_codestream(span));
    EXPECT_TRUE(cs.eoc_found);
    EXPECT_FALSE(cs.truncated);
    ASSERT_EQ(cs.tiles.size(), num_tiles(cs.main.siz));
    // Tile-parts follow each other without gaps from the end of the main header to EOC.
    size_t pos = cs.main.end;
    for (const auto& tp : cs.tile_parts) {
      EXPECT_EQ(tp.sot_offset, pos);
      EXPECT_LE(tp.body_begin, tp.body_end);
      if (tp.psot) {
        EXPECT_EQ(tp.body_end, tp.sot_offset + tp.psot);
      }
      pos = tp.body_end;
    }
    EXPECT_EQ(pos + 2, span.size());
    // Every tile's parts are numbered 0..n-1 and, where TNsot is given, n = TNsot.
    size_t parts = 0;
    for (const auto& t : cs.tiles) {
      parts += t.parts.size();
      for (size_t i = 0; i < t.parts.size(); ++i) {
        const TilePartHeader& tp = cs.tile_parts[t.parts[i]];
        EXPECT_EQ(tp.isot, t.index);
        EXPECT_EQ(tp.tpsot, i);
        if (tp.tnsot) {
          EXPECT_EQ(tp.tnsot, t.parts.size());
        }
      }
    }
    EXPECT_EQ(parts, cs.tile_parts.size());
    // TLM lengths are the tile-parts' Psot, in codestream order.
    size_t k = 0;
    for (const Tlm& tlm : cs.main.tlm)
      for (const TlmEntry& en : tlm.entries) {
        ASSERT_LT(k, cs.tile_parts.size());
        EXPECT_EQ(en.length, cs.tile_parts[k].psot);
        if (en.tile) {
          EXPECT_EQ(*en.tile, cs.tile_parts[k].isot);
        }
        ++k;
      }
    if (!cs.main.tlm.empty()) {
      EXPECT_EQ(k, cs.tile_parts.size());
    }
    if (cs.main.has_ppm) {
      EXPECT_EQ(cs.main.ppm_tile_parts.size(), cs.tile_parts.size());
    }
    // Every tile-component has a step size for each of its subbands.
    for (const auto& t : cs.tiles)
      for (uint16_t c = 0; c < cs.main.siz.components.size(); ++c) {
        const TileHeader* th = &t.header;
        const int levels = effective_coding(cs.main, th, c).levels;
        const Quantization& q = effective_quantization(cs.main, th, c);
        EXPECT_NO_THROW(q.step(levels, levels, Band::kLL));
        if (levels > 0) {
          EXPECT_NO_THROW(q.step(levels, 1, Band::kHH));
        }
      }
  }
  EXPECT_GE(files, 50);
}

TEST(MarkersConformance, P0_01) {
  REQUIRE_INPUT("p0_01.j2k");
  const Codestream cs = parse("p0_01.j2k");
  EXPECT_EQ(cs.main.siz.xsiz, 128u);
  EXPECT_EQ(cs.main.siz.ysiz, 128u);
  EXPECT_EQ(cs.main.cod.progression, ProgressionOrder::kRLCP);
  EXPECT_EQ(cs.main.cod.layers, 1);
  EXPECT_EQ(cs.main.cod.component.levels, 3);
  EXPECT_EQ(cs.main.cod.component.wavelet, Wavelet::k53);
}

TEST(MarkersConformance, P0_02) {
  REQUIRE_INPUT("p0_02.j2k");
  const Codestream cs = parse("p0_02.j2k");
  const MainHeader& m = cs.main;
  EXPECT_EQ(m.siz.xsiz, 127u);
  EXPECT_EQ(m.siz.ysiz, 126u);
  EXPECT_EQ(m.siz.components[0].dx, 2);
  EXPECT_EQ(m.cod.component.wavelet, Wavelet::k97);
  EXPECT_EQ(m.cod.component.cblk_style, 0x34);
  EXPECT_TRUE(m.cod.sop);
  EXPECT_TRUE(m.cod.eph);
  EXPECT_EQ(m.cod.layers, 6);
  EXPECT_EQ(m.coc.size(), 1u);
  EXPECT_TRUE(has_marker(m.markers, 0xFF30));  // the length-less reserved marker was skipped
}

TEST(MarkersConformance, P0_03AndP0_15) {
  REQUIRE_INPUT("p0_03.j2k");
  const Codestream cs = parse("p0_03.j2k");
  const MainHeader& m = cs.main;
  EXPECT_EQ(num_tiles(m.siz), 4u);
  EXPECT_EQ(m.siz.xtsiz, 128u);
  EXPECT_EQ(m.siz.ytsiz, 128u);
  EXPECT_EQ(m.siz.components[0].precision, 4);
  EXPECT_TRUE(m.siz.components[0].is_signed);
  EXPECT_EQ(m.cod.progression, ProgressionOrder::kPCRL);
  EXPECT_EQ(m.cod.layers, 8);
  EXPECT_EQ(m.cod.component.levels, 1);
  EXPECT_TRUE(m.cod.sop);
  EXPECT_EQ(m.qcd.style, QuantStyle::kScalarDerived);
  EXPECT_EQ(m.qcc.size(), 1u);
  EXPECT_FALSE(m.poc.empty());
  EXPECT_EQ(m.crg.size(), 1u);
  EXPECT_EQ(m.tlm.size(), 1u);
  ASSERT_EQ(cs.tiles[0].parts.size(), 1u);
  EXPECT_EQ(effective_roi_shift(m, &cs.tiles[0].header, 0), 7);  // RGN in tile 0's header
  EXPECT_EQ(effective_roi_shift(m, nullptr, 0), 0);
  EXPECT_EQ(tile_rect(m.siz, 3), (transform::Rect{128, 128, 256, 256}));
  if (std::filesystem::exists(input("p0_15.j2k"))) {
    EXPECT_EQ(load(input("p0_03.j2k")), load(input("p0_15.j2k")));
  }
}

TEST(MarkersConformance, P0_04ToP0_09) {
  REQUIRE_INPUT("p0_09.j2k");
  const Codestream c4 = parse("p0_04.j2k");
  EXPECT_EQ(c4.main.cod.progression, ProgressionOrder::kRLCP);
  EXPECT_EQ(c4.main.cod.layers, 20);
  EXPECT_EQ(c4.main.cod.component.levels, 6);
  EXPECT_EQ(c4.main.cod.mct, 1);
  EXPECT_EQ(c4.main.cod.component.wavelet, Wavelet::k97);
  EXPECT_TRUE(c4.main.cod.component.user_precincts());
  EXPECT_EQ(c4.main.cod.component.cblk_style, cblk_style::kTermAll);

  const Codestream c5 = parse("p0_05.j2k");
  ASSERT_EQ(c5.main.siz.components.size(), 4u);
  EXPECT_EQ(c5.main.siz.components[2].dx, 2);
  EXPECT_EQ(c5.main.siz.components[3].dy, 2);
  EXPECT_EQ(c5.main.cod.progression, ProgressionOrder::kPCRL);
  EXPECT_EQ(c5.main.cod.layers, 7);
  EXPECT_EQ(c5.main.cod.component.xcb, 5);
  EXPECT_EQ(effective_coding(c5.main, nullptr, 1).levels, 3);  // COC
  EXPECT_EQ(effective_coding(c5.main, nullptr, 0).levels, 6);  // COD
  EXPECT_EQ(effective_quantization(c5.main, nullptr, 0).style, QuantStyle::kScalarDerived);
  EXPECT_FALSE(c5.main.tlm.empty());
  EXPECT_EQ(tile_component_rect(c5.main.siz, 0, 3), (transform::Rect{0, 0, 512, 512}));

  const Codestream c6 = parse("p0_06.j2k");
  const auto& k6 = c6.main.siz.components;
  ASSERT_EQ(k6.size(), 4u);
  EXPECT_EQ(k6[0].precision, 12);
  EXPECT_EQ((std::vector<int>{k6[1].dx, k6[1].dy, k6[2].dx, k6[2].dy, k6[3].dx, k6[3].dy}),
            (std::vector<int>{2, 1, 1, 2, 2, 2}));
  EXPECT_EQ(c6.main.cod.progression, ProgressionOrder::kRPCL);
  EXPECT_EQ(c6.main.cod.layers, 4);
  EXPECT_FALSE(c6.main.rgn.empty());
  EXPECT_EQ(tile_component_rect(c6.main.siz, 0, 3), (transform::Rect{0, 0, 257, 65}));

  const Codestream c8 = parse("p0_08.j2k");
  EXPECT_EQ(c8.main.siz.xsiz, 513u);
  EXPECT_EQ(c8.main.siz.ysiz, 3072u);
  EXPECT_TRUE(c8.main.siz.components[0].is_signed);
  EXPECT_EQ(c8.main.siz.components[0].precision, 12);
  EXPECT_EQ(c8.main.cod.progression, ProgressionOrder::kCPRL);
  EXPECT_EQ(c8.main.cod.layers, 30);
  EXPECT_EQ(c8.main.cod.component.levels, 7);
  EXPECT_TRUE(c8.main.cod.sop && c8.main.cod.eph);
  EXPECT_FALSE(c8.main.coc.empty());
  EXPECT_FALSE(c8.main.qcc.empty());
  EXPECT_EQ(c8.main.qcd.guard_bits, 4);

  const Codestream c9 = parse("p0_09.j2k");
  EXPECT_EQ(c9.main.siz.xsiz, 17u);
  EXPECT_EQ(c9.main.siz.ysiz, 37u);
  EXPECT_EQ(c9.main.cod.component.levels, 5);
  EXPECT_EQ(c9.main.cod.component.wavelet, Wavelet::k97);
  EXPECT_EQ(c9.main.qcd.guard_bits, 1);
}

TEST(MarkersConformance, P0_10ToP0_16) {
  REQUIRE_INPUT("p0_16.j2k");
  const Codestream c10 = parse("p0_10.j2k");
  EXPECT_EQ(num_tiles(c10.main.siz), 4u);
  EXPECT_EQ(c10.tile_parts.size(), 9u);
  EXPECT_EQ(c10.main.siz.components[0].dx, 4);
  EXPECT_EQ(c10.main.cod.mct, 1);
  EXPECT_EQ(c10.main.cod.component.wavelet, Wavelet::k53);  // RCT
  EXPECT_EQ(c10.main.qcd.guard_bits, 0);

  const Codestream c11 = parse("p0_11.j2k");
  EXPECT_EQ(c11.main.cod.component.levels, 0);
  EXPECT_EQ(c11.main.siz.xsiz, 128u);
  EXPECT_EQ(c11.main.siz.ysiz, 1u);
  EXPECT_GT(c11.main.siz.ytsiz, c11.main.siz.ysiz);  // tile larger than the image
  EXPECT_EQ(tile_rect(c11.main.siz, 0), (transform::Rect{0, 0, 128, 1}));
  EXPECT_EQ(c11.main.cod.component.cblk_style, cblk_style::kSegmentation);
  EXPECT_TRUE(c11.main.cod.eph);

  const Codestream c12 = parse("p0_12.j2k");
  EXPECT_EQ(c12.main.siz.xsiz, 3u);
  EXPECT_EQ(c12.main.siz.ysiz, 5u);
  EXPECT_EQ(c12.main.cod.component.levels, 3);
  EXPECT_EQ(c12.main.cod.component.xcb, 5);
  EXPECT_EQ(c12.main.cod.component.ycb, 5);
  EXPECT_EQ(c12.main.cod.component.cblk_style, cblk_style::kTermAll);
  EXPECT_TRUE(c12.main.cod.sop);

  const Codestream c13 = parse("p0_13.j2k");
  EXPECT_EQ(c13.main.siz.components.size(), 257u);
  EXPECT_EQ(c13.main.cod.mct, 1);
  EXPECT_FALSE(c13.main.coc.empty());
  EXPECT_FALSE(c13.main.qcc.empty());
  EXPECT_FALSE(c13.main.rgn.empty());
  ASSERT_EQ(c13.main.poc.size(), 2u);
  EXPECT_EQ(c13.main.poc[1].comp_end, 257u);  // 16-bit component fields with Csiz = 257

  const Codestream c14 = parse("p0_14.j2k");
  EXPECT_EQ(c14.main.siz.xsiz, 49u);
  EXPECT_EQ(c14.main.cod.component.levels, 5);
  EXPECT_EQ(c14.main.cod.mct, 1);

  const Codestream c16 = parse("p0_16.j2k");
  EXPECT_EQ(c16.main.cod.progression, ProgressionOrder::kRLCP);
  EXPECT_EQ(c16.main.cod.layers, 3);
}

TEST(MarkersConformance, Profile1) {
  REQUIRE_INPUT("p1_07.j2k");
  const Codestream c1 = parse("p1_01.j2k");
  EXPECT_EQ(c1.main.siz.xosiz, 5u);
  EXPECT_EQ(c1.main.siz.yosiz, 128u);
  EXPECT_EQ(c1.main.siz.xtosiz, 1u);
  EXPECT_EQ(c1.main.siz.ytosiz, 101u);
  EXPECT_EQ(c1.main.siz.components[0].dx, 2);
  EXPECT_EQ(c1.main.cod.component.cblk_style, 0x34);
  EXPECT_EQ(tile_component_rect(c1.main.siz, 0, 0).width(), 61u);  // reference is 61x99
  EXPECT_EQ(tile_component_rect(c1.main.siz, 0, 0).height(), 99u);

  const Codestream c2 = parse("p1_02.j2k");
  EXPECT_EQ(c2.main.cod.progression, ProgressionOrder::kLRCP);
  EXPECT_EQ(c2.main.cod.layers, 19);
  EXPECT_EQ(c2.main.cod.component.cblk_style, cblk_style::kReset | cblk_style::kVerticalCausal);
  EXPECT_TRUE(c2.main.cod.component.user_precincts());
  EXPECT_FALSE(c2.tiles[0].header.ppt_data.empty());

  const Codestream c3 = parse("p1_03.j2k");
  EXPECT_EQ(c3.main.cod.layers, 10);
  EXPECT_EQ(c3.main.cod.component.cblk_style, cblk_style::kBypass | cblk_style::kTermAll);
  EXPECT_TRUE(c3.main.has_ppm);
  EXPECT_FALSE(c3.main.tlm.empty());

  const Codestream c4 = parse("p1_04.j2k");
  EXPECT_EQ(num_tiles(c4.main.siz), 64u);
  EXPECT_EQ(c4.tile_parts.size(), 64u);
  EXPECT_TRUE(c4.tiles[5].header.qcd.has_value());
  EXPECT_EQ(&effective_quantization(c4.main, &c4.tiles[5].header, 0), &*c4.tiles[5].header.qcd);

  const Codestream c5 = parse("p1_05.j2k");
  EXPECT_EQ(c5.main.siz.xosiz, 17u);
  EXPECT_EQ(c5.main.siz.yosiz, 12u);
  EXPECT_EQ(num_tiles(c5.main.siz), 225u);
  EXPECT_EQ(c5.main.siz.xtsiz, 37u);
  EXPECT_EQ(c5.main.siz.xtosiz, 8u);
  EXPECT_EQ(c5.main.siz.ytosiz, 2u);
  EXPECT_EQ(c5.main.cod.component.xcb, 3);
  EXPECT_EQ(c5.main.cod.component.ycb, 6);
  EXPECT_EQ(c5.main.cod.component.cblk_style, 0x19);
  EXPECT_TRUE(c5.main.has_ppm);
  EXPECT_EQ(c5.main.ppm_tile_parts.size(), 225u);
  EXPECT_EQ(tile_rect(c5.main.siz, 0), (transform::Rect{17, 12, 45, 39}));

  const Codestream c6 = parse("p1_06.j2k");
  EXPECT_EQ(num_tiles(c6.main.siz), 16u);
  EXPECT_EQ(c6.main.cod.component.xcb, 6);
  EXPECT_EQ(c6.main.cod.component.ycb, 5);
  EXPECT_TRUE(any_tile_part_has(c6, marker::kPpt));

  const Codestream c7 = parse("p1_07.j2k");
  EXPECT_EQ(c7.main.siz.xosiz, 4u);
  EXPECT_EQ(c7.main.siz.components[0].dx, 4);
  EXPECT_EQ(c7.main.cod.progression, ProgressionOrder::kRPCL);
  EXPECT_EQ(tile_component_rect(c7.main.siz, 0, 0), (transform::Rect{1, 0, 3, 12}));  // 2x12
  EXPECT_EQ(tile_component_rect(c7.main.siz, 0, 1).width(), 8u);                      // 8x12
}

TEST(MarkersConformance, FurtherCodestreams) {
  REQUIRE_INPUT("g4_colr.j2c");
  EXPECT_EQ(num_tiles(parse("a3_mono.j2c").main.siz), 6u);
  const Codestream b1 = parse("b1_mono.j2c");
  EXPECT_EQ(b1.main.siz.xosiz, 3097u);
  EXPECT_EQ(b1.main.siz.yosiz, 41u);
  EXPECT_EQ(b1.main.siz.xtosiz, 3003u);
  EXPECT_EQ(b1.main.siz.ytosiz, 33u);
  const Codestream b2 = parse("b2_mono.j2c");
  EXPECT_EQ(b2.main.siz.components[0].dx, 5);
  EXPECT_EQ(b2.main.siz.components[0].dy, 3);
  EXPECT_EQ(parse("c1_mono.j2c").main.cod.layers, 10);
  EXPECT_EQ(parse("c2_mono.j2c").main.cod.component.cblk_style, 0x2f);
  EXPECT_EQ(parse("d1_colr.j2c").main.cod.progression, ProgressionOrder::kPCRL);
  const Codestream d2 = parse("d2_colr.j2c");
  EXPECT_EQ(num_tiles(d2.main.siz), 8u);
  EXPECT_TRUE(any_tile_part_has(d2, marker::kCod));
  EXPECT_TRUE(any_tile_part_has(parse("e1_colr.j2c"), marker::kPoc));
  EXPECT_TRUE(any_tile_part_has(parse("f1_mono.j2c"), marker::kCod));
  for (const char* g : {"g1_colr.j2c", "g2_colr.j2c", "g3_colr.j2c"})
    EXPECT_TRUE(parse(g).main.has_ppm) << g;
  EXPECT_TRUE(any_tile_part_has(parse("g4_colr.j2c"), marker::kPpt));
}

}  // namespace
}  // namespace gj2k::codec
