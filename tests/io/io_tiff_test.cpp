// TIFF reader/writer on synthetic files made with libtiff directly: every bit depth 1..16,
// signed and unsigned, grey/RGB/extra samples, contiguous and planar, strips and tiles,
// every lossless compression, MinIsWhite, palettes, refusals and malformed files.
#include <gtest/gtest.h>
#include <tiffio.h>

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/shared_data.h"
#include "gj2k/gj2k.h"
#include "io/image_io.h"

namespace gj2k {
namespace {

namespace fs = std::filesystem;

// What to put in a synthetic TIFF.
struct Spec {
  uint32_t width = 37, height = 23;
  uint16_t spp = 1, bps = 8;
  bool is_signed = false;
  uint16_t photometric = PHOTOMETRIC_MINISBLACK;
  bool planar = false;
  uint16_t compression = COMPRESSION_NONE;
  uint16_t predictor = 1;
  uint32_t tile = 0;  // tile width and height (multiple of 16), 0 for strips
  uint32_t rows_per_strip = 5;
  std::vector<uint16_t> extra;     // EXTRASAMPLES types
  std::vector<uint16_t> colormap;  // 3 * 2^bps entries (r..., g..., b...)
  uint16_t sample_format = 0;      // overrides the signed/unsigned choice when non-zero
};

std::string describe(const Spec& s) {
  return std::to_string(s.width) + "x" + std::to_string(s.height) +
         " spp=" + std::to_string(s.spp) + " bps=" + std::to_string(s.bps) +
         (s.is_signed ? " signed" : " unsigned") + " photometric=" + std::to_string(s.photometric) +
         (s.planar ? " planar" : " contig") + " compression=" + std::to_string(s.compression) +
         (s.tile ? " tile=" + std::to_string(s.tile) : " rps=" + std::to_string(s.rows_per_strip));
}

// Seeded random samples in each component's range: the expected image.
Image random_image(const Spec& s, uint32_t seed) {
  Image im = make_image(s.width, s.height, s.spp, s.bps, s.is_signed);
  std::mt19937 rng(seed);
  for (Component& c : im.components) {
    std::uniform_int_distribution<int64_t> d(c.min_value(), c.max_value());
    for (int32_t& v : c.samples) v = static_cast<int32_t>(d(rng));
  }
  return im;
}

// Packs one chunk's rows (MSB-first, bit by bit; 16-bit samples native order as libtiff wants).
std::vector<uint8_t> pack(const Spec& s, const Image& im, uint32_t x0, uint32_t y0, uint32_t cw,
                          uint32_t ch, int plane) {
  const uint32_t nsamp = s.planar ? 1 : s.spp;
  const size_t row_bytes = (size_t{cw} * nsamp * s.bps + 7) / 8;
  std::vector<uint8_t> out(row_bytes * ch, 0);
  for (uint32_t r = 0; r < ch; ++r) {
    size_t bit = 0;
    uint8_t* row = out.data() + r * row_bytes;
    for (uint32_t x = 0; x < cw; ++x) {
      for (uint32_t k = 0; k < nsamp; ++k) {
        const uint32_t c = s.planar ? plane : k;
        uint32_t v = 0;
        if (x0 + x < s.width && y0 + r < s.height)
          v = static_cast<uint32_t>(im.components[c].at(x0 + x, y0 + r)) & ((1u << s.bps) - 1);
        if (s.bps == 16) {
          const uint16_t w = static_cast<uint16_t>(v);
          std::memcpy(row + bit / 8, &w, 2);
          bit += 16;
          continue;
        }
        for (int b = s.bps - 1; b >= 0; --b, ++bit)
          if ((v >> b) & 1) row[bit / 8] |= static_cast<uint8_t>(0x80 >> (bit % 8));
      }
    }
  }
  return out;
}

// Writes `im` (sample values as stored) as a TIFF following `s`.
void write_spec(const fs::path& path, const Spec& s, const Image& im) {
  // Quiet libtiff's own warnings (the legacy Deflate code is written on purpose).
  struct Quiet {
    TIFFErrorHandler old = TIFFSetWarningHandler(nullptr);
    ~Quiet() { TIFFSetWarningHandler(old); }
  } quiet;
  TIFF* t = TIFFOpen(path.c_str(), "w");
  ASSERT_NE(t, nullptr);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, s.width);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, s.height);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, s.spp);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, s.bps);
  TIFFSetField(
      t, TIFFTAG_SAMPLEFORMAT,
      s.sample_format ? s.sample_format : (s.is_signed ? SAMPLEFORMAT_INT : SAMPLEFORMAT_UINT));
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, s.photometric);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, s.planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_COMPRESSION, s.compression);
  if (s.predictor != 1) TIFFSetField(t, TIFFTAG_PREDICTOR, s.predictor);
  if (!s.extra.empty())
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, static_cast<uint16_t>(s.extra.size()), s.extra.data());
  if (!s.colormap.empty()) {
    const size_t n = size_t{1} << s.bps;
    TIFFSetField(t, TIFFTAG_COLORMAP, s.colormap.data(), s.colormap.data() + n,
                 s.colormap.data() + 2 * n);
  }
  const int planes = s.planar ? s.spp : 1;
  if (s.tile) {
    TIFFSetField(t, TIFFTAG_TILEWIDTH, s.tile);
    TIFFSetField(t, TIFFTAG_TILELENGTH, s.tile);
    for (int p = 0; p < planes; ++p)
      for (uint32_t y = 0; y < s.height; y += s.tile)
        for (uint32_t x = 0; x < s.width; x += s.tile) {
          auto data = pack(s, im, x, y, s.tile, s.tile, p);
          ASSERT_GE(TIFFWriteEncodedTile(t, TIFFComputeTile(t, x, y, 0, p), data.data(),
                                         static_cast<tmsize_t>(data.size())),
                    0);
        }
  } else {
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, s.rows_per_strip);
    for (int p = 0; p < planes; ++p)
      for (uint32_t y = 0; y < s.height; y += s.rows_per_strip) {
        const uint32_t rows = std::min(s.rows_per_strip, s.height - y);
        auto data = pack(s, im, 0, y, s.width, rows, p);
        ASSERT_GE(TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, y, p), data.data(),
                                        static_cast<tmsize_t>(data.size())),
                  0);
      }
  }
  TIFFClose(t);
}

