// Decoder::decode_into and copy_to (include/gj2k/decoder.h): a caller's 8/16/32-bit buffer,
// planar or interleaved, gets exactly what decode() followed by the conversion rule gives, both
// when the tiles are placed straight into it (direct_output known) and when the decode falls
// back to an image; the rule itself (transform/pack.h) against a literal one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "tests/codec/encode_test_util.h"
#include "transform/pack.h"

namespace gj2k {
namespace {

constexpr uint8_t kGuard = 0xCD;  // unwritten bytes of a buffer keep it

// The rule written out independently: the low bytes of the value, in the asked order.
void put(uint8_t* p, int32_t v, size_t bytes, bool big_endian) {
  const auto u = static_cast<uint32_t>(v);
  uint8_t le[4] = {uint8_t(u), uint8_t(u >> 8), uint8_t(u >> 16), uint8_t(u >> 24)};
  for (size_t i = 0; i < bytes; ++i) p[i] = big_endian ? le[bytes - 1 - i] : le[i];
}

// A buffer for `image` in layout `out` (row and plane padding of `pad` bytes), filled with
// kGuard; `expected` gets the image written by the literal rule.
struct Case {
  OutputBuffer out;
  std::vector<uint8_t> bytes, expected;
};
Case make_case(const Image& image, SampleType type, bool interleaved, bool big_endian, size_t pad) {
  Case k;
  const size_t b = static_cast<size_t>(type), n = image.components.size();
  uint32_t w = 0, h = 0;
  for (const Component& c : image.components) {
    w = std::max(w, c.width);
    h = std::max(h, c.height);
  }
  const size_t pixel = interleaved ? b * n : b;
  k.out.type = type;
  k.out.interleaved = interleaved;
  k.out.big_endian = big_endian;
  k.out.row_stride = pad ? w * pixel + pad : 0;
  const size_t row = w * pixel + pad;
  k.out.plane_stride = pad && !interleaved ? row * h + pad : 0;
  const size_t plane = interleaved ? 0 : row * h + pad;
  const size_t size = interleaved ? row * h : plane * n;
  k.bytes.assign(size, kGuard);
  k.expected.assign(size, kGuard);
  k.out.data = k.bytes.data();
  k.out.size = k.bytes.size();
  for (size_t c = 0; c < n; ++c) {
    const Component& comp = image.components[c];
    for (uint32_t y = 0; y < comp.height; ++y)
      for (uint32_t x = 0; x < comp.width; ++x)
        put(k.expected.data() + (interleaved ? c * b : c * plane) + y * row + x * pixel,
            comp.at(x, y), b, big_endian);
  }
  return k;
}

std::vector<uint8_t> encode(const Image& image, EncodeParams p = {}) {
  p.device = EncodeParams::Device::kCpu;
  return Encoder().encode(image, p);
}

SampleType narrowest(const Image& image) {
  uint32_t p = 0;
  for (const Component& c : image.components) p = std::max(p, c.precision);
  return p <= 8 ? SampleType::k8 : p <= 16 ? SampleType::k16 : SampleType::k32;
}

// decode_into(p) against decode(p) + the literal rule. `direct`: whether direct_output is
// expected to be known.
void check_all(const std::vector<uint8_t>& stream, DecodeParams p, bool direct,
               const std::string& what, bool all_formats = false) {
  SCOPED_TRACE(what);
  p.device = DecodeDevice::kCpu;
  Decoder dec(stream);
  const Image image = dec.decode(p);
  const std::optional<Image> shape = dec.direct_output(p);
  ASSERT_EQ(shape.has_value(), direct);
  if (shape) {
    ASSERT_EQ(shape->components.size(), image.components.size());
    for (size_t c = 0; c < image.components.size(); ++c) {
      EXPECT_EQ(shape->components[c].width, image.components[c].width);
      EXPECT_EQ(shape->components[c].height, image.components[c].height);
      EXPECT_EQ(shape->components[c].precision, image.components[c].precision);
    }
    EXPECT_EQ(shape->x0, image.x0);
    EXPECT_EQ(shape->y1, image.y1);
  }
  bool same_size = true;
  for (const Component& c : image.components)
    same_size &= c.width == image.components[0].width && c.height == image.components[0].height;
  // Every sample type that holds the precisions, planar and interleaved, little-endian packed
  // and big-endian with padded rows and planes; `all_formats` false: two of them.
  struct Format {
    SampleType type;
    bool interleaved, big_endian;
  };
  std::vector<Format> formats;
  for (SampleType type : {SampleType::k8, SampleType::k16, SampleType::k32})
    for (bool interleaved : {false, true})
      for (bool big_endian : {false, true})
        if (static_cast<int>(type) >= static_cast<int>(narrowest(image)) &&
            (!interleaved || same_size))
          formats.push_back({type, interleaved, big_endian});
  if (!all_formats) formats = {formats.front(), formats.back()};
  for (const Format& f : formats) {
    const size_t pad = f.big_endian ? 5 : 0;
    SCOPED_TRACE("type " + std::to_string(static_cast<int>(f.type)) +
                 (f.interleaved ? " interleaved" : " planar") + (f.big_endian ? " BE" : " LE"));
    Case k = make_case(image, f.type, f.interleaved, f.big_endian, pad);
    const Image got = dec.decode_into(p, k.out);
    EXPECT_EQ(got.components.size(), image.components.size());
    for (const Component& c : got.components) EXPECT_TRUE(c.samples.empty());
    ASSERT_EQ(k.bytes, k.expected);
    // copy_to: the same rule on the decoded image.
    std::fill(k.bytes.begin(), k.bytes.end(), kGuard);
    copy_to(image, k.out);
    ASSERT_EQ(k.bytes, k.expected);
  }
}

TEST(DecodeInto, ReversibleTilesAndOptions) {
  const Image im = test::random_image(75, 53, 3, 8, false, 1, 3, 5);
  EncodeParams ep;
  ep.tile_width = 32;
  ep.tile_height = 24;
  ep.levels = 3;
  ep.cblk_width = ep.cblk_height = 16;
  const auto s = encode(im, ep);
  DecodeParams p;
  check_all(s, p, true, "all", true);
  p.reduce = 1;
  check_all(s, p, true, "reduce 1");
  p.reduce = 0;
  p.region = Region{10, 7, 61, 40};
  check_all(s, p, true, "region");
  p.region.reset();
  p.components = {2, 0};
  check_all(s, p, true, "components 2,0");
  p.components = {2, 1, 0};  // the colour stage packs 0..2 out of their order
  check_all(s, p, true, "components 2,1,0", true);
  p.components.clear();
  p.tile = 4;
  check_all(s, p, true, "tile 4");
  p.tile.reset();
  p.skip_mct = true;
  check_all(s, p, true, "skip_mct");
  p.skip_mct = false;
  p.render = DecodeParams::Render::kRgb;  // nothing to render for 1x1 RGB
  p.upsample = true;
  check_all(s, p, true, "render and upsample, 1x1");
  p.threads = 1;
  check_all(s, p, true, "one thread");
}

TEST(DecodeInto, IrreversibleReduceRegion) {
  const Image im = test::random_image(67, 41, 3, 8, false, 2);
  EncodeParams ep;
  ep.irreversible = true;
  ep.tile_width = ep.tile_height = 32;
  ep.rates = {8};
  const auto s = encode(im, ep);
  DecodeParams p;
  check_all(s, p, true, "9/7", true);
  p.reduce = 2;
  p.region = Region{5, 9, 50, 33};
  check_all(s, p, true, "9/7 reduce 2 region");
}

// Tiles wide and tall enough for several bands of the finest level (inverse_rows_packed:
// 2,000 wide gives bands of 85 rows) decoded on several threads, with odd origins, colour and
// grey, 5/3 and 9/7.
TEST(DecodeInto, FinestLevelInSeveralBandsOnThreads) {
  for (uint32_t comps : {3u, 1u})
    for (bool irreversible : {false, true}) {
      const Image im =
          test::random_image(2000, 301, comps, 8, false, 40 + comps + irreversible, 3, 5);
      EncodeParams ep;
      ep.irreversible = irreversible;
      if (irreversible) ep.rates = {10};
      ep.levels = 3;
      DecodeParams p;
      p.threads = 2;
      check_all(encode(im, ep), p, true,
                std::to_string(comps) + (irreversible ? " components 9/7" : " components 5/3"));
    }
}

// Components without the colour transform (one or two; 9/7), whose finest DWT level, DC shift
// and packing run in one pass into the buffer (inverse_single_rows_packed), in one tile and in
// tiles, signed and unsigned.
TEST(DecodeInto, IrreversibleWithoutColourTransform) {
  for (uint32_t comps : {1u, 2u})
    for (bool is_signed : {false, true})
      for (uint32_t tile : {0u, 32u}) {
        const Image im = test::random_image(71, 45, comps, is_signed ? 12 : 8, is_signed,
                                            comps * 4 + is_signed * 2 + (tile > 0));
        EncodeParams ep;
        ep.irreversible = true;
        ep.rates = {6};
        ep.tile_width = ep.tile_height = tile;
        check_all(encode(im, ep), {}, true,
                  "9/7 " + std::to_string(comps) + " components" + (is_signed ? " signed" : "") +
                      (tile ? " tiled" : ""),
                  true);
      }
}

TEST(DecodeInto, PrecisionsAndSignedness) {
  for (uint32_t prec : {1u, 7u, 8u, 9u, 16u})
    for (bool is_signed : {false, true}) {
      if (prec == 1 && is_signed) continue;
      const Image im = test::random_image(29, 19, 2, prec, is_signed, prec * 2 + is_signed);
      EncodeParams ep;
      ep.levels = 2;
      ep.tile_width = ep.tile_height = 16;
      check_all(encode(im, ep), {}, true,
                "precision " + std::to_string(prec) + (is_signed ? " signed" : " unsigned"));
    }
}

// Precisions above 16 (which the encoder does not write): SIZ's Ssiz patched from 16 to 24
// bits; the decode then shifts and clips to 24 bits, which needs 32-bit samples.
TEST(DecodeInto, PrecisionAbove16) {
  for (bool is_signed : {false, true}) {
    const Image im = test::random_image(23, 17, 1, 16, is_signed, 9 + is_signed);
    std::vector<uint8_t> s = encode(im);
    ASSERT_EQ(s[42], (is_signed ? 0x80 : 0) | 15);  // component 0's Ssiz (A.5.1)
    s[42] = static_cast<uint8_t>((is_signed ? 0x80 : 0) | 23);
    check_all(s, {}, true, is_signed ? "24-bit signed" : "24-bit", true);
    Decoder dec(s);
    std::vector<uint8_t> small(23 * 17 * 2);
    OutputBuffer out{small.data(), small.size(), SampleType::k16};
    try {
      dec.decode_into({}, out);
      FAIL() << "24 bits into 16-bit samples";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    }
  }
}

// Subsampled components: planar only; upsample or a render of them falls back to decode().
TEST(DecodeInto, SubsampledFallsBackWhenUpsampled) {
  const Image im = test::random_image(41, 30, 3, 8, false, 4, 1, 0, {{1, 1}, {2, 2}, {2, 1}});
  const auto s = encode(im);
  DecodeParams p;
  check_all(s, p, true, "subsampled planar", true);
  p.upsample = true;
  check_all(s, p, false, "upsample");
  p.upsample = false;
  p.render = DecodeParams::Render::kRgb;
  check_all(s, p, false, "render");
}

// JP2 colour: a plain sRGB JP2 is direct; channel definitions (cdef, written for an alpha
// channel) and an sYCC colour space with force_rgb or a render are whole-image work, so
// decode_into falls back to decode() + copy_to (same bytes); a component subset skips the cdef.
TEST(DecodeInto, Jp2ColourFallsBack) {
  Image rgb = test::random_image(33, 21, 3, 8, false, 7);
  rgb.color_space = ColorSpace::kSRGB;
  EncodeParams ep;
  ep.device = EncodeParams::Device::kCpu;
  std::vector<uint8_t> jp2 = Encoder().encode(rgb, ep, FileFormat::kJp2);
  check_all(jp2, {}, true, "sRGB JP2", true);
  DecodeParams render;
  render.render = DecodeParams::Render::kRgb;
  render.force_rgb = true;
  check_all(jp2, render, true, "sRGB JP2 rendered");
  // The colr box's EnumCS (I.5.3.3) from sRGB (16) to sYCC (18).
  const uint8_t srgb[] = {'c', 'o', 'l', 'r', 1, 0, 0, 0, 0, 0, 16};
  auto at = std::search(jp2.begin(), jp2.end(), std::begin(srgb), std::end(srgb));
  ASSERT_NE(at, jp2.end());
  at[10] = 18;
  check_all(jp2, {}, true, "sYCC JP2 as it is", true);
  check_all(jp2, render, false, "sYCC JP2 to RGB");
  Image rgba = test::random_image(30, 20, 4, 8, false, 8);
  rgba.color_space = ColorSpace::kSRGB;
  rgba.components.back().is_alpha = true;
  const std::vector<uint8_t> with_cdef = Encoder().encode(rgba, ep, FileFormat::kJp2);
  check_all(with_cdef, {}, false, "cdef", true);
  DecodeParams subset;
  subset.components = {3, 1};
  check_all(with_cdef, subset, true, "cdef, components 3,1");
}

// A truncated stream under allow_partial: tiles without data are zero in the buffer too.
TEST(DecodeInto, PartialStreamZeros) {
  const Image im = test::random_image(64, 64, 1, 8, false, 5);
  EncodeParams ep;
  ep.tile_width = ep.tile_height = 32;
  std::vector<uint8_t> s = encode(im, ep);
  s.resize(s.size() / 2);
  DecodeParams p;
  p.allow_partial = true;
  check_all(s, p, true, "truncated");
}

TEST(DecodeInto, Errors) {
  const Image im = test::random_image(20, 10, 3, 12, false, 6, 0, 0, {{1, 1}, {1, 1}, {2, 2}});
  Decoder dec(encode(im));
  std::vector<uint8_t> buf(20 * 10 * 2 * 3);
  auto code_of = [&](OutputBuffer out, DecodeParams p = {}) {
    try {
      dec.decode_into(p, out);
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kInternal;  // no error
  };
  OutputBuffer ok{buf.data(), buf.size(), SampleType::k16};
  EXPECT_EQ(code_of(ok), ErrorCode::kInternal);
  OutputBuffer o = ok;
  o.size = 3 * 400 - 1;  // one byte short of three planes of the largest component's size
  o.plane_stride = 20 * 10 * 2;
  EXPECT_EQ(code_of(o), ErrorCode::kBufferTooSmall);
  o.size += 1;
  EXPECT_EQ(code_of(o), ErrorCode::kInternal);
  o = ok;
  o.type = SampleType::k8;  // 12 bits
  EXPECT_EQ(code_of(o), ErrorCode::kInvalidArgument);
  o = ok;
  o.interleaved = true;  // component 2 is smaller
  EXPECT_EQ(code_of(o), ErrorCode::kInvalidArgument);
  o = ok;
  o.row_stride = 39;  // below 20 samples of 2 bytes
  EXPECT_EQ(code_of(o), ErrorCode::kInvalidArgument);
  o = ok;
  o.data = nullptr;
  EXPECT_EQ(code_of(o), ErrorCode::kInvalidArgument);
  DecodeParams up;
  up.upsample = true;  // the fallback checks after decoding: 3 full planes of 400 bytes
  o = ok;
  o.size = 3 * 400 - 1;
  EXPECT_EQ(code_of(o, up), ErrorCode::kBufferTooSmall);
  Image geometry = im;
  EXPECT_EQ(output_bytes(geometry, ok), 3u * 20 * 10 * 2);
}

// transform::pack_rect, the CPU path of the rule, against the literal rule on adversarial
// values (0, 1, -1, the extremes of each width) and odd sizes, with guard bytes around.
TEST(PackRect, MatchesTheRule) {
  std::mt19937 rng(7);
  const int32_t specials[] = {0, 1, -1, 127, -128, 255, 32767, -32768, 65535, INT32_MAX, INT32_MIN};
  for (uint32_t bytes : {1u, 2u, 4u})
    for (bool be : {false, true})
      for (uint32_t w : {1u, 3u, 65u})
        for (uint32_t h : {1u, 2u, 17u}) {
          const size_t pitch = w + 3, pixel = bytes * 3, row = w * pixel + 7;
          std::vector<int32_t> src(pitch * h);
          for (size_t i = 0; i < src.size(); ++i)
            src[i] = i % 3 ? static_cast<int32_t>(rng()) : specials[i % std::size(specials)];
          std::vector<uint8_t> got(row * h + 16, kGuard), want(got.size(), kGuard);
          for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x)
              put(want.data() + 8 + y * row + x * pixel, src[y * pitch + x], bytes, be);
          transform::PackRect r{w, h, pitch, row, pixel};
          transform::pack_rect(src.data(), got.data() + 8, r, {bytes, be}, 2);
          ASSERT_EQ(got, want) << bytes << " bytes " << (be ? "BE " : "LE ") << w << "x" << h;
        }
}

}  // namespace
}  // namespace gj2k

