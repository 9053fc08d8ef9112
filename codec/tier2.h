// Tier-2 of one tile (ISO/IEC 15444-1 Annex B.9-B.12, A.4.2, A.7.4-A.7.5, A.8): the packets of
// a tile in progression order, read into the codeword segments of each code-block, or written
// from the coded code-blocks into packets and tile-parts. Both directions walk the same order
// (progression.h: the COD order, B.12.1, or the tile's POC, B.12.2) over the same precinct
// partition (structure.h); the packet headers are coded by entropy/t2_packet.h beneath.
//
// Packet framing: an SOP marker segment (A.8.1) may precede each packet and an EPH marker
// (A.8.2) follow each header (COD Scod bits 1, 2). Packed headers (PPM in the main header,
// PPT in tile-part headers, A.7.4-A.7.5) take the headers and their EPH out of the bit
// stream; SOP stays in the bit stream, before each packet's body.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "codec/markers/codestream.h"
#include "codec/progression.h"
#include "codec/structure.h"
#include "core/small_vector.h"
#include "gj2k/encoder.h"

namespace gj2k::codec {

struct TileCoding;  // encoder_internal.h

// ---- reading -------------------------------------------------------------------------------

// The data of tile `t` of `code` (parsed from `codestream`): the bodies of its tile-parts in
// TPsot order, each clamped to the codestream. A span of `codestream` when the tile has one
// tile-part, else of `joined`, which receives the bodies back to back.
std::span<const uint8_t> tile_data(std::span<const uint8_t> codestream, const Codestream& code,
                                   uint32_t t, std::vector<uint8_t>& joined);

// The packed packet headers of tile `t` (the PPM chunks of its tile-parts, or its PPT data),
// in TPsot order; nullopt when the packet headers are in the tile's data (no PPM, no PPT). A
// tile-part past the PPM chunks adds none (its packets then fail to decode).
std::optional<std::vector<uint8_t>> tile_packed_headers(const Codestream& code, uint32_t t);

// A code-block's codeword segments as Tier-2 delivers them, gathered over the packets: none is
// copied. A segment that lies whole in one packet body (the usual case: one layer) is where
// it lies in the tile's data (TilePackets::data); one continued over several packets (layers)
// is the list of its parts there, in order, which a consumer gathers (gather_segment) where it
// needs the bytes in one piece: in parallel, in Tier-1's threads or the GPU table's copy.
struct BlockSegments {
  struct Part {
    uint64_t offset = 0;  // in the tile's data
    uint32_t length = 0;
  };
  struct Seg {
    uint64_t offset = 0;  // of its bytes in the tile's data, when parts == 0
    uint32_t length = 0, passes = 0;
    // parts > 0: its bytes are those of parts[first_part, first_part + parts), back to back.
    uint32_t first_part = 0, parts = 0;
  };
  core::SmallVector<Seg, 1> segs;  // most code-blocks have one segment: no allocation
  std::vector<Part> parts;         // of the segments continued over several packets
  bool open = false;               // the last segment continues in a later packet
  int missing_msbs = 0;
};

// Appends the bytes of segment `s` of `block`, whose data Tier-2 read from `data`
// (TilePackets::data), to `out`.
inline void gather_segment(std::span<const uint8_t> data, const BlockSegments& block,
                           const BlockSegments::Seg& s, uint8_t* out) {
  if (s.parts == 0) {
    if (s.length) std::memcpy(out, data.data() + s.offset, s.length);
    return;
  }
  for (uint32_t k = s.first_part; k < s.first_part + s.parts; ++k) {
    const BlockSegments::Part& p = block.parts[k];
    if (p.length) std::memcpy(out, data.data() + p.offset, p.length);
    out += p.length;
  }
}

// The key of code-block `index` (raster order over its band's code-block grid) of band `b`
// (index in ResolutionLayout::bands) of resolution `r`, in a BlockSegmentMap.
inline uint64_t block_key(uint32_t r, uint32_t b, uint32_t index) {
  return (uint64_t{r} << 40) | (uint64_t{b} << 32) | index;
}

// The code-blocks of one tile-component that Tier-2 kept data for, by block_key. Dense: each
// band that has entries has a slot per code-block, so a look-up is two indexings, with no
// hashing and no allocation per code-block (a hash map's node per code-block was a quarter of
// Tier-2's time); entries live in chunks of 16, 32, 64, ... (a tile of few code-blocks makes
// little) and keep their addresses while the map grows or moves.
class BlockSegmentMap {
 public:
  BlockSegmentMap() = default;
  BlockSegmentMap(BlockSegmentMap&& o) noexcept { take(o); }
  BlockSegmentMap& operator=(BlockSegmentMap&& o) noexcept {
    if (this != &o) {
      destroy();
      take(o);
    }
    return *this;
  }
  ~BlockSegmentMap() { destroy(); }

