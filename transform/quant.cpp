// Annex E quantization and the subband synthesis L2 norms.
#include "transform/quant.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <mutex>
#include <new>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gj2k/error.h"
#include "transform/dwt.h"

namespace gj2k::transform {

int band_gain_log2(Band band) {
  switch (band) {
    case Band::kLL:
      return 0;
    case Band::kHL:
    case Band::kLH:
      return 1;
    case Band::kHH:
      return 2;
  }
  return 0;
}

int nominal_range(int precision, Band band) {
  return precision + band_gain_log2(band);
}

int qcd_index(int levels, int n, Band band) {
  if (band == Band::kLL) return 0;
  return 1 + 3 * (levels - n) + (static_cast<int>(band) - 1);
}

double step_size(int range_bits, QuantStep s) {
  return std::ldexp(1.0 + s.mantissa / 2048.0, range_bits - s.exponent);
}

QuantStep derived_step(QuantStep ll, int levels, int n) {
  const int e = int{ll.exponent} - levels + n;
  if (e < 0 || e > 31)
    throw Error(ErrorCode::kFormat, "derived quantization (E-5): exponent " + std::to_string(e) +
                                        " of level " + std::to_string(n) + " outside 0..31");
  return {static_cast<uint8_t>(e), ll.mantissa};
}

QuantStep signalled_step(QuantStyle style, const std::vector<QuantStep>& signalled, int levels,
                         int n, Band band) {
  if (style == QuantStyle::kScalarDerived) {
    if (signalled.empty())
      throw Error(ErrorCode::kFormat, "derived quantization: no LL step signalled");
    return band == Band::kLL ? signalled[0] : derived_step(signalled[0], levels, n);
  }
  const size_t i = static_cast<size_t>(qcd_index(levels, n, band));
  if (i >= signalled.size())
    throw Error(ErrorCode::kFormat, "quantization: " + std::to_string(signalled.size()) +
                                        " step sizes signalled, subband " + std::to_string(i) +
                                        " of " + std::to_string(3 * levels + 1) + " needed");
  return signalled[i];
}

int magnitude_bits(int guard_bits, QuantStep s) {
  return guard_bits + s.exponent - 1;
}

QuantStep encode_step(double step, int range_bits) {
  if (!(step > 0) || !std::isfinite(step))
    throw Error(ErrorCode::kInvalidArgument,
                "quantization step " + std::to_string(step) + " is not finite and positive");
  int e2 = 0;
  const double m = std::frexp(step, &e2);  // step = m * 2^e2, m in [0.5, 1)
  int exponent = range_bits - (e2 - 1);    // step = (2m) * 2^(range - exponent)
  long mant = std::lround((2 * m - 1) * 2048.0);
  if (mant == 2048) mant = 0, --exponent;
  if (exponent < 0) return {0, 2047};  // the largest representable step
  if (exponent > 31) return {31, 0};   // the smallest
  return {static_cast<uint8_t>(exponent), static_cast<uint16_t>(mant)};
}

// ---- L2 norms ------------------------------------------------------------------------------

namespace {

constexpr int kExactLevels = 14;  // beyond, the norms grow by a converged constant ratio

std::vector<double> symmetric(const double* taps, int n) {  // taps t[0..n) -> full filter
  std::vector<double> f(2 * n - 1);
  for (int k = 0; k < n; ++k) f[n - 1 + k] = f[n - 1 - k] = taps[k];
  return f;
}

// 1-D norm of the iterated synthesis filter of one level-n coefficient (n <= kExactLevels):
// its basis function is G(z^(2^(n-1))) G0(z^(2^(n-2))) ... G0(z) with G = G1 for high, G0 for
// low.
double exact_norm_1d(const std::vector<double>& g0, const std::vector<double>& g1, int high,
                     int n) {
  std::vector<double> f = high ? g1 : g0;
  for (int s = 1; s < n; ++s) {  // f <- upsample(f) * g0
    std::vector<double> up(2 * f.size() - 1, 0.0);
    for (size_t i = 0; i < f.size(); ++i) up[2 * i] = f[i];
    std::vector<double> c(up.size() + g0.size() - 1, 0.0);
    for (size_t i = 0; i < up.size(); ++i)
      if (up[i] != 0.0)
        for (size_t j = 0; j < g0.size(); ++j) c[i + j] += up[i] * g0[j];
    f.swap(c);
  }
  double s2 = 0;
  for (double v : f) s2 += v * v;
  return std::sqrt(s2);
}

// The 1-D norms [high?][n] of one wavelet, each computed on first use (the deep levels cost
// milliseconds, which an encode of few levels should not pay). Beyond kExactLevels the norms
// grow by a converged constant ratio.
class Norms1D {
 public:
  Norms1D(std::vector<double> g0, std::vector<double> g1)
      : g0_(std::move(g0)), g1_(std::move(g1)) {}
  double get(int high, int n) {
    if (n == 0) return 1.0;
    std::call_once(once_[high][n], [&] {
      value_[high][n] =
          n <= kExactLevels
              ? exact_norm_1d(g0_, g1_, high, n)
              : get(high, n - 1) * (get(high, kExactLevels) / get(high, kExactLevels - 1));
    });
    return value_[high][n];
  }

