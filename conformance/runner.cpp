// One conformance test: decode, read references, compare (conformance/runner.h).
#include "conformance/runner.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "codec/decoder_color.h"
#include "conformance/metrics.h"
#include "io/image_io.h"

namespace gj2k::conformance {
namespace fs = std::filesystem;

namespace {

// The colour channels of a rendered image: grey replicated to three, alpha dropped.
std::vector<Component> rgb_channels(const Image& image) {
  std::vector<const Component*> colour;
  for (const auto& c : image.components)
    if (!c.is_alpha) colour.push_back(&c);
  std::vector<Component> out;
  if (colour.empty()) return out;
  if (colour.size() < 3) {
    for (int i = 0; i < 3; ++i) out.push_back(to_unsigned8(*colour[0]));
  } else {
    for (int i = 0; i < 3; ++i) out.push_back(to_unsigned8(*colour[i]));
  }
  return out;
}

void compare_into(const TestCase& t, size_t index, const Component& decoded, const Component& ref,
                  TestResult& r, bool exact_format) {
  if (exact_format) {
    if (auto why = geometry_mismatch(decoded, ref)) {
      r.message += (r.message.empty() ? "" : "; ") + std::string("component ") +
                   std::to_string(index) + ": " + *why;
      r.components.push_back({0, 0, t.peak_limit(index), t.mse_limit(index), false});
      return;
    }
  } else if (decoded.width != ref.width || decoded.height != ref.height) {
    r.message += (r.message.empty() ? "" : "; ") + std::string("component ") +
                 std::to_string(index) + ": decoded " + std::to_string(decoded.width) + "x" +
                 std::to_string(decoded.height) + ", reference " + std::to_string(ref.width) + "x" +
                 std::to_string(ref.height);
    r.components.push_back({0, 0, t.peak_limit(index), t.mse_limit(index), false});
    return;
  }
  Score s = score(decoded, ref);
  ComponentResult c{s.peak, s.mse, t.peak_limit(index), t.mse_limit(index), false};
  // A small relative slack on the MSE limit only absorbs the rounding of the printed limits.
  c.pass = s.peak <= c.peak_limit && s.mse <= c.mse_limit * (1 + 1e-9) + 1e-12;
  r.components.push_back(c);
}

TestResult run_checked(const TestCase& t, const fs::path& dir, const RunOptions& o) {
  TestResult r;
  DecodeParams p;
  p.reduce = t.reduce;
  p.device = o.device;
  p.threads = o.threads;
  std::vector<Component> refs;
  for (const auto& name : t.refs) {
    Image ref = io::read_image(dir / "reference" / name);
    for (auto& c : ref.components) refs.push_back(std::move(c));
  }
  if (t.kind == CompareKind::kClass0) {
    // 15444-4 class 0 references show component 0 without the inverse component transform.
    p.components = {0};
    p.skip_mct = true;
  }
  if (t.kind == CompareKind::kRgb8) {
    p.upsample = true;
    p.force_rgb = true;
  }
  if (t.kind == CompareKind::kUpsampled) p.force_rgb = true;  // upsampled per reference below
  Decoder decoder(dir / "input" / t.input);
  const HeaderInfo header = decoder.read_header();
  auto start = std::chrono::steady_clock::now();
  Image decoded = decoder.decode(p);
  // Class 0 references of multi-tile streams at reduce 0 show tile 0 only (a class 0 decoder
  // need not hold more); decode that tile when the whole image does not match.
  if (t.kind == CompareKind::kClass0 && !refs.empty() && !decoded.components.empty() &&
      decoded.components[0].width != refs[0].width && header.num_tiles_x * header.num_tiles_y > 1) {
    p.tile = 0;
    decoded = decoder.decode(p);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  switch (t.kind) {
    case CompareKind::kPerComponent: {
      if (decoded.components.size() < t.ncomp || refs.size() < t.ncomp) {
        r.message = "decoded " + std::to_string(decoded.components.size()) + " components, " +
                    std::to_string(refs.size()) + " references, " + std::to_string(t.ncomp) +
                    " to compare";
        return r;
      }
      for (size_t k = 0; k < t.ncomp; ++k)
        compare_into(t, k, decoded.components[k], refs[k], r, true);
      break;
    }
    case CompareKind::kClass0: {
      if (decoded.components.empty() || refs.empty()) {
        r.message = "nothing decoded";
        return r;
      }
      Component d = scale_to_precision(decoded.components[0], refs[0].precision);
      compare_into(t, 0, d, refs[0], r, true);
      break;
    }
    case CompareKind::kRgb8: {
      auto rgb = rgb_channels(decoded);
      if (rgb.size() != 3 || refs.size() < 3) {
        r.message = "expected an RGB rendering and an RGB reference";
        return r;
      }
      for (size_t k = 0; k < 3; ++k) compare_into(t, k, rgb[k], to_unsigned8(refs[k]), r, false);
      break;
    }
    case CompareKind::kUpsampled: {
      std::vector<Component> dec;
      for (const auto& c : decoded.components)
        if (!c.is_alpha) dec.push_back(c);
      if (dec.size() != refs.size()) {
        r.message = "decoded " + std::to_string(dec.size()) + " colour components, reference " +
                    std::to_string(refs.size());
        return r;
      }
      for (size_t k = 0; k < dec.size(); ++k) {
        Component d = dec[k];
        // The reference shows the component as decoded or upsampled to the image grid.
        if ((d.width != refs[k].width || d.height != refs[k].height) && (d.dx > 1 || d.dy > 1)) {
          Image one = decoded;
          one.components = {d};
          codec::upsample(one, /*zero_uncovered=*/true);
          d = std::move(one.components[0]);
        }
        if (d.precision != refs[k].precision || d.is_signed != refs[k].is_signed) {
          d = to_unsigned8(d);
          refs[k] = to_unsigned8(refs[k]);
        }
        compare_into(t, k, d, refs[k], r, false);
      }
      break;
    }
  }
  bool all = !r.components.empty() && r.message.empty();
  for (const auto& c : r.components) all = all && c.pass;
  r.outcome = all ? Outcome::kPass : Outcome::kFail;
  if (!all && r.message.empty()) r.message = "over the limits";
  return r;
}

std::string num(double v) {
  char buf[32];
  if (v == static_cast<int64_t>(v) && std::fabs(v) < 1e12)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

TestResult run_test(const TestCase& t, const fs::path& dir, const RunOptions& o) {
  if (!t.skip.empty()) return {Outcome::kSkip, t.skip, {}, 0};
  try {
    return run_checked(t, dir, o);
  } catch (const Error& e) {
    TestResult r;
    r.outcome = Outcome::kFail;
    r.message = std::string("error: ") + e.what();
    return r;
  } catch (const std::exception& e) {
    TestResult r;
    r.outcome = Outcome::kFail;
    r.message = std::string("internal error: ") + e.what();
    return r;
  }
}

std::string format_result(const TestCase& t, const TestResult& r) {
  char head[96];
  std::snprintf(head, sizeof head, "%-14s r%u", t.name.c_str(), t.reduce);
  std::string line = head;
  for (size_t k = 0; k < r.components.size(); ++k) {
    const auto& c = r.components[k];
    line += "  c" + std::to_string(k) + " peak " + num(c.peak) + "/" + num(c.peak_limit) + " mse " +
            num(c.mse) + "/" + num(c.mse_limit);
  }
  line += r.outcome == Outcome::kPass   ? "  PASS"
          : r.outcome == Outcome::kFail ? "  FAIL"
                                        : "  SKIP";
  if (!r.message.empty() && r.outcome != Outcome::kPass) line += " (" + r.message + ")";
  return line;
}

}  // namespace gj2k::conformance
