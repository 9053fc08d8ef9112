// Interoperability: OpenJPEG decodes our code-blocks. Each test wraps the blocks of a small
// image (one tile, one component, 8-bit, 5/3 reversible, 0 or 1 decomposition level, one
// 64x64 code-block per subband, one layer) in a minimal codestream written here (a Tier-2
// of its own, 15444-1 B.10 and Annex A), decodes it with libopenjp2 and expects the image back
// bit for bit, for every code-block style.
#ifdef GJ2K_HAVE_OPENJPEG
#include <openjpeg.h>

#include "tests/common/opj_memory.h"
#endif
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "entropy/t1.h"

namespace gj2k::entropy {
namespace {

#ifdef GJ2K_HAVE_OPENJPEG

// Packet header bits (B.10.1): MSB first, a byte after 0xFF holds 7 bits.
struct HeaderBits {
  std::vector<uint8_t> out;
  uint32_t c = 0;
  int ct = 8;
  bool ff = false;
  void put(uint32_t bit) {
    c = (c << 1) | bit;
    if (--ct == 0) {
      out.push_back(static_cast<uint8_t>(c));
      ff = c == 0xFF;
      ct = ff ? 7 : 8;
      c = 0;
    }
  }
  void put_bits(uint32_t v, int n) {
    for (int i = n - 1; i >= 0; --i) put((v >> i) & 1);
  }
  void flush() {
    if (ct != (ff ? 7 : 8)) {
      out.push_back(static_cast<uint8_t>(c << ct));
      ff = out.back() == 0xFF;
    }
    if (ff) out.push_back(0);
  }
};

// Number of coding passes, Table B.4.
void put_num_passes(HeaderBits& hb, uint32_t n) {
  if (n == 1) {
    hb.put(0);
  } else if (n == 2) {
    hb.put_bits(2, 2);
  } else if (n <= 5) {
    hb.put_bits(3, 2);
    hb.put_bits(n - 3, 2);
  } else if (n <= 36) {
    hb.put_bits(0xF, 4);
    hb.put_bits(n - 6, 5);
  } else {
    hb.put_bits(0x1FF, 9);
    hb.put_bits(n - 37, 7);
  }
}

// One packet holding all passes of one code-block per band (first inclusion in layer 0).
std::vector<uint8_t> packet(const std::vector<const EncodedBlock*>& blocks) {
  HeaderBits hb;
  hb.put(1);  // non-empty packet
  for (const EncodedBlock* b : blocks) {
    if (b->passes.empty()) {
      hb.put(0);  // inclusion tag tree (single node): not included in layer 0
      continue;
    }
    hb.put(1);                                                 // included in layer 0
    for (uint32_t i = 0; i < b->missing_msbs; ++i) hb.put(0);  // zero bit-planes tag tree
    hb.put(1);
    put_num_passes(hb, static_cast<uint32_t>(b->passes.size()));
    // Codeword segments: split at terminated passes; each length in Lblock + log2(passes).
    struct Seg {
      uint32_t len, passes;
    };
    std::vector<Seg> segs;
    uint32_t start = 0, first = 0;
    for (uint32_t i = 0; i < b->passes.size(); ++i) {
      if (b->passes[i].terminated) {
        segs.push_back({b->passes[i].end - start, i - first + 1});
        start = b->passes[i].end;
        first = i + 1;
      }
    }
    int inc = 0;
    for (const Seg& s : segs) {
      const int avail = 3 + static_cast<int>(std::bit_width(s.passes)) - 1;
      inc = std::max(inc, static_cast<int>(std::bit_width(s.len)) - avail);
    }
    for (int i = 0; i < inc; ++i) hb.put(1);
    hb.put(0);
    for (const Seg& s : segs) {
      hb.put_bits(s.len, 3 + inc + static_cast<int>(std::bit_width(s.passes)) - 1);
    }
  }
  hb.flush();
  for (const EncodedBlock* b : blocks) hb.out.insert(hb.out.end(), b->data.begin(), b->data.end());
  return hb.out;
}

void put16(std::vector<uint8_t>& v, uint32_t x) {
  v.push_back(static_cast<uint8_t>(x >> 8));
  v.push_back(static_cast<uint8_t>(x));
}
void put32(std::vector<uint8_t>& v, uint32_t x) {
  put16(v, x >> 16);
  put16(v, x & 0xFFFF);
}

// SOC, SIZ, COD, QCD, SOT, SOD, packets, EOC (Annex A) for a w x h 8-bit unsigned image.
std::vector<uint8_t> codestream(uint32_t w, uint32_t h, uint32_t levels, uint8_t style,
                                const std::vector<uint8_t>& packets) {
  std::vector<uint8_t> cs;
  put16(cs, 0xFF4F);
  put16(cs, 0xFF51);
  put16(cs, 41);
  put16(cs, 0);
  for (uint32_t v : {w, h, 0u, 0u, w, h, 0u, 0u}) put32(cs, v);
  put16(cs, 1);
  cs.insert(cs.end(), {7, 1, 1});
  put16(cs, 0xFF52);
  put16(cs, 12);
  cs.push_back(0);  // Scod
  cs.push_back(0);  // LRCP
  put16(cs, 1);     // one layer
  cs.push_back(0);  // no MCT
  cs.insert(cs.end(), {static_cast<uint8_t>(levels), 4, 4, style, 1});
  put16(cs, 0xFF5C);
  const uint32_t nbands = 1 + 3 * levels;
  put16(cs, 3 + nbands);
  cs.push_back(2 << 5);  // 2 guard bits, no quantization
  // epsilon_b = 8 + gain_b: LL 0 (8 with no level), HL/LH 1, HH 2.
  cs.push_back(8 << 3);
  if (levels) cs.insert(cs.end(), {9 << 3, 9 << 3, 10 << 3});
  const size_t sot = cs.size();
  put16(cs, 0xFF90);
  put16(cs, 10);
  put16(cs, 0);
  put32(cs, 0);  // Psot, patched below
  cs.push_back(0);
  cs.push_back(1);
  put16(cs, 0xFF93);
  cs.insert(cs.end(), packets.begin(), packets.end());
  const uint32_t psot = static_cast<uint32_t>(cs.size() - sot);
  for (int i = 0; i < 4; ++i) cs[sot + 6 + i] = static_cast<uint8_t>(psot >> (24 - 8 * i));
  put16(cs, 0xFFD9);
  return cs;
}

void count_message(const char*, void* user) {
  ++*static_cast<int*>(user);
}

// Decodes with OpenJPEG; returns the samples (empty on failure), counting warnings.
std::vector<int32_t> opj_decode_all(const std::vector<uint8_t>& cs, int* warnings) {
  std::vector<int32_t> result;
  gj2k::test::opj::Buffer ms{cs};
  opj_stream_t* st = gj2k::test::opj::make_stream(ms, true);
  opj_codec_t* codec = opj_create_decompress(OPJ_CODEC_J2K);
  opj_set_warning_handler(codec, count_message, warnings);
  opj_set_error_handler(codec, count_message, warnings);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  opj_image_t* image = nullptr;
  if (opj_setup_decoder(codec, &params) && opj_read_header(st, codec, &image) &&
      opj_decode(codec, st, image) && opj_end_decompress(codec, st)) {
    const opj_image_comp_t& c = image->comps[0];
    result.assign(c.data, c.data + static_cast<size_t>(c.w) * c.h);
  }
  if (image) opj_image_destroy(image);
  opj_destroy_codec(codec);
  opj_stream_destroy(st);
  return result;
}

void lift53(int32_t* x, size_t n, size_t s) {
  if (n < 2) return;
  auto at = [&](ptrdiff_t i) -> int32_t& {
    if (i < 0) i = -i;
    if (i >= static_cast<ptrdiff_t>(n)) i = 2 * (static_cast<ptrdiff_t>(n) - 1) - i;
    return x[i * s];
  };
  for (ptrdiff_t i = 1; i < static_cast<ptrdiff_t>(n); i += 2)
    at(i) -= (at(i - 1) + at(i + 1)) >> 1;
  for (ptrdiff_t i = 0; i < static_cast<ptrdiff_t>(n); i += 2) {
    at(i) += (at(i - 1) + at(i + 1) + 2) >> 2;
  }
  std::vector<int32_t> tmp;
  for (size_t i = 0; i < n; i += 2) tmp.push_back(x[i * s]);
  for (size_t i = 1; i < n; i += 2) tmp.push_back(x[i * s]);
  for (size_t i = 0; i < n; ++i) x[i * s] = tmp[i];
}

// A random image (smooth gradient, noise, a few edges), coded with `levels` and `style`.
void check_openjpeg(uint32_t seed, uint32_t w, uint32_t h, uint32_t levels, uint8_t style) {
  const std::string what = "seed " + std::to_string(seed) + " size " + std::to_string(w) + "x" +
                           std::to_string(h) + " levels " + std::to_string(levels) + " style 0x" +
                           std::to_string(style);
  std::mt19937 rng(seed);
  std::vector<int32_t> img(static_cast<size_t>(w) * h);
  const int noise = 1 + static_cast<int>(rng() % 64);
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      int v = static_cast<int>((x * 3 + y * 2) % 256) + static_cast<int>(rng() % noise) -
              noise / 2 + ((x / 7 + y / 5) % 3 == 0 ? 60 : 0);
      img[y * w + x] = std::clamp(v, 0, 255);
    }
  }
  std::vector<int32_t> c(img);
  for (auto& v : c) v -= 128;
  struct Subband {
    uint32_t x0, y0, bw, bh, mb;
    Band kind;
  };
  std::vector<std::vector<Subband>> resolutions;
  if (levels == 0) {
    resolutions.push_back({{0, 0, w, h, 2 + 8 - 1, Band::kLL}});
  } else {
    // 2D_SD (F.4.2): vertical lifting first, then horizontal.
    for (uint32_t x = 0; x < w; ++x) lift53(&c[x], h, w);
    for (uint32_t y = 0; y < h; ++y) lift53(&c[y * w], w, 1);
    const uint32_t lw = (w + 1) / 2, lh = (h + 1) / 2;
    resolutions.push_back({{0, 0, lw, lh, 9, Band::kLL}});
    resolutions.push_back({{lw, 0, w - lw, lh, 10, Band::kHL},
                           {0, lh, lw, h - lh, 10, Band::kLH},
                           {lw, lh, w - lw, h - lh, 11, Band::kHH}});
  }
  std::vector<uint8_t> packets;
  for (const auto& res : resolutions) {
    std::vector<EncodedBlock> enc;
    for (const Subband& b : res) {
      std::vector<int32_t> q(static_cast<size_t>(b.bw) * b.bh);
      for (uint32_t y = 0; y < b.bh; ++y) {
        for (uint32_t x = 0; x < b.bw; ++x) q[y * b.bw + x] = c[(b.y0 + y) * w + b.x0 + x];
      }
      enc.push_back(encode_block(q.data(), b.bw, b.bw, b.bh, b.kind, style, b.mb));
    }
    std::vector<const EncodedBlock*> ptrs;
    for (const auto& e : enc) ptrs.push_back(&e);
    const auto p = packet(ptrs);
    packets.insert(packets.end(), p.begin(), p.end());
  }
  int warnings = 0;
  const auto decoded = opj_decode_all(codestream(w, h, levels, style, packets), &warnings);
  ASSERT_EQ(decoded.size(), img.size()) << what << ": OpenJPEG failed";
  EXPECT_EQ(warnings, 0) << what;
  size_t bad = 0;
  for (size_t k = 0; k < img.size(); ++k) bad += decoded[k] != img[k];
  for (size_t k = 0; k < img.size(); ++k) {
    ASSERT_EQ(decoded[k], img[k]) << bad << " mismatches " << what << " sample (" << k % w << ", "
                                  << k / w << ")";
  }
}