 private:
  std::vector<double> g0_, g1_;
  std::once_flag once_[2][kMaxLevels + 1];
  double value_[2][kMaxLevels + 1] = {};
};

Norms1D& cached_norms(Wavelet w) {
  static Norms1D n53 = [] {
    const double lo[] = {1.0, 0.5}, hi[] = {0.75, -0.25, -0.125};  // F.4.8.1 synthesis
    return Norms1D(symmetric(lo, 2), symmetric(hi, 3));
  }();
  static Norms1D n97 = [] {
    const Dwt97Filters& f = dwt97_filters();
    return Norms1D(symmetric(f.syn_lo, 4), symmetric(f.syn_hi, 5));
  }();
  return w == Wavelet::k53 ? n53 : n97;
}

}  // namespace

double subband_l2_norm(Wavelet wavelet, int n, Band band) {
  if (n < 0 || n > kMaxLevels)
    throw Error(ErrorCode::kInvalidArgument, "subband_l2_norm: level outside 0..32");
  if (n == 0) return 1.0;
  Norms1D& t = cached_norms(wavelet);
  const int xh = static_cast<int>(band) & 1, yh = static_cast<int>(band) >> 1;
  return t.get(xh, n) * t.get(yh, n);
}

// ---- choosing steps ------------------------------------------------------------------------

std::vector<SubbandQuant> choose_steps(Wavelet wavelet, QuantStyle style, int levels, int precision,
                                       int guard_bits, double base_step) {
  if (levels < 0 || levels > kMaxLevels)
    throw Error(ErrorCode::kInvalidArgument, "choose_steps: levels outside 0..32");
  if ((wavelet == Wavelet::k53) != (style == QuantStyle::kNone))
    throw Error(ErrorCode::kInvalidArgument,
                "choose_steps: 5/3 takes no quantization, 9/7 takes derived or expounded");
  std::vector<SubbandQuant> out;
  auto add = [&](int n, Band b) {
    SubbandQuant q;
    q.n = n;
    q.band = b;
    q.range_bits = nominal_range(precision, b);
    out.push_back(q);
  };
  add(levels, Band::kLL);
  for (int n = levels; n >= 1; --n)
    for (Band b : {Band::kHL, Band::kLH, Band::kHH}) add(n, b);
  for (SubbandQuant& q : out) {
    if (wavelet == Wavelet::k53) {
      if (q.range_bits > 31)
        throw Error(ErrorCode::kInvalidArgument, "choose_steps: precision too large for 5/3");
      q.step = {static_cast<uint8_t>(q.range_bits), 0};
      q.delta = 1.0;
    } else if (style == QuantStyle::kScalarExpounded || q.band == Band::kLL) {
      q.step = encode_step(base_step / subband_l2_norm(wavelet, q.n, q.band), q.range_bits);
      q.delta = step_size(q.range_bits, q.step);
    } else {
      q.step = derived_step(out[0].step, levels, q.n);
      q.delta = step_size(q.range_bits, q.step);
    }
    q.magnitude = magnitude_bits(guard_bits, q.step);
  }
  return out;
}

// ---- quantize / dequantize -----------------------------------------------------------------

void quantize(const float* __restrict in, int32_t* __restrict out, size_t n, float delta) {
  constexpr float kMax = 2147483520.0f;  // largest float below 2^31
  // |y| / delta >= 0, so floor is the truncation of the conversion to int32: the loop has no
  // library call and vectorizes.
  for (size_t i = 0; i < n; ++i) {
    float m = std::fabs(in[i]) / delta;
    m = m >= 0 ? m : 0.0f;    // NaN
    m = m < kMax ? m : kMax;  // saturate instead of overflowing int32
    const int32_t q = static_cast<int32_t>(m);
    out[i] = in[i] < 0 ? -q : q;
  }
}

int32_t* quantize_in_place(float* y, size_t n, float delta) {
  static_assert(sizeof(float) == sizeof(int32_t) && alignof(int32_t) <= alignof(float));
  constexpr float kMax = 2147483520.0f;
  void* const words = y;
  size_t i = 0;
#if defined(__SSE2__)
  // Four at a time, the scalar loop's steps with its NaN rule (max(NaN, 0) is 0), the sign
  // applied as (q ^ s) - s with s the float's sign.
  const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
  const __m128 d4 = _mm_set1_ps(delta), zero = _mm_setzero_ps(), top = _mm_set1_ps(kMax);
  for (; i + 4 <= n; i += 4) {
    const __m128 v = _mm_loadu_ps(y + i);
    __m128 m = _mm_div_ps(_mm_and_ps(v, abs_mask), d4);
    m = _mm_min_ps(_mm_max_ps(m, zero), top);
    const __m128i q = _mm_cvttps_epi32(m);
    const __m128i sign = _mm_srai_epi32(_mm_castps_si128(v), 31);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     _mm_sub_epi32(_mm_xor_si128(q, sign), sign));
  }
#endif
  for (; i < n; ++i) {
    const float v = y[i];
    float m = std::fabs(v) / delta;  // as quantize
    m = m >= 0 ? m : 0.0f;
    m = m < kMax ? m : kMax;
    const int32_t q = static_cast<int32_t>(m);
    ::new (static_cast<void*>(y + i)) int32_t(v < 0 ? -q : q);
  }
  return std::launder(static_cast<int32_t*>(words));
}

