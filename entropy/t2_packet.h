// Tier-2 packet headers of one precinct (ISO/IEC 15444-1 B.9, B.10).
//
// A precinct holds, per subband of its resolution (1 band at r = 0, 3 otherwise, in the order
// LL or HL, LH, HH), a grid of code-blocks in raster order. Each layer of the tile makes one
// packet per precinct; its header says, per code-block: whether the block contributes
// (inclusion tag tree until its first inclusion, one bit after, B.10.4), its missing
// bit-planes at first inclusion (tag tree, B.10.5), the number of new coding passes
// (Table B.4, B.10.6), and the byte length of each codeword-segment piece (Lblock,
// B.10.7). Packet bodies follow the header in the same order; this module codes headers only.
//
// Codeword segments (B.10.7.2, D.6 Table D.9): a pass ends a segment when TERMALL is set, or
// with BYPASS when it is pass 9 (the last of the first 10 MQ passes), a magnitude refinement
// pass after that (end of a raw 2-pass segment), or a cleanup pass after that (a 1-pass MQ
// segment). The passes a block adds in one packet are cut after each pass that ends a
// segment; each piece gets its own length field, of Lblock + floor(log2(passes in piece))
// bits. A piece whose last pass does not end a segment continues in the next packet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/small_vector.h"
#include "entropy/bitio.h"
#include "entropy/t1.h"
#include "entropy/tagtree.h"

namespace gj2k::entropy {

// The code-block style bits (A.6.1 Table A.19) that shape codeword segments.
struct SegmentStyle {
  bool bypass = false;   // selective arithmetic coding bypass (SPcod bit 0)
  bool termall = false;  // termination on each coding pass (SPcod bit 2)
  // The same as cblk_style bits (entropy/t1.h).
  uint8_t code_block_style() const {
    return static_cast<uint8_t>((bypass ? cblk_style::kBypass : 0) |
                                (termall ? cblk_style::kTermAll : 0));
  }
};

// The most coding passes one code-block can have (Table B.4 codes 1..164 per packet).
inline constexpr int kMaxPassesPerPacket = 164;

// Whether coding pass `pass` (0-based over the block: 0 = first cleanup) ends a codeword
// segment under `style` (D.6 Table D.9), as t1.h's pass_ends_segment rules. The last pass of a
// block always ends one too, which only the block's owner knows.
bool pass_ends_segment(const SegmentStyle& style, int pass);

// The pieces of passes [first_pass, first_pass + count): the number of passes in each, cut
// after every pass that ends a segment; the last piece may end mid-segment.
std::vector<int> split_passes(const SegmentStyle& style, int first_pass, int count);
// f(passes) for each piece split_passes makes, in order, without building the list.
template <class F>
void for_each_piece(const SegmentStyle& style, int first_pass, int count, F&& f) {
  if (!style.bypass && !style.termall) {  // one segment: the last pass ends it
    if (count > 0) f(count);
    return;
  }
  int cur = 0;
  for (int p = first_pass; p < first_pass + count; ++p) {
    ++cur;
    if (pass_ends_segment(style, p)) {
      f(cur);
      cur = 0;
    }
  }
  if (cur > 0) f(cur);
}

// The piece lengths of passes [first_pass, first_pass + count) of a block whose pass p ends at
// byte pass_ends[p] of its coded data (cumulative, as Tier-1 reports it): the byte difference
// across each piece that split_passes makes. Throws Error(kInvalidArgument) when the passes
// are out of range or the ends decrease.
std::vector<uint32_t> piece_lengths_from_ends(const SegmentStyle& style,
                                              std::span<const uint32_t> pass_ends, int first_pass,
                                              int count);

// The code-block grid of one subband inside a precinct (may be 0 x 0).
struct PrecinctBandShape {
  uint32_t blocks_x = 0, blocks_y = 0;
};

// One code-block's part of one packet, as the encoder gives it.
struct BlockContribution {
  int new_passes = 0;                   // 0: not included in this layer
  std::vector<uint32_t> piece_lengths;  // bytes per piece, as split_passes cuts new_passes
};

// One piece of a decoded contribution.
struct Piece {
  uint32_t length = 0;        // bytes in the packet body
  int passes = 0;             // coding passes it holds
  bool ends_segment = false;  // its last pass ends a codeword segment (pass_ends_segment)
};

// One code-block's part of one packet, as the decoder finds it.
struct BlockPacketInfo {
  int new_passes = 0;                  // 0: not included
  bool first_inclusion = false;        // included for the first time in this packet
  int missing_msbs = 0;                // valid from the first inclusion on
  int first_pass = 0;                  // passes this block had before this packet
  core::SmallVector<Piece, 1> pieces;  // one, unless bypass or termall cut the passes
};

// Packet framing options (Scod bits 1 and 2, A.6.1).
struct PacketFraming {
  bool sop = false;  // an SOP marker segment (0xFF91, Lsop = 4, Nsop) starts each packet
  bool eph = false;  // an EPH marker (0xFF92) ends each packet header
};

// Per-precinct coding state shared by the encoder and the decoder.
class PrecinctState {
 public:
  PrecinctState() = default;
  PrecinctState(std::span<const PrecinctBandShape> bands, SegmentStyle style);

  // Back to the state before layer 0 (new tile, or re-encoding with other layers).
  void reset();

  size_t band_count() const { return bands_.size(); }
  uint32_t block_count(size_t band) const { return bands_[band].inclusion.leaf_count(); }
  const PrecinctBandShape& shape(size_t band) const { return bands_[band].shape; }
  const SegmentStyle& style() const { return style_; }

