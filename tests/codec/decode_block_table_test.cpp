// The code-block table of the GPU decode (codec/tile_backend.h CodeBlockTable, built by
// codec/decoder_tile.h tile_block_table), decoded on the host as the device decodes it: its
// segments' bytes laid out as one buffer (source, then the copied bytes), every block through
// the shared Tier-1 decoder (entropy/t1_dec_block.h decode_block_hd) and reconstruct_block
// into zeroed planes, then the CPU backend's inverse tail. It must equal the CPU decode of the
// same tile sample for sample, on streams our encoder writes: one layer, several layers,
// tiles of several tile-parts with precincts, every code-block style, and truncated streams
// under allow_partial. Segments that lie in one packet body must be referenced in the tile's
// data, not copied.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/decoder_tile.h"
#include "codec/markers/reader.h"
#include "codec/synthetic.h"
#include "entropy/t1_dec_block.h"
#include "gj2k/encoder.h"
#include "transform/quant.h"

namespace gj2k::codec {
namespace {

// The table's segments as the device receives them: source, then bytes, in one buffer.
std::vector<uint8_t> device_bytes(const CodeBlockTable& table) {
  std::vector<uint8_t> all(table.source.begin(), table.source.end());
  all.insert(all.end(), table.bytes.begin(), table.bytes.end());
  return all;
}

// The tile decoded from its tables (one, or the parts of tile_block_parts) on the host, as
// the GPU decode does on the device.
std::vector<TileComponentSamples> decode_tables(std::vector<CoefficientPlane> planes, bool mct,
                                                const std::vector<const CodeBlockTable*>& tables,
                                                int threads) {
  for (CoefficientPlane& p : planes) {
    if (!p.decode) continue;
    const size_t n = size_t{p.rect.width()} * p.rect.height();
    p.allocate(n);
    if (p.reversible)
      std::fill_n(p.ints.data(), n, 0);
    else
      std::fill_n(p.floats(), n, 0.0f);
  }
  const entropy::t1::DecodeTables dt = entropy::t1::host_decode_tables();
  for (const CodeBlockTable* table : tables) {
    const std::vector<uint8_t> bytes = device_bytes(*table);
    for (const CodeBlockTable::Block& b : table->blocks) {
      CoefficientPlane& p = planes.at(b.component);
      std::vector<int32_t> values(size_t{b.w} * b.h);
      std::vector<uint32_t> state(entropy::t1::state_words(b.w, b.h));
      const auto status = entropy::t1::decode_block_hd<false>(
          dt, bytes.data(), table->segments.data() + b.seg_first, b.seg_count, b.planes, b.band,
          b.style, values.data(), b.w, b.w, b.h, state.data(), nullptr);
      EXPECT_TRUE(status == entropy::t1::BlockStatus::kOk ||
                  status == entropy::t1::BlockStatus::kExtraPasses);
      const size_t pitch = p.rect.width();
      const size_t at = size_t{b.y} * pitch + b.x;
      if (p.reversible) {
        transform::reconstruct_block(values.data(), b.w, b.w, b.h, b.q, nullptr, 0);
        for (uint32_t y = 0; y < b.h; ++y)
          std::copy_n(values.data() + size_t{y} * b.w, b.w, p.ints.data() + at + y * pitch);
      } else {
        transform::reconstruct_block(values.data(), b.w, b.w, b.h, b.q, p.floats() + at, pitch);
      }
    }
  }
  std::vector<TileComponentSamples> out(planes.size());
  cpu_backend().inverse(planes, mct, threads, out);
  return out;
}

std::vector<TileComponentSamples> decode_table(TileBlockTable& tt, int threads) {
  return decode_tables(tt.planes, tt.mct, {&tt.table}, threads);
}

// `image` encoded with `params`, cut to `cut` tenths of its bytes (0: whole).
std::vector<uint8_t> encoded(const Image& image, const EncodeParams& params, size_t cut) {
  std::vector<uint8_t> bytes = Encoder().encode(image, params);
  if (cut) bytes.resize(bytes.size() * cut / 10);
  return bytes;
}
Codestream parsed(const std::vector<uint8_t>& bytes, bool cut) {
  ReadOptions ro;
  ro.allow_truncated = cut;
  return read_codestream(bytes, ro);
}
// Every component on 2 threads; a cut stream with allow_partial.
TileDecodeOptions all_components(bool cut) {
  TileDecodeOptions o;
  o.components.assign(3, true);
  o.allow_partial = cut;
  o.threads = 2;
  return o;
}

struct Case {
  std::string name;
  EncodeParams params;
  size_t cut = 0;  // keep this many bytes of the stream (0: all), decoded with allow_partial
  bool one_layer = false;  // no segment continues over packets
};

std::vector<Case> cases() {
  std::vector<Case> out;
  EncodeParams p;
  p.cblk_width = p.cblk_height = 32;
  out.push_back({"lossless one layer", p, 0, true});
  EncodeParams layers = p;
  layers.irreversible = true;
  layers.rates = {60, 20, 6};
  out.push_back({"9/7 three layers", layers, 0, false});
  EncodeParams tiled = p;
  tiled.tile_width = tiled.tile_height = 96;
  tiled.tile_parts = TilePartSplit::kResolution;
  tiled.precincts = {{64, 64}, {32, 32}};
  tiled.rates = {30, 8, 1};
  tiled.sop = tiled.eph = true;
  out.push_back({"tiles of several tile-parts, precincts, layers", tiled, 0, false});
  EncodeParams one_tp = tiled;
  one_tp.rates.clear();
  out.push_back({"tiles of several tile-parts, one layer", one_tp, 0, true});
  for (uint8_t style : {1, 4, 5, 2 | 8 | 16 | 32, 63}) {
    EncodeParams s = p;
    s.cblk_style = style;
    s.rates = {40, 10, 1};
    // termall (4): every pass ends a segment, none continues
    out.push_back({"style " + std::to_string(style) + " three layers", s, 0, (style & 4) != 0});
    s.rates.clear();
    out.push_back({"style " + std::to_string(style) + " one layer", s, 0, true});
  }
  EncodeParams order = layers;
  order.order = ProgressionOrder::kRLCP;
  out.push_back({"9/7 layers RLCP, cut at 60%", order, 6, false});
  out.push_back({"lossless one layer, cut at 50%", p, 5, true});
  return out;
}

TEST(DecodeBlockTable, HostDecodeOfTheTableEqualsTheCpuDecode) {
  const Image image = synthetic_image(211, 157);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<uint8_t> bytes = encoded(image, c.params, c.cut);
    const Codestream code = parsed(bytes, c.cut != 0);
    TileDecodeOptions o = all_components(c.cut != 0);
    size_t referenced = 0, copied = 0, blocks = 0;
    for (uint32_t t = 0; t < code.tiles.size(); ++t) {
      SCOPED_TRACE("tile " + std::to_string(t));
      const std::vector<TileComponentSamples> want = decode_tile(bytes, code, t, o);
      TileBlockTable tt = tile_block_table(bytes, code, t, o);
      // Every segment within the buffer, none crossing from source into bytes.
      const size_t src = tt.table.source.size(), all = src + tt.table.bytes.size();
      for (const auto& s : tt.table.segments) {
        ASSERT_LE(uint64_t{s.offset} + s.length, all);
        if (s.offset < src) {
          ASSERT_LE(s.offset + s.length, src);
          referenced += s.length;
        } else {
          copied += s.length;
        }
      }
      blocks += tt.table.blocks.size();
      const std::vector<TileComponentSamples> got = decode_table(tt, 2);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].rect, want[k].rect) << "component " << k;
        ASSERT_EQ(got[k].samples.size(), want[k].samples.size()) << "component " << k;
        EXPECT_TRUE(got[k].samples == want[k].samples) << "component " << k;
      }
    }
    EXPECT_GT(blocks, 0u);
    EXPECT_GT(referenced + copied, 0u);
    if (c.one_layer) {
      EXPECT_EQ(copied, 0u) << "one layer: every segment lies in one packet";
      EXPECT_GT(referenced, 0u);
    }
    if (!c.one_layer && !c.cut) {
      EXPECT_GT(copied, 0u) << "layers: segments continue";
    }
  }
}

