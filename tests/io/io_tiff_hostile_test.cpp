// Hostile and broken inputs to the image readers, and the output side of every writer:
//  - TIFFs whose tags claim far more samples than their data can hold fail (or finish) in
//    under a second and 200 MB, measured in a forked child (tests/common/bounded_run.h);
//  - every error names the file; a directory, an empty file or a PPM named .tif give clean
//    gj2k::Errors;
//  - outputs are checked before anything is written, written under a temporary name and
//    renamed, so a killed writer leaves the old file or the complete new one, never a part.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <tiffio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/bounded_run.h"
#include "common/shared_data.h"
#include "gj2k/encoder.h"
#include "io/image_io.h"

namespace {

namespace fs = std::filesystem;
using gj2k::ErrorCode;
using gj2k::test::BoundedResult;
using gj2k::test::run_bounded;

fs::path scratch(const std::string& name) {
  const fs::path dir = gj2k::test::scratch_dir() / "io_hostile";
  fs::create_directories(dir);
  return dir / name;
}

// `raw` as a zlib stream of stored deflate blocks (RFC 1950, RFC 1951 3.2.4).
std::vector<uint8_t> zlib_stored(const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> z = {0x78, 0x01};
  size_t pos = 0;
  do {
    const size_t n = std::min<size_t>(raw.size() - pos, 65535);
    const bool last = pos + n == raw.size();
    z.push_back(last ? 1 : 0);
    z.push_back(static_cast<uint8_t>(n));
    z.push_back(static_cast<uint8_t>(n >> 8));
    z.push_back(static_cast<uint8_t>(~n));
    z.push_back(static_cast<uint8_t>(~n >> 8));
    z.insert(z.end(), raw.begin() + static_cast<long>(pos),
             raw.begin() + static_cast<long>(pos + n));
    pos += n;
  } while (pos < raw.size());
  uint32_t a = 1, b = 0;  // Adler-32
  for (uint8_t v : raw) {
    a = (a + v) % 65521;
    b = (b + a) % 65521;
  }
  for (int i = 3; i >= 0; --i) z.push_back(static_cast<uint8_t>(((b << 16) | a) >> (8 * i)));
  return z;
}

// A 1-bit deflate TIFF claiming width x height in strips of rows_per_strip rows, of which only
// strip 0 is in the file: `strip0_rows` rows of zeros, deflated, padded with `garbage` bytes
// that do not inflate. libtiff writes the tags; the data is written raw.
fs::path bilevel_deflate(const std::string& name, uint32_t width, uint32_t height,
                         uint32_t rows_per_strip, uint32_t strip0_rows, size_t garbage) {
  const fs::path path = scratch(name);
  TIFF* t = TIFFOpen(path.c_str(), "w");
  EXPECT_NE(t, nullptr);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, width);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, height);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, uint16_t{1});
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, uint16_t{1});
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
  std::vector<uint8_t> packed =
      zlib_stored(std::vector<uint8_t>(size_t{(width + 7) / 8} * strip0_rows, 0));
  for (size_t i = 0; i < garbage; ++i) packed.push_back(static_cast<uint8_t>(i * 131 + 7));
  EXPECT_GT(TIFFWriteRawStrip(t, 0, packed.data(), static_cast<tmsize_t>(packed.size())), 0);
  TIFFWriteDirectory(t);
  TIFFClose(t);
  return path;
}

// Sanitizer builds fill every new sample buffer (GJ2K_POISON_SAMPLES), so there a large image
// costs its memory as soon as it is allocated: what "allocated, not filled" saves is not
// measurable, and the images below are made smaller to keep the fill cheap.
#ifdef GJ2K_POISON_SAMPLES
constexpr bool kAllocatorFills = true;
#else
constexpr bool kAllocatorFills = false;
#endif
constexpr uint32_t kSide = kAllocatorFills ? 4000 : 16000;

