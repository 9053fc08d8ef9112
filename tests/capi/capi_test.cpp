// The C API (include/gj2k.h) through the shared library: every entry point, caller buffers of
// each sample type and layout, callbacks (read, write, progress with cancellation, log) and
// errors (a code and a message, never an exception).
#include "gj2k.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

struct Ctx {
  gj2k_context* ctx = gj2k_context_create();
  ~Ctx() { gj2k_context_destroy(ctx); }
  operator gj2k_context*() const { return ctx; }
};

struct Dec {
  gj2k_decoder* dec;
  explicit Dec(gj2k_decoder* d) : dec(d) {}
  ~Dec() { gj2k_decoder_destroy(dec); }
  operator gj2k_decoder*() const { return dec; }
};

// A test image: component c, pixel (x, y) has a value that depends on all three, within
// `precision` bits (signed when asked).
int32_t pattern(uint32_t c, uint32_t x, uint32_t y, uint32_t precision, bool is_signed) {
  const uint32_t range = 1u << precision;
  const int32_t v = static_cast<int32_t>((x * 7 + y * 13 + c * 101 + (x * y) % 31) % range);
  return is_signed ? v - static_cast<int32_t>(range / 2) : v;
}

// Samples of the pattern in a packed buffer of the given type and layout.
std::vector<uint8_t> make_samples(uint32_t w, uint32_t h, uint32_t nc, uint32_t precision,
                                  bool is_signed, gj2k_sample_type type, gj2k_layout layout) {
  const size_t bytes = static_cast<size_t>(type);
  std::vector<uint8_t> buf(size_t{w} * h * nc * bytes);
  for (uint32_t c = 0; c < nc; ++c)
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        const size_t i =
            layout == GJ2K_INTERLEAVED ? (size_t{y} * w + x) * nc + c : (size_t{c} * h + y) * w + x;
        const int32_t v = pattern(c, x, y, precision, is_signed);
        if (bytes == 1)
          buf[i] = static_cast<uint8_t>(v);
        else if (bytes == 2) {
          const uint16_t u = static_cast<uint16_t>(v);
          std::memcpy(&buf[i * 2], &u, 2);
        } else {
          std::memcpy(&buf[i * 4], &v, 4);
        }
      }
  return buf;
}

gj2k_image_desc desc(uint32_t w, uint32_t h, uint32_t nc, uint32_t precision, bool is_signed) {
  gj2k_image_desc d{};
  d.struct_size = sizeof(d);
  d.width = w;
  d.height = h;
  d.num_components = nc;
  d.precision = precision;
  d.is_signed = is_signed;
  d.color_space = nc >= 3 ? GJ2K_CS_SRGB : GJ2K_CS_GREY;
  return d;
}

std::vector<uint8_t> encode(gj2k_context* ctx, const gj2k_image_desc& d,
                            const std::vector<uint8_t>& samples, gj2k_sample_type type,
                            gj2k_layout layout, const gj2k_encode_params* params = nullptr) {
  gj2k_buffer in{const_cast<uint8_t*>(samples.data()), samples.size(), type, layout, 0, 0};
  uint8_t* out = nullptr;
  size_t size = 0;
  const gj2k_status s = gj2k_encode_to_memory(ctx, &d, &in, params, &out, &size);
  EXPECT_EQ(s, GJ2K_OK) << gj2k_context_error(ctx);
  std::vector<uint8_t> bytes(out, out + size);
  gj2k_free(out);
  return bytes;
}

gj2k_info info_struct() {
  gj2k_info info{};
  info.struct_size = sizeof(info);
  return info;
}

TEST(CApi, VersionAndStatusStrings) {
  EXPECT_STREQ(gj2k_version_string(), GJ2K_VERSION);
  EXPECT_STREQ(gj2k_status_string(GJ2K_OK), "ok");
  for (int s = 1; s <= 10; ++s) {
    const std::string text = gj2k_status_string(static_cast<gj2k_status>(s));
    EXPECT_FALSE(text.empty());
    EXPECT_NE(text, "unknown status") << s;
  }
  EXPECT_STREQ(gj2k_status_string(static_cast<gj2k_status>(99)), "unknown status");
}