void dequantize(const int32_t* __restrict in, float* __restrict out, size_t n, float delta,
                float offset) {
  for (size_t i = 0; i < n; ++i) {
    const int32_t q = in[i];
    const float r = q > 0 ? offset : (q < 0 ? -offset : 0.0f);
    out[i] = (static_cast<float>(q) + r) * delta;
  }
}

void reconstruct_block(int32_t* v, size_t stride, uint32_t w, uint32_t h,
                       const BlockReconstruction& q, float* dst, size_t dst_stride) {
  if (q.reversible) {
    for (uint32_t y = 0; y < h; ++y) {
      int32_t* row = v + y * stride;
      if (q.roi_shift > 0)
        for (uint32_t x = 0; x < w; ++x) row[x] = reconstruct_integer(row[x], q.roi_shift);
      else  // the common case without ROI, in its own loop: halved toward zero
        for (uint32_t x = 0; x < w; ++x) row[x] = (row[x] + (row[x] < 0)) >> 1;
    }
    return;
  }
  const IrreversibleRule rule = irreversible_rule(q);
  if (rule.roi_shift > 0) {
    for (uint32_t y = 0; y < h; ++y) {
      int32_t* src = v + y * stride;
      float* out = dst + y * dst_stride;
      for (uint32_t x = 0; x < w; ++x) {
        src[x] = irreversible_half_units(src[x], rule);
        out[x] = static_cast<float>(src[x]) * rule.scale;
      }
    }
    return;
  }
  // Without ROI, irreversible_half_units in three branch-free loops (they vectorise): no
  // midpoint; the midpoint on every nonzero value; on those whose last plane was decoded.
  const float scale = rule.scale;
  for (uint32_t y = 0; y < h; ++y) {
    int32_t* src = v + y * stride;
    float* out = dst + y * dst_stride;
    if (!rule.last_plane) {
      for (uint32_t x = 0; x < w; ++x) out[x] = static_cast<float>(src[x]) * scale;
    } else if (rule.complete) {
      for (uint32_t x = 0; x < w; ++x) {
        const int32_t c = src[x];
        src[x] = c + (c > 0) - (c < 0);
        out[x] = static_cast<float>(src[x]) * scale;
      }
    } else {
      for (uint32_t x = 0; x < w; ++x) {
        const int32_t c = src[x];
        const uint32_t m = c < 0 ? 0u - static_cast<uint32_t>(c) : static_cast<uint32_t>(c);
        const int32_t mid = (m & 3u) == 0 ? 1 : 0;
        src[x] = c + mid * ((c > 0) - (c < 0));
        out[x] = static_cast<float>(src[x]) * scale;
      }
    }
  }
}

float reconstruction_offset(float r, int magnitude_bits, int decoded_bits) {
  const int d = magnitude_bits - decoded_bits;
  return d > 0 ? std::ldexp(r, d) : r;
}

}  // namespace gj2k::transform