void expect_fast_error(const fs::path& path, ErrorCode code, const std::string& text,
                       bool relies_on_untouched_pages = false) {
  const BoundedResult r = run_bounded([&] {
    try {
      gj2k::io::read_image(path);
    } catch (const gj2k::Error& e) {
      if (e.code() != code) throw gj2k::Error(e.code(), "wrong code: " + std::string(e.what()));
      throw;
    }
  });
  SCOPED_TRACE(path.string() + " (" + std::to_string(fs::file_size(path)) +
               " bytes): " + r.describe());
  ASSERT_EQ(r.kind, BoundedResult::Kind::kGjError);
  EXPECT_EQ(r.message.rfind("wrong code", 0), std::string::npos);
  EXPECT_NE(r.message.find(path.string()), std::string::npos);
  EXPECT_NE(r.message.find(text), std::string::npos);
  if (relies_on_untouched_pages && kAllocatorFills) return;
  EXPECT_LT(r.seconds, 1.0);
  if (r.memory_measured) {
    EXPECT_LT(r.peak_kb, 200 * 1024);
  }
}

// ~33 KB claiming 32768 x 32000 bits (131 MB packed, 1 Gsample, 4 GB as int32): beyond what
// deflate can expand 33 KB to (about 1032 times), refused from the tags.
TEST(IoTiffHostile, BilevelDeflateBeyondItsExpansion) {
  const auto path = bilevel_deflate("huge.tif", 32768, 32000, 32000, 4, 17000);
  expect_fast_error(path, ErrorCode::kFormat, "cannot come from");
}

// ~33 KB claiming 16000 x 16000 bits (32 MB packed, 256 Msamples: within deflate's expansion
// and the default sample limit) in strips of 16 rows of which only the first is in the file:
// the image is allocated but not filled, and the missing strip ends the read at once.
TEST(IoTiffHostile, BilevelDeflateWithMissingStripsFailsAtTheFirstGap) {
  const auto path = bilevel_deflate("gaps.tif", kSide, kSide, 16, 16, 1000);
  expect_fast_error(path, ErrorCode::kFormat, "strip 1", true);
}

// The same image with one strip of 16000 rows whose data stops inflating after 16 rows.
TEST(IoTiffHostile, BilevelDeflateShortStripFailsCheaply) {
  const auto path = bilevel_deflate("short.tif", kSide, kSide, kSide, 16, 1000);
  const BoundedResult r = run_bounded([&] { gj2k::io::read_image(path); });
  SCOPED_TRACE(r.describe());
  ASSERT_EQ(r.kind, BoundedResult::Kind::kGjError);
  EXPECT_NE(r.message.find("strip 0"), std::string::npos);
  if (kAllocatorFills) return;
  EXPECT_LT(r.seconds, 1.0);
  if (r.memory_measured) {
    EXPECT_LT(r.peak_kb, 200 * 1024);
  }
}

// A limit below the image refuses it before reading (kResource); the default is the decoder's.
TEST(IoTiffHostile, SampleLimit) {
  const auto path = bilevel_deflate("limit.tif", 4096, 4096, 4096, 4096, 0);
  gj2k::io::ReadOptions o;
  EXPECT_EQ(o.max_samples, gj2k::default_max_samples());
  o.max_samples = 1 << 20;
  try {
    gj2k::io::read_image(path, o);
    ADD_FAILURE() << "read";
  } catch (const gj2k::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResource) << e.what();
  }
  o.max_samples = 1 << 24;
  const gj2k::Image im = gj2k::io::read_image(path, o);
  ASSERT_EQ(im.components.size(), 1u);
  EXPECT_EQ(im.components[0].samples.size(), size_t{4096} * 4096);
  EXPECT_EQ(im.components[0].at(4095, 4095), 0);
}

// Inputs that are not what their name says: clean errors naming the file.
TEST(IoHostile, ReadErrorsNameTheFile) {
  const fs::path dir = scratch("a_folder.tif");
  fs::create_directories(dir);
  const fs::path empty = scratch("empty.tif"), ppm = scratch("picture.tif"),
                 empty_pgm = scratch("empty.pgm"), dir_pgm = scratch("folder.pgm");
  fs::create_directories(dir_pgm);
  std::ofstream(empty, std::ios::binary).close();
  std::ofstream(empty_pgm, std::ios::binary).close();
  std::ofstream(ppm, std::ios::binary) << "P6\n2 2\n255\n" << std::string(12, '\x7f');
  for (const fs::path& p : {dir, empty, ppm, empty_pgm, dir_pgm, scratch("missing.tif")}) {
    SCOPED_TRACE(p.string());
    try {
      gj2k::io::read_image(p);
      ADD_FAILURE() << "read";
    } catch (const gj2k::Error& e) {
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "non-gj2k exception: " << e.what();
    }
  }
}