  // Slots for `count` code-blocks of band b of resolution r ahead (else they grow on demand).
  void reserve_band(uint32_t r, uint32_t b, uint32_t count) {
    std::vector<uint32_t>& s = band_slots(r, b);
    if (s.size() < count) s.resize(count, 0);
  }
  // The entry of `key`, made (empty) when new.
  BlockSegments& operator[](uint64_t key) {
    const uint32_t index = static_cast<uint32_t>(key);
    std::vector<uint32_t>& s =
        band_slots(static_cast<uint32_t>(key >> 40), static_cast<uint32_t>(key >> 32) & 0xFF);
    if (index >= s.size()) s.resize(size_t{index} + 1, 0);
    if (s[index] == 0) {
      if (size_ == capacity_) {
        if (chunk_count_ == kMaxChunks) throw std::length_error("BlockSegmentMap: full");
        const size_t n = kFirstChunk << chunk_count_;
        chunks_[chunk_count_++].reset(
            static_cast<BlockSegments*>(::operator new(n * sizeof(BlockSegments))));
        capacity_ += n;
      }
      new (&entry(size_)) BlockSegments();
      s[index] = static_cast<uint32_t>(++size_);
    }
    return entry(s[index] - 1);
  }
  // The entry of `key`, or null.
  const BlockSegments* find(uint64_t key) const {
    const size_t band =
        slot_of(static_cast<uint32_t>(key >> 40), static_cast<uint32_t>(key >> 32) & 0xFF);
    const uint32_t index = static_cast<uint32_t>(key);
    if (band >= slots_.size() || index >= slots_[band].size() || slots_[band][index] == 0)
      return nullptr;
    return &entry(slots_[band][index] - 1);
  }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kFirstChunk = 16;
  static constexpr size_t kMaxChunks = 40;            // 16 x (2^40 - 1) entries
  static constexpr uint32_t kBandsPerResolution = 4;  // Part 1: 1 or 3
  static size_t slot_of(uint32_t r, uint32_t b) { return size_t{r} * kBandsPerResolution + b; }
  std::vector<uint32_t>& band_slots(uint32_t r, uint32_t b) {
    if (b >= kBandsPerResolution) throw std::out_of_range("BlockSegmentMap: band index");
    const size_t k = slot_of(r, b);
    if (k >= slots_.size()) slots_.resize(k + 1);
    return slots_[k];
  }
  // Entry i lies in chunk c = floor(log2(i / 16 + 1)), of 16 << c entries from 16 (2^c - 1).
  BlockSegments& entry(size_t i) const {
    const int c = std::bit_width(i / kFirstChunk + 1) - 1;
    return chunks_[static_cast<size_t>(c)].get()[i - kFirstChunk * ((size_t{1} << c) - 1)];
  }
  // Ends entries [0, size_) (the chunks' memory goes with chunks_).
  void destroy() {
    for (size_t i = 0; i < size_; ++i) entry(i).~BlockSegments();
    size_ = 0;
  }
  void take(BlockSegmentMap& o) {
    slots_ = std::move(o.slots_);
    chunks_ = std::move(o.chunks_);  // o's are null after
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
    chunk_count_ = std::exchange(o.chunk_count_, 0);
    o.slots_.clear();
  }
  struct FreeChunk {
    void operator()(BlockSegments* p) const { ::operator delete(p); }
  };