TEST(T1OpenJpeg, DecodesOurBlocksEveryStyle) {
  for (int style = 0; style < 64; ++style) {
    check_openjpeg(100 + style, 64, 64, 0, static_cast<uint8_t>(style));
    if (HasFatalFailure()) return;
  }
}

TEST(T1OpenJpeg, DecodesOurBlocksEveryOrientation) {
  uint32_t seed = 300;
  for (int style : {0, 0x01, 0x08, 0x3F, 0x15, 0x2A}) {
    for (auto [w, h] : {std::pair{64u, 64u}, {61u, 37u}, {2u, 9u}, {1u, 1u}, {33u, 64u}}) {
      check_openjpeg(++seed, w, h, 1, static_cast<uint8_t>(style));
      if (HasFatalFailure()) return;
    }
  }
}

// ---- The other way: OpenJPEG encodes, we decode its code-blocks -----------------------------

OPJ_SIZE_T mem_write(void* buf, OPJ_SIZE_T n, void* user) {
  auto* v = static_cast<std::vector<uint8_t>*>(user);
  v->insert(v->end(), static_cast<uint8_t*>(buf), static_cast<uint8_t*>(buf) + n);
  return n;
}
OPJ_OFF_T mem_wskip(OPJ_OFF_T n, void* user) {
  auto* v = static_cast<std::vector<uint8_t>*>(user);
  v->resize(v->size() + static_cast<size_t>(n));
  return n;
}
OPJ_BOOL mem_wseek(OPJ_OFF_T, void*) {
  return OPJ_FALSE;
}