TEST(CApi, ContextSettingsAndErrors) {
  Ctx ctx;
  ASSERT_NE(ctx.ctx, nullptr);
  EXPECT_EQ(gj2k_context_set_threads(ctx, 2), GJ2K_OK);
  EXPECT_EQ(gj2k_context_error_code(ctx), GJ2K_OK);
  EXPECT_EQ(gj2k_context_set_threads(ctx, 100000), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_context_error_code(ctx), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("100000"), std::string::npos);
  EXPECT_STREQ(gj2k_last_error(), gj2k_context_error(ctx));
  EXPECT_EQ(gj2k_context_set_device(ctx, GJ2K_DEVICE_CPU), GJ2K_OK);
  EXPECT_STREQ(gj2k_context_error(ctx), "");  // a success clears the last error
  EXPECT_EQ(gj2k_context_set_device(ctx, static_cast<gj2k_device>(7)), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_context_set_progress(ctx, nullptr, nullptr), GJ2K_OK);
  EXPECT_EQ(gj2k_context_set_log(ctx, nullptr, nullptr), GJ2K_OK);
  // NULL handles: a code and a message, no crash.
  EXPECT_EQ(gj2k_context_set_threads(nullptr, 1), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(gj2k_last_error(), "context is NULL");
  EXPECT_EQ(gj2k_context_set_device(nullptr, GJ2K_DEVICE_CPU), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_context_set_progress(nullptr, nullptr, nullptr), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_context_set_log(nullptr, nullptr, nullptr), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_context_error_code(nullptr), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(gj2k_context_error(nullptr), "context is NULL");
  EXPECT_EQ(gj2k_decoder_create_memory(nullptr, "x", 1), nullptr);
  EXPECT_EQ(gj2k_decoder_read_header(nullptr, nullptr), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(gj2k_last_error(), "decoder is NULL");
  gj2k_context_destroy(nullptr);
  gj2k_decoder_destroy(nullptr);
  gj2k_free(nullptr);
}

// Contexts come and go; the last one destroyed frees the GPU pools (gj2k_release_gpu_resources),
// so nothing is left to free afterwards, and decoding after a release gives the same samples.
TEST(CApi, ContextsReleaseGpuResources) {
  std::vector<uint8_t> stream;
  {
    Ctx ctx;
    stream = encode(ctx, desc(61, 37, 3, 8, false),
                    make_samples(61, 37, 3, 8, false, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED),
                    GJ2K_SAMPLE_8, GJ2K_INTERLEAVED);
  }
  std::vector<uint8_t> first, again;
  for (std::vector<uint8_t>* out : {&first, &again}) {
    Ctx a, b;
    ASSERT_NE(a.ctx, nullptr);
    ASSERT_NE(b.ctx, nullptr);
    gj2k_decoder* dec = gj2k_decoder_create_memory(a, stream.data(), stream.size());
    ASSERT_NE(dec, nullptr) << gj2k_last_error();
    gj2k_decode_params dp;
    gj2k_decode_params_init(&dp);
    ASSERT_EQ(gj2k_decoder_decode(dec, &dp), GJ2K_OK) << gj2k_context_error(a);
    size_t size = 0;
    ASSERT_EQ(gj2k_decoder_output_size(dec, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, &size), GJ2K_OK);
    out->resize(size);
    const gj2k_buffer buf = {out->data(), size, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
    ASSERT_EQ(gj2k_decoder_copy(dec, &buf), GJ2K_OK) << gj2k_context_error(a);
    gj2k_decoder_destroy(dec);
  }  // both contexts destroyed: the pools were released in between
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, again);
  EXPECT_EQ(gj2k_release_gpu_resources(), 0u);  // the last context took them already
}

TEST(CApi, HeaderInfoWithoutDecoding) {
  Ctx ctx;
  const gj2k_image_desc d = desc(100, 60, 3, 8, false);
  const auto samples = make_samples(100, 60, 3, 8, false, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED);
  gj2k_encode_params ep;
  gj2k_encode_params_init(&ep);
  ep.levels = 3;
  ep.order = GJ2K_RPCL;
  ep.tile_width = 64;
  ep.tile_height = 32;
  const double rates[] = {20, 1};
  ep.rates = rates;
  ep.num_rates = 2;
  const auto bytes = encode(ctx, d, samples, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, &ep);
  Dec dec(gj2k_decoder_create_memory(ctx, bytes.data(), bytes.size()));
  ASSERT_NE(dec.dec, nullptr) << gj2k_context_error(ctx);
  gj2k_info info = info_struct();
  ASSERT_EQ(gj2k_decoder_read_header(dec, &info), GJ2K_OK) << gj2k_context_error(ctx);
  EXPECT_EQ(info.is_jp2, 0);
  EXPECT_EQ(info.width, 100u);
  EXPECT_EQ(info.height, 60u);
  EXPECT_EQ(info.num_components, 3u);
  EXPECT_EQ(info.output_components, 3u);
  EXPECT_EQ(info.tile_width, 64u);
  EXPECT_EQ(info.tile_height, 32u);
  EXPECT_EQ(info.num_tiles_x, 2u);
  EXPECT_EQ(info.num_tiles_y, 2u);
  EXPECT_EQ(info.num_tiles, 4u);
  EXPECT_EQ(info.levels, 3u);
  EXPECT_EQ(info.min_levels, 3u);
  EXPECT_EQ(info.layers, 2u);
  EXPECT_EQ(info.reversible, 1);
  EXPECT_EQ(info.progression, GJ2K_RPCL);
  EXPECT_EQ(info.icc_size, 0u);
  gj2k_component_info ci;
  ASSERT_EQ(gj2k_decoder_component(dec, 2, &ci), GJ2K_OK);
  EXPECT_EQ(ci.width, 100u);
  EXPECT_EQ(ci.precision, 8u);
  EXPECT_EQ(ci.is_signed, 0);
  EXPECT_EQ(ci.dx, 1u);
  EXPECT_EQ(gj2k_decoder_component(dec, 3, &ci), GJ2K_ERR_INVALID_ARGUMENT);
  const uint8_t* icc = reinterpret_cast<const uint8_t*>(1);
  size_t icc_size = 7;
  ASSERT_EQ(gj2k_decoder_icc(dec, &icc, &icc_size), GJ2K_OK);
  EXPECT_EQ(icc, nullptr);
  EXPECT_EQ(icc_size, 0u);
  gj2k_info small = info_struct();
  small.struct_size = 8;  // a caller that forgot to set it
  EXPECT_EQ(gj2k_decoder_read_header(dec, &small), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("struct_size"), std::string::npos);
}

// Every sample type and layout on the output side, against the encoded samples.
TEST(CApi, DecodeIntoEachBufferType) {
  Ctx ctx;
  const uint32_t w = 37, h = 23, nc = 3;
  const auto src = make_samples(w, h, nc, 8, false, GJ2K_SAMPLE_8, GJ2K_PLANAR);
  const auto bytes = encode(ctx, desc(w, h, nc, 8, false), src, GJ2K_SAMPLE_8, GJ2K_PLANAR);
  Dec dec(gj2k_decoder_create_memory(ctx, bytes.data(), bytes.size()));
  ASSERT_NE(dec.dec, nullptr);
  ASSERT_EQ(gj2k_decoder_decode(dec, nullptr), GJ2K_OK) << gj2k_context_error(ctx);
  gj2k_info out = info_struct();
  ASSERT_EQ(gj2k_decoder_output(dec, &out), GJ2K_OK);
  EXPECT_EQ(out.width, w);
  EXPECT_EQ(out.num_components, nc);
  gj2k_component_info oc;
  ASSERT_EQ(gj2k_decoder_output_component(dec, 0, &oc), GJ2K_OK);
  EXPECT_EQ(oc.width, w);
  EXPECT_EQ(gj2k_decoder_output_component(dec, nc, &oc), GJ2K_ERR_INVALID_ARGUMENT);
  for (gj2k_sample_type type : {GJ2K_SAMPLE_8, GJ2K_SAMPLE_16, GJ2K_SAMPLE_32})
    for (gj2k_layout layout : {GJ2K_PLANAR, GJ2K_INTERLEAVED}) {
      SCOPED_TRACE(testing::Message() << "type " << type << " layout " << layout);
      size_t size = 0;
      ASSERT_EQ(gj2k_decoder_output_size(dec, type, layout, &size), GJ2K_OK);
      EXPECT_EQ(size, size_t{w} * h * nc * static_cast<size_t>(type));
      std::vector<uint8_t> buf(size, 0xEE);
      gj2k_buffer b{buf.data(), buf.size(), type, layout, 0, 0};
      ASSERT_EQ(gj2k_decoder_copy(dec, &b), GJ2K_OK) << gj2k_context_error(ctx);
      EXPECT_EQ(buf, make_samples(w, h, nc, 8, false, type, layout));
    }
  // Strides: rows padded to 64 bytes, planes 3 rows apart more than needed.
  std::vector<uint8_t> padded(3 * (64 * (h + 3)), 0);
  gj2k_buffer b{padded.data(), padded.size(), GJ2K_SAMPLE_8, GJ2K_PLANAR, 64, 64 * (h + 3)};
  ASSERT_EQ(gj2k_decoder_copy(dec, &b), GJ2K_OK) << gj2k_context_error(ctx);
  for (uint32_t c = 0; c < nc; ++c)
    for (uint32_t y = 0; y < h; y += 5)
      for (uint32_t x = 0; x < w; x += 3)
        EXPECT_EQ(padded[c * 64 * (h + 3) + y * 64 + x], pattern(c, x, y, 8, false));
  // A buffer one byte short, a row stride below a row, an unknown type.
  std::vector<uint8_t> small(size_t{w} * h * nc - 1);
  gj2k_buffer s{small.data(), small.size(), GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  EXPECT_EQ(gj2k_decoder_copy(dec, &s), GJ2K_ERR_BUFFER_TOO_SMALL);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("needs"), std::string::npos);
  s.size = small.size() + 1;  // claims the right size, but the stride is too small
  s.row_stride = w;
  EXPECT_EQ(gj2k_decoder_copy(dec, &s), GJ2K_ERR_INVALID_ARGUMENT);
  s.row_stride = 0;
  s.type = static_cast<gj2k_sample_type>(3);
  EXPECT_EQ(gj2k_decoder_copy(dec, &s), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_decoder_copy(dec, nullptr), GJ2K_ERR_INVALID_ARGUMENT);
}

// 16-bit and signed samples in, planar and interleaved, through gj2k_decode_into.
TEST(CApi, SixteenBitAndSignedRoundTrip) {
  Ctx ctx;
  for (bool is_signed : {false, true})
    for (gj2k_layout layout : {GJ2K_PLANAR, GJ2K_INTERLEAVED}) {
      SCOPED_TRACE(testing::Message() << "signed " << is_signed << " layout " << layout);
      const uint32_t w = 40, h = 20, nc = 2, prec = 12;
      const auto src = make_samples(w, h, nc, prec, is_signed, GJ2K_SAMPLE_16, layout);
      const auto bytes = encode(ctx, desc(w, h, nc, prec, is_signed), src, GJ2K_SAMPLE_16, layout);
      Dec dec(gj2k_decoder_create_memory(ctx, bytes.data(), bytes.size()));
      std::vector<uint8_t> out(src.size());
      gj2k_buffer b{out.data(), out.size(), GJ2K_SAMPLE_16, layout, 0, 0};
      ASSERT_EQ(gj2k_decode_into(dec, nullptr, &b), GJ2K_OK) << gj2k_context_error(ctx);
      EXPECT_EQ(out, src);
      std::vector<uint8_t> out32(src.size() * 2);
      gj2k_buffer b32{out32.data(), out32.size(), GJ2K_SAMPLE_32, layout, 0, 0};
      ASSERT_EQ(gj2k_decoder_copy(dec, &b32), GJ2K_OK);
      EXPECT_EQ(out32, make_samples(w, h, nc, prec, is_signed, GJ2K_SAMPLE_32, layout));
      // 12-bit samples do not fit an 8-bit buffer.
      std::vector<uint8_t> out8(src.size() / 2);
      gj2k_buffer b8{out8.data(), out8.size(), GJ2K_SAMPLE_8, layout, 0, 0};
      EXPECT_EQ(gj2k_decoder_copy(dec, &b8), GJ2K_ERR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(gj2k_context_error(ctx)).find("12 bits"), std::string::npos);
    }
}

TEST(CApi, DecodeSelections) {
  Ctx ctx;
  const uint32_t w = 64, h = 48, nc = 3;
  const auto src = make_samples(w, h, nc, 8, false, GJ2K_SAMPLE_8, GJ2K_PLANAR);
  gj2k_encode_params ep;
  gj2k_encode_params_init(&ep);
  ep.tile_width = 32;
  ep.tile_height = 32;
  ep.levels = 2;
  ep.layers = 3;
  const auto bytes = encode(ctx, desc(w, h, nc, 8, false), src, GJ2K_SAMPLE_8, GJ2K_PLANAR, &ep);
  Dec dec(gj2k_decoder_create_memory(ctx, bytes.data(), bytes.size()));
  gj2k_decode_params dp;
  gj2k_decode_params_init(&dp);
  EXPECT_EQ(dp.struct_size, sizeof(dp));
  gj2k_info out = info_struct();

  dp.reduce = 1;  // half size: ceil(64/2) x ceil(48/2)
  ASSERT_EQ(gj2k_decoder_decode(dec, &dp), GJ2K_OK) << gj2k_context_error(ctx);
  ASSERT_EQ(gj2k_decoder_output(dec, &out), GJ2K_OK);
  EXPECT_EQ(out.width, 32u);
  EXPECT_EQ(out.height, 24u);

  gj2k_decode_params_init(&dp);  // a region, exact samples
  dp.use_region = 1;
  dp.region_x0 = 10, dp.region_y0 = 5, dp.region_x1 = 50, dp.region_y1 = 30;
  const uint32_t comps[] = {2, 0};  // component selection, in this order
  dp.components = comps;
  dp.num_components = 2;
  ASSERT_EQ(gj2k_decoder_decode(dec, &dp), GJ2K_OK) << gj2k_context_error(ctx);
  ASSERT_EQ(gj2k_decoder_output(dec, &out), GJ2K_OK);
  EXPECT_EQ(out.width, 40u);
  EXPECT_EQ(out.height, 25u);
  EXPECT_EQ(out.num_components, 2u);
  std::vector<uint8_t> region(40 * 25 * 2);
  gj2k_buffer b{region.data(), region.size(), GJ2K_SAMPLE_8, GJ2K_PLANAR, 0, 0};
  ASSERT_EQ(gj2k_decoder_copy(dec, &b), GJ2K_OK);
  for (uint32_t k = 0; k < 2; ++k)
    for (uint32_t y = 0; y < 25; ++y)
      for (uint32_t x = 0; x < 40; ++x)
        ASSERT_EQ(region[(k * 25 + y) * 40 + x], pattern(comps[k], x + 10, y + 5, 8, false));

  gj2k_decode_params_init(&dp);  // tile 3: the bottom right one, 32 x 16
  dp.use_tile = 1;
  dp.tile = 3;
  ASSERT_EQ(gj2k_decoder_decode(dec, &dp), GJ2K_OK);
  ASSERT_EQ(gj2k_decoder_output(dec, &out), GJ2K_OK);
  EXPECT_EQ(out.x0, 32u);
  EXPECT_EQ(out.width, 32u);
  EXPECT_EQ(out.height, 16u);

  gj2k_decode_params_init(&dp);  // one of three layers: lossy, so not all samples agree
  dp.max_layers = 1;
  std::vector<uint8_t> all(src.size());
  gj2k_buffer ba{all.data(), all.size(), GJ2K_SAMPLE_8, GJ2K_PLANAR, 0, 0};
  ASSERT_EQ(gj2k_decode_into(dec, &dp, &ba), GJ2K_OK) << gj2k_context_error(ctx);
  EXPECT_NE(all, src);
  dp.max_layers = 0;
  ASSERT_EQ(gj2k_decode_into(dec, &dp, &ba), GJ2K_OK);
  EXPECT_EQ(all, src);

  gj2k_decode_params_init(&dp);  // bad selections: a code and a message
  dp.use_tile = 1;
  dp.tile = 4;
  EXPECT_EQ(gj2k_decoder_decode(dec, &dp), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("tile 4"), std::string::npos);
  // The failed decode left nothing to copy.
  EXPECT_EQ(gj2k_decoder_copy(dec, &ba), GJ2K_ERR_INVALID_ARGUMENT);
  gj2k_decode_params_init(&dp);
  dp.reduce = 5;
  EXPECT_NE(gj2k_decoder_decode(dec, &dp), GJ2K_OK);
  EXPECT_STRNE(gj2k_context_error(ctx), "");
  dp.reduce = 0;
  dp.num_components = 1;  // components NULL
  EXPECT_EQ(gj2k_decoder_decode(dec, &dp), GJ2K_ERR_INVALID_ARGUMENT);
  gj2k_decode_params_init(&dp);
  dp.struct_size = 4;
  EXPECT_EQ(gj2k_decoder_decode(dec, &dp), GJ2K_ERR_INVALID_ARGUMENT);
}

struct Reader {
  const std::vector<uint8_t>* bytes;
  size_t pos = 0;
  size_t chunk = 7;
  bool fail = false;
};

size_t read_cb(void* user, void* buf, size_t size) {
  auto* r = static_cast<Reader*>(user);
  if (r->fail && r->pos > 0) return static_cast<size_t>(-1);
  const size_t n = std::min({size, r->chunk, r->bytes->size() - r->pos});
  std::memcpy(buf, r->bytes->data() + r->pos, n);
  r->pos += n;
  return n;
}

struct Writer {
  std::vector<uint8_t> bytes;
  int calls = 0;
  bool fail = false;
};

int write_cb(void* user, const void* data, size_t size) {
  auto* w = static_cast<Writer*>(user);
  ++w->calls;
  if (w->fail) return 0;
  const auto* p = static_cast<const uint8_t*>(data);
  w->bytes.insert(w->bytes.end(), p, p + size);
  return 1;
}

TEST(CApi, ReadAndWriteCallbacksAndFiles) {
  Ctx ctx;
  const uint32_t w = 30, h = 30;
  const auto src = make_samples(w, h, 1, 8, false, GJ2K_SAMPLE_8, GJ2K_PLANAR);
  const gj2k_image_desc d = desc(w, h, 1, 8, false);
  gj2k_buffer in{const_cast<uint8_t*>(src.data()), src.size(), GJ2K_SAMPLE_8, GJ2K_PLANAR, 0, 0};
  gj2k_encode_params ep;
  gj2k_encode_params_init(&ep);
  ep.format = GJ2K_FORMAT_JP2;
  Writer wr;
  ASSERT_EQ(gj2k_encode_to_callback(ctx, &d, &in, &ep, write_cb, &wr), GJ2K_OK)
      << gj2k_context_error(ctx);
  EXPECT_GE(wr.calls, 1);
  EXPECT_EQ(encode(ctx, d, src, GJ2K_SAMPLE_8, GJ2K_PLANAR, &ep), wr.bytes);

  Reader rd{&wr.bytes};
  Dec dec(gj2k_decoder_create_callbacks(ctx, read_cb, &rd));
  ASSERT_NE(dec.dec, nullptr) << gj2k_context_error(ctx);
  gj2k_info info = info_struct();
  ASSERT_EQ(gj2k_decoder_read_header(dec, &info), GJ2K_OK);
  EXPECT_EQ(info.is_jp2, 1);
  EXPECT_EQ(info.color_space, GJ2K_CS_GREY);
  std::vector<uint8_t> out(src.size());
  gj2k_buffer b{out.data(), out.size(), GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  ASSERT_EQ(gj2k_decode_into(dec, nullptr, &b), GJ2K_OK);
  EXPECT_EQ(out, src);

  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("gj2k_capi_" + std::to_string(getpid()) + ".jp2");
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(wr.bytes.data(), 1, wr.bytes.size(), f);
    std::fclose(f);
  }
  Dec from_file(gj2k_decoder_create_file(ctx, path.c_str()));
  std::filesystem::remove(path);
  ASSERT_NE(from_file.dec, nullptr) << gj2k_context_error(ctx);
  std::fill(out.begin(), out.end(), 0);
  ASSERT_EQ(gj2k_decode_into(from_file, nullptr, &b), GJ2K_OK);
  EXPECT_EQ(out, src);

  // Failures: a read callback error, a missing file, a write callback error, NULL callbacks.
  Reader bad{&wr.bytes, 0, 7, true};
  EXPECT_EQ(gj2k_decoder_create_callbacks(ctx, read_cb, &bad), nullptr);
  EXPECT_EQ(gj2k_context_error_code(ctx), GJ2K_ERR_IO);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("read callback"), std::string::npos);
  EXPECT_EQ(gj2k_decoder_create_callbacks(ctx, nullptr, nullptr), nullptr);
  EXPECT_EQ(gj2k_context_error_code(ctx), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_decoder_create_file(ctx, "/nonexistent/gj2k.j2k"), nullptr);
  EXPECT_EQ(gj2k_context_error_code(ctx), GJ2K_ERR_IO);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("/nonexistent/gj2k.j2k"), std::string::npos);
  EXPECT_EQ(gj2k_decoder_create_file(ctx, nullptr), nullptr);
  Writer wfail;
  wfail.fail = true;
  EXPECT_EQ(gj2k_encode_to_callback(ctx, &d, &in, &ep, write_cb, &wfail), GJ2K_ERR_IO);
  EXPECT_EQ(gj2k_encode_to_callback(ctx, &d, &in, &ep, nullptr, nullptr),
            GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_encode_to_callback(nullptr, &d, &in, &ep, write_cb, &wr),
            GJ2K_ERR_INVALID_ARGUMENT);
}

struct Progress {
  int calls = 0;
  int cancel_after = -1;  // return 0 on this call
  double last = -1;
  bool monotonic = true;
  std::string stages;
};

int progress_cb(void* user, const char* stage, double f) {
  auto* p = static_cast<Progress*>(user);
  ++p->calls;
  if (f < 0 || f > 1) p->monotonic = false;
  p->last = f;
  if (p->stages.find(stage) == std::string::npos) p->stages += std::string(stage) + ";";
  return p->calls == p->cancel_after ? 0 : 1;
}

TEST(CApi, ProgressAndCancellation) {
  Ctx ctx;
  const uint32_t w = 128, h = 128;
  const auto src = make_samples(w, h, 3, 8, false, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED);
  const gj2k_image_desc d = desc(w, h, 3, 8, false);
  gj2k_encode_params ep;
  gj2k_encode_params_init(&ep);
  ep.tile_width = ep.tile_height = 32;  // 16 tiles: progress per tile
  Progress pe;
  ASSERT_EQ(gj2k_context_set_progress(ctx, progress_cb, &pe), GJ2K_OK);
  const auto bytes = encode(ctx, d, src, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, &ep);
  // Only the calling thread reports, after each tile it codes; the pool's workers may take all
  // but the last of so small an image's tiles, so one report is all that is certain.
  EXPECT_GE(pe.calls, 1);
  EXPECT_TRUE(pe.monotonic);
  EXPECT_EQ(pe.last, 1.0);
  EXPECT_NE(pe.stages.find("tier-1"), std::string::npos) << pe.stages;

  Progress pd;
  ASSERT_EQ(gj2k_context_set_progress(ctx, progress_cb, &pd), GJ2K_OK);
  Dec dec(gj2k_decoder_create_memory(ctx, bytes.data(), bytes.size()));
  ASSERT_EQ(gj2k_decoder_decode(dec, nullptr), GJ2K_OK);
  EXPECT_EQ(pd.calls, 16);  // one per tile
  EXPECT_EQ(pd.last, 1.0);
  EXPECT_EQ(pd.stages, "decode;");

  // Cancel the decode at its second tile, the encode at its first report.
  Progress cd;
  cd.cancel_after = 2;
  gj2k_context_set_progress(ctx, progress_cb, &cd);
  EXPECT_EQ(gj2k_decoder_decode(dec, nullptr), GJ2K_ERR_CANCELLED);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("cancelled"), std::string::npos);
  EXPECT_LT(cd.calls, 16);
  Progress ce;
  ce.cancel_after = 1;
  gj2k_context_set_progress(ctx, progress_cb, &ce);
  gj2k_buffer in{
      const_cast<uint8_t*>(src.data()), src.size(), GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  uint8_t* out = reinterpret_cast<uint8_t*>(1);
  size_t size = 1;
  EXPECT_EQ(gj2k_encode_to_memory(ctx, &d, &in, &ep, &out, &size), GJ2K_ERR_CANCELLED);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(ce.calls, 1);
  // Removed: the next decode runs to the end.
  gj2k_context_set_progress(ctx, nullptr, nullptr);
  EXPECT_EQ(gj2k_decoder_decode(dec, nullptr), GJ2K_OK);
}

struct Log {
  std::vector<std::string> messages;
};

void log_cb(void* user, int level, const char* message) {
  EXPECT_EQ(level, 1);
  static_cast<Log*>(user)->messages.push_back(message);
}

TEST(CApi, LogCallbackAndIcc) {
  Ctx ctx;
  Log log;
  ASSERT_EQ(gj2k_context_set_log(ctx, log_cb, &log), GJ2K_OK);
  const auto src = make_samples(16, 16, 3, 8, false, GJ2K_SAMPLE_8, GJ2K_PLANAR);
  gj2k_image_desc d = desc(16, 16, 3, 8, false);
  d.color_space = GJ2K_CS_ICC;  // without a profile: a warning, encoded all the same
  gj2k_encode_params ep;
  gj2k_encode_params_init(&ep);
  ep.format = GJ2K_FORMAT_JP2;
  EXPECT_FALSE(encode(ctx, d, src, GJ2K_SAMPLE_8, GJ2K_PLANAR, &ep).empty());
  ASSERT_EQ(log.messages.size(), 1u);
  EXPECT_NE(log.messages[0].find("ICC"), std::string::npos);

  std::vector<uint8_t> icc(132, 0);  // any bytes: JP2 carries them as they are
  for (size_t i = 0; i < icc.size(); ++i) icc[i] = static_cast<uint8_t>(i * 3);
  d.icc_profile = icc.data();
  d.icc_size = icc.size();
  const auto bytes = encode(ctx, d, src, GJ2K_SAMPLE_8, GJ2K_PLANAR, &ep);
  EXPECT_EQ(log.messages.size(), 1u);
  Dec dec(gj2k_decoder_create_memory(ctx, bytes.data(), bytes.size()));
  gj2k_info info = info_struct();
  ASSERT_EQ(gj2k_decoder_read_header(dec, &info), GJ2K_OK) << gj2k_context_error(ctx);
  EXPECT_EQ(info.color_space, GJ2K_CS_ICC);
  EXPECT_EQ(info.icc_size, icc.size());
  const uint8_t* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(gj2k_decoder_icc(dec, &data, &size), GJ2K_OK);
  ASSERT_EQ(size, icc.size());
  EXPECT_EQ(std::vector<uint8_t>(data, data + size), icc);
  EXPECT_EQ(gj2k_decoder_icc(dec, nullptr, &size), GJ2K_ERR_INVALID_ARGUMENT);
}

TEST(CApi, BadInputGivesCodeAndMessage) {
  Ctx ctx;
  const uint8_t junk[] = {0xFF, 0x4F, 0xFF, 0x51, 0x00, 0x02, 0x01};  // SOC, SIZ cut short
  Dec dec(gj2k_decoder_create_memory(ctx, junk, sizeof junk));
  ASSERT_NE(dec.dec, nullptr);  // the bytes are only read by read_header / decode
  gj2k_info info = info_struct();
  const gj2k_status s = gj2k_decoder_read_header(dec, &info);
  EXPECT_TRUE(s == GJ2K_ERR_FORMAT || s == GJ2K_ERR_TRUNCATED) << gj2k_status_string(s);
  EXPECT_EQ(gj2k_context_error_code(ctx), s);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("SIZ"), std::string::npos)
      << gj2k_context_error(ctx);
  EXPECT_EQ(gj2k_decoder_decode(dec, nullptr), s);
  const uint8_t text[] = "not a JPEG 2000 file";
  Dec dec2(gj2k_decoder_create_memory(ctx, text, sizeof text));
  EXPECT_EQ(gj2k_decoder_read_header(dec2, &info), GJ2K_ERR_FORMAT);
  EXPECT_STRNE(gj2k_last_error(), "");
  EXPECT_EQ(gj2k_decoder_create_memory(ctx, nullptr, 5), nullptr);
  EXPECT_EQ(gj2k_context_error_code(ctx), GJ2K_ERR_INVALID_ARGUMENT);

  // Encoding errors: bad precision, a sample out of range, a small buffer, bad parameters.
  std::vector<uint8_t> src(8 * 8, 200);
  gj2k_buffer in{src.data(), src.size(), GJ2K_SAMPLE_8, GJ2K_PLANAR, 0, 0};
  uint8_t* out = nullptr;
  size_t size = 0;
  gj2k_image_desc d = desc(8, 8, 1, 17, false);
  EXPECT_EQ(gj2k_encode_to_memory(ctx, &d, &in, nullptr, &out, &size), GJ2K_ERR_INVALID_ARGUMENT);
  d = desc(8, 8, 1, 7, false);  // 200 does not fit 7 bits
  EXPECT_EQ(gj2k_encode_to_memory(ctx, &d, &in, nullptr, &out, &size), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("200"), std::string::npos);
  d = desc(8, 9, 1, 8, false);
  EXPECT_EQ(gj2k_encode_to_memory(ctx, &d, &in, nullptr, &out, &size), GJ2K_ERR_BUFFER_TOO_SMALL);
  d = desc(8, 8, 1, 8, false);
  gj2k_encode_params ep;
  gj2k_encode_params_init(&ep);
  ep.cblk_width = 3;
  EXPECT_EQ(gj2k_encode_to_memory(ctx, &d, &in, &ep, &out, &size), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("cblk"), std::string::npos);
  gj2k_encode_params_init(&ep);
  ep.order = static_cast<gj2k_progression>(9);
  EXPECT_EQ(gj2k_encode_to_memory(ctx, &d, &in, &ep, &out, &size), GJ2K_ERR_INVALID_ARGUMENT);
  in.type = GJ2K_SAMPLE_32;
  EXPECT_EQ(gj2k_encode_to_memory(ctx, &d, &in, nullptr, &out, &size), GJ2K_ERR_INVALID_ARGUMENT);
  in.type = GJ2K_SAMPLE_8;
  EXPECT_EQ(gj2k_encode_to_memory(ctx, &d, nullptr, nullptr, &out, &size),
            GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_encode_to_memory(ctx, nullptr, &in, nullptr, &out, &size),
            GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_encode_to_memory(ctx, &d, &in, nullptr, nullptr, &size),
            GJ2K_ERR_INVALID_ARGUMENT);
  // The same context still encodes after the failures.
  gj2k_encode_params_init(&ep);
  ASSERT_EQ(gj2k_encode_to_memory(ctx, &d, &in, &ep, &out, &size), GJ2K_OK);
  gj2k_free(out);
}