namespace gj2k {
namespace {

// transform::pack_pixels (whole interleaved pixels in one pass) against pack_rect per component.
TEST(PackRect, PixelsEqualRectPerComponent) {
  std::mt19937 rng(11);
  for (uint32_t bytes : {1u, 2u, 4u})
    for (bool be : {false, true})
      for (size_t n : {size_t{1}, size_t{3}, size_t{4}}) {
        const uint32_t w = 37, h = 5;
        const size_t pitch = w + 2, pixel = bytes * n, row = w * pixel + 3;
        std::vector<std::vector<int32_t>> planes(n, std::vector<int32_t>(pitch * h));
        std::vector<const int32_t*> src;
        for (auto& p : planes) {
          for (int32_t& v : p) v = static_cast<int32_t>(rng());
          src.push_back(p.data());
        }
        std::vector<uint8_t> got(row * h, kGuard), want(got.size(), kGuard);
        const transform::PackRect r{w, h, pitch, row, pixel};
        for (size_t k = 0; k < n; ++k)
          transform::pack_rect(src[k], want.data() + k * bytes, r, {bytes, be}, 1);
        transform::pack_pixels(src.data(), n, got.data(), r, {bytes, be}, 2);
        ASSERT_EQ(got, want) << bytes << " bytes " << (be ? "BE " : "LE ") << n << " components";
      }
}

}  // namespace
}  // namespace gj2k