std::vector<uint8_t> encode_with_openjpeg(const std::vector<int32_t>& img, uint32_t w, uint32_t h,
                                          uint32_t levels, uint8_t style) {
  opj_cparameters_t params;
  opj_set_default_encoder_parameters(&params);
  params.tcp_numlayers = 1;
  params.tcp_rates[0] = 0;
  params.cp_disto_alloc = 1;
  params.numresolution = static_cast<int>(levels) + 1;
  params.cblockw_init = 64;
  params.cblockh_init = 64;
  params.mode = style;
  params.irreversible = 0;
  params.tcp_mct = 0;
  opj_image_cmptparm_t cp{};
  cp.dx = cp.dy = 1;
  cp.w = w;
  cp.h = h;
  cp.prec = 8;
  cp.sgnd = 0;
  opj_image_t* image = opj_image_create(1, &cp, OPJ_CLRSPC_GRAY);
  image->x1 = w;
  image->y1 = h;
  std::copy(img.begin(), img.end(), image->comps[0].data);
  std::vector<uint8_t> out;
  opj_codec_t* codec = opj_create_compress(OPJ_CODEC_J2K);
  opj_stream_t* st = opj_stream_create(1 << 16, OPJ_FALSE);
  opj_stream_set_user_data(st, &out, nullptr);
  opj_stream_set_write_function(st, mem_write);
  opj_stream_set_skip_function(st, mem_wskip);
  opj_stream_set_seek_function(st, mem_wseek);
  const bool ok = opj_setup_encoder(codec, &params, image) &&
                  opj_start_compress(codec, image, st) && opj_encode(codec, st) &&
                  opj_end_compress(codec, st);
  opj_stream_destroy(st);
  opj_destroy_codec(codec);
  opj_image_destroy(image);
  if (!ok) out.clear();
  return out;
}