TEST(CApi, IrreversibleWithRates) {
  Ctx ctx;
  gj2k_context_set_threads(ctx, 1);
  const uint32_t w = 96, h = 96;
  const auto src = make_samples(w, h, 3, 8, false, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED);
  const gj2k_image_desc d = desc(w, h, 3, 8, false);
  const auto lossless = encode(ctx, d, src, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED);
  gj2k_encode_params ep;
  gj2k_encode_params_init(&ep);
  ep.irreversible = 1;
  const double rate = 8;
  ep.rates = &rate;
  ep.num_rates = 1;
  ep.cblk_width = ep.cblk_height = 32;
  ep.sop = ep.eph = ep.tlm = ep.plt = 1;
  ep.comment = "capi test";
  const auto lossy = encode(ctx, d, src, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, &ep);
  EXPECT_LE(lossy.size(), src.size() / 8 + 1);
  EXPECT_LT(lossy.size(), lossless.size());
  const std::string stream(lossy.begin(), lossy.end());
  EXPECT_NE(stream.find("capi test"), std::string::npos);
  Dec dec(gj2k_decoder_create_memory(ctx, lossy.data(), lossy.size()));
  gj2k_info info = info_struct();
  ASSERT_EQ(gj2k_decoder_read_header(dec, &info), GJ2K_OK);
  EXPECT_EQ(info.reversible, 0);
  std::vector<uint8_t> out(src.size());
  gj2k_buffer b{out.data(), out.size(), GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  ASSERT_EQ(gj2k_decode_into(dec, nullptr, &b), GJ2K_OK);
  double err = 0;
  for (size_t i = 0; i < out.size(); ++i) err += std::abs(int(out[i]) - int(src[i]));
  EXPECT_LT(err / double(out.size()), 20.0);  // close, not exact
  EXPECT_NE(out, src);
}

}  // namespace