// Reading the first layer of a position-progressive stream: the table copies what it keeps
// rather than reference a source range mostly of layers it does not decode.
TEST(DecodeBlockTable, FewKeptLayersAreCopied) {
  EncodeParams p;
  p.order = ProgressionOrder::kPCRL;
  p.precincts = {{64, 64}};
  p.rates = {200, 100, 50, 20, 8, 1};
  const std::vector<uint8_t> bytes = Encoder().encode(synthetic_image(640, 480), p);
  const Codestream code = read_codestream(bytes);
  TileDecodeOptions o;
  o.components.assign(3, true);
  o.max_layers = 1;
  TileBlockTable tt = tile_block_table(bytes, code, 0, o);
  EXPECT_TRUE(tt.table.source.empty());
  EXPECT_FALSE(tt.table.bytes.empty());
  const std::vector<TileComponentSamples> want = decode_tile(bytes, code, 0, o);
  const std::vector<TileComponentSamples> got = decode_table(tt, 1);
  for (size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(got[k].samples == want[k].samples);
}

// Decoding at a lower resolution (reduce): the table holds the kept resolutions only, and
// decodes as the CPU does.
TEST(DecodeBlockTable, ReducedResolutions) {
  EncodeParams p;
  p.order = ProgressionOrder::kRLCP;
  p.rates = {20, 1};
  const std::vector<uint8_t> bytes = Encoder().encode(synthetic_image(300, 200), p);
  const Codestream code = read_codestream(bytes);
  for (uint32_t reduce : {1u, 3u}) {
    TileDecodeOptions o;
    o.components.assign(3, true);
    o.reduce = reduce;
    TileBlockTable tt = tile_block_table(bytes, code, 0, o);
    EXPECT_LT(tt.table.source.size() + tt.table.bytes.size(), bytes.size()) << reduce;
    const std::vector<TileComponentSamples> want = decode_tile(bytes, code, 0, o);
    const std::vector<TileComponentSamples> got = decode_table(tt, 1);
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].rect, want[k].rect) << reduce;
      EXPECT_TRUE(got[k].samples == want[k].samples) << "reduce " << reduce << " component " << k;
    }
  }
}

