// The CPU backend of the per-tile stages (tile_backend.h).
#include <omp.h>

#include <algorithm>
#include <string>

#include "codec/parallel.h"
#include "codec/tile_backend.h"
#include "gj2k/error.h"
#include "transform/dwt.h"
#include "transform/dwt_cpu.h"
#include "transform/mct.h"

namespace gj2k::codec {
namespace {

using transform::Rect;

size_t area(const Rect& r) {
  return size_t{r.width()} * r.height();
}

// fn(first, count) over the samples of a plane that are needed: all of them, or the rows of
// its window, in parallel on `threads` threads.
template <class Fn>
void over_needed(const CoefficientPlane& p, int threads, const Fn& fn) {
  const size_t pitch = p.rect.width();
  if (!p.window) {
    in_chunks(area(p.rect), fn, threads);
    return;
  }
  const Rect& w = *p.window;
  const int64_t rows = int64_t{w.y1} - w.y0;
  const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) \
    num_threads(team) if (rows * w.width() >= (int64_t{1} << 16))
  for (int64_t k = 0; k < rows; ++k) fn((w.y0 + static_cast<size_t>(k)) * pitch + w.x0, w.width());
}

// The inverse DWT of one plane, over its window when it has one (dwt_cpu.h).
void inverse_dwt(CoefficientPlane& p) {
  const Rect& rect = p.rect;
  if (rect.empty()) return;
  if (p.window) {
    const Rect& w = *p.window;
    const Rect want{rect.x0 + w.x0, rect.y0 + w.y0, rect.x0 + w.x1, rect.y0 + w.y1};
    if (p.reversible)
      transform::cpu::inverse53_window({p.ints.data(), rect.width()}, rect, p.levels, want);
    else
      transform::cpu::inverse97_window({p.floats.data(), rect.width()}, rect, p.levels, want);
    return;
  }
  const auto& ops = transform::dwt_ops(transform::codec_cpu_dwt());
  if (p.reversible)
    ops.inverse53({p.ints.data(), rect.width()}, rect, p.levels);
  else
    ops.inverse97({p.floats.data(), rect.width()}, rect, p.levels);
}

// G.2 / G.3 with the DC shift and clipping of components 0..2, into out[0..2].
void inverse_mct(std::span<CoefficientPlane> planes, int threads,
                 std::vector<TileComponentSamples>& out) {
  int32_t offset[3], lo[3], hi[3];
  for (size_t c = 0; c < 3; ++c) {
    offset[c] = planes[c].offset;
    lo[c] = planes[c].lo;
    hi[c] = planes[c].hi;
  }
  if (planes[0].reversible && planes[1].reversible && planes[2].reversible) {
    int32_t* p[3] = {planes[0].ints.data(), planes[1].ints.data(), planes[2].ints.data()};
    over_needed(planes[0], threads, [&](size_t i, size_t len) {
      transform::rct_inverse_dc_shift(p[0] + i, p[1] + i, p[2] + i, len, offset, lo, hi);
    });
    for (size_t c = 0; c < 3; ++c) {
      out[c].rect = planes[c].rect;
      out[c].samples = std::move(planes[c].ints);
    }
    return;
  }
  for (size_t c = 0; c < 3; ++c)
    if (planes[c].reversible) {  // mixed kernels: bring the integers to float
      CoefficientPlane& m = planes[c];
      m.floats.resize(m.ints.size());
      over_needed(m, threads, [&](size_t i, size_t len) {
        std::copy_n(m.ints.data() + i, len, m.floats.data() + i);
      });
      Samples().swap(m.ints);
    }
  const size_t n = area(planes[0].rect);
  for (size_t c = 0; c < 3; ++c) {
    out[c].rect = planes[c].rect;
    Samples().swap(out[c].samples);
    out[c].samples.resize(n);  // not zeroed: every needed sample is written
  }
  const float* f[3] = {planes[0].floats.data(), planes[1].floats.data(), planes[2].floats.data()};
  int32_t* d[3] = {out[0].samples.data(), out[1].samples.data(), out[2].samples.data()};
  over_needed(planes[0], threads, [&](size_t i, size_t len) {
    transform::ict_inverse_dc_shift(f[0] + i, f[1] + i, f[2] + i, d[0] + i, d[1] + i, d[2] + i, len,
                                    offset, lo, hi);
  });
}

// G.1.2 and clipping of one component without MCT, into out.
void inverse_single(CoefficientPlane& p, int threads, TileComponentSamples& out) {
  out.rect = p.rect;
  if (p.reversible) {
    int32_t* s = p.ints.data();
    over_needed(p, threads, [&](size_t i, size_t len) {
      transform::dc_shift_inverse_clamp(s + i, len, p.offset, p.lo, p.hi);
    });
    out.samples = std::move(p.ints);
    return;
  }
  Samples().swap(out.samples);
  out.samples.resize(area(p.rect));
  const float* f = p.floats.data();
  int32_t* d = out.samples.data();
  over_needed(p, threads, [&](size_t i, size_t len) {
    transform::float_to_int_dc_shift(f + i, d + i, len, p.offset, p.lo, p.hi);
  });
}

class CpuBackend final : public TileBackend {
 public:
  const char* name() const override { return "cpu"; }

  void inverse(std::span<CoefficientPlane> planes, bool mct, int threads,
               std::vector<TileComponentSamples>& out) const override {
    const size_t nc = planes.size();
    if (mct) check_mct(planes);
    out.resize(nc);
    for (size_t c = 0; c < nc; ++c) {
      CoefficientPlane& p = planes[c];
      if (!p.decode || !(p.wanted || (mct && c < 3))) continue;
      if (area(p.rect) > (p.reversible ? p.ints.size() : p.floats.size()))
        throw Error(ErrorCode::kInternal,
                    "cpu backend: component " + std::to_string(c) + " has too few coefficients");
      inverse_dwt(p);
    }
    if (mct && !planes[0].rect.empty()) inverse_mct(planes, threads, out);
    for (size_t c = mct ? 3 : 0; c < nc; ++c)
      if (planes[c].decode && planes[c].wanted) inverse_single(planes[c], threads, out[c]);
    for (size_t c = 0; c < std::min<size_t>(nc, 3) && mct; ++c)
      if (!planes[c].wanted) out[c] = {};  // decoded for the MCT only
  }

 private:
  static void check_mct(std::span<const CoefficientPlane> planes) {
    if (planes.size() < 3) throw Error(ErrorCode::kInternal, "cpu backend: MCT needs 3 planes");
    for (size_t c = 0; c < 3; ++c)
      if (!planes[c].decode || planes[c].rect != planes[0].rect ||
          planes[c].window != planes[0].window)
        throw Error(ErrorCode::kInternal,
                    "cpu backend: MCT components 0..2 must be decoded with equal sizes");
  }
};

}  // namespace

void set_sample_range(CoefficientPlane& plane, int precision, bool is_signed) {
  plane.offset = transform::dc_offset(precision, is_signed);
  plane.lo = static_cast<int32_t>(is_signed ? -(int64_t{1} << (precision - 1)) : 0);
  plane.hi = static_cast<int32_t>(is_signed ? (int64_t{1} << (precision - 1)) - 1
                                            : (int64_t{1} << precision) - 1);
}

const TileBackend& cpu_backend() {
  static const CpuBackend backend;
  return backend;
}

}  // namespace gj2k::codec