// Packet header reader (B.10.1).
struct HeaderReader {
  const uint8_t* p;
  const uint8_t* end;
  uint32_t c = 0;
  int ct = 0;
  uint32_t bit() {
    if (ct == 0) {
      const bool after_ff = c == 0xFF;
      c = p < end ? *p++ : 0;
      ct = after_ff ? 7 : 8;
    }
    return (c >> --ct) & 1;
  }
  uint32_t bits(int n) {
    uint32_t v = 0;
    while (n-- > 0) v = (v << 1) | bit();
    return v;
  }
  void align() {
    if (c == 0xFF) ++p;  // the stuffed byte after a final 0xFF
    ct = 0;
    c = 0;
  }
};

uint32_t get_num_passes(HeaderReader& r) {
  if (!r.bit()) return 1;
  if (!r.bit()) return 2;
  const uint32_t two = r.bits(2);
  if (two < 3) return 3 + two;
  const uint32_t five = r.bits(5);
  if (five < 31) return 6 + five;
  return 37 + r.bits(7);
}

struct OpjBlock {
  uint32_t missing = 0;
  std::vector<Segment> segs;
};

// Parses one packet with one code-block per band; returns the position after its body.
const uint8_t* parse_packet(const uint8_t* p, const uint8_t* end, size_t nbands, uint8_t style,
                            std::vector<OpjBlock>& blocks) {
  HeaderReader r{p, end};
  blocks.assign(nbands, {});
  if (!r.bit()) {
    r.align();
    return r.p;
  }
  std::vector<std::vector<uint32_t>> lengths(nbands);
  for (size_t b = 0; b < nbands; ++b) {
    if (!r.bit()) continue;  // not included
    while (!r.bit()) ++blocks[b].missing;
    uint32_t passes = get_num_passes(r);
    uint32_t lblock = 3;
    while (r.bit()) ++lblock;
    uint32_t first = 0;
    while (passes > 0) {
      const uint32_t n = std::min(passes, passes_in_segment(style, first));
      const uint32_t len = r.bits(static_cast<int>(lblock + std::bit_width(n) - 1));
      blocks[b].segs.push_back({nullptr, len, n});
      passes -= n;
      first += n;
    }
  }
  r.align();
  const uint8_t* body = r.p;
  for (auto& blk : blocks) {
    for (auto& s : blk.segs) {
      s.data = body;
      body += s.length;
    }
  }
  return body;
}