// The tables in the parts of the GPU decode of a large tile (tile_block_parts: the early ones
// built from inside Tier-2 from the resolutions it has finished) list the blocks of the one
// table, each once, and decode to the CPU's samples; the first part holds only complete
// resolutions (of a resolution-first order: the lower ones; of CPRL: the first component), the
// second those completed next (of CPRL: the second component); a cut stream gives the same
// warnings, a damaged one the same error.
TEST(DecodeBlockTable, TablesInPartsDecodeAsTheOneTable) {
  struct PartCase {
    std::string name;
    EncodeParams params;
    size_t cut = 0;  // keep this many tenths of the stream, allow_partial
    uint32_t reduce = 0;
    size_t parts = 3;  // early parts from inside Tier-2 and the rest, at most 3 allowed
  };
  std::vector<PartCase> cases;
  EncodeParams p;
  p.cblk_width = p.cblk_height = 16;
  cases.push_back({"lossless LRCP one layer", p});
  EncodeParams layers = p;
  layers.irreversible = true;
  layers.rates = {60, 20, 6};
  cases.push_back({"9/7 LRCP three layers", layers});
  EncodeParams rlcp = layers;
  rlcp.order = ProgressionOrder::kRLCP;
  cases.push_back({"9/7 RLCP three layers", rlcp});
  cases.push_back({"9/7 RLCP, reduce 1", rlcp, 0, 1});
  cases.push_back({"9/7 RLCP cut at 70%", rlcp, 7, 0, 2});
  EncodeParams cprl = p;
  cprl.order = ProgressionOrder::kCPRL;
  cprl.precincts = {{64, 64}};
  cases.push_back({"lossless CPRL, precincts", cprl});
  EncodeParams rpcl = layers;
  rpcl.order = ProgressionOrder::kRPCL;
  rpcl.precincts = {{32, 32}};
  rpcl.sop = rpcl.eph = true;
  cases.push_back({"9/7 RPCL, precincts, SOP and EPH", rpcl});
  const Image image = synthetic_image(307, 211);
  for (const PartCase& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<uint8_t> bytes = encoded(image, c.params, c.cut);
    const Codestream code = parsed(bytes, c.cut != 0);
    TileDecodeOptions o = all_components(c.cut != 0);
    o.reduce = c.reduce;
    std::vector<std::string> warn_one;
    TileBlockTable one = tile_block_table(bytes, code, 0, o, &warn_one);
    const std::vector<TileComponentSamples> want = decode_tile(bytes, code, 0, o);
    for (const size_t most : {size_t{2}, size_t{3}}) {
      SCOPED_TRACE("at most " + std::to_string(most) + " parts");
      std::vector<std::string> warn_parts;
      const TileBlockParts parts = tile_block_parts(bytes, code, 0, o, &warn_parts, most);
      EXPECT_EQ(warn_parts, warn_one);
      ASSERT_EQ(parts.tables.size(), std::min(c.parts, most));
      size_t blocks = 0;
      std::vector<const CodeBlockTable*> tables;
      for (const CodeBlockTable& t : parts.tables) {
        EXPECT_FALSE(t.blocks.empty());
        blocks += t.blocks.size();
        tables.push_back(&t);
      }
      EXPECT_EQ(blocks, one.table.blocks.size());
      if (parts.tables.size() > 1) {
        // The first part: the lower resolutions (the top-left quarter of each plane in the
        // Mallat arrangement), or for CPRL the first component.
        for (const CodeBlockTable::Block& b : parts.tables[0].blocks) {
          if (c.params.order == ProgressionOrder::kCPRL) {
            EXPECT_EQ(b.component, 0u);
            continue;
          }
          const transform::Rect& r = one.planes.at(b.component).rect;
          EXPECT_LE(b.x + b.w, (r.width() + 1) / 2);
          EXPECT_LE(b.y + b.h, (r.height() + 1) / 2);
        }
      }
      if (parts.tables.size() > 2 && c.params.order == ProgressionOrder::kCPRL) {
        for (const CodeBlockTable::Block& b : parts.tables[1].blocks)
          EXPECT_EQ(b.component, 1u);  // the second component
      }
      const std::vector<TileComponentSamples> got = decode_tables(one.planes, one.mct, tables, 2);
      for (size_t k = 0; k < got.size(); ++k)
        EXPECT_TRUE(got[k].samples == want[k].samples) << "component " << k;
    }
  }
  // A damaged code-block: the same error either way.
  EncodeParams d = p;
  d.order = ProgressionOrder::kRLCP;
  std::vector<uint8_t> bytes = Encoder().encode(image, d);
  const Codestream code = read_codestream(bytes);
  TileDecodeOptions o;
  o.components.assign(3, true);
  std::string want, got;
  for (size_t at = bytes.size() / 3; at < bytes.size() - 2 && want.empty(); at += 97) {
    std::vector<uint8_t> bad = bytes;
    bad[at] = 0xFF;
    bad[at + 1] = 0xFF;
    try {
      tile_block_table(bad, code, 0, o);
    } catch (const Error& e) {
      want = e.what();
      try {
        tile_block_parts(bad, code, 0, o);
      } catch (const Error& e2) {
        got = e2.what();
      }
    }
  }
  ASSERT_FALSE(want.empty()) << "no damage found that the table refuses";
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace gj2k::codec
