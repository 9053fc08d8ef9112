// Quirks of real encoders that the decoder accepts as OpenJPEG accepts them, each with a
// warning (DecodeParams::on_warning): code-blocks with more coding passes than their bit-planes
// allow, SOT with TPsot == TNsot, expounded quantization with fewer step sizes than the
// decomposition levels need, JP2 boxes (pclr without cmap, a second ihdr, a damaged box after
// the codestream), and the refusal of HTJ2K. Every test stream is made here: encoded by gj2k,
// then byte-patched. Where OpenJPEG decodes the same bytes, the samples must be the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "codec/jp2/boxes.h"
#include "codec/markers/reader.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "io/image_io.h"
#include "tests/codec/encode_test_util.h"
#include "tests/common/shared_data.h"

namespace gj2k {
namespace {

using Bytes = std::vector<uint8_t>;

// Decodes with gj2k, collecting the warnings.
Image decode_warn(const Bytes& bytes, std::vector<std::string>& warnings,
                  DecodeParams p = DecodeParams{}) {
  p.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  return decode_memory(bytes, p);
}

bool any_contains(const std::vector<std::string>& lines, const std::string& needle) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// The offset of the first marker `code` at or after `from` (markers of the main header and
// tile-part headers; the caller knows the marker is there).
size_t find_marker(const Bytes& b, uint16_t code, size_t from = 0) {
  for (size_t i = from; i + 1 < b.size(); ++i)
    if (b[i] == (code >> 8) && b[i + 1] == (code & 0xFF)) return i;
  ADD_FAILURE() << "marker " << std::hex << code << " not found";
  return b.size();
}

// Every SOT offset, walked by Psot from the end of the main header.
std::vector<size_t> sot_offsets(const Bytes& b) {
  std::vector<size_t> out;
  size_t pos = codec::read_main_header(b).end;
  while (pos + 12 <= b.size() && b[pos] == 0xFF && b[pos + 1] == 0x90) {
    out.push_back(pos);
    const uint32_t psot =
        (uint32_t{b[pos + 6]} << 24) | (b[pos + 7] << 16) | (b[pos + 8] << 8) | b[pos + 9];
    if (psot == 0) break;
    pos += psot;
  }
  return out;
}

Image test_image(uint32_t w, uint32_t h, uint32_t nc, uint32_t seed) {
  return test::random_image(w, h, nc, 8, false, seed);
}

#ifdef GJ2K_HAVE_OPENJPEG
// The same samples as OpenJPEG decodes from `bytes` (which must accept them).
void expect_like_openjpeg(const Image& ours, const Bytes& bytes) {
  std::string error;
  const std::optional<Image> theirs = test::opj_decode(bytes, error);
  ASSERT_TRUE(theirs) << "OpenJPEG refuses the stream: " << error;
  const auto diff = test::compare_samples(ours, *theirs);
  EXPECT_FALSE(diff) << *diff;
}
#else
void expect_like_openjpeg(const Image&, const Bytes&) {}
#endif

// 15444-1 D.1: a code-block has at most 3 Nb - 2 passes. Lowering the guard bits of QCD by one
// lowers every subband's Mb (E-2), so each code-block that coded all its passes now carries 3
// more than its Nb allows: they are ignored, as OpenJPEG does.
TEST(DecodeQuirks, MorePassesThanBitPlanes) {
  const Image image = test_image(64, 48, 1, 11);
  EncodeParams ep;
  ep.levels = 2;
  ep.guard_bits = 2;
  Bytes bytes = Encoder().encode(image, ep);
  const size_t qcd = find_marker(bytes, 0xFF5C);
  ASSERT_EQ(bytes[qcd + 4] >> 5, 2);
  bytes[qcd + 4] = static_cast<uint8_t>((1 << 5) | (bytes[qcd + 4] & 0x1F));

  std::vector<std::string> warnings;
  Image ours;
  ASSERT_NO_THROW(ours = decode_warn(bytes, warnings));
  EXPECT_TRUE(any_contains(warnings, "more coding passes than 3 Nb - 2")) << joined(warnings);
  EXPECT_TRUE(compare(ours, image)) << "the patched stream should not decode to the original";
  expect_like_openjpeg(ours, bytes);
}

// A known encoder bug: TNsot one less than the tile's number of tile-parts, so that the last
// tile-part has TPsot == TNsot. OpenJPEG corrects TNsot and decodes.
TEST(DecodeQuirks, TileIndexEqualsTileCount) {
  const Image image = test_image(40, 36, 3, 12);
  EncodeParams ep;
  ep.levels = 2;
  ep.tile_width = ep.tile_height = 32;
  ep.tile_parts = TilePartSplit::kResolution;
  Bytes bytes = Encoder().encode(image, ep);
  const auto sots = sot_offsets(bytes);
  ASSERT_EQ(sots.size(), 12u);  // 4 tiles x 3 resolutions
  for (size_t s : sots) {
    ASSERT_EQ(bytes[s + 11], 3);
    bytes[s + 11] = 2;  // TNsot
  }
  std::vector<std::string> warnings;
  Image ours;
  ASSERT_NO_THROW(ours = decode_warn(bytes, warnings));
  EXPECT_FALSE(compare(ours, image)) << *compare(ours, image);
  EXPECT_TRUE(any_contains(warnings, "TPsot = TNsot = 2")) << joined(warnings);
  expect_like_openjpeg(ours, bytes);

  // TPsot beyond TNsot is no known quirk: still an error.
  bytes[sots.back() + 10] = 3;
  EXPECT_THROW(decode_memory(bytes), Error);
}

// Expounded (here: reversible, kNone) quantization with step sizes for one decomposition level
// in a codestream of two: the missing subbands take exponent 0 and mantissa 0, as OpenJPEG
// reads them. The image is a linear ramp of odd size, whose first-level high-pass subbands are
// zero under the 5/3 transform, so both decoders reproduce it exactly.
TEST(DecodeQuirks, FewerStepSizesThanLevels) {
  Image image = make_image(63, 45, 1, 8);
  for (uint32_t y = 0; y < 45; ++y)
    for (uint32_t x = 0; x < 63; ++x)
      image.components[0].at(x, y) = static_cast<int32_t>(x + 2 * y);
  EncodeParams ep;
  ep.levels = 2;
  Bytes bytes = Encoder().encode(image, ep);
  const size_t qcd = find_marker(bytes, 0xFF5C);
  const size_t lqcd = (size_t{bytes[qcd + 2]} << 8) | bytes[qcd + 3];
  ASSERT_EQ(lqcd, 3u + 7u);                      // Sqcd + 7 exponents (kNone)
  bytes[qcd + 3] = static_cast<uint8_t>(3 + 4);  // 4 exponents: one level
  bytes.erase(bytes.begin() + static_cast<long>(qcd + 2 + 7),
              bytes.begin() + static_cast<long>(qcd + 2 + 10));

  std::vector<std::string> warnings;
  Image ours;
  ASSERT_NO_THROW(ours = decode_warn(bytes, warnings));
  EXPECT_TRUE(any_contains(warnings, "gives 4 step sizes (needs 7)")) << joined(warnings);
  EXPECT_FALSE(compare(ours, image)) << *compare(ours, image);
  expect_like_openjpeg(ours, bytes);

  // A noisy image: the first level's subbands have data, decoded with step exponent 0 (their
  // code-blocks have fewer magnitude bit-planes than they skip: zero) by both decoders.
  for (int guard : {2, 7}) {
    ep.guard_bits = guard;
    Bytes noisy = Encoder().encode(test_image(64, 48, 1, 17), ep);
    const size_t q = find_marker(noisy, 0xFF5C);
    noisy[q + 3] = static_cast<uint8_t>(3 + 4);
    noisy.erase(noisy.begin() + static_cast<long>(q + 2 + 7),
                noisy.begin() + static_cast<long>(q + 2 + 10));
    warnings.clear();
    ASSERT_NO_THROW(ours = decode_warn(noisy, warnings)) << "guard bits " << guard;
    EXPECT_TRUE(any_contains(warnings, "gives 4 step sizes (needs 7)")) << joined(warnings);
    expect_like_openjpeg(ours, noisy);
  }
}

// HTJ2K (15444-15) is refused with one line, whatever gives it away.
void expect_htj2k_refusal(const Bytes& bytes, const std::string& what) {
  try {
    decode_memory(bytes);
    ADD_FAILURE() << what << ": decoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << what << ": " << e.what();
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(codec::kHtj2kUnsupported, 0), 0u) << what << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << what << ": " << m;
  }
}

TEST(DecodeQuirks, Htj2kRefusedCrafted) {
  const Image image = test_image(32, 32, 1, 13);
  EncodeParams ep;
  ep.levels = 1;
  const Bytes j2k = Encoder().encode(image, ep);
  // COD code-block style bit 0x40 (HT).
  Bytes cod = j2k;
  const size_t at = find_marker(cod, 0xFF52);
  cod[at + 12] |= 0x40;  // Lcod(2) Scod SGcod(4) SPcod: levels, xcb, ycb, style
  expect_htj2k_refusal(cod, "COD style 0x40");
  // SIZ Rsiz bit 14.
  Bytes rsiz = j2k;
  rsiz[find_marker(rsiz, 0xFF51) + 4] |= 0x40;
  expect_htj2k_refusal(rsiz, "Rsiz bit 14");
  // A CAP marker with Pcap bit 15 after SIZ.
  Bytes cap = j2k;
  const size_t siz = find_marker(cap, 0xFF51);
  const size_t after_siz = siz + 2 + ((size_t{cap[siz + 2]} << 8) | cap[siz + 3]);
  const Bytes cap_segment = {0xFF, 0x50, 0x00, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00};
  cap.insert(cap.begin() + static_cast<long>(after_siz), cap_segment.begin(), cap_segment.end());
  expect_htj2k_refusal(cap, "CAP");
  // A JP2 file of brand 'jph '.
  Bytes jph = Encoder().encode(image, ep, FileFormat::kJp2);
  const size_t ftyp = 12;
  ASSERT_EQ(codec::fourcc("ftyp"), (uint32_t{jph[ftyp + 4]} << 24) | (jph[ftyp + 5] << 16) |
                                       (jph[ftyp + 6] << 8) | jph[ftyp + 7]);
  jph[ftyp + 10] = 'h';  // brand "jp2 " -> "jph "
  expect_htj2k_refusal(jph, "jph brand");
}

TEST(DecodeQuirks, Htj2kRefusedConformance) {
  GJ2K_REQUIRE_SHARED("conformance/htj2k");
  int n = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(test::shared_dir() / "conformance/htj2k")) {
    const auto ext = e.path().extension();
    if (ext != ".j2k" && ext != ".jph" && ext != ".j2c") continue;
    std::ifstream in(e.path(), std::ios::binary);
    const Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    expect_htj2k_refusal(bytes, e.path().filename().string());
    ++n;
  }
  EXPECT_GT(n, 0) << "no HTJ2K streams in conformance/htj2k";
}

