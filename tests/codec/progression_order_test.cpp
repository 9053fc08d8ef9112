// Packet progression orders (15444-1 B.12): every packet exactly once, the order properties,
// the position-driven orders against a literal transcription of the B.12.1.3-5 loops, and POC.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "codec/progression.h"
#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;  // l, r, c, p
Key key(const PacketId& p) {
  return {p.layer, p.resolution, p.component, p.precinct};
}

uint32_t ceil_div(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>((a + b - 1) / b);
}

// A random tile on the reference grid with subsampled components.
TileProgression random_tile(std::mt19937& rng) {
  TileProgression t;
  const uint32_t tx0 = rng() % 50, ty0 = rng() % 50;
  t.tile = Rect{tx0, ty0, tx0 + 1 + static_cast<uint32_t>(rng() % 40),
                ty0 + 1 + static_cast<uint32_t>(rng() % 40)};
  t.layers = 1 + rng() % 3;
  const uint32_t nc = 1 + rng() % 3;
  for (uint32_t c = 0; c < nc; ++c) {
    const uint32_t dx = 1 + rng() % 3, dy = 1 + rng() % 3;
    const Rect tc{ceil_div(t.tile.x0, dx), ceil_div(t.tile.y0, dy), ceil_div(t.tile.x1, dx),
                  ceil_div(t.tile.y1, dy)};
    const int levels = static_cast<int>(rng() % 4);
    std::vector<PrecinctExponents> pp(levels + 1);
    for (int r = 0; r <= levels; ++r) {
      pp[r].ppx = (r > 0 ? 1 : 0) + static_cast<int>(rng() % 3);
      pp[r].ppy = (r > 0 ? 1 : 0) + static_cast<int>(rng() % 3);
      if (rng() % 5 == 0) pp[r] = PrecinctExponents{};
    }
    t.components.push_back(component_precincts(make_layout(tc, levels, 2, 2, pp), dx, dy));
  }
  return t;
}

