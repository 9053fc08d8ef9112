// Packet header coding of one precinct (15444-1 B.9, B.10).
#include "entropy/t2_packet.h"

#include <algorithm>
#include <bit>
#include <string>

#include "gj2k/error.h"

namespace gj2k::entropy {
namespace {

// Largest number of missing bit-planes a decoder accepts (B.10.5). Mb <= 7 guard bits + 31
// exponent bits, so anything far above is a corrupt stream, not a deep image.
constexpr int kMaxMissingMsbs = 127;

int floor_log2(uint32_t v) {
  return 31 - std::countl_zero(v);
}

// Table B.4: codewords for the number of coding passes.
void put_pass_count(HeaderBitWriter& w, int n) {
  if (n == 1) {
    w.put_bit(0);
  } else if (n == 2) {
    w.put_bits(0b10, 2);
  } else if (n <= 5) {
    w.put_bits(0b11, 2);
    w.put_bits(static_cast<uint32_t>(n - 3), 2);
  } else if (n <= 36) {
    w.put_bits(0b1111, 4);
    w.put_bits(static_cast<uint32_t>(n - 6), 5);
  } else {
    w.put_bits(0b111111111, 9);
    w.put_bits(static_cast<uint32_t>(n - 37), 7);
  }
}

int get_pass_count(HeaderBitReader& r) {
  if (r.prefetch(16)) {  // the longest codeword: one look at its bits
    const uint32_t v = r.peek_bits(16);
    int n, bits;
    if (v < 0x8000u) {
      n = 1, bits = 1;
    } else if (v < 0xC000u) {
      n = 2, bits = 2;
    } else if (v < 0xF000u) {
      n = 3 + static_cast<int>((v >> 12) & 3), bits = 4;
    } else if (v < 0xFF80u) {
      n = 6 + static_cast<int>((v >> 7) & 31), bits = 9;
    } else {
      n = 37 + static_cast<int>(v & 127), bits = 16;
    }
    r.skip_bits(bits);
    return n;
  }
  // Near the end of the header bytes: bit by bit, so that a cut codeword fails where it ends.
  if (!r.get_bit()) return 1;
  if (!r.get_bit()) return 2;
  const uint32_t two = r.get_bits(2);
  if (two != 3) return 3 + static_cast<int>(two);
  const uint32_t five = r.get_bits(5);
  if (five != 31) return 6 + static_cast<int>(five);
  return 37 + static_cast<int>(r.get_bits(7));
}

std::string where(int layer, size_t offset) {
  return "packet header (layer " + std::to_string(layer) + ", byte " + std::to_string(offset) + ")";
}

}  // namespace

bool pass_ends_segment(const SegmentStyle& style, int pass) {
  // One definition of the segment rules (D.4, D.6 Table D.9): Tier-1's.
  if (pass < 0) return false;
  return pass_ends_segment(style.code_block_style(), static_cast<uint32_t>(pass));
}

std::vector<int> split_passes(const SegmentStyle& style, int first_pass, int count) {
  std::vector<int> pieces;
  for_each_piece(style, first_pass, count, [&](int n) { pieces.push_back(n); });
  return pieces;
}

std::vector<uint32_t> piece_lengths_from_ends(const SegmentStyle& style,
                                              std::span<const uint32_t> pass_ends, int first_pass,
                                              int count) {
  if (first_pass < 0 || count < 0 || size_t(first_pass) + size_t(count) > pass_ends.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "piece_lengths_from_ends: passes " + std::to_string(first_pass) + " + " +
                    std::to_string(count) + " of " + std::to_string(pass_ends.size()));
  }
  std::vector<uint32_t> out;
  uint32_t start = first_pass > 0 ? pass_ends[first_pass - 1] : 0;
  int pass = first_pass;
  for (int n : split_passes(style, first_pass, count)) {
    pass += n;
    const uint32_t end = pass_ends[pass - 1];
    if (end < start) {
      throw Error(
          ErrorCode::kInvalidArgument,
          "piece_lengths_from_ends: pass ends decrease at pass " + std::to_string(pass - 1));
    }
    out.push_back(end - start);
    start = end;
  }
  return out;
}