// A JP2 file around `cs` with the given header.
Bytes jp2_file(const codec::Jp2Header& h, const Bytes& cs) {
  return codec::write_jp2(h, cs);
}

// pclr without cmap: OpenJPEG drops the palette; so does gj2k, with a warning.
TEST(DecodeQuirks, PaletteWithoutCmap) {
  Image index = make_image(24, 20, 1, 4);
  for (uint32_t y = 0; y < 20; ++y)
    for (uint32_t x = 0; x < 24; ++x)
      index.components[0].at(x, y) = static_cast<int32_t>((x + y) % 16);
  EncodeParams ep;
  ep.levels = 2;
  const Bytes cs = Encoder().encode(index, ep);
  codec::Jp2Header h =
      codec::make_jp2_header(codec::read_main_header(cs).siz, codec::enum_cs::kSRGB);
  codec::Pclr p;
  p.entries = 16;
  p.columns = {{8, false}, {8, false}, {8, false}};
  for (int e = 0; e < 16; ++e)
    for (int k = 0; k < 3; ++k) p.values.push_back(e * 16 + k);
  h.pclr = p;
  const Bytes file = jp2_file(h, cs);
  std::vector<std::string> warnings;
  Image ours;
  ASSERT_NO_THROW(ours = decode_warn(file, warnings));
  EXPECT_TRUE(any_contains(warnings, "pclr box without cmap")) << joined(warnings);
  ASSERT_EQ(ours.components.size(), 1u);
  EXPECT_FALSE(test::compare_samples(ours, index));
  expect_like_openjpeg(ours, file);
}