fs::path scratch(const std::string& name) {
  return test::scratch_dir() / name;
}

// Runs f with stderr and stdout redirected to a file; returns what was printed.
template <typename F>
std::string captured_output(F&& f) {
  const fs::path log = scratch("captured.txt");
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = dup(1), saved_err = dup(2);
  FILE* sink = std::fopen(log.c_str(), "w");
  dup2(fileno(sink), 1);
  dup2(fileno(sink), 2);
  f();
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  std::fclose(sink);
  auto bytes = io::read_file(log);
  return std::string(bytes.begin(), bytes.end());
}

TEST(IoTiff, EveryDepthLayoutAndSign) {
  uint32_t seed = 1000;
  for (uint16_t bps = 1; bps <= 16; ++bps)
    for (uint16_t spp : {1, 3})
      for (bool planar : {false, true})
        for (bool tiled : {false, true})
          for (bool is_signed : {false, true}) {
            if (spp == 1 && planar) continue;
            Spec s;
            s.bps = bps;
            s.spp = spp;
            s.photometric = spp == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
            s.planar = planar;
            s.tile = tiled ? 16 : 0;
            s.is_signed = is_signed;
            const Image expect = random_image(s, ++seed);
            const fs::path path = scratch("depth.tif");
            write_spec(path, s, expect);
            const Image got = io::read_tiff(path);
            auto diff = compare(expect, got);
            ASSERT_FALSE(diff) << describe(s) << " seed " << seed << ": " << *diff;
            // And back through our writer.
            const Image again = io::read_tiff(io::encode_tiff(got, io::TiffCompression::kNone));
            diff = compare(expect, again);
            ASSERT_FALSE(diff) << "rewrite " << describe(s) << " seed " << seed << ": " << *diff;
          }
}