size_t skip_sop(std::span<const uint8_t> bytes) {
  if (bytes.size() < 2 || bytes[0] != 0xFF || bytes[1] != 0x91) return 0;
  if (bytes.size() < 6) {
    throw Error(ErrorCode::kTruncated,
                "SOP marker segment cut after " + std::to_string(bytes.size()) + " of 6 bytes");
  }
  const unsigned lsop = (unsigned{bytes[2]} << 8) | bytes[3];
  if (lsop != 4) {
    throw Error(ErrorCode::kFormat,
                "SOP marker segment with Lsop " + std::to_string(lsop) + " (must be 4)");
  }
  return 6;
}

PrecinctState::PrecinctState(std::span<const PrecinctBandShape> bands, SegmentStyle style)
    : style_(style) {
  bands_.resize(bands.size());
  for (size_t b = 0; b < bands.size(); ++b) {
    BandState& s = bands_[b];
    s.shape = bands[b];
    s.inclusion = TagTree(bands[b].blocks_x, bands[b].blocks_y);
    s.zero_planes = TagTree(bands[b].blocks_x, bands[b].blocks_y);
    s.blocks.assign(s.inclusion.leaf_count(), BlockState{});
  }
}

void PrecinctState::reset() {
  for (BandState& s : bands_) {
    s.inclusion.reset();
    s.zero_planes.reset();
    s.blocks.assign(s.blocks.size(), BlockState{});
    s.coded_layer = -1;
  }
  next_layer_ = 0;
}

void PacketEncoder::set_missing_msbs(size_t band, uint32_t block, int missing_msbs) {
  if (band >= bands_.size() || block >= bands_[band].blocks.size() || missing_msbs < 0 ||
      missing_msbs > kMaxMissingMsbs) {
    throw Error(ErrorCode::kInvalidArgument, "set_missing_msbs: band " + std::to_string(band) +
                                                 ", block " + std::to_string(block) + ", value " +
                                                 std::to_string(missing_msbs));
  }
  if (next_layer_ != 0) {
    throw Error(ErrorCode::kInvalidArgument, "set_missing_msbs after the first packet");
  }
  bands_[band].zero_planes.set_value(block, missing_msbs);
  bands_[band].blocks[block].missing_msbs = missing_msbs;
}

bool PacketEncoder::check_contributions(
    std::span<const std::vector<BlockContribution>> contributions) const {
  if (contributions.size() != bands_.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "encode_packet: contributions for " + std::to_string(contributions.size()) +
                    " bands, precinct has " + std::to_string(bands_.size()));
  }
  bool any = false;
  for (size_t b = 0; b < bands_.size(); ++b) any = check_band(b, contributions[b]) || any;
  return any;
}

bool PacketEncoder::check_band(size_t b, std::span<const BlockContribution> contributions) const {
  if (b >= bands_.size()) {
    throw Error(ErrorCode::kInvalidArgument, "encode_packet: band " + std::to_string(b) +
                                                 ", precinct has " + std::to_string(bands_.size()));
  }
  if (contributions.size() != bands_[b].blocks.size()) {
    throw Error(ErrorCode::kInvalidArgument, "encode_packet: band " + std::to_string(b) + " has " +
                                                 std::to_string(bands_[b].blocks.size()) +
                                                 " blocks, got " +
                                                 std::to_string(contributions.size()));
  }
  bool any = false;
  for (const BlockContribution& c : contributions) {
    if (c.new_passes < 0 || c.new_passes > kMaxPassesPerPacket) {
      throw Error(ErrorCode::kInvalidArgument,
                  "encode_packet: " + std::to_string(c.new_passes) + " passes in one packet");
    }
    any = any || c.new_passes > 0;
  }
  return any;
}

