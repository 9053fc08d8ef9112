// `gj2k compare A B`: are two images identical? Prints "identical" (exit 0) or the first
// difference (exit 1); with --metrics also the peak error and PSNR over all components, and
// then exits 0 whenever the geometry matches (for lossy comparisons).
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "gj2k/error.h"
#include "gj2k/image.h"
#include "io/image_io.h"
#include "tools/cli_common.h"
#include "tools/command.h"

namespace gj2k::cli {
namespace {

struct Options {
  std::string a, b;
  bool metrics = false;
};

int run(const Options& o) {
  const Image a = read_any_image(o.a);
  const Image b = read_any_image(o.b);
  const auto diff = compare(a, b);
  if (!o.metrics) {
    if (!diff) {
      std::printf("identical: %s\n", describe(a).c_str());
      return 0;
    }
    std::printf("different: %s\n", diff->c_str());
    return 1;
  }
  if (a.components.size() != b.components.size())
    throw Error(ErrorCode::kInvalidArgument, "compare: component counts differ");
  double sse = 0, peak_value = 0;
  uint64_t count = 0;
  int64_t peak = 0;
  for (size_t c = 0; c < a.components.size(); ++c) {
    const Component& ca = a.components[c];
    const Component& cb = b.components[c];
    if (ca.width != cb.width || ca.height != cb.height)
      throw Error(ErrorCode::kInvalidArgument,
                  "compare: component " + std::to_string(c) + " sizes differ");
    peak_value = std::max(peak_value, double(ca.max_value() - ca.min_value()));
    for (size_t i = 0; i < ca.samples.size(); ++i) {
      const int64_t d = int64_t{ca.samples[i]} - cb.samples[i];
      sse += double(d) * double(d);
      peak = std::max(peak, d < 0 ? -d : d);
    }
    count += ca.samples.size();
  }
  const double mse = count ? sse / count : 0;
  const double psnr = mse > 0 ? 10 * std::log10(peak_value * peak_value / mse) : INFINITY;
  std::printf("%s: peak error %lld, MSE %.4f, PSNR %.3f dB\n", diff ? "different" : "identical",
              static_cast<long long>(peak), mse, psnr);
  return 0;
}

const bool registered = register_command(
    {"compare", "Compare two images sample by sample (identical? peak error, PSNR)",
     [](CLI::App& app) -> RunFn {
       auto o = std::make_shared<Options>();
       app.add_option("a", o->a, "first image (any format gj2k reads; JPEG 2000 is decoded)")
           ->required();
       app.add_option("b", o->b, "second image")->required();
       app.add_flag("--metrics", o->metrics,
                    "print peak error, MSE and PSNR; exit 0 if sizes match");
       return [o] { return run(*o); };
     }});

}  // namespace
}  // namespace gj2k::cli