TEST(IoTiff, Compressions) {
  struct Case {
    uint16_t compression, predictor, bps;
  };
  const Case cases[] = {{COMPRESSION_LZW, 1, 8},
                        {COMPRESSION_LZW, 2, 8},
                        {COMPRESSION_LZW, 2, 16},
                        {COMPRESSION_ADOBE_DEFLATE, 1, 12},
                        {COMPRESSION_ADOBE_DEFLATE, 2, 16},
                        {COMPRESSION_DEFLATE, 1, 8},
                        {COMPRESSION_PACKBITS, 1, 8},
                        {COMPRESSION_PACKBITS, 1, 5}};
  uint32_t seed = 2000;
  for (const Case& c : cases)
    for (bool tiled : {false, true}) {
      Spec s;
      s.spp = 3;
      s.photometric = PHOTOMETRIC_RGB;
      s.bps = c.bps;
      s.compression = c.compression;
      s.predictor = c.predictor;
      s.tile = tiled ? 32 : 0;
      s.width = 70;
      s.height = 41;
      Image expect = random_image(s, ++seed);
      // Smooth ramps in component 0 so the compressors have something to find.
      for (uint32_t y = 0; y < s.height; ++y)
        for (uint32_t x = 0; x < s.width; ++x)
          expect.components[0].at(x, y) = static_cast<int32_t>((x + y) % (1u << c.bps));
      const fs::path path = scratch("compressed.tif");
      write_spec(path, s, expect);
      auto diff = compare(expect, io::read_tiff(path));
      EXPECT_FALSE(diff) << describe(s) << " predictor " << c.predictor << " seed " << seed << ": "
                         << *diff;
    }
}

TEST(IoTiff, WriterCompressionsRoundTrip) {
  Spec s;
  s.spp = 4;
  s.bps = 10;
  s.width = 300;
  s.height = 301;  // several strips
  Image im = random_image(s, 3000);
  im.components[3].is_alpha = true;
  im.color_space = ColorSpace::kSRGB;
  for (auto compression : {io::TiffCompression::kNone, io::TiffCompression::kDeflate,
                           io::TiffCompression::kLzw, io::TiffCompression::kPackBits}) {
    const auto bytes = io::encode_tiff(im, compression);
    const Image back = io::read_tiff(bytes);
    auto diff = compare(im, back);
    EXPECT_FALSE(diff) << "compression " << static_cast<int>(compression) << ": " << *diff;
    EXPECT_TRUE(back.components[3].is_alpha);
    EXPECT_FALSE(back.components[2].is_alpha);
    EXPECT_EQ(back.color_space, ColorSpace::kSRGB);
  }
}