// gj2k_decoder_decode_into: every sample type and layout, signed and unsigned, lossless (the
// samples are the input's), several tiles and a region; the same bytes as gj2k_decoder_decode
// then gj2k_decoder_copy; sizes from gj2k_decoder_direct_size; errors.
TEST(CApi, DecoderDecodeInto) {
  Ctx ctx;
  const uint32_t w = 45, h = 30, nc = 3;
  for (bool is_signed : {false, true}) {
    const auto src = make_samples(w, h, nc, 8, is_signed, GJ2K_SAMPLE_8, GJ2K_PLANAR);
    gj2k_encode_params ep;
    gj2k_encode_params_init(&ep);
    ep.tile_width = 32;
    ep.tile_height = 16;
    ep.levels = 2;
    const auto bytes =
        encode(ctx, desc(w, h, nc, 8, is_signed), src, GJ2K_SAMPLE_8, GJ2K_PLANAR, &ep);
    Dec dec(gj2k_decoder_create_memory(ctx, bytes.data(), bytes.size()));
    for (gj2k_sample_type type : {GJ2K_SAMPLE_8, GJ2K_SAMPLE_16, GJ2K_SAMPLE_32})
      for (gj2k_layout layout : {GJ2K_PLANAR, GJ2K_INTERLEAVED}) {
        SCOPED_TRACE(testing::Message()
                     << "signed " << is_signed << " type " << type << " layout " << layout);
        size_t size = 0;
        ASSERT_EQ(gj2k_decoder_direct_size(dec, nullptr, type, layout, &size), GJ2K_OK);
        EXPECT_EQ(size, size_t{w} * h * nc * type);
        std::vector<uint8_t> out(size, 0xCD);
        gj2k_buffer b{out.data(), out.size(), type, layout, 0, 0};
        ASSERT_EQ(gj2k_decoder_decode_into(dec, nullptr, &b), GJ2K_OK) << gj2k_context_error(ctx);
        EXPECT_EQ(out, make_samples(w, h, nc, 8, is_signed, type, layout));
        gj2k_info info = info_struct();
        ASSERT_EQ(gj2k_decoder_output(dec, &info), GJ2K_OK);
        EXPECT_EQ(info.num_components, nc);
        EXPECT_EQ(gj2k_decoder_copy(dec, &b), GJ2K_ERR_INVALID_ARGUMENT);  // nothing kept
        // A region, against decode + copy.
        gj2k_decode_params dp;
        gj2k_decode_params_init(&dp);
        dp.use_region = 1;
        dp.region_x0 = 3, dp.region_y0 = 7, dp.region_x1 = 40, dp.region_y1 = 29;
        ASSERT_EQ(gj2k_decoder_direct_size(dec, &dp, type, layout, &size), GJ2K_OK);
        EXPECT_EQ(size, size_t{37} * 22 * nc * type);
        std::vector<uint8_t> direct(size, 0xCD), copied(size, 0x5A);
        gj2k_buffer bd{direct.data(), direct.size(), type, layout, 0, 0};
        gj2k_buffer bc{copied.data(), copied.size(), type, layout, 0, 0};
        ASSERT_EQ(gj2k_decoder_decode_into(dec, &dp, &bd), GJ2K_OK) << gj2k_context_error(ctx);
        ASSERT_EQ(gj2k_decoder_decode(dec, &dp), GJ2K_OK);
        ASSERT_EQ(gj2k_decoder_copy(dec, &bc), GJ2K_OK);
        EXPECT_EQ(direct, copied);
        // One byte short: refused before decoding.
        bd.size = size - 1;
        EXPECT_EQ(gj2k_decoder_decode_into(dec, &dp, &bd), GJ2K_ERR_BUFFER_TOO_SMALL);
        EXPECT_NE(std::string(gj2k_context_error(ctx)).find("needs"), std::string::npos);
      }
  }
}

