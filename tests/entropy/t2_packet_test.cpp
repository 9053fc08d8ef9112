// Packet header coding of one precinct (15444-1 B.10): round trips over layers, bands, segment
// styles and framing; hand-worked headers; errors on bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "entropy/t2_packet.h"
#include "gj2k/error.h"

namespace gj2k::entropy {
namespace {

TEST(T2Packet, SegmentSplitsFollowTableD9) {
  const SegmentStyle bypass{true, false}, termall{false, true}, plain{};
  for (int p = 0; p < 9; ++p) EXPECT_FALSE(pass_ends_segment(bypass, p)) << p;
  EXPECT_TRUE(pass_ends_segment(bypass, 9));    // end of the first 10 MQ passes
  EXPECT_FALSE(pass_ends_segment(bypass, 10));  // raw significance
  EXPECT_TRUE(pass_ends_segment(bypass, 11));   // raw refinement ends the raw segment
  EXPECT_TRUE(pass_ends_segment(bypass, 12));   // cleanup: its own MQ segment
  EXPECT_FALSE(pass_ends_segment(bypass, 13));
  for (int p = 0; p < 40; ++p) {
    EXPECT_TRUE(pass_ends_segment(termall, p));
    EXPECT_FALSE(pass_ends_segment(plain, p));
  }
  EXPECT_EQ(split_passes(bypass, 8, 6), (std::vector<int>{2, 2, 1, 1}));
  EXPECT_EQ(split_passes(bypass, 0, 3), (std::vector<int>{3}));
  EXPECT_EQ(split_passes(termall, 4, 3), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(split_passes(plain, 4, 30), (std::vector<int>{30}));
  EXPECT_TRUE(split_passes(plain, 4, 0).empty());
}

TEST(T2Packet, PieceLengthsFromPassEnds) {
  const SegmentStyle bypass{true, false};
  std::vector<uint32_t> ends(20);
  for (uint32_t p = 0; p < 20; ++p) ends[p] = 10 * (p + 1) + p * p;  // strictly increasing
  // Passes 8..13 split 2 | 2 | 1 | 1: bytes ends[9]-ends[7], ends[11]-ends[9], ...
  EXPECT_EQ(piece_lengths_from_ends(bypass, ends, 8, 6),
            (std::vector<uint32_t>{ends[9] - ends[7], ends[11] - ends[9], ends[12] - ends[11],
                                   ends[13] - ends[12]}));
  EXPECT_EQ(piece_lengths_from_ends(SegmentStyle{}, ends, 0, 5), (std::vector<uint32_t>{ends[4]}));
  EXPECT_TRUE(piece_lengths_from_ends(SegmentStyle{}, ends, 3, 0).empty());
  EXPECT_THROW(piece_lengths_from_ends(SegmentStyle{}, ends, 15, 6), Error);
  ends[5] = 0;
  EXPECT_THROW(piece_lengths_from_ends(SegmentStyle{false, true}, ends, 4, 3), Error);
}

TEST(T2Packet, HandWorkedHeaders) {
  // One band of one code-block. Layer 0: 1 pass of 5 bytes, no missing bit-plane:
  // 1 (non-empty) 1 (inclusion: value 0 < 1) 1 (zero planes: 0) 0 (1 pass) 0 (Lblock stays 3)
  // 101 (length in 3 bits) = 0xE5.
  const PrecinctBandShape shape{1, 1};
  PacketEncoder enc(std::span(&shape, 1), SegmentStyle{});
  enc.set_missing_msbs(0, 0, 0);
  std::vector<std::vector<BlockContribution>> c(1, std::vector<BlockContribution>(1));
  c[0][0] = {1, {5}};
  std::vector<uint8_t> out;
  EXPECT_EQ(enc.encode_packet(0, c, {}, 0, out), 1u);
  EXPECT_EQ(out, (std::vector<uint8_t>{0xE5}));
  // Layer 1: 2 passes of 3 bytes: 1 1 (included) 10 (2 passes) 0 0011 (3 + log2(2) = 4 bits).
  out.clear();
  c[0][0] = {2, {3}};
  EXPECT_EQ(enc.encode_packet(1, c, {}, 1, out), 2u);
  EXPECT_EQ(out, (std::vector<uint8_t>{0xE1, 0x80}));
  // Layer 2: nothing, with SOP (Nsop = 2) and EPH: an empty packet is the single bit 0.
  out.clear();
  c[0][0] = {};
  enc.encode_packet(2, c, PacketFraming{true, true}, 2, out);
  EXPECT_EQ(out, (std::vector<uint8_t>{0xFF, 0x91, 0x00, 0x04, 0x00, 0x02, 0x00, 0xFF, 0x92}));
  // Layer 3: 1 pass of 1000 bytes: Lblock 3 -> 10, seven 1s and a 0.
  out.clear();
  c[0][0] = {1, {1000}};
  enc.encode_packet(3, c, {}, 3, out);
  // 1 1 0 11111110 1111101000 -> 110111111101111101000 padded
  EXPECT_EQ(out, (std::vector<uint8_t>{0xDF, 0xDF, 0x40}));

  PacketDecoder dec(std::span(&shape, 1), SegmentStyle{});
  const std::vector<uint8_t> l0{0xE5};
  DecodedPacket p = dec.decode_packet(0, l0, {});
  EXPECT_FALSE(p.empty);
  EXPECT_EQ(p.header_bytes, 1u);
  EXPECT_EQ(p.body_bytes, 5u);
  ASSERT_EQ(p.blocks[0][0].pieces.size(), 1u);
  EXPECT_TRUE(p.blocks[0][0].first_inclusion);
  EXPECT_EQ(p.blocks[0][0].pieces[0].length, 5u);
}

struct Plan {
  SegmentStyle style;
  PacketFraming framing;
  int layers = 1;
  std::vector<PrecinctBandShape> shapes;
  // [band][block]: missing msbs, first layer (-1: never), passes per layer, lengths per layer.
  std::vector<std::vector<int>> msbs, first;
  std::vector<std::vector<std::vector<BlockContribution>>> per_layer;  // [layer][band][block]
};

Plan random_plan(std::mt19937& rng) {
  Plan p;
  p.style.bypass = rng() % 2;
  p.style.termall = rng() % 3 == 0;
  p.framing.sop = rng() % 2;
  p.framing.eph = rng() % 2;
  p.layers = 1 + static_cast<int>(rng() % 6);
  const size_t nb = rng() % 2 ? 3 : 1;
  for (size_t b = 0; b < nb; ++b) {
    p.shapes.push_back({static_cast<uint32_t>(rng() % 5), static_cast<uint32_t>(rng() % 5)});
    if (rng() % 6 == 0) p.shapes.back().blocks_x = 0;
  }
  p.msbs.resize(nb);
  p.first.resize(nb);
  p.per_layer.assign(p.layers, std::vector<std::vector<BlockContribution>>(nb));
  for (size_t b = 0; b < nb; ++b) {
    const uint32_t n = p.shapes[b].blocks_x * p.shapes[b].blocks_y;
    for (int l = 0; l < p.layers; ++l) p.per_layer[l][b].resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      p.msbs[b].push_back(static_cast<int>(rng() % 31));
      const bool never = rng() % 5 == 0;
      const int first = never ? -1 : static_cast<int>(rng() % p.layers);
      p.first[b].push_back(first);
      if (never) continue;
      int total = 0;
      for (int l = first; l < p.layers; ++l) {
        int np = static_cast<int>(rng() % 3 == 0 ? 0 : 1 + rng() % (rng() % 8 == 0 ? 164 : 12));
        if (l == first && np == 0) np = 1;
        BlockContribution& c = p.per_layer[l][b][i];
        c.new_passes = np;
        for (size_t k = 0; k < split_passes(p.style, total, np).size(); ++k) {
          const int mag = static_cast<int>(rng() % 20);
          c.piece_lengths.push_back(rng() % 7 == 0 ? 0
                                                   : static_cast<uint32_t>(rng() % (1u << mag)));
        }
        total += np;
      }
    }
  }
  return p;
}

void check_block(const Plan& p, int l, size_t b, uint32_t i, const BlockPacketInfo& got,
                 int passes_before) {
  const BlockContribution& want = p.per_layer[l][b][i];
  ASSERT_EQ(got.new_passes, want.new_passes) << "layer " << l << " band " << b << " block " << i;
  EXPECT_EQ(got.first_inclusion, p.first[b][i] == l);
  EXPECT_EQ(got.first_pass, passes_before);
  if (want.new_passes == 0) return;
  EXPECT_EQ(got.missing_msbs, p.msbs[b][i]);
  const std::vector<int> split = split_passes(p.style, passes_before, want.new_passes);
  ASSERT_EQ(got.pieces.size(), split.size());
  int pass = passes_before;
  for (size_t k = 0; k < split.size(); ++k) {
    EXPECT_EQ(got.pieces[k].length, want.piece_lengths[k]);
    EXPECT_EQ(got.pieces[k].passes, split[k]);
    pass += split[k];
    EXPECT_EQ(got.pieces[k].ends_segment, pass_ends_segment(p.style, pass - 1));
  }
}

// Headers and bodies interleaved in one stream, as in a tile-part without PPM/PPT.
// An encoder for the plan's precinct, every block that is ever included given its missing
// bit-planes.
PacketEncoder plan_encoder(const Plan& p) {
  PacketEncoder enc(p.shapes, p.style);
  for (size_t b = 0; b < p.shapes.size(); ++b)
    for (uint32_t i = 0; i < p.msbs[b].size(); ++i)
      if (p.first[b][i] >= 0) enc.set_missing_msbs(b, i, p.msbs[b][i]);
  return enc;
}

TEST(T2Packet, RandomRoundTripInStream) {
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const Plan p = random_plan(rng);
    PacketEncoder enc = plan_encoder(p);
    std::vector<uint8_t> stream;
    std::vector<size_t> header_sizes;
    for (int l = 0; l < p.layers; ++l) {
      header_sizes.push_back(enc.encode_packet(l, p.per_layer[l], p.framing, l, stream));
      for (const auto& band : p.per_layer[l]) {
        for (const auto& c : band) {
          for (uint32_t len : c.piece_lengths) stream.insert(stream.end(), len, 0xFF);
        }
      }
    }

    PacketDecoder dec(p.shapes, p.style);
    std::vector<std::vector<int>> passes(p.shapes.size());
    for (size_t b = 0; b < p.shapes.size(); ++b) passes[b].assign(p.msbs[b].size(), 0);
    size_t pos = 0;
    DecodedPacket got;  // reused across layers: stale fields would show
    for (int l = 0; l < p.layers; ++l) {
      dec.decode_packet(l, std::span(stream).subspan(pos), p.framing, true, got);
      ASSERT_EQ(got.header_bytes, header_sizes[l]) << "layer " << l;
      uint64_t body = 0;
      bool any = false;
      for (size_t b = 0; b < p.shapes.size(); ++b) {
        for (uint32_t i = 0; i < p.msbs[b].size(); ++i) {
          check_block(p, l, b, i, got.blocks[b][i], passes[b][i]);
          if (testing::Test::HasFatalFailure()) return;
          passes[b][i] += got.blocks[b][i].new_passes;
          any = any || got.blocks[b][i].new_passes > 0;
          for (uint32_t len : p.per_layer[l][b][i].piece_lengths) body += len;
        }
      }
      EXPECT_EQ(got.empty, !any);
      EXPECT_EQ(got.body_bytes, body);
      pos += got.header_bytes + got.body_bytes;
    }
    EXPECT_EQ(pos, stream.size());
  }
}

// B.10.1 as the text states it, one bit at a time: bytes of 8 bits, 7 after a 0xFF (its MSB a
// stuffed 0), the last padded with zeros, and 0x00 after a final 0xFF.
std::vector<uint8_t> literal_header(const std::vector<int>& bits) {
  std::vector<uint8_t> out;
  uint32_t cur = 0;
  int count = 0, capacity = 8;
  for (int bit : bits) {
    cur = (cur << 1) | static_cast<uint32_t>(bit);
    if (++count == capacity) {
      out.push_back(static_cast<uint8_t>(cur));
      capacity = cur == 0xFF ? 7 : 8;
      cur = 0;
      count = 0;
    }
  }
  if (count > 0) out.push_back(static_cast<uint8_t>(cur << (capacity - count)));
  if (!out.empty() && out.back() == 0xFF) out.push_back(0x00);
  return out;
}

// The writer keeps bits unstuffed in words and stuffs them when packing: random runs of ones
// (which make 0xFF bytes and so 7-bit bytes) and of mixed bits, written in fields of 0..32
// bits, give the literal bytes, whether from one writer or split over several (pack_header).
TEST(T2Packet, HeaderBitsPackAsB101) {
  for (uint32_t seed = 1; seed <= 500; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::vector<int> bits;
    const int n = std::uniform_int_distribution<int>(0, seed % 7 == 0 ? 20 : 700)(rng);
    const bool ones_heavy = seed % 3 == 0;
    for (int i = 0; i < n; ++i)
      bits.push_back(ones_heavy ? std::uniform_int_distribution<int>(0, 15)(rng) != 0
                                : std::uniform_int_distribution<int>(0, 1)(rng));
    if (seed % 5 == 0)  // end on ones: a final 0xFF needs its 0x00
      for (int i = 0; i < 8 + static_cast<int>(seed % 9); ++i) bits.push_back(1);
    const std::vector<uint8_t> want = literal_header(bits);

    // Random field widths, and the writer split into parts at random places.
    std::vector<HeaderBitWriter> parts(1);
    size_t i = 0;
    while (i < bits.size()) {
      const int width = std::min<int>(std::uniform_int_distribution<int>(0, 32)(rng),
                                      static_cast<int>(bits.size() - i));
      uint32_t v = 0;
      for (int k = 0; k < width; ++k) v = (v << 1) | static_cast<uint32_t>(bits[i + k]);
      // Bits above the field must be ignored.
      if (width < 32) v |= static_cast<uint32_t>(rng()) << width;
      if (width == 1 && rng() % 2) {
        parts.back().put_bit(v);
      } else {
        parts.back().put_bits(v, width);
      }
      i += static_cast<size_t>(width);
      if (rng() % 16 == 0) parts.emplace_back();
    }
    size_t total = 0;
    std::vector<const HeaderBitWriter*> views;
    for (const HeaderBitWriter& w : parts) {
      total += w.bit_count();
      views.push_back(&w);
    }
    EXPECT_EQ(total, bits.size());
    std::vector<uint8_t> packed = {0xAB};  // appended after what is there
    HeaderBitWriter::pack_header(views, packed);
    ASSERT_EQ(packed.size(), want.size() + 1);
    EXPECT_EQ(packed[0], 0xAB);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), packed.begin() + 1));
    if (parts.size() == 1) {
      EXPECT_EQ(parts[0].finish(), want);
    }
  }
}