TEST(IoTiff, WriterTags) {
  Image im = make_image(9, 7, 2, 12, true);
  im.components[1].is_alpha = true;
  im.components[0].at(3, 4) = -2048;
  const fs::path path = scratch("tags.tif");
  io::write_tiff(im, path, io::TiffCompression::kDeflate);
  TIFF* t = TIFFOpen(path.c_str(), "r");
  ASSERT_NE(t, nullptr);
  uint16_t format = 0, photometric = 0, compression = 0, bps = 0, spp = 0, count = 0;
  uint16_t* types = nullptr;
  TIFFGetField(t, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photometric);
  TIFFGetField(t, TIFFTAG_COMPRESSION, &compression);
  TIFFGetField(t, TIFFTAG_BITSPERSAMPLE, &bps);
  TIFFGetField(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
  ASSERT_TRUE(TIFFGetField(t, TIFFTAG_EXTRASAMPLES, &count, &types));
  EXPECT_EQ(format, SAMPLEFORMAT_INT);
  EXPECT_EQ(photometric, PHOTOMETRIC_MINISBLACK);
  EXPECT_EQ(compression, COMPRESSION_ADOBE_DEFLATE);
  EXPECT_EQ(bps, 12);
  EXPECT_EQ(spp, 2);
  ASSERT_EQ(count, 1);
  EXPECT_EQ(types[0], EXTRASAMPLE_UNASSALPHA);
  TIFFClose(t);
  auto diff = compare(im, io::read_tiff(path));
  EXPECT_FALSE(diff) << *diff;
}

TEST(IoTiff, WriterRefusesWhatTiffCannotHold) {
  Image mixed = make_image(4, 4, 3, 8);
  mixed.components[1].precision = 10;
  EXPECT_THROW(io::encode_tiff(mixed, io::TiffCompression::kNone), Error);
  Image sub = make_image(4, 4, 2, 8);
  sub.components[1].dx = 2;
  allocate_components(sub);
  EXPECT_THROW(io::encode_tiff(sub, io::TiffCompression::kNone), Error);
  Image wide = make_image(4, 4, 1, 20);
  EXPECT_THROW(io::encode_tiff(wide, io::TiffCompression::kNone), Error);
  Image alpha_first = make_image(4, 4, 1, 8);
  alpha_first.components[0].is_alpha = true;
  EXPECT_THROW(io::encode_tiff(alpha_first, io::TiffCompression::kNone), Error);
}

TEST(IoTiff, MinIsWhiteInverted) {
  for (uint16_t bps : {1, 4, 8, 16}) {
    Spec s;
    s.bps = bps;
    s.photometric = PHOTOMETRIC_MINISWHITE;
    s.spp = 2;
    s.extra = {EXTRASAMPLE_UNASSALPHA};
    const Image stored = random_image(s, 4000 + bps);
    const fs::path path = scratch("miniswhite.tif");
    write_spec(path, s, stored);
    Image expect = stored;
    for (int32_t& v : expect.components[0].samples)
      v = static_cast<int32_t>(expect.components[0].max_value()) - v;
    const Image got = io::read_tiff(path);
    auto diff = compare(expect, got);
    EXPECT_FALSE(diff) << bps << " bits: " << *diff;
    EXPECT_TRUE(got.components[1].is_alpha);
    EXPECT_EQ(got.color_space, ColorSpace::kGrey);
  }
}

TEST(IoTiff, PaletteExpandedToRgb) {
  struct Case {
    uint16_t bps;
    bool eight_bit_map;  // colour map entries written as 0..255 (a common writer quirk)
    uint32_t out_precision;
  };
  for (const Case& c : {Case{2, false, 8}, Case{4, false, 8}, Case{8, false, 8}, Case{8, true, 8},
                        Case{16, false, 16}}) {
    Spec s;
    s.bps = c.bps;
    s.photometric = PHOTOMETRIC_PALETTE;
    const size_t entries = size_t{1} << c.bps;
    std::mt19937 rng(5000 + c.bps);
    s.colormap.resize(3 * entries);
    for (uint16_t& v : s.colormap)
      v = static_cast<uint16_t>(rng() & (c.eight_bit_map ? 0xff : 0xffff));
    const Image index = random_image(s, 5100 + c.bps);
    const fs::path path = scratch("palette.tif");
    write_spec(path, s, index);
    const Image got = io::read_tiff(path);
    ASSERT_EQ(got.components.size(), 3u) << c.bps;
    EXPECT_EQ(got.color_space, ColorSpace::kSRGB);
    for (int ch = 0; ch < 3; ++ch) {
      const Component& comp = got.components[ch];
      EXPECT_EQ(comp.precision, c.out_precision);
      for (size_t i = 0; i < comp.samples.size(); ++i) {
        const uint16_t entry = s.colormap[ch * entries + index.components[0].samples[i]];
        const int32_t want = c.out_precision == 8 && !c.eight_bit_map ? entry >> 8 : entry;
        ASSERT_EQ(comp.samples[i], want) << "bps " << c.bps << " channel " << ch << " at " << i;
      }
    }
  }
}

TEST(IoTiff, ExtraSamplesAlpha) {
  Spec s;
  s.spp = 6;
  s.photometric = PHOTOMETRIC_RGB;
  s.extra = {EXTRASAMPLE_ASSOCALPHA, EXTRASAMPLE_UNSPECIFIED, EXTRASAMPLE_UNASSALPHA};
  const Image stored = random_image(s, 6000);
  const fs::path path = scratch("extra.tif");
  write_spec(path, s, stored);
  const Image got = io::read_tiff(path);
  auto diff = compare(stored, got);
  EXPECT_FALSE(diff) << *diff;
  const bool alpha[] = {false, false, false, true, false, true};
  for (int c = 0; c < 6; ++c) EXPECT_EQ(got.components[c].is_alpha, alpha[c]) << c;
}

// The reader refuses, naming the file and the reason.
void expect_refused(const fs::path& path, ErrorCode code, const std::string& reason) {
  try {
    io::read_tiff(path);
    ADD_FAILURE() << path << " was read, expected refusal: " << reason;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

TEST(IoTiff, RefusesFloatWideYCbCrAndJpeg) {
  {
    // Float samples: write zero bytes of the right size directly.
    const fs::path path = scratch("float.tif");
    TIFF* t = TIFFOpen(path.c_str(), "w");
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 4u);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 4u);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4u);
    std::vector<float> zeros(16, 0.5f);
    TIFFWriteEncodedStrip(t, 0, zeros.data(), 64);
    TIFFClose(t);
    expect_refused(path, ErrorCode::kUnsupported, "floating-point");
  }
  {
    const fs::path path = scratch("wide.tif");
    TIFF* t = TIFFOpen(path.c_str(), "w");
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 4u);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 4u);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4u);
    std::vector<uint32_t> zeros(16, 7);
    TIFFWriteEncodedStrip(t, 0, zeros.data(), 64);
    TIFFClose(t);
    expect_refused(path, ErrorCode::kUnsupported, "32 bits per sample");
  }
  {
    const fs::path path = scratch("ycbcr.tif");
    TIFF* t = TIFFOpen(path.c_str(), "w");
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 4u);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 4u);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_YCBCR);
    TIFFSetField(t, TIFFTAG_YCBCRSUBSAMPLING, 2, 2);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4u);
    std::vector<uint8_t> zeros(4 * 6, 0);  // 4 2x2 blocks of 4 Y + Cb + Cr
    TIFFWriteEncodedStrip(t, 0, zeros.data(), static_cast<tmsize_t>(zeros.size()));
    TIFFClose(t);
    expect_refused(path, ErrorCode::kUnsupported, "YCbCr");
  }
  if (TIFFIsCODECConfigured(COMPRESSION_JPEG)) {
    Spec s;
    s.spp = 3;
    s.photometric = PHOTOMETRIC_RGB;
    s.compression = COMPRESSION_JPEG;
    s.width = s.height = 16;
    s.rows_per_strip = 16;
    const fs::path path = scratch("jpeg.tif");
    write_spec(path, s, random_image(s, 7000));
    expect_refused(path, ErrorCode::kUnsupported, "JPEG");
  }
}