// A second ihdr in jp2h: OpenJPEG keeps the first and warns.
TEST(DecodeQuirks, SecondIhdr) {
  const Image image = test_image(24, 20, 3, 14);
  EncodeParams ep;
  ep.levels = 2;
  Bytes file = Encoder().encode(image, ep, FileFormat::kJp2);
  const size_t jp2h =
      12 + ((size_t{file[12]} << 24) | (file[13] << 16) | (file[14] << 8) | file[15]);
  ASSERT_EQ(file[jp2h + 4], 'j');
  ASSERT_EQ(file[jp2h + 12], 'i');  // ihdr first in jp2h
  const Bytes ihdr(file.begin() + static_cast<long>(jp2h + 8),
                   file.begin() + static_cast<long>(jp2h + 8 + 22));
  file.insert(file.begin() + static_cast<long>(jp2h + 8 + 22), ihdr.begin(), ihdr.end());
  const uint32_t len = ((uint32_t{file[jp2h]} << 24) | (file[jp2h + 1] << 16) |
                        (file[jp2h + 2] << 8) | file[jp2h + 3]) +
                       22;
  for (int k = 0; k < 4; ++k) file[jp2h + k] = static_cast<uint8_t>(len >> (24 - 8 * k));
  std::vector<std::string> warnings;
  Image ours;
  ASSERT_NO_THROW(ours = decode_warn(file, warnings));
  EXPECT_TRUE(any_contains(warnings, "second ihdr")) << joined(warnings);
  EXPECT_FALSE(test::compare_samples(ours, image));
  expect_like_openjpeg(ours, file);
}