// Output names are checked before anything is written, for images and for encodes.
TEST(IoHostile, OutputCheckedFirst) {
  const gj2k::Image im = gj2k::make_image(8, 8, 1, 8);
  const fs::path missing = scratch("no/such/folder/out.tif");
  try {
    gj2k::io::check_output(missing);
    ADD_FAILURE() << "accepted";
  } catch (const gj2k::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gj2k::io::check_output(scratch("out.xyz")), gj2k::Error);
  EXPECT_THROW(gj2k::io::write_image(im, missing), gj2k::Error);
  EXPECT_NO_THROW(gj2k::io::check_output(scratch("out.pgm")));
  EXPECT_FALSE(fs::exists(scratch("no")));
  // The encoder refuses a missing folder before coding: the progress callback never runs.
  gj2k::EncodeParams p;
  bool coded = false;
  p.progress = [&](const char*, double) {
    coded = true;
    return true;
  };
  try {
    gj2k::Encoder().encode_to_file(im, p, scratch("nowhere/out.j2k"));
    ADD_FAILURE() << "encoded";
  } catch (const gj2k::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo) << e.what();
  }
  EXPECT_FALSE(coded);
  // What is written leaves no temporary behind (in a folder of this test's own: other tests of
  // this file write in the shared one at the same time under ctest -j).
  const fs::path own = scratch("output_checked_first");
  fs::create_directories(own);
  gj2k::io::write_image(im, own / "clean.pgm");
  gj2k::io::write_image(im, own / "clean.tif");
  gj2k::Encoder().encode_to_file(im, {}, own / "clean.j2k");
  // Over existing files (the names exchanged, then the old file removed): the new contents,
  // and a symbolic link is replaced as rename(2) replaces it, its target left as it was.
  gj2k::Image other = im;
  for (int32_t& v : other.components[0].samples) v = 255 - v;
  gj2k::io::write_image(other, own / "clean.pgm");
  EXPECT_EQ(gj2k::compare(other, gj2k::io::read_image(own / "clean.pgm")), std::nullopt);
  const auto target_size = fs::file_size(own / "clean.tif");
  fs::create_symlink("clean.tif", own / "link.pgm");
  gj2k::io::write_image(other, own / "link.pgm");
  EXPECT_FALSE(fs::is_symlink(own / "link.pgm"));
  EXPECT_EQ(gj2k::compare(other, gj2k::io::read_image(own / "link.pgm")), std::nullopt);
  EXPECT_EQ(fs::file_size(own / "clean.tif"), target_size);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(own)) {
    EXPECT_EQ(e.path().string().find("gj2k-tmp"), std::string::npos) << e.path();
    ++files;
  }
  EXPECT_EQ(files, 4u);  // clean.pgm, clean.tif, clean.j2k, link.pgm
}

// A writer killed at any point leaves the old file or the complete new one under the output
// name. The child writes the same large TIFF over and over; it is killed after a while.
TEST(IoHostile, KilledWriterLeavesNoPartialFile) {
  gj2k::Image im = gj2k::make_image(2048, 2048, 3, 16);
  for (auto& c : im.components)
    for (size_t i = 0; i < c.samples.size(); ++i)
      c.samples[i] = static_cast<int32_t>((i * 2654435761u >> 16) & 0xFFFF);
  const fs::path out = scratch("killed.tif");
  gj2k::io::write_image(im, out);
  const auto complete = fs::file_size(out);
  for (int delay_ms : {15, 40, 90}) {
    std::fflush(nullptr);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      gj2k::io::WriteOptions o;
      o.tiff_compression = gj2k::io::TiffCompression::kNone;
      for (;;) gj2k::io::write_image(im, out, o);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(fs::exists(out));
    EXPECT_EQ(fs::file_size(out), complete) << "killed after " << delay_ms << " ms";
  }
  // Temporaries of killed writers may remain (hidden, .gj2k-tmp); the output is whole.
  const gj2k::Image back = gj2k::io::read_image(out);
  EXPECT_EQ(gj2k::compare(im, back), std::nullopt);
}

}  // namespace