// Packets coded band by band (encode_band, then pack_header of the bit 1 and the bands' bits),
// as Tier-2 writing does on several threads: each band codes all its layers before any layer
// ends, the bands in reverse order (each touches only its own state). They are encode_packet's
// packets.
TEST(T2Packet, BandwiseEqualsEncodePacket) {
  for (uint32_t seed = 2000; seed < 2300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const Plan p = random_plan(rng);
    PacketEncoder whole = plan_encoder(p);
    PacketEncoder banded = whole;
    const size_t layers = static_cast<size_t>(p.layers), bands = p.shapes.size();
    std::vector<bool> any(layers, false);
    for (size_t l = 0; l < layers; ++l)
      for (const auto& band : p.per_layer[l])
        for (const BlockContribution& c : band) any[l] = any[l] || c.new_passes > 0;
    std::vector<std::vector<HeaderBitWriter>> bits(layers, std::vector<HeaderBitWriter>(bands));
    for (size_t b = bands; b-- > 0;)
      for (size_t l = 0; l < layers; ++l)
        if (any[l]) banded.encode_band(bits[l][b], static_cast<int>(l), b, p.per_layer[l][b]);
    for (size_t l = 0; l < layers; ++l) {
      std::vector<uint8_t> want;
      whole.encode_packet(static_cast<int>(l), p.per_layer[l], PacketFraming{}, 0, want);
      HeaderBitWriter first;
      first.put_bit(any[l] ? 1 : 0);
      std::vector<const HeaderBitWriter*> parts = {&first};
      for (size_t b = 0; any[l] && b < bands; ++b) parts.push_back(&bits[l][b]);
      std::vector<uint8_t> got;
      HeaderBitWriter::pack_header(parts, got);
      banded.end_layer(static_cast<int>(l));
      EXPECT_EQ(got, want) << "layer " << l;
    }
    // A band's layer coded twice, or one the precinct has ended, is refused.
    if (bands > 0 && layers > 0) {
      HeaderBitWriter w;
      EXPECT_THROW(banded.encode_band(w, static_cast<int>(layers) - 1, 0, p.per_layer[0][0]),
                   Error);
    }
  }
}

