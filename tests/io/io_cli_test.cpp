// `gj2k convert` end to end: a shared image through TIFF, PNM, PGX and raw and back.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/shared_data.h"
#include "gj2k/gj2k.h"
#include "io/image_io.h"

namespace gj2k {
namespace {

namespace fs = std::filesystem;

const fs::path kBinary = fs::path(GJ2K_BINARY_DIR) / "bin" / "gj2k";

// A path quoted for the shell. (Built by appending: GCC 12 warns falsely, -Wrestrict, on
// "literal" + std::string temporaries.)
std::string q(const fs::path& p) {
  std::string s(1, '\'');
  s.append(p.string());
  s.push_back('\'');
  return s;
}

// Runs `gj2k <args>` with stdout and stderr to files; returns the exit status.
int run_cli(const std::string& args, std::string* err = nullptr) {
  const fs::path out = test::scratch_dir() / "cli_stdout.txt";
  const fs::path errf = test::scratch_dir() / "cli_stderr.txt";
  std::string cmd = q(kBinary);
  cmd += " " + args + " >" + q(out) + " 2>" + q(errf);
  const int status = std::system(cmd.c_str());
  if (err) {
    const auto bytes = io::read_file(errf);
    err->assign(bytes.begin(), bytes.end());
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(IoCli, ConvertRoundTrips) {
  GJ2K_REQUIRE_SHARED("images/Bretagne1.ppm");
  if (!fs::exists(kBinary)) GTEST_SKIP() << kBinary << " not built (target gj2k_cli)";
  const fs::path src = test::shared_dir() / "images" / "Bretagne1.ppm";
  const fs::path dir = test::scratch_dir();
  const Image original = io::read_image(src);
  std::string err;

  // PPM -> TIFF (each compression) -> PPM: the final file is exactly what our writer makes.
  for (const char* compression : {"none", "deflate", "lzw", "packbits"}) {
    ASSERT_EQ(run_cli("convert -i " + q(src) + " -o " + q(dir / "cli.tif") + " --compression " +
                          compression,
                      &err),
              0)
        << err;
    ASSERT_EQ(run_cli("convert -i " + q(dir / "cli.tif") + " -o " + q(dir / "cli.ppm"), &err), 0)
        << err;
    EXPECT_FALSE(compare(original, io::read_image(dir / "cli.tif"))) << compression;
    EXPECT_EQ(io::read_file(dir / "cli.ppm"), io::encode_pnm(original)) << compression;
  }

  // PPM -> PGX (3 files) -> each back to PGM.
  ASSERT_EQ(run_cli("convert -i " + q(src) + " -o " + q(dir / "cli.pgx"), &err), 0) << err;
  for (int c = 0; c < 3; ++c) {
    const fs::path pgx = dir / ("cli_" + std::to_string(c) + ".pgx");
    const fs::path pgm = dir / ("cli_" + std::to_string(c) + ".pgm");
    ASSERT_EQ(run_cli("convert -i " + q(pgx) + " -o " + q(pgm), &err), 0) << err;
    Image one = original;
    one.components = {original.components[c]};
    EXPECT_EQ(io::read_file(pgm), io::encode_pnm(one)) << c;
  }

  // PPM -> raw -> TIFF with the geometry given.
  ASSERT_EQ(run_cli("convert -i " + q(src) + " -o " + q(dir / "cli.rawl"), &err), 0) << err;
  const std::string geometry =
      std::to_string(original.width()) + "," + std::to_string(original.height()) + ",3,8,u";
  ASSERT_EQ(run_cli("convert -i " + q(dir / "cli.rawl") + " --raw " + geometry + " -o " +
                        q(dir / "cli2.tif"),
                    &err),
            0)
      << err;
  EXPECT_FALSE(compare(original, io::read_image(dir / "cli2.tif")));
}

TEST(IoCli, ErrorsAreOneLineAndNonZero) {
  if (!fs::exists(kBinary)) GTEST_SKIP() << kBinary << " not built (target gj2k_cli)";
  const fs::path dir = test::scratch_dir();
  std::string err;
  io::write_file(dir / "bad.pgm", std::vector<uint8_t>{'P', '5', '\n', '9', ' ', '9', '\n'});
  for (const std::string& args :
       {"convert -i " + q(dir / "missing.pgm") + " -o " + q(dir / "x.tif"),
        "convert -i " + q(dir / "bad.pgm") + " -o " + q(dir / "x.tif"),
        "convert -i " + q(dir / "bad.pgm") + " -o " + q(dir / "x.bmp"),
        "convert -i " + q(dir / "x.raw") + " --raw 1,2 -o " + q(dir / "x.tif")}) {
    EXPECT_NE(run_cli(args, &err), 0) << args;
    ASSERT_FALSE(err.empty()) << args;
    EXPECT_EQ(err.find('\n'), err.size() - 1) << args << ": " << err;
    EXPECT_EQ(err.rfind("gj2k: ", 0), 0u) << err;
  }
}

}  // namespace
}  // namespace gj2k
