// Packet progression orders (ISO/IEC 15444-1 B.12): the sequence of packets (layer,
// resolution, component, precinct) of one tile for LRCP, RLCP, RPCL, PCRL, CPRL, and for a
// list of progression order changes (POC, B.12.2, A.6.6).
// The order part of Tier-2 (tier2.h), which walks these sequences in both directions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "codec/structure.h"
#include "gj2k/encoder.h"

namespace gj2k::codec {

// The orders and progression changes are gj2k::ProgressionOrder (numbered as COD SGcod and POC
// Ppoc, A.6.1 Table A.16) and gj2k::ProgressionChange (a POC entry, A.6.6).

struct PacketId {
  uint32_t layer = 0;
  uint32_t resolution = 0;
  uint32_t component = 0;
  uint32_t precinct = 0;  // raster index in the resolution's precinct partition
  bool operator==(const PacketId&) const = default;
};

// What the position-driven orders need of one resolution of one component.
struct ResolutionPrecincts {
  Rect rect;  // the resolution on its grid (trx0, try0, trx1, try1)
  int ppx = 15, ppy = 15;
  uint32_t precincts_x = 0, precincts_y = 0;
};

struct ComponentPrecincts {
  uint32_t dx = 1, dy = 1;                       // XRsiz, YRsiz
  std::vector<ResolutionPrecincts> resolutions;  // r = 0 .. NL(c)
};

// From a tile-component layout (structure.h) and its subsampling.
ComponentPrecincts component_precincts(const TileComponentLayout& layout, uint32_t dx, uint32_t dy);

struct TileProgression {
  Rect tile;  // the tile on the reference grid (tx0, ty0, tx1, ty1)
  uint32_t layers = 1;
  std::vector<ComponentPrecincts> components;
};

// The packets of one progression with every bound open, in `order`.
std::vector<PacketId> packet_order(const TileProgression& tile, ProgressionOrder order);

// The packets of a list of progressions (POC) in sequence, each one's bounds clipped to what
// exists; a packet already produced by an
// earlier progression is not repeated, and the layers of one precinct always come in
// increasing order (a packet whose lower layers are missing waits for a later progression).
// When `rest` is given, the packets no progression covers follow, in that order; otherwise
// they are left out.
std::vector<PacketId> packet_order(const TileProgression& tile,
                                   std::span<const ProgressionChange> changes,
                                   std::optional<ProgressionOrder> rest = std::nullopt);

}  // namespace gj2k::codec