// Headers in one buffer (as PPM/PPT hold them, EPH included) and bodies in another, where the
// SOP marker segments stay (A.7.4, A.8.1).
TEST(T2Packet, RandomRoundTripSeparateHeaders) {
  for (uint32_t seed = 1000; seed < 1200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const Plan p = random_plan(rng);
    PacketEncoder enc = plan_encoder(p);
    std::vector<uint8_t> headers, bodies;
    for (int l = 0; l < p.layers; ++l) {
      enc.encode_packet(l, p.per_layer[l], PacketFraming{false, p.framing.eph}, l, headers);
      if (p.framing.sop) {
        bodies.insert(bodies.end(), {0xFF, 0x91, 0x00, 0x04, 0x00, static_cast<uint8_t>(l)});
      }
      for (const auto& band : p.per_layer[l]) {
        for (const auto& c : band) {
          for (uint32_t len : c.piece_lengths) bodies.insert(bodies.end(), len, 0x5A);
        }
      }
    }
    PacketDecoder dec(p.shapes, p.style);
    size_t hpos = 0, bpos = 0;
    for (int l = 0; l < p.layers; ++l) {
      const DecodedPacket got =
          dec.decode_packet(l, std::span(headers).subspan(hpos), p.framing, false);
      hpos += got.header_bytes;
      const size_t sop = skip_sop(std::span(bodies).subspan(bpos));
      EXPECT_EQ(sop, p.framing.sop ? 6u : 0u);
      bpos += sop + got.body_bytes;
    }
    EXPECT_EQ(hpos, headers.size());
    EXPECT_EQ(bpos, bodies.size());
  }
}

