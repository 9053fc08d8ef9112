// transform/narrow.h: SSE2 (every x86-64) with streaming stores, the plain loop elsewhere.
#include "transform/narrow.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gj2k::transform {
namespace {

#if defined(__SSE2__)
// The samples of one 16-byte store: 16 / sizeof(T) of them.
template <class T>
constexpr size_t kPerStore = 16 / sizeof(T);

// The four-sample groups of one store checked against [lo, hi] (bad: lanes out of range) and
// packed to T. The packs saturate, so a value in range is stored exactly (A.5.1 ranges fit T).
template <class T>
inline __m128i pack_store(const int32_t* s, __m128i lo, __m128i hi, __m128i& bad) {
  constexpr size_t groups = kPerStore<T> / 4;
  __m128i v[4];
  for (size_t g = 0; g < groups; ++g) {
    v[g] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 4 * g));
    bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmplt_epi32(v[g], lo), _mm_cmpgt_epi32(v[g], hi)));
  }
  if constexpr (sizeof(T) == 4) {
    return v[0];
  } else if constexpr (sizeof(T) == 2) {
    if constexpr (T(-1) < T(0)) return _mm_packs_epi32(v[0], v[1]);
    // 0..65535: biased into int16's range for the signed pack, then back.
    const __m128i bias = _mm_set1_epi32(0x8000);
    const __m128i p = _mm_packs_epi32(_mm_sub_epi32(v[0], bias), _mm_sub_epi32(v[1], bias));
    return _mm_xor_si128(p, _mm_set1_epi16(static_cast<short>(0x8000)));
  } else {
    const __m128i ab = _mm_packs_epi32(v[0], v[1]), cd = _mm_packs_epi32(v[2], v[3]);
    if constexpr (T(-1) < T(0)) return _mm_packs_epi16(ab, cd);
    return _mm_packus_epi16(ab, cd);
  }
}
#endif

}  // namespace

template <class T>
bool narrow_row(const int32_t* src, size_t n, T* dst, int64_t lo, int64_t hi) {
#if defined(__SSE2__)
  // Up to the first 16-byte boundary of dst, and the tail, by the plain loop.
  const size_t mis = reinterpret_cast<uintptr_t>(dst) % 16;
  const size_t head = std::min(n, mis == 0 ? 0 : (16 - mis) / sizeof(T));
  const bool head_ok = narrow_row_ref(src, head, dst, lo, hi);
  if ((reinterpret_cast<uintptr_t>(dst + head) % 16) != 0)  // T's own alignment is off
    return narrow_row_ref(src + head, n - head, dst + head, lo, hi) && head_ok;
  const size_t body = (n - head) / kPerStore<T> * kPerStore<T>;
  // [lo, hi] within int32 (a bound beyond it excludes nothing an int32 holds).
  const __m128i vlo =
      _mm_set1_epi32(static_cast<int32_t>(std::clamp<int64_t>(lo, INT32_MIN, INT32_MAX)));
  const __m128i vhi =
      _mm_set1_epi32(static_cast<int32_t>(std::clamp<int64_t>(hi, INT32_MIN, INT32_MAX)));
  bool clamped_out = lo > INT32_MAX || hi < INT32_MIN || lo > hi;  // an empty range
  __m128i bad = _mm_setzero_si128();
  for (size_t x = head; x < head + body; x += kPerStore<T>)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + x), pack_store<T>(src + x, vlo, vhi, bad));
  _mm_sfence();  // the streamed stores before anything that hands the chunk over
  const bool tail_ok =
      narrow_row_ref(src + head + body, n - head - body, dst + head + body, lo, hi);
  const bool body_ok = _mm_movemask_epi8(bad) == 0 && !(clamped_out && body > 0);
  return head_ok && body_ok && tail_ok;
#else
  return narrow_row_ref(src, n, dst, lo, hi);
#endif
}

template bool narrow_row<uint8_t>(const int32_t*, size_t, uint8_t*, int64_t, int64_t);
template bool narrow_row<int8_t>(const int32_t*, size_t, int8_t*, int64_t, int64_t);
template bool narrow_row<uint16_t>(const int32_t*, size_t, uint16_t*, int64_t, int64_t);
template bool narrow_row<int16_t>(const int32_t*, size_t, int16_t*, int64_t, int64_t);
template bool narrow_row<int32_t>(const int32_t*, size_t, int32_t*, int64_t, int64_t);

}  // namespace gj2k::transform
