// --allow-partial (DecodeParams::allow_partial) on truncated codestreams decodes what the
// stream holds as OpenJPEG does: the same samples from the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "codec/markers/reader.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "tests/codec/encode_test_util.h"

#ifdef GJ2K_HAVE_OPENJPEG
namespace gj2k {
namespace {

using Bytes = std::vector<uint8_t>;

// A stream cut short as OpenJPEG reads one: the tile-part that runs into the cut is the last,
// its Psot 0 (A.4.2: the tile-part runs to the end of the codestream). OpenJPEG refuses a
// Psot that runs past the data outright.
void zero_last_psot(Bytes& b) {
  size_t pos = codec::read_main_header(b).end, last = 0;
  while (pos + 12 <= b.size() && b[pos] == 0xFF && b[pos + 1] == 0x90) {
    last = pos;
    const uint32_t psot =
        (uint32_t{b[pos + 6]} << 24) | (b[pos + 7] << 16) | (b[pos + 8] << 8) | b[pos + 9];
    if (psot == 0) break;
    pos += psot;
  }
  ASSERT_GT(last, 0u);
  for (int k = 6; k < 10; ++k) b[last + k] = 0;
}

struct Variant {
  const char* name;
  EncodeParams params;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  EncodeParams p;
  p.levels = 3;
  v.push_back({"lossless", p});
  p.layers = 3;
  p.rates = {20, 5, 1};
  v.push_back({"layers", p});
  EncodeParams t;
  t.levels = 2;
  t.tile_width = t.tile_height = 48;
  v.push_back({"tiles", t});
  EncodeParams i;
  i.irreversible = true;
  i.levels = 3;
  v.push_back({"irreversible", i});
  return v;
}

TEST(DecodeTruncated, AllowPartialLikeOpenJpeg) {
  const Image image = test::random_image(97, 71, 3, 8, false, 21);
  int compared = 0;
  for (const Variant& var : variants()) {
    const Bytes full = Encoder().encode(image, var.params);
    for (int percent : {35, 50, 65, 80, 95}) {
      Bytes cut(full.begin(), full.begin() + static_cast<long>(full.size() * percent / 100));
      zero_last_psot(cut);
      SCOPED_TRACE(std::string(var.name) + " cut at " + std::to_string(percent) + "% (" +
                   std::to_string(cut.size()) + " of " + std::to_string(full.size()) + " bytes)");
      std::string error;
      test::opj::DecodeOptions opj_options;
      opj_options.allow_partial = true;
      const std::optional<Image> theirs = test::opj::decode(cut, opj_options, &error);
      if (!theirs) {  // OpenJPEG refuses: nothing to compare with
        std::printf("opj refuses %s %d%%: %s\n", var.name, percent, error.c_str());
        continue;
      }
      ++compared;
      DecodeParams p;
      p.allow_partial = true;
      std::vector<std::string> warnings;
      p.on_warning = [&](const std::string& w) { warnings.push_back(w); };
      Image ours;
      ASSERT_NO_THROW(ours = decode_memory(cut, p));
      EXPECT_FALSE(warnings.empty());
      if (!var.params.irreversible) {
        const auto diff = test::compare_samples(ours, *theirs);
        EXPECT_FALSE(diff) << *diff;
        continue;
      }
      // 9/7: the two inverse transforms round differently; peak error 1 as for whole streams.
      ASSERT_EQ(ours.components.size(), theirs->components.size());
      for (size_t c = 0; c < ours.components.size(); ++c) {
        const auto& a = ours.components[c].samples;
        const auto& b = theirs->components[c].samples;
        ASSERT_EQ(a.size(), b.size());
        int64_t peak = 0;
        for (size_t i = 0; i < a.size(); ++i) peak = std::max<int64_t>(peak, std::abs(a[i] - b[i]));
        EXPECT_LE(peak, 1) << "component " << c;
      }
    }
  }
  EXPECT_GE(compared, 10) << "OpenJPEG decoded too few of the truncated streams";
}

}  // namespace
}  // namespace gj2k
#endif