std::vector<Key> all_packets(const TileProgression& t) {
  std::vector<Key> out;
  for (uint32_t c = 0; c < t.components.size(); ++c) {
    for (uint32_t r = 0; r < t.components[c].resolutions.size(); ++r) {
      const ResolutionPrecincts& rp = t.components[c].resolutions[r];
      for (uint32_t p = 0; p < rp.precincts_x * rp.precincts_y; ++p) {
        for (uint32_t l = 0; l < t.layers; ++l) out.emplace_back(l, r, c, p);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// B.12.1.3-5 as written: loops over every reference-grid point of the tile, the divisibility
// conditions, and the precinct index formula.
std::vector<PacketId> literal_position_order(const TileProgression& t, ProgressionOrder order) {
  std::vector<PacketId> out;
  uint32_t max_res = 0;
  for (const auto& c : t.components) {
    max_res = std::max<uint32_t>(max_res, static_cast<uint32_t>(c.resolutions.size()));
  }
  // The precinct of (c, r) at (x, y), or -1 when the conditions do not hold there.
  auto precinct_at = [&](uint32_t c, uint32_t r, uint64_t x, uint64_t y) -> int64_t {
    const ComponentPrecincts& comp = t.components[c];
    if (r >= comp.resolutions.size()) return -1;
    const ResolutionPrecincts& rp = comp.resolutions[r];
    if (rp.precincts_x * rp.precincts_y == 0) return -1;
    const int down = static_cast<int>(comp.resolutions.size()) - 1 - static_cast<int>(r);
    const uint64_t ystep = uint64_t{comp.dy} << (rp.ppy + down);
    const uint64_t xstep = uint64_t{comp.dx} << (rp.ppx + down);
    const bool ycond = y % ystep == 0 ||
                       (y == t.tile.y0 &&
                        ((uint64_t{rp.rect.y0} << down) % (uint64_t{1} << (rp.ppy + down))) != 0);
    const bool xcond = x % xstep == 0 ||
                       (x == t.tile.x0 &&
                        ((uint64_t{rp.rect.x0} << down) % (uint64_t{1} << (rp.ppx + down))) != 0);
    if (!ycond || !xcond) return -1;
    const uint64_t px = (ceil_div(x, uint64_t{comp.dx} << down) >> rp.ppx) - (rp.rect.x0 >> rp.ppx);
    const uint64_t py = (ceil_div(y, uint64_t{comp.dy} << down) >> rp.ppy) - (rp.rect.y0 >> rp.ppy);
    EXPECT_LT(px, rp.precincts_x);
    EXPECT_LT(py, rp.precincts_y);
    return static_cast<int64_t>(px + py * rp.precincts_x);
  };
  auto emit = [&](uint32_t c, uint32_t r, int64_t k) {
    if (k < 0) return;
    for (uint32_t l = 0; l < t.layers; ++l) {
      out.push_back(PacketId{l, r, c, static_cast<uint32_t>(k)});
    }
  };
  const uint32_t nc = static_cast<uint32_t>(t.components.size());
  switch (order) {
    case ProgressionOrder::kRPCL:
      for (uint32_t r = 0; r < max_res; ++r)
        for (uint64_t y = t.tile.y0; y < t.tile.y1; ++y)
          for (uint64_t x = t.tile.x0; x < t.tile.x1; ++x)
            for (uint32_t c = 0; c < nc; ++c) emit(c, r, precinct_at(c, r, x, y));
      break;
    case ProgressionOrder::kPCRL:
      for (uint64_t y = t.tile.y0; y < t.tile.y1; ++y)
        for (uint64_t x = t.tile.x0; x < t.tile.x1; ++x)
          for (uint32_t c = 0; c < nc; ++c)
            for (uint32_t r = 0; r < max_res; ++r) emit(c, r, precinct_at(c, r, x, y));
      break;
    default:  // CPRL
      for (uint32_t c = 0; c < nc; ++c)
        for (uint64_t y = t.tile.y0; y < t.tile.y1; ++y)
          for (uint64_t x = t.tile.x0; x < t.tile.x1; ++x)
            for (uint32_t r = 0; r < max_res; ++r) emit(c, r, precinct_at(c, r, x, y));
      break;
  }
  return out;
}

const ProgressionOrder kOrders[] = {ProgressionOrder::kLRCP, ProgressionOrder::kRLCP,
                                    ProgressionOrder::kRPCL, ProgressionOrder::kPCRL,
                                    ProgressionOrder::kCPRL};

TEST(ProgressionOrder, EveryPacketOnceAndOrderProperties) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const TileProgression t = random_tile(rng);
    const std::vector<Key> expected = all_packets(t);
    for (ProgressionOrder order : kOrders) {
      SCOPED_TRACE("order " + std::to_string(static_cast<int>(order)));
      const std::vector<PacketId> seq = packet_order(t, order);
      std::vector<Key> got;
      for (const PacketId& p : seq) got.push_back(key(p));
      std::vector<Key> sorted = got;
      std::sort(sorted.begin(), sorted.end());
      ASSERT_EQ(sorted, expected);
      // Layers of each precinct in increasing order.
      std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> next;
      for (const PacketId& p : seq) {
        ASSERT_EQ((next[{p.resolution, p.component, p.precinct}]++), p.layer);
      }
      for (size_t i = 1; i < seq.size(); ++i) {
        const PacketId &a = seq[i - 1], &b = seq[i];
        switch (order) {
          case ProgressionOrder::kLRCP:
            ASSERT_LT(key(a), key(b));
            break;
          case ProgressionOrder::kRLCP:
            ASSERT_LT(std::tuple(a.resolution, a.layer, a.component, a.precinct),
                      std::tuple(b.resolution, b.layer, b.component, b.precinct));
            break;
          case ProgressionOrder::kRPCL:
            ASSERT_LE(a.resolution, b.resolution);
            break;
          case ProgressionOrder::kCPRL:
            ASSERT_LE(a.component, b.component);
            break;
          default:
            break;
        }
      }
      if (order != ProgressionOrder::kLRCP && order != ProgressionOrder::kRLCP) {
        ASSERT_EQ(seq, literal_position_order(t, order));
      }
    }
  }
}

TEST(ProgressionOrder, HandWorkedPcrlWithSubsampling) {
  // Tile [0,4) x [0,2); component 0 full resolution, component 1 subsampled by 2 in x; no
  // decomposition; precincts 2 x 2 (component 0: columns at x = 0, 2) and 1 x 2 (component 1,
  // samples at x = 0, 2 of the reference grid, precinct columns at x = 0, 2).
  TileProgression t;
  t.tile = Rect{0, 0, 4, 2};
  const PrecinctExponents p0[] = {{1, 1}}, p1[] = {{0, 1}};
  t.components.push_back(component_precincts(make_layout(Rect{0, 0, 4, 2}, 0, 2, 2, p0), 1, 1));
  t.components.push_back(component_precincts(make_layout(Rect{0, 0, 2, 2}, 0, 2, 2, p1), 2, 1));
  ASSERT_EQ(t.components[0].resolutions[0].precincts_x, 2u);
  ASSERT_EQ(t.components[1].resolutions[0].precincts_x, 2u);
  const std::vector<PacketId> seq = packet_order(t, ProgressionOrder::kPCRL);
  const std::vector<PacketId> want = {{0, 0, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {0, 0, 1, 1}};
  EXPECT_EQ(seq, want);
  const std::vector<PacketId> cprl = packet_order(t, ProgressionOrder::kCPRL);
  const std::vector<PacketId> want_c = {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 1, 0}, {0, 0, 1, 1}};
  EXPECT_EQ(cprl, want_c);
}

TEST(ProgressionOrder, PocHandWorked) {
  // One component, 1 level, one precinct per resolution, 2 layers: resolution 1 first (RLCP),
  // then the rest in LRCP.
  TileProgression t;
  t.tile = Rect{0, 0, 8, 8};
  t.layers = 2;
  t.components.push_back(component_precincts(make_layout(Rect{0, 0, 8, 8}, 1, 2, 2), 1, 1));
  const ProgressionChange changes[] = {
      {1, 0, 2, 2, 1, ProgressionOrder::kRLCP},
      {0, 0, 2, 2, 1, ProgressionOrder::kLRCP},
  };
  const std::vector<PacketId> want = {{0, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}};
  EXPECT_EQ(packet_order(t, changes), want);
  // Only the first change, nothing else: the rest is left out unless asked for.
  EXPECT_EQ(packet_order(t, std::span(changes, 1)).size(), 2u);
  EXPECT_EQ(packet_order(t, std::span(changes, 1), ProgressionOrder::kLRCP), want);
}

TEST(ProgressionOrder, PocRandomCoversOnceWithinBounds) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const TileProgression t = random_tile(rng);
    std::vector<ProgressionChange> changes(1 + rng() % 4);
    for (ProgressionChange& ch : changes) {
      ch.order = kOrders[rng() % 5];
      ch.res_start = rng() % 3;
      ch.res_end = ch.res_start + 1 + rng() % 4;
      ch.comp_start = rng() % 2;
      ch.comp_end = ch.comp_start + 1 + rng() % 3;
      ch.layer_end = 1 + rng() % 3;
    }
    size_t before = 0;
    std::vector<PacketId> seq;
    for (size_t i = 0; i < changes.size(); ++i) {
      seq = packet_order(t, std::span(changes).first(i + 1));
      ASSERT_GE(seq.size(), before);
      for (size_t k = before; k < seq.size(); ++k) {
        const PacketId& p = seq[k];
        EXPECT_GE(p.resolution, changes[i].res_start);
        EXPECT_LT(p.resolution, changes[i].res_end);
        EXPECT_GE(p.component, changes[i].comp_start);
        EXPECT_LT(p.component, changes[i].comp_end);
        EXPECT_LT(p.layer, changes[i].layer_end);
      }
      before = seq.size();
    }
    const std::vector<PacketId> full = packet_order(t, changes, ProgressionOrder::kRPCL);
    ASSERT_TRUE(std::equal(seq.begin(), seq.end(), full.begin()));
    std::vector<Key> got;
    for (const PacketId& p : full) got.push_back(key(p));
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, all_packets(t));
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> next;
    for (const PacketId& p : full) {
      ASSERT_EQ((next[{p.resolution, p.component, p.precinct}]++), p.layer);
    }
  }
}

}  // namespace
}  // namespace gj2k::codec