void PacketEncoder::encode_block_header(HeaderBitWriter& w, int layer, size_t b, uint32_t i,
                                        const BlockContribution& c) {
  BandState& band = bands_[b];
  BlockState& st = band.blocks[i];
  const bool now = c.new_passes > 0;
  if (!st.included) {
    band.inclusion.encode(w, i, layer + 1);
    if (!now) return;
    if (band.zero_planes.value(i) == TagTree::kInfinity) {
      throw Error(ErrorCode::kInvalidArgument, "encode_packet: block " + std::to_string(i) +
                                                   " of band " + std::to_string(b) +
                                                   " included without set_missing_msbs");
    }
    band.zero_planes.encode_value(w, i);  // B.10.5
    st.included = true;
  } else {
    w.put_bit(now ? 1 : 0);
    if (!now) return;
  }
  put_pass_count(w, c.new_passes);  // B.10.6

  // B.10.7: one Lblock increment for the block, then one length per piece.
  size_t pieces = 0;
  int lblock = st.lblock;
  for_each_piece(style_, st.passes, c.new_passes, [&](int n) {
    if (pieces < c.piece_lengths.size())
      lblock = std::max(lblock,
                        static_cast<int>(std::bit_width(c.piece_lengths[pieces])) - floor_log2(n));
    ++pieces;
  });
  if (pieces != c.piece_lengths.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "encode_packet: block " + std::to_string(i) + " of band " + std::to_string(b) +
                    " gives " + std::to_string(c.piece_lengths.size()) +
                    " piece lengths, its passes make " + std::to_string(pieces));
  }
  for (int k = st.lblock; k < lblock; ++k) w.put_bit(1);
  w.put_bit(0);
  st.lblock = lblock;
  size_t k = 0;
  for_each_piece(style_, st.passes, c.new_passes, [&](int n) {
    const int bits = lblock + floor_log2(n);
    if (bits > 32) {
      throw Error(ErrorCode::kInvalidArgument, "encode_packet: length field over 32 bits");
    }
    w.put_bits(c.piece_lengths[k++], bits);
  });
  st.passes += c.new_passes;
}

size_t PacketEncoder::encode_packet(int layer,
                                    std::span<const std::vector<BlockContribution>> contributions,
                                    const PacketFraming& framing, uint32_t packet_index,
                                    std::vector<uint8_t>& out, bool empty_as_zero_bit) {
  if (layer != next_layer_) {
    throw Error(ErrorCode::kInternal, "encode_packet: layer " + std::to_string(layer) +
                                          " but the next is " + std::to_string(next_layer_));
  }
  const bool any = check_contributions(contributions);
  HeaderBitWriter w;
  const bool coded = any || !empty_as_zero_bit;
  for (size_t b = 0; coded && b < bands_.size(); ++b) code_band(w, layer, b, contributions[b]);
  const HeaderBitWriter* bands = &w;
  const size_t n = write_packet_header({&bands, 1}, coded, framing, packet_index, out);
  end_layer(layer);
  return n;
}

size_t PacketEncoder::write_packet_header(std::span<const HeaderBitWriter* const> bands, bool coded,
                                          const PacketFraming& framing, uint32_t packet_index,
                                          std::vector<uint8_t>& out) {
  const size_t start = out.size();
  if (framing.sop) {
    out.insert(out.end(), {0xFF, 0x91, 0x00, 0x04, static_cast<uint8_t>(packet_index >> 8),
                           static_cast<uint8_t>(packet_index)});
  }
  HeaderBitWriter first;
  first.put_bit(coded ? 1 : 0);
  thread_local std::vector<const HeaderBitWriter*> parts;
  parts.assign(1, &first);
  if (coded) parts.insert(parts.end(), bands.begin(), bands.end());
  HeaderBitWriter::pack_header(parts, out);
  if (framing.eph) out.insert(out.end(), {0xFF, 0x92});
  return out.size() - start;
}

void PacketEncoder::encode_band(HeaderBitWriter& bits, int layer, size_t b,
                                std::span<const BlockContribution> contributions) {
  check_band(b, contributions);
  const BandState& band = bands_[b];
  if (layer < next_layer_ || layer <= band.coded_layer) {
    throw Error(ErrorCode::kInternal,
                "encode_packet: band " + std::to_string(b) + " coded for layer " +
                    std::to_string(layer) + " after layer " +
                    std::to_string(std::max(next_layer_ - 1, band.coded_layer)));
  }
  code_band(bits, layer, b, contributions);
}

void PacketEncoder::code_band(HeaderBitWriter& bits, int layer, size_t b,
                              std::span<const BlockContribution> contributions) {
  BandState& band = bands_[b];
  band.coded_layer = layer;
  // B.10.4: the inclusion tree holds each block's layer of first inclusion. All blocks first
  // included in this layer are set before any is coded: they share the threshold layer + 1.
  for (uint32_t i = 0; i < band.blocks.size(); ++i)
    if (!band.blocks[i].included && contributions[i].new_passes > 0)
      band.inclusion.set_value(i, layer);
  for (uint32_t i = 0; i < band.blocks.size(); ++i)
    encode_block_header(bits, layer, b, i, contributions[i]);
}

