// Region decoding of large tiles: the inverse DWT runs only on the window the region needs
// (transform/dwt_cpu.h inverse*_window), and the result is exactly the crop of the full decode,
// for 5/3 and 9/7, with reduce, subsampled components and odd image origins.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "encode_test_util.h"
#include "gj2k/decoder.h"
#include "gj2k/encoder.h"

namespace {

using gj2k::DecodeParams;
using gj2k::Image;

TEST(DecodeRegion, WindowedInverseDwtGivesCropsOfTheFullDecode) {
  for (bool irreversible : {false, true}) {
    SCOPED_TRACE(irreversible ? "9/7" : "5/3");
    const Image src = gj2k::test::random_image(613, 397, 3, 8, false, irreversible ? 71 : 72, 5, 3,
                                               {{1, 1}, {2, 1}, {1, 2}});
    gj2k::EncodeParams ep;
    ep.irreversible = irreversible;
    ep.levels = 5;
    ep.mct = 0;  // subsampled components: no MCT
    const std::vector<uint8_t> bytes = gj2k::Encoder().encode(src, ep);
    gj2k::Decoder dec(bytes);
    std::mt19937 rng(irreversible ? 5 : 6);
    for (uint32_t reduce : {0u, 2u}) {
      DecodeParams fp;
      fp.reduce = reduce;
      const Image full = dec.decode(fp);
      for (int i = 0; i < 8; ++i) {
        // At least 2^reduce wide and high, so that the reduced region is not empty.
        const uint32_t min = 1u << reduce;
        const uint32_t x0 = 5 + rng() % (600 - min), y0 = 3 + rng() % (390 - min);
        const uint32_t x1 = std::min<uint32_t>(618, x0 + min + rng() % (i % 2 ? 8 : 120));
        const uint32_t y1 = std::min<uint32_t>(400, y0 + min + rng() % (i % 2 ? 8 : 90));
        DecodeParams p = fp;
        p.region = gj2k::Region{x0, y0, x1, y1};
        const Image part = dec.decode(p);
        ASSERT_EQ(part.components.size(), full.components.size());
        for (size_t c = 0; c < part.components.size(); ++c) {
          const auto& pc = part.components[c];
          const auto& fc = full.components[c];
          // Both on the reduced component grid: the part's origin within the full image.
          const uint32_t ox = (part.x0 + pc.dx - 1) / pc.dx - (full.x0 + fc.dx - 1) / fc.dx;
          const uint32_t oy = (part.y0 + pc.dy - 1) / pc.dy - (full.y0 + fc.dy - 1) / fc.dy;
          for (uint32_t y = 0; y < pc.height; ++y)
            for (uint32_t x = 0; x < pc.width; ++x)
              ASSERT_EQ(pc.at(x, y), fc.at(ox + x, oy + y))
                  << "region " << x0 << "," << y0 << "," << x1 << "," << y1 << " reduce " << reduce
                  << " component " << c << " at " << x << "," << y;
        }
      }
    }
  }
}

}  // namespace