TEST(T2Packet, BadInputThrows) {
  const PrecinctBandShape shapes[3] = {{2, 2}, {1, 3}, {2, 1}};
  const SegmentStyle style{true, false};
  PacketEncoder enc(shapes, style);
  std::vector<std::vector<BlockContribution>> c(3);
  for (size_t b = 0; b < 3; ++b) {
    c[b].resize(shapes[b].blocks_x * shapes[b].blocks_y);
    for (uint32_t i = 0; i < c[b].size(); ++i) {
      enc.set_missing_msbs(b, i, static_cast<int>(3 + i));
      c[b][i].new_passes = 12;
      c[b][i].piece_lengths = {100, 7, 9};  // passes 0-9 | 10-11 (end raw) | nothing else
    }
  }
  c[0][0].piece_lengths = {1};  // wrong number of pieces
  std::vector<uint8_t> out;
  EXPECT_THROW(enc.encode_packet(0, c, {}, 0, out), Error);
  c[0][0].piece_lengths = {100, 7};
  PacketEncoder enc2(shapes, style);
  for (size_t b = 0; b < 3; ++b)
    for (uint32_t i = 0; i < c[b].size(); ++i) enc2.set_missing_msbs(b, i, 1);
  for (auto& band : c)
    for (auto& blk : band) blk.piece_lengths = {100, 7};
  const PacketFraming eph{false, true};
  enc2.encode_packet(0, c, eph, 0, out);

  auto expect_code = [&](std::span<const uint8_t> bytes, PacketFraming f, ErrorCode code) {
    PacketDecoder dec(shapes, style);
    try {
      dec.decode_packet(0, bytes, f);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
    }
  };
  // Every truncation of the header fails cleanly.
  for (size_t n = 0; n + 1 < out.size(); ++n) {
    SCOPED_TRACE("cut at " + std::to_string(n));
    expect_code(std::span(out).first(n), eph, ErrorCode::kTruncated);
  }
  std::vector<uint8_t> bad = out;
  bad.back() = 0x93;  // not EPH
  expect_code(bad, eph, ErrorCode::kFormat);
  const std::vector<uint8_t> sop{0xFF, 0x91, 0x00, 0x05, 0x00, 0x00, 0x00};
  expect_code(sop, PacketFraming{true, false}, ErrorCode::kFormat);
  // Lblock growing without end.
  const std::vector<uint8_t> ones{0xC0 | 0x3F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F};
  PacketDecoder dec(shapes, SegmentStyle{});
  EXPECT_THROW(dec.decode_packet(0, ones, {}), Error);
}