size_t find_marker(const std::vector<uint8_t>& cs, uint16_t m, size_t from = 0) {
  for (size_t i = from; i + 1 < cs.size(); ++i) {
    if (cs[i] == (m >> 8) && cs[i + 1] == (m & 0xFF)) return i;
  }
  return cs.size();
}

void check_opj_to_ours(uint32_t seed, uint32_t w, uint32_t h, uint32_t levels, uint8_t style) {
  const std::string what = "seed " + std::to_string(seed) + " size " + std::to_string(w) + "x" +
                           std::to_string(h) + " levels " + std::to_string(levels) + " style 0x" +
                           std::to_string(style);
  std::mt19937 rng(seed);
  std::vector<int32_t> img(static_cast<size_t>(w) * h);
  const int noise = 1 + static_cast<int>(rng() % 96);
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      const int v = static_cast<int>((x * 5 + y * 3) % 256) + static_cast<int>(rng() % noise);
      img[y * w + x] = std::clamp(v, 0, 255);
    }
  }
  const auto cs = encode_with_openjpeg(img, w, h, levels, style);
  ASSERT_FALSE(cs.empty()) << what << ": OpenJPEG encoding failed";
  // Mb per band from QCD (A.6.4, E-2): guard bits + exponent - 1.
  const size_t qcd = find_marker(cs, 0xFF5C);
  ASSERT_LT(qcd + 5, cs.size()) << what;
  const uint32_t guard = cs[qcd + 4] >> 5;
  std::vector<uint32_t> mb;
  for (uint32_t b = 0; b < 1 + 3 * levels; ++b) mb.push_back(guard + (cs[qcd + 5 + b] >> 3) - 1);
  // Expected coefficients: our own forward 5/3 of the DC-shifted image.
  std::vector<int32_t> c(img);
  for (auto& v : c) v -= 128;
  struct Subband {
    uint32_t x0, y0, bw, bh;
    Band kind;
  };
  std::vector<std::vector<Subband>> resolutions;
  if (levels == 0) {
    resolutions.push_back({{0, 0, w, h, Band::kLL}});
  } else {
    for (uint32_t x = 0; x < w; ++x) lift53(&c[x], h, w);
    for (uint32_t y = 0; y < h; ++y) lift53(&c[y * w], w, 1);
    const uint32_t lw = (w + 1) / 2, lh = (h + 1) / 2;
    resolutions.push_back({{0, 0, lw, lh, Band::kLL}});
    resolutions.push_back({{lw, 0, w - lw, lh, Band::kHL},
                           {0, lh, lw, h - lh, Band::kLH},
                           {lw, lh, w - lw, h - lh, Band::kHH}});
  }
  const uint8_t* p = cs.data() + find_marker(cs, 0xFF93) + 2;
  const uint8_t* end = cs.data() + find_marker(cs, 0xFFD9);
  ASSERT_LT(p, end) << what;
  uint32_t band_index = 0;
  for (const auto& res : resolutions) {
    std::vector<OpjBlock> blocks;
    p = parse_packet(p, end, res.size(), style, blocks);
    ASSERT_LE(p, end) << what;
    for (size_t b = 0; b < res.size(); ++b, ++band_index) {
      const Subband& band = res[b];
      std::vector<int32_t> out(static_cast<size_t>(band.bw) * band.bh, 7);
      const uint32_t nbp = mb[band_index] - blocks[b].missing;
      decode_block(blocks[b].segs.data(), blocks[b].segs.size(), nbp, band.kind, style, out.data(),
                   band.bw, band.bw, band.bh);
      for (uint32_t y = 0; y < band.bh; ++y) {
        for (uint32_t x = 0; x < band.bw; ++x) {
          ASSERT_EQ(out[y * band.bw + x], 2 * c[(band.y0 + y) * w + band.x0 + x])
              << what << " band " << band_index << " (" << x << ", " << y << ")";
        }
      }
    }
  }
}

TEST(T1OpenJpeg, WeDecodeOpenJpegBlocksEveryStyle) {
  for (int style = 0; style < 64; ++style) {
    check_opj_to_ours(500 + style, 64, 64, 0, static_cast<uint8_t>(style));
    if (HasFatalFailure()) return;
    check_opj_to_ours(600 + style, 61, 37, 1, static_cast<uint8_t>(style));
    if (HasFatalFailure()) return;
  }
}

#else
TEST(T1OpenJpeg, DecodesOurBlocksEveryStyle) {
  GTEST_SKIP() << "built without libopenjp2";
}
#endif

}  // namespace
}  // namespace gj2k::entropy