// Little classic TIFF (little-endian) built byte by byte: one uncompressed 8-bit grey strip
// holding `strip_bytes` bytes, with a header claiming width x height.
std::vector<uint8_t> handmade_tiff(uint32_t width, uint32_t height, uint32_t strip_bytes,
                                   uint32_t bytes_in_file) {
  std::vector<uint8_t> f = {'I', 'I', 42, 0, 8, 0, 0, 0};
  auto u16 = [&](uint16_t v) {
    f.push_back(v & 0xff);
    f.push_back(v >> 8);
  };
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) f.push_back((v >> (8 * i)) & 0xff);
  };
  const uint16_t entries = 8;
  const uint32_t data_at = 8 + 2 + entries * 12 + 4;
  u16(entries);
  auto entry = [&](uint16_t tag, uint16_t type, uint32_t value) {
    u16(tag);
    u16(type);
    u32(1);
    if (type == 3) {
      u16(static_cast<uint16_t>(value));
      u16(0);
    } else {
      u32(value);
    }
  };
  entry(256, 4, width);
  entry(257, 4, height);
  entry(258, 3, 8);
  entry(259, 3, 1);
  entry(262, 3, 1);
  entry(273, 4, data_at);
  entry(278, 4, height);
  entry(279, 4, strip_bytes);
  u32(0);
  for (uint32_t i = 0; i < bytes_in_file; ++i) f.push_back(static_cast<uint8_t>(i * 7));
  return f;
}

TEST(IoTiff, HandmadeFileReads) {
  // Control for the malformed cases below: the honest version reads.
  const auto good = handmade_tiff(5, 3, 15, 15);
  const Image im = io::read_tiff(good, "handmade");
  ASSERT_EQ(im.width(), 5u);
  EXPECT_EQ(im.components[0].at(4, 2), static_cast<int32_t>(uint8_t(14 * 7)));
}

