// Packet progression orders (15444-1 B.12).
#include "codec/progression.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

// Tracks, per precinct of every (component, resolution), how many layers have been emitted;
// a packet is new when its layer equals that count (every progression starts at layer 0, so
// the layers of one precinct come in order).
class Emitter {
 public:
  Emitter(const TileProgression& tile, std::vector<PacketId>& out) : out_(out) {
    done_.resize(tile.components.size());
    for (size_t c = 0; c < tile.components.size(); ++c) {
      const auto& res = tile.components[c].resolutions;
      done_[c].resize(res.size());
      for (size_t r = 0; r < res.size(); ++r) {
        done_[c][r].assign(size_t{res[r].precincts_x} * res[r].precincts_y, 0);
      }
    }
  }
  void emit(uint32_t l, uint32_t r, uint32_t c, uint32_t p) {
    uint32_t& next = done_[c][r][p];
    if (l != next) return;  // l < next: emitted by an earlier progression
    ++next;
    out_.push_back(PacketId{l, r, c, p});
  }

 private:
  std::vector<PacketId>& out_;
  std::vector<std::vector<std::vector<uint32_t>>> done_;
};

uint32_t precinct_count(const ResolutionPrecincts& rp) {
  return rp.precincts_x * rp.precincts_y;
}

// The reference-grid point at which the position-driven loops of B.12.1.3-5 reach a precinct:
// the first (y, x) of the tile, in raster order, where the loop conditions hold for it. Along x
// that is its left edge on the reference grid, pxa * XRsiz * 2^(PPx + NL - r), or tx0 for a
// precinct that starts left of the tile (the "x = tx0 and trx0 * 2^(NL-r) not divisible"
// clause); likewise along y.
uint64_t precinct_start(uint64_t index, int pp, int down, uint32_t sub, uint32_t t0) {
  if (index == 0) return t0;
  // index << pp is below the resolution's end, so index << (pp + down) is below the
  // tile-component's end (< 2^32), and the product below 2^40.
  const uint64_t start = ((index << pp) << down) * sub;
  return std::max<uint64_t>(start, t0);
}

struct Positioned {
  uint64_t y, x;
  uint32_t c, r, p;
};

void run(const TileProgression& tile, const ProgressionChange& ch, Emitter& em) {
  const uint32_t layers = std::min(ch.layer_end, tile.layers);
  const uint32_t ncomp = static_cast<uint32_t>(tile.components.size());
  const uint32_t c0 = ch.comp_start, c1 = std::min(ch.comp_end, ncomp);
  uint32_t max_res = 0;
  for (uint32_t c = c0; c < c1; ++c) {
    max_res = std::max(max_res, static_cast<uint32_t>(tile.components[c].resolutions.size()));
  }
  const uint32_t r0 = ch.res_start, r1 = std::min(ch.res_end, max_res);
  auto nres = [&](uint32_t c) {
    return static_cast<uint32_t>(tile.components[c].resolutions.size());
  };
  auto nprec = [&](uint32_t c, uint32_t r) {
    return precinct_count(tile.components[c].resolutions[r]);
  };

  switch (ch.order) {
    case ProgressionOrder::kLRCP:  // B.12.1.1
      for (uint32_t l = 0; l < layers; ++l)
        for (uint32_t r = r0; r < r1; ++r)
          for (uint32_t c = c0; c < c1; ++c)
            if (r < nres(c))
              for (uint32_t p = 0; p < nprec(c, r); ++p) em.emit(l, r, c, p);
      return;
    case ProgressionOrder::kRLCP:  // B.12.1.2
      for (uint32_t r = r0; r < r1; ++r)
        for (uint32_t l = 0; l < layers; ++l)
          for (uint32_t c = c0; c < c1; ++c)
            if (r < nres(c))
              for (uint32_t p = 0; p < nprec(c, r); ++p) em.emit(l, r, c, p);
      return;
    default:
      break;
  }

  // Position-driven orders (B.12.1.3-5): place every precinct at the point where the loops
  // over the reference grid reach it, then sort by the order's key.
  std::vector<Positioned> items;
  for (uint32_t c = c0; c < c1; ++c) {
    const ComponentPrecincts& comp = tile.components[c];
    const int nl = static_cast<int>(comp.resolutions.size()) - 1;
    for (uint32_t r = r0; r < std::min(r1, nres(c)); ++r) {
      const ResolutionPrecincts& rp = comp.resolutions[r];
      const int down = nl - static_cast<int>(r);
      const uint64_t px0 = rp.rect.x0 >> rp.ppx, py0 = rp.rect.y0 >> rp.ppy;
      for (uint32_t p = 0; p < precinct_count(rp); ++p) {
        const uint64_t x =
            precinct_start(px0 + p % rp.precincts_x, rp.ppx, down, comp.dx, tile.tile.x0);
        const uint64_t y =
            precinct_start(py0 + p / rp.precincts_x, rp.ppy, down, comp.dy, tile.tile.y0);
        items.push_back(Positioned{y, x, c, r, p});
      }
    }
  }
  auto key = [&](const Positioned& a) {
    switch (ch.order) {
      case ProgressionOrder::kRPCL:
        return std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>(a.r, a.y, a.x, a.c);
      case ProgressionOrder::kPCRL:
        return std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>(a.y, a.x, a.c, a.r);
      default:  // kCPRL
        return std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>(a.c, a.y, a.x, a.r);
    }
  };
  std::stable_sort(items.begin(), items.end(),
                   [&](const Positioned& a, const Positioned& b) { return key(a) < key(b); });
  for (const Positioned& it : items)
    for (uint32_t l = 0; l < layers; ++l) em.emit(l, it.r, it.c, it.p);
}

// One progression over every packet of the tile.
ProgressionChange whole(ProgressionOrder order) {
  return {0, 0, UINT32_MAX, UINT32_MAX, UINT32_MAX, order};
}

}  // namespace

ComponentPrecincts component_precincts(const TileComponentLayout& layout, uint32_t dx,
                                       uint32_t dy) {
  ComponentPrecincts out;
  out.dx = dx;
  out.dy = dy;
  for (const ResolutionLayout& res : layout.resolutions) {
    out.resolutions.push_back(
        ResolutionPrecincts{res.rect, res.ppx, res.ppy, res.precincts_x, res.precincts_y});
  }
  return out;
}

std::vector<PacketId> packet_order(const TileProgression& tile, ProgressionOrder order) {
  const ProgressionChange all = whole(order);
  return packet_order(tile, std::span<const ProgressionChange>(&all, 1));
}

std::vector<PacketId> packet_order(const TileProgression& tile,
                                   std::span<const ProgressionChange> changes,
                                   std::optional<ProgressionOrder> rest) {
  for (const ComponentPrecincts& c : tile.components) {
    if (c.dx == 0 || c.dy == 0 || c.resolutions.empty() || c.resolutions.size() > 33) {
      throw Error(ErrorCode::kInvalidArgument,
                  "progression: a component with subsampling 0 or without 1..33 resolutions");
    }
  }
  std::vector<PacketId> out;
  Emitter em(tile, out);
  for (const ProgressionChange& ch : changes) {
    if (static_cast<uint8_t>(ch.order) > 4) {
      throw Error(ErrorCode::kInvalidArgument,
                  "progression: order " + std::to_string(static_cast<int>(ch.order)));
    }
    run(tile, ch, em);
  }
  if (rest) run(tile, whole(*rest), em);
  return out;
}

}  // namespace gj2k::codec