  std::vector<std::vector<uint32_t>> slots_;  // [slot_of(r, b)][index]: entry + 1, or 0
  // Memory for 16 << c entries each (the first chunk_count_); entries [0, size_) are made (in
  // operator[]), the rest are not, so a chunk costs nothing until its entries are used. A fixed
  // directory: a new chunk moves no other, so that a thread may read the entries of blocks Tier-2
  // is done with while it adds others (read_tile_packets' progress reports).
  std::array<std::unique_ptr<BlockSegments, FreeChunk>, kMaxChunks> chunks_;
  size_t size_ = 0, capacity_ = 0, chunk_count_ = 0;
};

// What reading needs of one component of the tile.
struct PacketReadComponent {
  const TileComponentLayout* layout = nullptr;  // make_layout of the tile-component
  // The data of resolutions 0..max_resolution is kept; -1: none (the packet headers of the
  // component are still read, as the packets that follow depend on them).
  int max_resolution = -1;
};

// What PacketReadOptions::on_resolution_read is told: the tile's data (TilePackets::data),
// the code-blocks read so far per component, and which resolutions of which components are
// complete (complete[c][r], r <= max_resolution of c, is 1 once its last packet is read).
struct TileReadProgress {
  std::span<const uint8_t> data;
  const std::vector<BlockSegmentMap>& blocks;
  const std::vector<std::vector<uint8_t>>& complete;
};

struct PacketReadOptions {
  std::vector<PacketReadComponent> components;  // one per component (Csiz entries)
  uint32_t max_layers = 0;                      // the data of layers below it is kept; 0: all
  // Damaged or missing packet data ends the tile's packet sequence with a warning instead of
  // throwing; what was read is kept (OpenJPEG's non-strict mode, read_tile_packets).
  bool allow_partial = false;
  // When set, a code-block's data is kept only where it returns true: (component, its band,
  // the code-block's rectangle on the band's grid). Called for code-blocks with data only.
  std::function<bool(uint32_t component, const BandLayout& band, const Rect& block)> keep_block;
  // When set, called after each packet that is the last of its (component, resolution) in the
  // progression (every layer and precinct of it read): from then on no later packet changes
  // the code-blocks of that resolution of that component, so a caller may take them while the
  // rest of the tile is read (the GPU decode starts Tier-1 of the lower resolutions so). Not
  // called while a tile of several tile-parts is read in place (that attempt may restart from
  // their joined copy, which is then read with the calls). An exception it throws stops the
  // reading and leaves read_tile_packets.
  std::function<void(const TileReadProgress&)> on_resolution_read;
  // When set with on_resolution_read, called once the reading that made those calls ends, on
  // every way out, before the maps they showed are handed over or destroyed: a caller whose
  // threads read them joins the threads here. `failed`: the reading is throwing (the call must
  // not throw then); otherwise an exception it throws leaves read_tile_packets.
  std::function<void(bool failed)> on_reading_end;
};

// What Tier-2 read of one tile. Moving it keeps `data` valid (a moved vector keeps its bytes).
struct TilePackets {
  // The tile's data, which the blocks' segments reference (offsets into it): the span of the
  // codestream (which must outlive it) that tile_data gives for a tile of one tile-part; for
  // several, the whole codestream when each packet lies within one tile-part (as encoders
  // write them: the tile-parts are read in place), else tile_data's `joined` copy.
  std::span<const uint8_t> data;
  std::vector<uint8_t> joined;
  std::vector<BlockSegmentMap> blocks;  // per component: the code-blocks with kept data
};

// Reads every packet of tile `t` of `code` (parsed from `codestream`) in progression order:
// the bodies of its tile-parts in TPsot order, with the packet headers in them or in PPM/PPT.
// Returns, per component, the code-blocks with kept data. Errors are Error(kTruncated,
// kFormat, ...) whose message names the tile, the packet (index, layer, resolution,
// component, precinct) and the byte offset in the tile's data. A tile that lists more packets
// than its data could hold (each takes at least one header byte) is refused before reading.
//
// allow_partial: a packet header that cannot be decoded stops reading (a warning names it);
// a body that runs past the data gives a warning, and from the first codeword segment that
// runs past the data, the code-blocks of that packet lose all their data (they decode as
// zero) and reading stops, as OpenJPEG does.
TilePackets read_tile_packets(std::span<const uint8_t> codestream, const Codestream& code,
                              uint32_t t, const PacketReadOptions& options,
                              std::vector<std::string>* warnings = nullptr);

// ---- writing -------------------------------------------------------------------------------

// One packet as written: [SOP] header [EPH] body. The body is not copied: it is the list of
// the code-block data ranges it consists of, views of the TileCoding's EncodedBlock data
// (valid while that lives), which the codestream's assembly copies once, into place.
struct WrittenPacket {
  PacketId id;
  std::vector<uint8_t> bytes;                    // SOP, header, EPH
  std::vector<std::span<const uint8_t>> bodies;  // the body, in order
  size_t sop = 0;                                // bytes of the SOP marker segment (0 or 6)
  size_t header = 0;                             // bytes of the header, EPH included
  size_t body = 0;                               // bytes of the body
  size_t size() const { return sop + header + body; }
  // Calls f(data, bytes) for the packet's pieces in order: SOP, header and EPH, then each
  // range of its body.
  template <class F>
  void for_each_piece(F&& f) const {
    f(bytes.data(), bytes.size());
    for (std::span<const uint8_t> b : bodies) f(b.data(), b.size());
  }
  // Writes the whole packet at dst (size() bytes).
  void write_to(uint8_t* dst) const;
  std::vector<uint8_t> joined() const;  // the whole packet
};

// The packets of one coded tile in progression order (the main header's COD order, or its
// POC), with SOP and EPH as COD says. Every block's layer_passes must hold one entry per
// layer (or none: never included). Bodies are views of the blocks' data (valid while the
// tile lives). Precinct bands are written in parallel (their tag trees and block states are
// their own, B.10.2); the bytes are those of one packet coder per precinct.
std::vector<WrittenPacket> write_tile_packets(const TileCoding& tile, const MainHeader& main);

// One tile-part as written: SOT, PLT (when asked), SOD, then its packets (views of the list
// write_tile_packets returned, valid while that lives).
struct WrittenTilePart {
  uint16_t tile = 0;
  std::vector<uint8_t> header;             // SOT .. SOD, Psot set
  std::span<const WrittenPacket> packets;  // its packets
  size_t size() const;
  // for_each_piece of the header, then of its packets.
  template <class F>
  void for_each_piece(F&& f) const {
    f(header.data(), header.size());
    for (const WrittenPacket& p : packets) p.for_each_piece(f);
  }
  // Writes the whole tile-part at dst (size() bytes).
  void write_to(uint8_t* dst) const;
  std::vector<uint8_t> joined() const;  // the whole tile-part
};

// Splits the packets of tile `tile` into tile-parts (A.4.2): a new one whenever the packet's
// resolution, layer or component (as `split` says) changes. With `plt`, each tile-part header
// carries the lengths of its packets (PLT, A.7.3). Throws Error(kInvalidArgument) for more than
// 255 tile-parts.
std::vector<WrittenTilePart> write_tile_parts(uint16_t tile, std::span<const WrittenPacket> packets,
                                              TilePartSplit split, bool plt);

}  // namespace gj2k::codec
