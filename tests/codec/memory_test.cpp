// core/memory.h: copy_streaming against std::memcpy (every source and destination alignment
// modulo 16, lengths around the 16- and 64-byte steps of its loops, the bytes around the
// destination left as they were); free_pages_reported on driver folders laid out as sysfs lays
// out the virtio balloon's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/memory.h"

namespace gj2k::core {
namespace {

TEST(CopyStreaming, EqualsMemcpyAtEveryAlignmentAndLength) {
  std::mt19937 rng(3);
  std::vector<uint8_t> src(4096 + 64);
  for (uint8_t& b : src) b = static_cast<uint8_t>(rng());
  for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{63}, size_t{64},
                   size_t{65}, size_t{127}, size_t{200}, size_t{4096}}) {
    for (size_t so = 0; so < 16; ++so) {
      for (size_t d_off = 0; d_off < 16; ++d_off) {
        std::vector<uint8_t> got(n + 64, 0xA5), want(n + 64, 0xA5);
        copy_streaming(got.data() + 16 + d_off, src.data() + so, n);
        std::memcpy(want.data() + 16 + d_off, src.data() + so, n);
        ASSERT_EQ(got, want) << "n " << n << " source offset " << so << " destination offset "
                             << d_off;
      }
    }
  }
}

// A driver folder with one bound device whose features are `bits` (bit 0 first), beside the
// driver's own files.
std::filesystem::path balloon_driver(const std::string& name, const std::string& bits) {
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("gj2k-balloon-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "virtio0");
  std::ofstream(root / "bind") << "";
  std::ofstream(root / "virtio0" / "features") << bits << "\n";
  return root;
}

TEST(FreePagesReported, ReadsTheBalloonsReportingBit) {
  // The dev machine's balloon (stats, deflate on OOM, free page reporting) and a GPU host's
  // (none bound).
  const auto reporting = balloon_driver("reporting", "0110010100000000000000000000000010");
  const auto not_reporting = balloon_driver("plain", "0110000100000000000000000000000010");
  EXPECT_TRUE(free_pages_reported(reporting));
  EXPECT_FALSE(free_pages_reported(not_reporting));
  std::filesystem::remove_all(not_reporting / "virtio0");
  EXPECT_FALSE(free_pages_reported(not_reporting));  // the driver, no device bound
  EXPECT_FALSE(free_pages_reported(reporting / "absent"));
  std::filesystem::remove_all(reporting);
  std::filesystem::remove_all(not_reporting);
}

}  // namespace
}  // namespace gj2k::core
