// write -> parse round trips of every marker segment and of whole codestreams with random
// field values; precedence rules (A.6) and tile geometry (B.3) against direct definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "codec/markers/reader.h"
#include "codec/markers/writer.h"
#include "codec/tier2.h"

namespace gj2k::codec {
namespace {

using Rng = std::mt19937;

uint32_t uni(Rng& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}
bool coin(Rng& rng) {
  return uni(rng, 0, 1) == 1;
}

Siz random_siz(Rng& rng, uint32_t csiz) {
  Siz s;
  s.rsiz = static_cast<uint16_t>(uni(rng, 0, 2));
  s.xosiz = coin(rng) ? 0 : uni(rng, 0, 100000);
  s.yosiz = coin(rng) ? 0 : uni(rng, 0, 100000);
  s.xsiz = s.xosiz + uni(rng, 1, coin(rng) ? 64 : 100000);
  s.ysiz = s.yosiz + uni(rng, 1, coin(rng) ? 64 : 100000);
  s.xtosiz = uni(rng, 0, s.xosiz);
  s.ytosiz = uni(rng, 0, s.yosiz);
  // Tiles reach the image origin and number at most ~200 x 200.
  s.xtsiz = std::max(s.xosiz - s.xtosiz + 1, (s.xsiz - s.xtosiz) / 200 + 1) + uni(rng, 0, 50);
  s.ytsiz = std::max(s.yosiz - s.ytosiz + 1, (s.ysiz - s.ytosiz) / 200 + 1) + uni(rng, 0, 50);
  s.components.resize(csiz);
  for (auto& c : s.components) {
    c.precision = static_cast<uint8_t>(uni(rng, 1, 38));
    c.is_signed = coin(rng);
    c.dx = static_cast<uint8_t>(uni(rng, 1, 255));
    c.dy = static_cast<uint8_t>(uni(rng, 1, 255));
  }
  return s;
}

ComponentCoding random_coding(Rng& rng, int max_levels) {
  ComponentCoding cc;
  cc.levels = static_cast<uint8_t>(uni(rng, 0, static_cast<uint32_t>(max_levels)));
  cc.xcb = static_cast<uint8_t>(uni(rng, 2, 10));
  cc.ycb = static_cast<uint8_t>(uni(rng, 2, 12 - cc.xcb < 10 ? 12 - cc.xcb : 10));
  cc.cblk_style = static_cast<uint8_t>(uni(rng, 0, cblk_style::kAll));
  cc.wavelet = coin(rng) ? Wavelet::k53 : Wavelet::k97;
  if (coin(rng)) {
    cc.precincts.resize(size_t{cc.levels} + 1);
    for (size_t r = 0; r < cc.precincts.size(); ++r)
      cc.precincts[r] = {static_cast<uint8_t>(uni(rng, r ? 1 : 0, 15)),
                         static_cast<uint8_t>(uni(rng, r ? 1 : 0, 15))};
  }
  return cc;
}

CodingStyle random_cod(Rng& rng, int max_levels) {
  CodingStyle c;
  c.sop = coin(rng);
  c.eph = coin(rng);
  c.progression = static_cast<ProgressionOrder>(uni(rng, 0, 4));
  c.layers = static_cast<uint16_t>(uni(rng, 1, 65535));
  c.mct = static_cast<uint8_t>(uni(rng, 0, 1));
  c.component = random_coding(rng, max_levels);
  return c;
}

// Enough step sizes for up to `levels` decomposition levels (A.6.4).
Quantization random_quant(Rng& rng, int levels) {
  Quantization q;
  q.style = static_cast<QuantStyle>(uni(rng, 0, 2));
  q.guard_bits = static_cast<uint8_t>(uni(rng, 0, 7));
  q.steps.resize(q.style == QuantStyle::kScalarDerived ? 1 : 3 * size_t(levels) + 1);
  for (auto& s : q.steps) {
    s.exponent = static_cast<uint8_t>(uni(rng, 0, 31));
    s.mantissa = q.style == QuantStyle::kNone ? 0 : static_cast<uint16_t>(uni(rng, 0, 2047));
  }
  return q;
}

std::vector<ProgressionChange> random_poc(Rng& rng, uint32_t csiz) {
  std::vector<ProgressionChange> v(uni(rng, 1, 20));
  const uint32_t cmax = csiz >= 257 ? 16384 : 256;
  for (auto& e : v) {
    e.res_start = uni(rng, 0, 32);
    e.res_end = uni(rng, e.res_start + 1u, 33);
    e.comp_start = uni(rng, 0, cmax - 1);
    e.comp_end = uni(rng, e.comp_start + 1u, cmax);
    e.layer_end = uni(rng, 1, 65535);
    e.order = static_cast<ProgressionOrder>(uni(rng, 0, 4));
  }
  return v;
}

uint32_t random_length(Rng& rng) {
  switch (uni(rng, 0, 3)) {
    case 0:
      return uni(rng, 0, 127);
    case 1:
      return uni(rng, 128, 16383);
    case 2:
      return uni(rng, 0, 1u << 24);
    default:
      return uni(rng, 0, 0xFFFFFFFFu);
  }
}

std::vector<uint8_t> random_bytes(Rng& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(uni(rng, 0, 255));
  return v;
}

// Checks one written segment's marker and length, and returns a reader over its body.
ByteReader body_of(const ByteWriter& w, uint16_t code) {
  const auto& d = w.data();
  EXPECT_GE(d.size(), 4u);
  EXPECT_EQ((d[0] << 8) | d[1], code);
  EXPECT_EQ(size_t((d[2] << 8) | d[3]), d.size() - 2);
  return ByteReader(d, 4, d.size(), marker_name(code));
}

class MarkersRoundTrip : public ::testing::TestWithParam<uint32_t> {};

TEST_P(MarkersRoundTrip, EverySegment) {
  const uint32_t seed = GetParam();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  for (int iter = 0; iter < 50; ++iter) {
    const uint32_t csiz = coin(rng) ? uni(rng, 1, 256) : uni(rng, 257, 16384);
    {
      const Siz s = random_siz(rng, coin(rng) ? uni(rng, 1, 4) : csiz);
      ByteWriter w;
      write_siz(w, s);
      auto r = body_of(w, marker::kSiz);
      EXPECT_EQ(parse_siz(r), s);
    }
    {
      const CodingStyle c = random_cod(rng, 32);
      ByteWriter w;
      write_cod(w, c);
      auto r = body_of(w, marker::kCod);
      EXPECT_EQ(parse_cod(r), c);
    }
    {
      const ComponentCoding cc = random_coding(rng, 32);
      const uint16_t comp = static_cast<uint16_t>(uni(rng, 0, csiz - 1));
      ByteWriter w;
      write_coc(w, comp, cc, csiz);
      auto r = body_of(w, marker::kCoc);
      auto [c2, cc2] = parse_coc(r, csiz);
      EXPECT_EQ(c2, comp);
      EXPECT_EQ(cc2, cc);
      EXPECT_TRUE(r.at_end());
    }
    {
      const Quantization q = random_quant(rng, static_cast<int>(uni(rng, 0, 32)));
      ByteWriter w;
      write_qcd(w, q);
      auto r = body_of(w, marker::kQcd);
      EXPECT_EQ(parse_qcd(r), q);
      const uint16_t comp = static_cast<uint16_t>(uni(rng, 0, csiz - 1));
      ByteWriter w2;
      write_qcc(w2, comp, q, csiz);
      auto r2 = body_of(w2, marker::kQcc);
      auto [c2, q2] = parse_qcc(r2, csiz);
      EXPECT_EQ(c2, comp);
      EXPECT_EQ(q2, q);
    }
    {
      const Rgn g{static_cast<uint16_t>(uni(rng, 0, csiz - 1)), 0,
                  static_cast<uint8_t>(uni(rng, 0, 255))};
      ByteWriter w;
      write_rgn(w, g, csiz);
      auto r = body_of(w, marker::kRgn);
      EXPECT_EQ(parse_rgn(r, csiz), g);
    }
    {
      const auto poc = random_poc(rng, csiz);
      ByteWriter w;
      write_poc(w, poc, csiz);
      auto r = body_of(w, marker::kPoc);
      EXPECT_EQ(parse_poc(r, csiz), poc);
    }
    {
      Tlm t;
      t.index = static_cast<uint8_t>(uni(rng, 0, 255));
      t.tile_bytes = static_cast<uint8_t>(uni(rng, 0, 2));
      t.length_bytes = coin(rng) ? 2 : 4;
      t.entries.resize(uni(rng, 0, 100));
      for (auto& e : t.entries) {
        if (t.tile_bytes)
          e.tile = static_cast<uint16_t>(uni(rng, 0, t.tile_bytes == 1 ? 255 : 65535));
        e.length = t.length_bytes == 2 ? uni(rng, 0, 65535) : random_length(rng);
      }
      ByteWriter w;
      write_tlm(w, t);
      EXPECT_EQ(w.size(), tlm_segment_size(t.entries.size(), t.tile_bytes, t.length_bytes));
      auto r = body_of(w, marker::kTlm);
      EXPECT_EQ(parse_tlm(r), t);
    }
    {
      Plm p;
      p.index = static_cast<uint8_t>(uni(rng, 0, 255));
      p.tile_parts.resize(uni(rng, 0, 10));
      for (auto& tp : p.tile_parts) {
        tp.resize(uni(rng, 0, 40));
        for (auto& v : tp) v = random_length(rng);
      }
      ByteWriter w;
      write_plm(w, p);
      auto r = body_of(w, marker::kPlm);
      EXPECT_EQ(parse_plm(r), p);
    }
    {
      Plt p;
      p.index = static_cast<uint8_t>(uni(rng, 0, 255));
      p.lengths.resize(uni(rng, 0, 500));
      for (auto& v : p.lengths) v = random_length(rng);
      ByteWriter w;
      write_plt(w, p);
      auto r = body_of(w, marker::kPlt);
      EXPECT_EQ(parse_plt(r), p);
    }
    {
      Ppx p{static_cast<uint8_t>(uni(rng, 0, 255)), random_bytes(rng, uni(rng, 0, 3000))};
      ByteWriter w, w2;
      write_ppt(w, p);
      auto r = body_of(w, marker::kPpt);
      EXPECT_EQ(parse_ppx(r), p);
      write_ppm(w2, p);
      auto r2 = body_of(w2, marker::kPpm);
      EXPECT_EQ(parse_ppx(r2), p);
    }
    {
      const uint32_t n = uni(rng, 1, 300);
      std::vector<CrgOffset> crg(n);
      for (auto& o : crg)
        o = {static_cast<uint16_t>(uni(rng, 0, 65535)), static_cast<uint16_t>(uni(rng, 0, 65535))};
      ByteWriter w;
      write_crg(w, crg);
      auto r = body_of(w, marker::kCrg);
      EXPECT_EQ(parse_crg(r, n), crg);
    }
    {
      Com c{static_cast<uint16_t>(uni(rng, 0, 1)), random_bytes(rng, uni(rng, 0, 200))};
      ByteWriter w;
      write_com(w, c);
      auto r = body_of(w, marker::kCom);
      EXPECT_EQ(parse_com(r), c);
    }
  }
}

TEST_P(MarkersRoundTrip, PltSegmentsSplitAndRejoin) {
  const uint32_t seed = GetParam();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  std::vector<uint32_t> lengths(uni(rng, 10000, 40000));
  for (auto& v : lengths) v = random_length(rng);
  ByteWriter w;
  write_plt_segments(w, lengths, 3);
  std::vector<uint32_t> back;
  ByteReader r(w.data(), "PLTs");
  int expect_index = 3;
  while (!r.at_end()) {
    ASSERT_EQ(r.u16(), marker::kPlt);
    const uint16_t len = r.u16();
    ByteReader seg(w.data(), r.pos(), r.pos() + len - 2, "PLT");
    r.skip(len - 2u);
    const Plt p = parse_plt(seg);
    EXPECT_EQ(p.index, expect_index++);
    back.insert(back.end(), p.lengths.begin(), p.lengths.end());
  }
  EXPECT_GT(expect_index, 4);  // needed more than one segment
  EXPECT_EQ(back, lengths);
}

// A whole codestream: random main header, tiles with 1..3 tile-parts each, tile-parts of
// different tiles interleaved, random data, Psot patched (last one 0), read back.
TEST_P(MarkersRoundTrip, WholeCodestream) {
  const uint32_t seed = GetParam();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  for (int iter = 0; iter < 20; ++iter) {
    MainHeader mh;
    const uint32_t csiz = coin(rng) ? uni(rng, 1, 5) : uni(rng, 250, 300);
    mh.siz = random_siz(rng, csiz);
    const int lmax = static_cast<int>(uni(rng, 0, 10));
    mh.cod = random_cod(rng, lmax);
    mh.qcd = random_quant(rng, lmax);
    for (int i = 0, n = static_cast<int>(uni(rng, 0, 3)); i < n; ++i) {
      const auto c = static_cast<uint16_t>(uni(rng, 0, csiz - 1));
      mh.coc[c] = random_coding(rng, lmax);
      if (coin(rng)) mh.qcc[c] = random_quant(rng, lmax);
      if (coin(rng)) mh.rgn[c] = Rgn{c, 0, static_cast<uint8_t>(uni(rng, 0, 255))};
    }
    if (coin(rng)) mh.poc = random_poc(rng, csiz);
    if (coin(rng)) mh.crg.resize(csiz, CrgOffset{1, 2});
    if (coin(rng)) mh.com.push_back(Com{1, {'g', 'j', '2', 'k'}});
    const bool use_ppm = coin(rng);

    // Tile-parts: a random subset of tiles, each split in 1..3 parts.
    const uint32_t ntiles = num_tiles(mh.siz);
    std::vector<TilePartHeader> parts;
    std::vector<std::vector<uint8_t>> bodies;
    std::vector<std::vector<size_t>> of_tile(ntiles);
    for (uint32_t k = 0, n = std::min<uint32_t>(ntiles, uni(rng, 1, 6)); k < n; ++k) {
      const auto t = static_cast<uint16_t>(uni(rng, 0, ntiles - 1));
      if (!of_tile[t].empty()) continue;
      const uint32_t np = uni(rng, 1, 3);
      for (uint32_t i = 0; i < np; ++i) {
        TilePartHeader tp;
        tp.isot = t;
        tp.tpsot = static_cast<uint8_t>(i);
        tp.tnsot = coin(rng) ? static_cast<uint8_t>(np) : 0;
        TileHeader& h = tp.header;
        if (i == 0 && coin(rng)) h.cod = random_cod(rng, lmax);
        if (i == 0 && coin(rng)) h.qcd = random_quant(rng, lmax);
        if (i == 0 && coin(rng)) {
          const auto c = static_cast<uint16_t>(uni(rng, 0, csiz - 1));
          h.coc[c] = random_coding(rng, lmax);
          h.qcc[c] = random_quant(rng, lmax);
          h.rgn[c] = Rgn{c, 0, 3};
        }
        if (coin(rng)) h.poc = random_poc(rng, csiz);
        if (!use_ppm && coin(rng)) {
          h.ppt.push_back(Ppx{0, random_bytes(rng, uni(rng, 0, 50))});
          h.ppt.push_back(Ppx{1, random_bytes(rng, uni(rng, 0, 50))});
        }
        if (coin(rng)) h.plt.push_back(Plt{0, {1, 200, 70000}});
        if (coin(rng)) h.com.push_back(Com{0, random_bytes(rng, 5)});
        of_tile[t].push_back(parts.size());
        parts.push_back(std::move(tp));
        bodies.push_back(random_bytes(rng, uni(rng, 0, 300)));
      }
    }
    // Codestream order: repeatedly take the next part of a random tile that has parts left.
    std::vector<size_t> order;
    std::vector<size_t> next(ntiles, 0);
    while (order.size() < parts.size()) {
      const auto t = uni(rng, 0, ntiles - 1);
      if (next[t] < of_tile[t].size()) order.push_back(of_tile[t][next[t]++]);
    }
    if (use_ppm) {
      mh.has_ppm = true;
      for (size_t i = 0; i < order.size(); ++i)
        mh.ppm_tile_parts.push_back(random_bytes(rng, uni(rng, 0, i == 0 ? 70000 : 100)));
    }
    ByteWriter w;
    write_main_header(w, mh);
    const size_t main_end = w.size();
    const bool last_psot_zero = coin(rng);
    for (size_t k = 0; k < order.size(); ++k) {
      const size_t at = write_tile_part_header(w, parts[order[k]], csiz);
      w.bytes(bodies[order[k]]);
      if (!(last_psot_zero && k + 1 == order.size())) patch_psot(w, at);
    }
    write_eoc(w);

    Codestream cs;
    ASSERT_NO_THROW(cs = read_codestream(w.data())) << "iteration " << iter;
    const MainHeader& m = cs.main;
    EXPECT_EQ(m.end, main_end);
    EXPECT_EQ(m.siz, mh.siz);
    EXPECT_EQ(m.cod, mh.cod);
    EXPECT_EQ(m.coc, mh.coc);
    EXPECT_EQ(m.qcd, mh.qcd);
    EXPECT_EQ(m.qcc, mh.qcc);
    EXPECT_EQ(m.rgn, mh.rgn);
    EXPECT_EQ(m.poc, mh.poc);
    EXPECT_EQ(m.crg, mh.crg);
    EXPECT_EQ(m.com, mh.com);
    EXPECT_EQ(m.has_ppm, mh.has_ppm);
    EXPECT_EQ(m.ppm_tile_parts, mh.ppm_tile_parts);
    EXPECT_TRUE(cs.eoc_found);
    ASSERT_EQ(cs.tile_parts.size(), order.size());
    for (size_t k = 0; k < order.size(); ++k) {
      const TilePartHeader& a = cs.tile_parts[k];
      const TilePartHeader& b = parts[order[k]];
      EXPECT_EQ(a.isot, b.isot);
      EXPECT_EQ(a.tpsot, b.tpsot);
      EXPECT_EQ(a.tnsot, b.tnsot);
      EXPECT_EQ(a.header.cod, b.header.cod);
      EXPECT_EQ(a.header.coc, b.header.coc);
      EXPECT_EQ(a.header.qcd, b.header.qcd);
      EXPECT_EQ(a.header.qcc, b.header.qcc);
      EXPECT_EQ(a.header.poc, b.header.poc);
      EXPECT_EQ(a.header.ppt, b.header.ppt);
      EXPECT_EQ(a.header.plt, b.header.plt);
      EXPECT_EQ(a.header.com, b.header.com);
      const auto& body = bodies[order[k]];
      ASSERT_EQ(a.body_end - a.body_begin, body.size());
      EXPECT_TRUE(std::equal(body.begin(), body.end(), w.data().begin() + a.body_begin));
    }
    for (uint32_t t = 0; t < ntiles; ++t) {
      ASSERT_EQ(cs.tiles[t].parts.size(), of_tile[t].size());
      std::vector<uint8_t> ppt;
      for (size_t i = 0; i < of_tile[t].size(); ++i) {
        EXPECT_EQ(cs.tile_parts[cs.tiles[t].parts[i]].tpsot, i);
        for (const Ppx& p : parts[of_tile[t][i]].header.ppt)
          ppt.insert(ppt.end(), p.data.begin(), p.data.end());
      }
      EXPECT_EQ(cs.tiles[t].header.ppt_data, ppt);
      // The tile's data and packed headers, gathered in TPsot order.
      std::vector<uint8_t> data, ppm;
      for (size_t i : of_tile[t]) {
        data.insert(data.end(), bodies[i].begin(), bodies[i].end());
        const size_t k = std::find(order.begin(), order.end(), i) - order.begin();
        if (use_ppm)
          ppm.insert(ppm.end(), mh.ppm_tile_parts[k].begin(), mh.ppm_tile_parts[k].end());
      }
      std::vector<uint8_t> joined;
      const std::span<const uint8_t> got = tile_data(w.data(), cs, t, joined);
      EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), data);
      const auto packed = tile_packed_headers(cs, t);
      if (use_ppm) {
        ASSERT_TRUE(packed.has_value());
        EXPECT_EQ(*packed, ppm);
      } else if (!ppt.empty()) {
        ASSERT_TRUE(packed.has_value());
        EXPECT_EQ(*packed, ppt);
      }
      if (!of_tile[t].empty()) {
        EXPECT_EQ(cs.tiles[t].header.cod, parts[of_tile[t][0]].header.cod);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, MarkersRoundTrip, ::testing::Values(1u, 2u, 3u, 20261122u));

TEST(MarkersModel, PrecedenceFollowsA6) {
  MainHeader m;
  m.siz.components.resize(3);
  m.cod.component.levels = 1;
  m.coc[1].levels = 2;
  m.qcd.guard_bits = 1;
  m.qcc[1].guard_bits = 2;
  m.rgn[0] = Rgn{0, 0, 5};
  TileHeader t;
  EXPECT_EQ(effective_coding(m, &t, 0).levels, 1);  // empty tile header: main rules
  EXPECT_EQ(effective_coding(m, &t, 1).levels, 2);
  CodingStyle tc;
  tc.component.levels = 3;
  t.cod = tc;
  t.coc[2].levels = 4;
  Quantization tq;
  tq.guard_bits = 3;
  t.qcd = tq;
  t.qcc[2].guard_bits = 4;
  EXPECT_EQ(effective_coding(m, nullptr, 0).levels, 1);  // main COD
  EXPECT_EQ(effective_coding(m, nullptr, 1).levels, 2);  // main COC beats main COD
  EXPECT_EQ(effective_coding(m, &t, 0).levels, 3);       // tile COD beats main COD
  EXPECT_EQ(effective_coding(m, &t, 1).levels, 3);       // tile COD beats main COC
  EXPECT_EQ(effective_coding(m, &t, 2).levels, 4);       // tile COC beats all
  EXPECT_EQ(effective_quantization(m, nullptr, 1).guard_bits, 2);
  EXPECT_EQ(effective_quantization(m, &t, 1).guard_bits, 3);
  EXPECT_EQ(effective_quantization(m, &t, 2).guard_bits, 4);
  EXPECT_EQ(effective_roi_shift(m, &t, 0), 5);
  t.rgn[0] = Rgn{0, 0, 9};
  EXPECT_EQ(effective_roi_shift(m, &t, 0), 9);
  EXPECT_EQ(effective_roi_shift(m, &t, 1), 0);
  EXPECT_EQ(&effective_cod(m, &t), &*t.cod);
  EXPECT_EQ(&effective_cod(m, nullptr), &m.cod);
}

TEST(MarkersModel, StepSizeOrderAndDerivation) {
  Quantization q;
  q.style = QuantStyle::kScalarExpounded;
  for (int i = 0; i < 3 * 4 + 1; ++i) q.steps.push_back({static_cast<uint8_t>(i), 0});
  using transform::Band;
  // Order (A.6.4): LL(4), then HL LH HH of level 4, of level 3, ..., of level 1.
  EXPECT_EQ(q.step(4, 4, Band::kLL).exponent, 0);
  EXPECT_EQ(q.step(4, 4, Band::kHL).exponent, 1);
  EXPECT_EQ(q.step(4, 4, Band::kHH).exponent, 3);
  EXPECT_EQ(q.step(4, 3, Band::kLH).exponent, 5);
  EXPECT_EQ(q.step(4, 1, Band::kHH).exponent, 12);
  // 5 levels need 16 steps: a missing one reads as exponent 0, mantissa 0 (as OpenJPEG).
  EXPECT_EQ(q.step(5, 1, Band::kHH), (StepSize{0, 0}));
  Quantization d;
  d.style = QuantStyle::kScalarDerived;
  d.steps = {{10, 77}};
  // E-5: epsilon_b = epsilon_0 - NL + n_b.
  EXPECT_EQ(d.step(4, 4, Band::kLL), (StepSize{10, 77}));
  EXPECT_EQ(d.step(4, 2, Band::kHL), (StepSize{8, 77}));
  EXPECT_EQ(d.step(4, 1, Band::kHH), (StepSize{7, 77}));
}

TEST(MarkersModel, TilesPartitionTheImage) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    Siz s;
    s.xosiz = uni(rng, 0, 40);
    s.yosiz = uni(rng, 0, 40);
    s.xsiz = s.xosiz + uni(rng, 1, 60);
    s.ysiz = s.yosiz + uni(rng, 1, 60);
    s.xtosiz = uni(rng, 0, s.xosiz);
    s.ytosiz = uni(rng, 0, s.yosiz);
    s.xtsiz = s.xosiz - s.xtosiz + uni(rng, 1, 20);
    s.ytsiz = s.yosiz - s.ytosiz + uni(rng, 1, 20);
    s.components = {SizComponent{8, false, static_cast<uint8_t>(uni(rng, 1, 5)),
                                 static_cast<uint8_t>(uni(rng, 1, 5))}};
    // Every grid point of the image lies in exactly one tile rectangle (B-7..B-10).
    std::vector<int> hits(size_t(s.xsiz - s.xosiz) * (s.ysiz - s.yosiz), 0);
    uint64_t samples = 0;
    for (uint32_t t = 0; t < num_tiles(s); ++t) {
      const transform::Rect r = tile_rect(s, t);
      ASSERT_FALSE(r.empty());
      for (uint32_t y = r.y0; y < r.y1; ++y)
        for (uint32_t x = r.x0; x < r.x1; ++x)
          ++hits[(y - s.yosiz) * (s.xsiz - s.xosiz) + (x - s.xosiz)];
      // B-12: a tile-component holds the component samples k*dx in the tile.
      const transform::Rect tc = tile_component_rect(s, t, 0);
      uint32_t nx = 0, ny = 0;
      for (uint32_t x = r.x0; x < r.x1; ++x) nx += x % s.components[0].dx == 0;
      for (uint32_t y = r.y0; y < r.y1; ++y) ny += y % s.components[0].dy == 0;
      EXPECT_EQ(tc.width(), nx);
      EXPECT_EQ(tc.height(), ny);
      samples += uint64_t{nx} * ny;
    }
    for (int h : hits) ASSERT_EQ(h, 1);
    uint64_t all_x = 0, all_y = 0;  // component samples of the whole image (B-2)
    for (uint32_t x = s.xosiz; x < s.xsiz; ++x) all_x += x % s.components[0].dx == 0;
    for (uint32_t y = s.yosiz; y < s.ysiz; ++y) all_y += y % s.components[0].dy == 0;
    EXPECT_EQ(samples, all_x * all_y);
  }
}

}  // namespace
}  // namespace gj2k::codec