// Errors met inside a run or a codeword name the byte that a reader of one bit at a time
// names (B.10.1): the bytes are worked out by hand, stuffing included.
TEST(T2Packet, ErrorsNameTheirByte) {
  const PrecinctBandShape one[1] = {{1, 1}};
  auto message = [&](const std::vector<uint8_t>& bytes) {
    PacketDecoder dec(one, SegmentStyle{});
    try {
      dec.decode_packet(0, bytes, {});
    } catch (const Error& e) {
      return std::to_string(static_cast<int>(e.code())) + " " + e.what();
    }
    return std::string("no error");
  };
  // 1 (not empty), 1 (included), 1 (no missing bit-plane), 0 (one pass), then 30 Lblock
  // increments: 4 in 0xEF, 8 in 0xFF, 7 in 0x7F (after 0xFF), 8 in 0xFF, 3 in 0x70 (7 bits):
  // the 30th, which takes Lblock from 3 to 33, is in byte 4.
  EXPECT_EQ(message({0xEF, 0xFF, 0x7F, 0xFF, 0x70}),
            std::to_string(static_cast<int>(ErrorCode::kFormat)) +
                " packet header (layer 0, byte 5): Lblock grows past 32");
  // The same with the header cut inside the increments.
  EXPECT_EQ(message({0xEF, 0xFF, 0x7F}),
            std::to_string(static_cast<int>(ErrorCode::kTruncated)) +
                " packet header: ends at byte 3 in the middle of its bits");
  // 1, 1, 1, then the pass count codeword 111111111 + 7 bits, cut after 3 of the 7.
  EXPECT_EQ(message({0xFF, 0x7F}), std::to_string(static_cast<int>(ErrorCode::kTruncated)) +
                                       " packet header: ends at byte 2 in the middle of its bits");
  // Complete: 37 + 0b1010101 = 122 passes, no Lblock increment, a length of 3 + 6 bits. Bits
  // 111 111111111 1010101 0 000000001: 0xFF, 0x7D (7 bits), 0x50, 0x04 (padded), as the
  // encoder writes them.
  const std::vector<uint8_t> bytes{0xFF, 0x7D, 0x50, 0x04};
  PacketEncoder enc(one, SegmentStyle{});
  enc.set_missing_msbs(0, 0, 0);
  std::vector<std::vector<BlockContribution>> c(1, std::vector<BlockContribution>(1));
  c[0][0].new_passes = 122;
  c[0][0].piece_lengths = {1};
  std::vector<uint8_t> written;
  enc.encode_packet(0, c, {}, 0, written);
  EXPECT_EQ(written, bytes);
  PacketDecoder dec(one, SegmentStyle{});
  const DecodedPacket got = dec.decode_packet(0, bytes, {});
  ASSERT_EQ(got.blocks[0][0].new_passes, 122);
  EXPECT_EQ(got.body_bytes, 1u);
  EXPECT_EQ(got.header_bytes, 4u);
  for (size_t n = 0; n < bytes.size(); ++n) {  // cut anywhere: the end of the bytes is named
    EXPECT_EQ(message(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n)),
              std::to_string(static_cast<int>(ErrorCode::kTruncated)) +
                  " packet header: ends at byte " + std::to_string(n) +
                  " in the middle of its bits");
  }
}