// 12-bit samples: direct with upsample set (nothing is subsampled), refused for 8-bit samples;
// bad arguments.
TEST(CApi, DecoderDecodeIntoPrecisionAndErrors) {
  Ctx ctx;
  const uint32_t w = 40, h = 20;
  const auto src = make_samples(w, h, 3, 12, false, GJ2K_SAMPLE_16, GJ2K_PLANAR);
  auto bytes = encode(ctx, desc(w, h, 3, 12, false), src, GJ2K_SAMPLE_16, GJ2K_PLANAR);
  Dec dec(gj2k_decoder_create_memory(ctx, bytes.data(), bytes.size()));
  gj2k_decode_params dp;
  gj2k_decode_params_init(&dp);
  dp.upsample = 1;  // nothing subsampled: still direct
  size_t size = 0;
  EXPECT_EQ(gj2k_decoder_direct_size(dec, &dp, GJ2K_SAMPLE_16, GJ2K_PLANAR, &size), GJ2K_OK);
  std::vector<uint8_t> out(size);
  gj2k_buffer b{out.data(), out.size(), GJ2K_SAMPLE_8, GJ2K_PLANAR, 0, 0};
  EXPECT_EQ(gj2k_decoder_decode_into(dec, &dp, &b), GJ2K_ERR_INVALID_ARGUMENT);  // 12 bits
  EXPECT_NE(std::string(gj2k_context_error(ctx)).find("12 bits"), std::string::npos);
  b.type = GJ2K_SAMPLE_16;
  ASSERT_EQ(gj2k_decoder_decode_into(dec, &dp, &b), GJ2K_OK) << gj2k_context_error(ctx);
  EXPECT_EQ(out, src);
  b.type = static_cast<gj2k_sample_type>(3);
  EXPECT_EQ(gj2k_decoder_decode_into(dec, &dp, &b), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_decoder_decode_into(dec, &dp, nullptr), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_decoder_decode_into(nullptr, &dp, &b), GJ2K_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gj2k_decoder_direct_size(dec, &dp, GJ2K_SAMPLE_16, GJ2K_PLANAR, nullptr),
            GJ2K_ERR_INVALID_ARGUMENT);
}
