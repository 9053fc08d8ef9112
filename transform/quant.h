// Quantization (ISO/IEC 15444-1 Annex E) and the subband synthesis L2 norms that weight it
// (also used by rate control).
//
// Subbands are named by (n, band) as in geometry.h: n = 1..levels is the decomposition level,
// band one of HL, LH, HH; the lowest band is (levels, kLL). A tile-component with 0 levels has
// only (0, kLL). QCD/QCC list them in the order LL, then for n = levels down to 1: HL, LH, HH
// (A.6.4), which qcd_index gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transform/geometry.h"
#include "transform/quant_block.h"

namespace gj2k::transform {

// The wavelet transform of COD/COC SPcod (Table A.20), valued as coded: 0 = 9/7 irreversible,
// 1 = 5/3 reversible. The codec's one wavelet type (COD/COC markers and quantization).
enum class Wavelet : uint8_t { k97 = 0, k53 = 1 };

// Sqcd/Sqcc quantization style, low 5 bits (Table A.28).
enum class QuantStyle : uint8_t { kNone = 0, kScalarDerived = 1, kScalarExpounded = 2 };

// (epsilon_b, mu_b): 5-bit exponent and 11-bit mantissa (A.6.4; reversible: exponent only).
struct QuantStep {
  uint8_t exponent = 0;   // 0..31
  uint16_t mantissa = 0;  // 0..2047
  bool operator==(const QuantStep&) const = default;
};

// log2 of the subband analysis gain (E.1.1, Table E.1 / Figure E.1): LL 0, HL 1, LH 1, HH 2.
int band_gain_log2(Band band);

// Nominal dynamic range R_b = R_I + log2(gain_b) (E-4), R_I the component's precision in bits.
int nominal_range(int precision, Band band);

// Position of subband (n, band) in the QCD/QCC list; 3 * levels + 1 entries in all.
int qcd_index(int levels, int n, Band band);

// Step size Delta_b = 2^(R_b - epsilon_b) * (1 + mu_b / 2^11) (E-3).
double step_size(int range_bits, QuantStep s);

// Derived quantization (E-5): (epsilon_b, mu_b) = (epsilon_0 - N_L + n_b, mu_0), from the
// values signalled for the LL band; n_b = n (0 for the LL of a 0-level transform is n_b = N_L
// = 0). Throws Error(kFormat) when the exponent would fall outside 0..31.
QuantStep derived_step(QuantStep ll, int levels, int n);

// The step of subband (n, band) from the values signalled in a QCD/QCC of `style`: the one LL
// value for derived, one per subband (qcd_index order) otherwise. Throws Error(kFormat) when
// `signalled` has too few entries.
QuantStep signalled_step(QuantStyle style, const std::vector<QuantStep>& signalled, int levels,
                         int n, Band band);

// M_b = G + epsilon_b - 1 (E-2): the number of magnitude bit-planes of subband b.
int magnitude_bits(int guard_bits, QuantStep s);

// Encodes a step size as (epsilon, mu) for range R_b: epsilon = R_b - floor(log2 step), mu the
// nearest 11-bit mantissa. Steps outside what 5 + 11 bits can express are clamped (epsilon 0
// with mu 2047 for the largest, epsilon 31 with mu 0 for the smallest). Returns the pair; the
// step it actually represents is step_size(range_bits, result). Throws Error(kInvalidArgument)
// for a step that is not finite and positive.
QuantStep encode_step(double step, int range_bits);

// L2 norm of the 2-D synthesis basis function of subband (n, band) (n = 0: the identity, 1):
// sqrt(sum of squares) of the iterated synthesis filters (separable: norm of the x filter times
// the norm of the y filter), computed numerically from the synthesis filters of `wavelet` with
// the normalisation of dwt.h (low-pass synthesis DC gain 2). A coefficient error e in the band
// contributes e^2 * norm^2 to the squared error of the reconstructed tile-component. Cached;
// n in 0..32.
double subband_l2_norm(Wavelet wavelet, int n, Band band);

// One subband's quantization for encoding.
struct SubbandQuant {
  int n = 0;
  Band band = Band::kLL;
  QuantStep step;      // as signalled (derived: what the decoder derives)
  double delta = 1;    // the actual step size the decoder uses (1 for reversible)
  int range_bits = 0;  // R_b
  int magnitude = 0;   // M_b
};

// The quantization of every subband, in qcd_index order, for a tile-component of `precision`
// bits decomposed `levels` times:
// - 5/3 (style kNone): epsilon_b = R_b, no mantissa, delta 1 (as OpenJPEG writes them).
// - 9/7 expounded: Delta_b = base_step / subband_l2_norm(b) (equal contribution of each band's
//   quantization error to the image MSE), each encoded and given back as actually represented.
// - 9/7 derived: the LL step is chosen so, the others follow by E-5.
// base_step is in units of the (DC-shifted) sample values. Throws Error(kInvalidArgument) for
// bad combinations (5/3 with scalar styles, 9/7 with kNone, levels outside 0..32).
std::vector<SubbandQuant> choose_steps(Wavelet wavelet, QuantStyle style, int levels, int precision,
                                       int guard_bits, double base_step);

// Dead-zone scalar quantizer (E.1, informative encoder side): q = sign(y) floor(|y| / delta).
void quantize(const float* in, int32_t* out, size_t n, float delta);
// The same in place: the n floats at y become the n int32 quantization indices in their words
// (ending the floats' lifetime there); returns the indices.
int32_t* quantize_in_place(float* y, size_t n, float delta);

// Dequantization (E-6): y = (q + sign(q) r') delta for q != 0, 0 for q = 0, with r' the
// reconstruction offset in units of delta (reconstruction_offset).
void dequantize(const int32_t* in, float* out, size_t n, float delta, float offset);

// One code-block's Tier-1 output turned into the coefficients the inverse DWT takes: the
// decoder and the encoder's distortion measurement (which must reconstruct as the decoder
// does) both call this. The input is decode_block's (entropy/t1.h): signed magnitudes in half
// units, 2|q| plus 1 where undecoded bit-planes remain below a significant coefficient (the
// midpoint r = 1/2 of E-6). BlockReconstruction and the per-coefficient rules: quant_block.h.

// In place, `v` a w x h block with row pitch `stride` (int32 half units as above):
// 1. H.1: a magnitude at or above 2^s (in integer units) belongs to the ROI and is shifted
//    down by s; the others are background and stay.
// 2. 5/3: the fractional bit is dropped toward zero (F.3: integer coefficients), in v.
//    9/7: E-6, y = (|q| + r) Delta_b sign(q) with r = 1/2 for every nonzero coefficient: where
//    Tier-1 already added the midpoint (undecoded planes remain) as is; where the block's last
//    bit-plane was decoded for the coefficient, the midpoint is added here (a coefficient is
//    known to be complete when all passes were decoded, or when the passes reach into the last
//    plane and its magnitude is a multiple of 2 in integer units). The floats go to `dst`
//    (pitch dst_stride); v is left with the adjusted half units.
// Not thread-hostile: touches only the given block.
void reconstruct_block(int32_t* v, size_t stride, uint32_t w, uint32_t h,
                       const BlockReconstruction& q, float* dst = nullptr, size_t dst_stride = 0);

// r' = r * 2^(M_b - N_b) (E-6): r the reconstruction parameter (0 <= r < 1, usually 0.5), N_b
// the number of bit-planes actually decoded (N_b <= M_b; the undecoded low bits of q are 0).
float reconstruction_offset(float r, int magnitude_bits, int decoded_bits);

}  // namespace gj2k::transform