 protected:
  struct BlockState {
    int lblock = 3;  // B.10.7.1: starts at 3
    int passes = 0;  // coding passes included so far
    bool included = false;
    int missing_msbs = 0;
  };
  struct BandState {
    PrecinctBandShape shape;
    TagTree inclusion;    // value: layer of first inclusion
    TagTree zero_planes;  // value: missing most significant bit-planes
    std::vector<BlockState> blocks;
    int coded_layer = -1;  // the last layer PacketEncoder::encode_band coded
  };
  std::vector<BandState> bands_;
  SegmentStyle style_;
  int next_layer_ = 0;  // packets must come in layer order 0, 1, ...
};

// Copyable: a rate allocator may copy an encoder to size a trial packet without touching the
// real state.
class PacketEncoder : public PrecinctState {
 public:
  using PrecinctState::PrecinctState;

  // The missing bit-planes of each block, set before the first packet for every block that
  // will ever be included (the zero-bit-plane tag tree codes minima over all blocks, so they
  // must be fixed in advance). Blocks never set are treated as never included.
  void set_missing_msbs(size_t band, uint32_t block, int missing_msbs);

  // Appends to `out` the packet for layer `layer` (must be the next layer of this precinct):
  // the SOP marker segment with Nsop = `packet_index` mod 2^16 when framing.sop, the header
  // (a single 0 bit when no block contributes), and EPH when framing.eph. `contributions`
  // holds one entry per band, each with block_count(band) entries in raster order. Returns
  // the number of bytes appended. Bodies are the caller's to append after it.
  // `empty_as_zero_bit` false codes a packet without contributions as a non-empty header whose
  // blocks are all not included, as some encoders do; both forms are valid (B.10.3).
  size_t encode_packet(int layer, std::span<const std::vector<BlockContribution>> contributions,
                       const PacketFraming& framing, uint32_t packet_index,
                       std::vector<uint8_t>& out, bool empty_as_zero_bit = true);

  // The pieces of encode_packet, for a packet whose bands are coded on several threads.
  // encode_band appends to `bits` what encode_packet writes for band `band` of a packet of
  // layer `layer` that is not empty (the blocks' inclusion, zero bit-planes, passes and
  // lengths, B.10.4-B.10.7); it touches only that band's state, so different bands of one
  // precinct may be coded at once. The header is the bit 1 followed by every band's bits in
  // band order, with SOP before and EPH after it as framing asks (write_packet_header); an
  // empty packet's header is the bit 0, and no band is coded. A band's
  // layers are coded in increasing order, none before the precinct's next layer; end_layer
  // (layer) moves the precinct past a layer once its bands are coded (or its packet is empty).
  void encode_band(HeaderBitWriter& bits, int layer, size_t band,
                   std::span<const BlockContribution> contributions);
  void end_layer(int layer);
  // Appends one packet's SOP (Nsop = packet_index mod 2^16, when framing.sop), header (the
  // bit 1 and the bands' bits when `coded`, else the bit 0; HeaderBitWriter::pack_header) and
  // EPH (when framing.eph) to `out`; returns the bytes appended. encode_packet ends with it.
  static size_t write_packet_header(std::span<const HeaderBitWriter* const> bands, bool coded,
                                    const PacketFraming& framing, uint32_t packet_index,
                                    std::vector<uint8_t>& out);

 private:
  // Throws for contributions that do not fit the precinct; returns whether any block
  // contributes passes.
  bool check_contributions(std::span<const std::vector<BlockContribution>> contributions) const;
  // The same for one band's.
  bool check_band(size_t band, std::span<const BlockContribution> contributions) const;
  // encode_band after its checks.
  void code_band(HeaderBitWriter& bits, int layer, size_t b,
                 std::span<const BlockContribution> contributions);
  // B.10.4 to B.10.7 for block i of band b: inclusion, zero bit-planes, passes, lengths.
  void encode_block_header(HeaderBitWriter& w, int layer, size_t b, uint32_t i,
                           const BlockContribution& c);
};

// Result of decoding one packet header.
struct DecodedPacket {
  bool empty = true;        // the header's first bit was 0
  size_t header_bytes = 0;  // bytes consumed from the header buffer (SOP and EPH included
                            // when they were in it)
  size_t body_bytes = 0;    // sum of all piece lengths
  std::vector<std::vector<BlockPacketInfo>> blocks;  // per band, per block in raster order
};

class PacketDecoder : public PrecinctState {
 public:
  using PrecinctState::PrecinctState;

  // Decodes the packet header of layer `layer` (the next layer of this precinct) from the
  // start of `header`. With framing.sop, an SOP marker segment at the start is checked and
  // skipped when present (`sop_in_header` false: the headers were moved to PPM/PPT and SOP
  // stays in the body; see skip_sop). With framing.eph, the EPH marker that must follow the
  // header is checked and skipped. Errors (kTruncated, kFormat) name the layer and offset;
  // after an error the precinct's state is unspecified (reset() or discard it).
  DecodedPacket decode_packet(int layer, std::span<const uint8_t> header,
                              const PacketFraming& framing, bool sop_in_header = true);
  // The same into `out`, reusing its allocations (for decoders that walk many packets).
  void decode_packet(int layer, std::span<const uint8_t> header, const PacketFraming& framing,
                     bool sop_in_header, DecodedPacket& out);
};

// The length of an SOP marker segment at the start of `bytes` (6), or 0 when there is none.
// Throws Error(kFormat) for an SOP with Lsop != 4.
size_t skip_sop(std::span<const uint8_t> bytes);

}  // namespace gj2k::entropy