// A box after the codestream whose length runs past the end of the file: ignored with a
// warning (OpenJPEG stops reading boxes at the codestream).
TEST(DecodeQuirks, TruncatedBoxAfterCodestream) {
  const Image image = test_image(24, 20, 3, 15);
  EncodeParams ep;
  ep.levels = 2;
  Bytes file = Encoder().encode(image, ep, FileFormat::kJp2);
  const Bytes xml = {0x00, 0x00, 0x01, 0x00, 'x', 'm', 'l', ' ', '<', 'a', '/', '>'};
  file.insert(file.end(), xml.begin(), xml.end());
  std::vector<std::string> warnings;
  Image ours;
  ASSERT_NO_THROW(ours = decode_warn(file, warnings));
  EXPECT_TRUE(any_contains(warnings, "after the codestream runs past the end of the file"))
      << joined(warnings);
  EXPECT_FALSE(test::compare_samples(ours, image));
  expect_like_openjpeg(ours, file);
}

// gj2k decode prints each warning on stderr as "warning: ..." unless -q.
TEST(DecodeQuirks, CliPrintsWarnings) {
  const Image image = test_image(40, 36, 1, 16);
  EncodeParams ep;
  ep.levels = 2;
  ep.tile_parts = TilePartSplit::kResolution;
  Bytes bytes = Encoder().encode(image, ep);
  for (size_t s : sot_offsets(bytes)) bytes[s + 11] = 2;  // TNsot 3 -> 2
  const auto dir = test::scratch_dir() / "quirks_cli";
  std::filesystem::create_directories(dir);
  io::write_file(dir / "in.j2k", bytes);
  auto run = [&](const std::string& flags) {
    const std::string cmd = std::string(GJ2K_BINARY_DIR) + "/bin/gj2k decode " + flags + " -i " +
                            (dir / "in.j2k").string() + " -o " + (dir / "out.pgm").string() +
                            " >/dev/null 2>" + (dir / "err.txt").string();
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const Bytes err = io::read_file(dir / "err.txt");
    return std::string(err.begin(), err.end());
  };
  const std::string loud = run("");
  EXPECT_NE(loud.find("warning: SOT at byte offset"), std::string::npos) << loud;
  EXPECT_EQ(std::count(loud.begin(), loud.end(), '\n'), 1) << loud;
  EXPECT_EQ(run("--quiet"), "");
}

}  // namespace
}  // namespace gj2k
