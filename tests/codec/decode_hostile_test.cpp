// Hostile input: streams whose headers describe absurd images must fail (or finish) in under a
// second and 200 MB, each run in a forked child that measures its time and peak memory
// (tests/common/bounded_run.h). The streams are made here: our encoder, then byte patches.
// Also: every failure crosses the API as gj2k::Error and names the file it read, and a sweep
// of truncated and byte-flipped conformance streams stays clean under the same bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "common/bounded_run.h"
#include "common/shared_data.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#ifdef GJ2K_HAVE_OPENJPEG
#include "tests/codec/encode_test_util.h"
#endif

namespace {

using gj2k::ErrorCode;
using gj2k::test::BoundedResult;
using gj2k::test::run_bounded;
using Bytes = std::vector<uint8_t>;

constexpr double kMaxSeconds = 1.0;
constexpr long kMaxPeakKb = 200 * 1024;

gj2k::Image ramp(uint32_t w, uint32_t h) {
  gj2k::Image im = gj2k::make_image(w, h, 1, 8);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      im.components[0].at(x, y) = static_cast<int32_t>((x * 7 + y * 3) & 255);
  return im;
}

Bytes encode(const gj2k::Image& im, gj2k::EncodeParams p = {},
             gj2k::FileFormat f = gj2k::FileFormat::kJ2k) {
  p.no_comment = true;
  p.threads = 1;
  p.device = gj2k::EncodeParams::Device::kCpu;
  return gj2k::Encoder().encode(im, p, f);
}

void put32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

// The offset of marker `code` in the main header of codestream `cs` (walking the segments).
size_t main_marker(const Bytes& cs, uint16_t code) {
  size_t pos = 2;
  while (pos + 4 <= cs.size()) {
    const uint16_t m = static_cast<uint16_t>(cs[pos] << 8 | cs[pos + 1]);
    if (m == code) return pos;
    pos += 2 + (cs[pos + 2] << 8 | cs[pos + 3]);
  }
  ADD_FAILURE() << "marker " << std::hex << code << " not found";
  return 0;
}

// SIZ's image and tile sizes (A.5.1: Xsiz at +6, Ysiz +10, XTsiz +22, YTsiz +26).
void patch_siz(Bytes& cs, uint32_t xsiz, uint32_t ysiz, uint32_t xt, uint32_t yt) {
  const size_t siz = main_marker(cs, 0xFF51);
  put32(cs, siz + 6, xsiz);
  put32(cs, siz + 10, ysiz);
  put32(cs, siz + 22, xt);
  put32(cs, siz + 26, yt);
}

// Replaces everything from the first tile-part's body on by `packets` empty packets (one zero
// byte each, B.10.3) and EOC, with Psot to match.
void empty_packets(Bytes& cs, size_t packets) {
  const size_t sot = main_marker(cs, 0xFF90);
  size_t sod = sot;
  while (!(cs[sod] == 0xFF && cs[sod + 1] == 0x93)) ++sod;
  cs.resize(sod + 2);
  cs.insert(cs.end(), packets, 0);
  put32(cs, sot + 6, static_cast<uint32_t>(cs.size() - sot));
  cs.push_back(0xFF);
  cs.push_back(0xD9);
}

gj2k::DecodeParams one_thread() {
  gj2k::DecodeParams p;
  p.threads = 1;  // the forked child may use one thread only
  p.device = gj2k::DecodeDevice::kCpu;
  return p;
}

// Decodes `bytes` in a bounded child; expects a gj2k::Error with `code` whose message holds
// `text`, within the time and memory bounds.
void expect_fast_error(const Bytes& bytes, const gj2k::DecodeParams& p, ErrorCode code,
                       const std::string& text) {
  const BoundedResult r = run_bounded([&] {
    try {
      gj2k::decode_memory(bytes, p);
    } catch (const gj2k::Error& e) {
      if (e.code() != code) throw gj2k::Error(e.code(), "wrong code: " + std::string(e.what()));
      throw;
    }
  });
  SCOPED_TRACE(r.describe());
  ASSERT_EQ(r.kind, BoundedResult::Kind::kGjError);
  EXPECT_EQ(r.message.rfind("wrong code", 0), std::string::npos);
  EXPECT_NE(r.message.find(text), std::string::npos);
  EXPECT_LT(r.seconds, kMaxSeconds);
  if (r.memory_measured) {
    EXPECT_LT(r.peak_kb, kMaxPeakKb);
  }
}

// A JP2 whose codestream claims 1109x2098808 (one tile of empty packets) while ihdr says 64x64:
// refused at the header, as OpenJPEG refuses it.
TEST(DecodeHostile, Jp2IhdrDisagreesWithSiz) {
  Bytes jp2 = encode(ramp(64, 64), {}, gj2k::FileFormat::kJp2);
  const auto at = std::search(jp2.begin(), jp2.end(), std::begin("jp2c"), std::end("jp2c") - 1);
  ASSERT_NE(at, jp2.end());
  const size_t box = static_cast<size_t>(at - jp2.begin()) - 4;
  Bytes cs(jp2.begin() + static_cast<long>(box) + 8, jp2.end());
  patch_siz(cs, 1109, 2098808, 1109, 2098808);
  empty_packets(cs, 22000);
  jp2.resize(box + 8);
  jp2.insert(jp2.end(), cs.begin(), cs.end());
  put32(jp2, box, static_cast<uint32_t>(cs.size() + 8));
  expect_fast_error(jp2, one_thread(), ErrorCode::kFormat,
                    "ihdr: image size 64x64 but SIZ says 1109x2098808");
  // The same header is refused by read_header() too, before any decode.
  EXPECT_THROW(gj2k::Decoder(jp2).read_header(), gj2k::Error);
}

// One 32768x32768 tile of empty packets (a valid, all-zero image of 1 Gsample from ~100
// bytes): refused by the default max_samples on a machine of less than 32 GiB, and by any
// smaller limit the caller sets.
TEST(DecodeHostile, OneHugeTileNeedsMaxSamples) {
  gj2k::EncodeParams ep;
  ep.levels = 5;
  Bytes cs = encode(ramp(64, 64), ep);
  patch_siz(cs, 32768, 32768, 32768, 32768);
  empty_packets(cs, 6);  // 1 layer x 6 resolutions x 1 precinct
  EXPECT_LT(cs.size(), 300u);
  gj2k::DecodeParams p = one_thread();
  p.max_samples = uint64_t{1} << 28;
  expect_fast_error(cs, p, ErrorCode::kResource, "max_samples");
  if (gj2k::default_max_samples() >= uint64_t{32768} * 32768)
    GTEST_SKIP() << "this machine's default max_samples (" << gj2k::default_max_samples()
                 << ") admits 1 Gsample: the default case only applies below 32 GiB";
  expect_fast_error(cs, one_thread(), ErrorCode::kResource, "max_samples");
}

TEST(DecodeHostile, DefaultMaxSamplesFollowsMemory) {
  const uint64_t physical = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
  EXPECT_EQ(gj2k::default_max_samples(), std::max<uint64_t>(physical / 32, uint64_t{1} << 24));
  EXPECT_EQ(gj2k::DecodeParams{}.max_samples, gj2k::default_max_samples());
}

// Tiles 203x256 of an image claiming 203x2097304 (8193 tiles), only tile 0 present: refused
// before anything is allocated; with allow_partial the absent tiles are zeros and cost the
// output, so a limit below that refuses it at once.
TEST(DecodeHostile, AbsentTilesAreRefusedOrBounded) {
  gj2k::EncodeParams ep;
  ep.tile_width = 203;
  ep.tile_height = 256;
  Bytes cs = encode(ramp(203, 256), ep);
  patch_siz(cs, 203, 2097304, 203, 256);
  expect_fast_error(cs, one_thread(), ErrorCode::kTruncated, "tile 1 has no tile-part");
  gj2k::DecodeParams p = one_thread();
  p.allow_partial = true;
  p.max_samples = uint64_t{1} << 26;
  expect_fast_error(cs, p, ErrorCode::kResource, "max_samples");
}

// With allow_partial, absent tiles decode to zeros and present ones to their samples, as
// OpenJPEG decodes them.
TEST(DecodeHostile, AbsentTilesDecodeToZerosWithAllowPartial) {
  gj2k::EncodeParams ep;
  ep.levels = 3;
  const gj2k::Image src = ramp(64, 64);
  Bytes cs = encode(src, ep);
  patch_siz(cs, 128, 96, 64, 64);  // 2x2 tiles, only tile 0 in the stream
  EXPECT_THROW(gj2k::decode_memory(cs, one_thread()), gj2k::Error);
  gj2k::DecodeParams p = one_thread();
  p.allow_partial = true;
  const gj2k::Image out = gj2k::decode_memory(cs, p);
  ASSERT_EQ(out.width(), 128u);
  ASSERT_EQ(out.height(), 96u);
  for (uint32_t y = 0; y < 96; ++y)
    for (uint32_t x = 0; x < 128; ++x)
      ASSERT_EQ(out.components[0].at(x, y), x < 64 && y < 64 ? src.components[0].at(x, y) : 0)
          << "at " << x << "," << y;
#ifdef GJ2K_HAVE_OPENJPEG
  std::string error;
  auto opj = gj2k::test::opj_decode(cs, error);
  ASSERT_TRUE(opj) << error;
  EXPECT_EQ(gj2k::test::compare_samples(out, *opj), std::nullopt);
#endif
}

// Inputs that are not codestreams, named by their file in every error.
TEST(DecodeHostile, ErrorsNameTheFile) {
  const auto dir = gj2k::test::scratch_dir() / "hostile";
  std::filesystem::create_directories(dir);
  const auto empty = dir / "empty.j2k", ppm = dir / "picture.j2k";
  std::ofstream(empty, std::ios::binary).close();
  std::ofstream(ppm, std::ios::binary) << "P6\n2 2\n255\n" << std::string(12, '\x7f');
  for (const auto& path : {empty, ppm, dir, dir / "missing.j2k"}) {
    SCOPED_TRACE(path.string());
    try {
      gj2k::decode_file(path, one_thread());
      ADD_FAILURE() << "decoded";
    } catch (const gj2k::Error& e) {
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "non-gj2k exception: " << e.what();
    }
    try {
      gj2k::Decoder d(path);
      d.read_header();
      ADD_FAILURE() << "read a header";
    } catch (const gj2k::Error& e) {
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    }
  }
}

// Allocation failure inside a decode is Error(kResource), not std::bad_alloc: a 16384x16384
// image of empty packets with max_samples raised, in a child whose address space is capped
// at 256 MB more than it has.
TEST(DecodeHostile, OutOfMemoryIsAnError) {
#ifdef GJ2K_TEST_ASAN
  GTEST_SKIP() << "RLIMIT_AS does not apply under AddressSanitizer";
#endif
  gj2k::EncodeParams ep;
  ep.levels = 5;
  Bytes cs = encode(ramp(64, 64), ep);
  patch_siz(cs, 16384, 16384, 16384, 16384);
  empty_packets(cs, 6);
  gj2k::DecodeParams p = one_thread();
  p.max_samples = uint64_t{1} << 32;
  const BoundedResult r = run_bounded([&] { gj2k::decode_memory(cs, p); }, 20, 256);
  SCOPED_TRACE(r.describe());
  ASSERT_EQ(r.kind, BoundedResult::Kind::kGjError);
  EXPECT_NE(r.message.find("out of memory"), std::string::npos);
}

// Truncations and byte flips of conformance streams, at deterministic positions: each decode
// ends in an image or a gj2k::Error, and all of one stream's variants together stay within
// the bounds (a second per variant on average, 200 MB).
class DecodeHostileSweep : public ::testing::TestWithParam<const char*> {};

TEST_P(DecodeHostileSweep, TruncatedAndFlippedStreamsStayBounded) {
  const std::string name = GetParam();
  GJ2K_REQUIRE_SHARED("conformance/input/" + name);
  std::ifstream in(gj2k::test::shared_dir() / "conformance/input" / name, std::ios::binary);
  const Bytes bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_GT(bytes.size(), 64u);
  std::vector<Bytes> variants;
  std::vector<std::string> labels;
  std::mt19937 rng(1234567u + static_cast<uint32_t>(bytes.size()));
  for (size_t cut : {size_t{12}, size_t{40}, bytes.size() / 3, bytes.size() - 5}) {
    variants.emplace_back(bytes.begin(), bytes.begin() + static_cast<long>(cut));
    labels.push_back("cut at " + std::to_string(cut));
  }
  for (int i = 0; i < 4; ++i) {
    Bytes v = bytes;
    // Header bytes first (sizes, counts), then anywhere.
    const size_t at = i < 2 ? 4 + rng() % 60 : rng() % v.size();
    v[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    variants.push_back(std::move(v));
    labels.push_back("byte " + std::to_string(at) + " flipped");
  }
  for (size_t i = 0; i < variants.size(); ++i) {
    for (bool partial : {false, true}) {
      const BoundedResult r = run_bounded([&] {
        gj2k::DecodeParams p = one_thread();
        p.allow_partial = partial;
        gj2k::validate(gj2k::decode_memory(variants[i], p));
      });
      SCOPED_TRACE(name + " " + labels[i] + (partial ? " (allow_partial)" : "") + ": " +
                   r.describe());
      EXPECT_TRUE(r.clean());
      EXPECT_LT(r.seconds, 2 * kMaxSeconds);
      if (r.memory_measured) {
        EXPECT_LT(r.peak_kb, kMaxPeakKb);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Conformance, DecodeHostileSweep,
                         ::testing::Values("p0_01.j2k", "p0_03.j2k", "p0_06.j2k", "p0_09.j2k",
                                           "p0_12.j2k", "p0_14.j2k", "p0_16.j2k", "p1_01.j2k",
                                           "p1_06.j2k", "p1_07.j2k", "a1_mono.j2c", "b2_mono.j2c",
                                           "d1_colr.j2c", "g4_colr.j2c", "file8.jp2"),
                         [](const auto& info) {
                           std::string s = info.param;
                           return s.substr(0, s.find('.'));
                         });

}  // namespace

namespace {

// `gj2k decode`: --max-samples lowers or raises the limit; a bad output name is refused before
// decoding; errors name the input file.
std::string cli(const std::string& args, int& status) {
  const auto log = gj2k::test::scratch_dir() / "hostile_cli.txt";
  status = std::system(
      (std::string(GJ2K_BINARY_DIR) + "/bin/gj2k decode --quiet " + args + " 2>" + log.string())
          .c_str());
  std::ifstream in(log);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(DecodeHostileCli, MaxSamplesAndOutputChecks) {
  if (!std::filesystem::exists(std::string(GJ2K_BINARY_DIR) + "/bin/gj2k"))
    GTEST_SKIP() << "the gj2k CLI is not built in " << GJ2K_BINARY_DIR;
  const auto dir = gj2k::test::scratch_dir() / "hostile_cli";
  std::filesystem::create_directories(dir);
  const auto in = dir / "small.j2k";
  const Bytes cs = encode(ramp(64, 64));
  std::ofstream(in, std::ios::binary)
      .write(reinterpret_cast<const char*>(cs.data()), static_cast<std::streamsize>(cs.size()));
  int status = 0;
  std::string err =
      cli("-i " + in.string() + " -o " + (dir / "a.pgm").string() + " --max-samples 4095", status);
  EXPECT_NE(status, 0);
  EXPECT_NE(err.find("--max-samples"), std::string::npos) << err;
  EXPECT_NE(err.find(in.string()), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir / "a.pgm"));
  err =
      cli("-i " + in.string() + " -o " + (dir / "a.pgm").string() + " --max-samples 4096", status);
  EXPECT_EQ(status, 0) << err;
  EXPECT_TRUE(std::filesystem::exists(dir / "a.pgm"));
  err = cli("-i " + in.string() + " -o " + (dir / "none" / "a.pgm").string(), status);
  EXPECT_NE(status, 0);
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
  err = cli("-i " + in.string() + " -o " + (dir / "a.xyz").string(), status);
  EXPECT_NE(status, 0);
  EXPECT_NE(err.find("unknown image format"), std::string::npos) << err;
  err = cli("-i " + in.string() + " -o " + (dir / "a.bmp").string(), status);  // read only
  EXPECT_NE(status, 0);
  EXPECT_NE(err.find("does not write"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir / "a.bmp"));
  err = cli("-i " + dir.string() + " -o " + (dir / "b.pgm").string(), status);
  EXPECT_NE(status, 0);
  EXPECT_NE(err.find("is a directory"), std::string::npos) << err;
}

}  // namespace