// Random and mutated bytes: every outcome is a decoded header inside the buffer or a
// gj2k::Error, never a crash or an overrun (run under the sanitizer build too).
TEST(T2Packet, GarbageNeverCrashes) {
  for (uint32_t seed = 1; seed <= 2000; ++seed) {
    std::mt19937 rng(seed);
    const Plan p = random_plan(rng);
    std::vector<uint8_t> bytes;
    if (seed % 2) {
      bytes.resize(rng() % 64);
      for (auto& b : bytes) b = static_cast<uint8_t>(rng() % 3 == 0 ? 0xFF : rng());
    } else {
      PacketEncoder enc = plan_encoder(p);
      for (int l = 0; l < p.layers; ++l) enc.encode_packet(l, p.per_layer[l], p.framing, l, bytes);
      for (int k = 0; k < 4 && !bytes.empty(); ++k)
        bytes[rng() % bytes.size()] ^= 1u << (rng() % 8);
      bytes.resize(rng() % (bytes.size() + 1));
    }
    PacketDecoder dec(p.shapes, p.style);
    size_t pos = 0;
    try {
      for (int l = 0; l < p.layers; ++l) {
        const DecodedPacket got = dec.decode_packet(l, std::span(bytes).subspan(pos), p.framing);
        pos += got.header_bytes;
        ASSERT_LE(pos, bytes.size()) << "seed " << seed;
      }
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace gj2k::entropy
