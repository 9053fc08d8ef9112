// Packet progression orders (ISO/IEC 15444-1 B.12): the sequence of packets (layer,
// resolution, component, precinct) of one tile for LRCP, RLCP, RPCL, PCRL, CPRL, and for a
// list of progression order changes (POC, B.12.2, A.6.6).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "codec/structure.h"

namespace gj2k::codec {

// Values as in COD SGcod and POC Ppoc (A.6.1 Table A.16).
enum class ProgressionOrder : uint8_t { kLRCP = 0, kRLCP = 1, kRPCL = 2, kPCRL = 3, kCPRL = 4 };

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

// One progression (a COD default or one POC entry): resolutions [res_start, res_end),
// components [comp_start, comp_end), layers [0, layer_end); bounds are clipped to what exists.
struct ProgressionChange {
  ProgressionOrder order = ProgressionOrder::kLRCP;
  uint32_t res_start = 0, comp_start = 0;
  uint32_t layer_end = UINT32_MAX, res_end = UINT32_MAX, comp_end = UINT32_MAX;
};

// The packets of one progression with every bound open, in `order`.
std::vector<PacketId> packet_order(const TileProgression& tile, ProgressionOrder order);

// The packets of a list of progressions (POC) in sequence; a packet already produced by an
// earlier progression is not repeated, and the layers of one precinct always come in
// increasing order (a packet whose lower layers are missing waits for a later progression).
// When `rest` is given, the packets no progression covers follow, in that order; otherwise
// they are left out.
std::vector<PacketId> packet_order(const TileProgression& tile,
                                   std::span<const ProgressionChange> changes,
                                   std::optional<ProgressionOrder> rest = std::nullopt);

}  // namespace gj2k::codec