TEST(IoTiff, MalformedGiveErrorsAndPrintNothing) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> bad = {
      {"empty", {}},
      {"wrong magic", {'P', '5', 42, 0, 8, 0, 0, 0}},
      {"absurd size", handmade_tiff(100000, 100000, 15, 15)},
      {"strip lies", handmade_tiff(5, 3, 15, 4)},
      {"strip short", handmade_tiff(5, 3, 4, 4)},
      {"zero width", handmade_tiff(0, 3, 15, 15)},
  };
  const auto good = handmade_tiff(5, 3, 15, 15);
  for (size_t n : {4, 7, 9, 40, 100})
    bad.push_back({"truncated to " + std::to_string(n), {good.begin(), good.begin() + n}});
  for (const auto& [what, bytes] : bad) {
    std::string message;
    const std::string printed = captured_output([&] {
      try {
        io::read_tiff(bytes, "bad.tif");
        message = "(no error)";
      } catch (const Error& e) {
        message = e.what();
      }
    });
    EXPECT_NE(message, "(no error)") << what;
    EXPECT_EQ(message.rfind("bad.tif", 0), 0u) << what << ": " << message;
    EXPECT_EQ(printed, "") << what << ": libtiff printed";
  }
}

TEST(IoTiff, FileErrorsNameTheFileAndPrintNothing) {
  const fs::path bad = scratch("bad-file.tif");
  const auto good = handmade_tiff(5, 3, 15, 15);
  io::write_file(bad, std::vector<uint8_t>(good.begin(), good.begin() + 60));
  const fs::path missing = scratch("missing.tif");
  const fs::path no_dir = scratch("no-such-dir") / "out.tif";
  std::vector<std::pair<ErrorCode, std::string>> got;
  const std::string printed = captured_output([&] {
    for (const fs::path& p : {bad, missing}) {
      try {
        io::read_tiff(p);
        got.push_back({ErrorCode::kInternal, "(no error)"});
      } catch (const Error& e) {
        got.push_back({e.code(), e.what()});
      }
    }
    try {
      io::write_tiff(make_image(2, 2, 1, 8), no_dir);
      got.push_back({ErrorCode::kInternal, "(no error)"});
    } catch (const Error& e) {
      got.push_back({e.code(), e.what()});
    }
  });
  EXPECT_EQ(printed, "");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_NE(got[0].first, ErrorCode::kInternal) << got[0].second;
  EXPECT_EQ(got[0].second.rfind(bad.string(), 0), 0u) << got[0].second;
  EXPECT_EQ(got[1].first, ErrorCode::kIo) << got[1].second;
  EXPECT_EQ(got[1].second.rfind(missing.string(), 0), 0u) << got[1].second;
  EXPECT_EQ(got[2].first, ErrorCode::kIo) << got[2].second;
  // A refused image creates no file.
  Image mixed = make_image(2, 2, 2, 8);
  mixed.components[1].precision = 9;
  EXPECT_THROW(io::write_tiff(mixed, scratch("refused.tif")), Error);
  EXPECT_FALSE(fs::exists(scratch("refused.tif")));
}

TEST(IoTiff, CorruptedBytesNeverCrash) {
  Spec s;
  s.spp = 3;
  s.photometric = PHOTOMETRIC_RGB;
  s.compression = COMPRESSION_LZW;
  s.bps = 8;
  const fs::path path = scratch("fuzzed.tif");
  write_spec(path, s, random_image(s, 8000));
  const auto good = io::read_file(path);
  const uint32_t seed = 8001;
  std::mt19937 rng(seed);
  int errors = 0;
  const std::string printed = captured_output([&] {
    for (int trial = 0; trial < 300; ++trial) {
      auto bytes = good;
      const int flips = 1 + rng() % 4;
      for (int k = 0; k < flips; ++k) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
      try {
        const Image im = io::read_tiff(bytes, "fuzz");
        validate(im);
      } catch (const Error&) {
        ++errors;
      }
    }
  });
  EXPECT_EQ(printed, "") << "seed " << seed;
  EXPECT_GT(errors, 0) << "seed " << seed << ": no corruption was detected at all";
}

}  // namespace
}  // namespace gj2k