void PacketEncoder::end_layer(int layer) {
  if (layer != next_layer_) {
    throw Error(ErrorCode::kInternal, "encode_packet: layer " + std::to_string(layer) +
                                          " ended but the next is " + std::to_string(next_layer_));
  }
  ++next_layer_;
}

DecodedPacket PacketDecoder::decode_packet(int layer, std::span<const uint8_t> header,
                                           const PacketFraming& framing, bool sop_in_header) {
  DecodedPacket res;
  decode_packet(layer, header, framing, sop_in_header, res);
  return res;
}

void PacketDecoder::decode_packet(int layer, std::span<const uint8_t> header,
                                  const PacketFraming& framing, bool sop_in_header,
                                  DecodedPacket& res) {
  if (layer != next_layer_) {
    throw Error(ErrorCode::kInternal, "decode_packet: layer " + std::to_string(layer) +
                                          " but the next is " + std::to_string(next_layer_));
  }
  size_t pos = 0;
  if (framing.sop && sop_in_header) pos = skip_sop(header);
  HeaderBitReader r(header.subspan(pos), "packet header");

  res.blocks.resize(bands_.size());
  for (size_t b = 0; b < bands_.size(); ++b) {
    res.blocks[b].resize(bands_[b].blocks.size());
    for (size_t i = 0; i < res.blocks[b].size(); ++i) {
      BlockPacketInfo& info = res.blocks[b][i];
      info.new_passes = 0;
      info.first_inclusion = false;
      info.first_pass = bands_[b].blocks[i].passes;
      info.missing_msbs = bands_[b].blocks[i].missing_msbs;
      info.pieces.clear();
    }
  }
  res.empty = r.get_bit() == 0;
  uint64_t body = 0;
  for (size_t b = 0; !res.empty && b < bands_.size(); ++b) {
    BandState& band = bands_[b];
    for (uint32_t i = 0; i < band.blocks.size(); ++i) {
      BlockState& st = band.blocks[i];
      BlockPacketInfo& info = res.blocks[b][i];
      if (!st.included) {
        if (!band.inclusion.decode(r, i, layer + 1)) continue;
        st.missing_msbs = band.zero_planes.decode_value(r, i, kMaxMissingMsbs);
        st.included = true;
        info.first_inclusion = true;
      } else if (!r.get_bit()) {
        continue;
      }
      info.missing_msbs = st.missing_msbs;
      info.new_passes = get_pass_count(r);
      // A 1 bit for each increment, then a 0 (B.10.7.1); the 1 that takes Lblock past 32 is
      // an error.
      const int32_t grow = r.get_ones_then_zero(33 - st.lblock);
      st.lblock += grow;
      if (st.lblock > 32) {
        throw Error(ErrorCode::kFormat,
                    where(layer, pos + r.byte_position()) + ": Lblock grows past 32");
      }
      // The pieces as split_passes cuts them, each with its length field (B.10.7.2). Every
      // piece but the last ends a segment (the cut follows a pass that ends one); the last
      // does when its last pass does.
      const int end = st.passes + info.new_passes;
      int first = st.passes;
      for_each_piece(style_, st.passes, info.new_passes, [&](int passes) {
        first += passes;
        const bool ends = first < end || pass_ends_segment(style_, first - 1);
        const int bits = st.lblock + floor_log2(static_cast<uint32_t>(passes));
        if (bits > 32) {
          throw Error(ErrorCode::kFormat,
                      where(layer, pos + r.byte_position()) + ": length field over 32 bits");
        }
        info.pieces.push_back(Piece{r.get_bits(bits), passes, ends});
        body += info.pieces.back().length;
      });
      st.passes = end;
    }
  }
  res.header_bytes = pos + r.align();
  res.body_bytes = body;
  if (framing.eph) {
    if (header.size() < res.header_bytes + 2) {
      throw Error(ErrorCode::kTruncated, where(layer, res.header_bytes) + ": EPH missing at end");
    }
    if (header[res.header_bytes] != 0xFF || header[res.header_bytes + 1] != 0x92) {
      throw Error(ErrorCode::kFormat, where(layer, res.header_bytes) + ": EPH expected");
    }
    res.header_bytes += 2;
  }
  ++next_layer_;
}

}  // namespace gj2k::entropy
