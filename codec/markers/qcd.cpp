// QCD and QCC marker segments (15444-1 A.6.4, A.6.5).
#include "codec/markers/reader.h"

namespace gj2k::codec {
namespace {

// Sqcd/Sqcc and SPqcd/SPqcc (Tables A.28..A.30): the step count follows from the length.
Quantization parse_sqcd(ByteReader& r) {
  Quantization q;
  const uint8_t s = r.u8();
  q.guard_bits = static_cast<uint8_t>(s >> 5);
  const uint8_t style = s & 0x1F;
  if (style > 2) r.fail(ErrorCode::kFormat, "quantization style " + std::to_string(style));
  q.style = static_cast<QuantStyle>(style);
  const size_t max_steps = 3 * transform::kMaxLevels + 1;
  if (q.style == QuantStyle::kNone) {
    const size_t n = r.remaining();
    if (n == 0 || n > max_steps)
      r.fail(ErrorCode::kFormat,
             std::to_string(n) + " exponents (1.." + std::to_string(max_steps) + ")");
    q.steps.resize(n);
    for (auto& st : q.steps) st.exponent = static_cast<uint8_t>(r.u8() >> 3);
  } else {
    size_t n = r.remaining() / 2;
    if (q.style == QuantStyle::kScalarDerived) {
      if (n < 1) r.fail(ErrorCode::kTruncated, "derived quantization without its step");
      n = 1;  // trailing bytes tolerated
    } else if (n == 0 || n > max_steps || r.remaining() % 2) {
      r.fail(ErrorCode::kFormat, std::to_string(r.remaining()) +
                                     " bytes of expounded step sizes (2 per subband, 1.." +
                                     std::to_string(max_steps) + " subbands)");
    }
    q.steps.resize(n);
    for (auto& st : q.steps) {
      const uint16_t v = r.u16();
      st.exponent = static_cast<uint8_t>(v >> 11);
      st.mantissa = v & 0x7FF;
    }
  }
  return q;
}

}  // namespace

Quantization parse_qcd(ByteReader& r) {
  return parse_sqcd(r);
}

std::pair<uint16_t, Quantization> parse_qcc(ByteReader& r, uint32_t csiz) {
  const uint16_t c = csiz < 257 ? r.u8() : r.u16();
  if (c >= csiz)
    r.fail(ErrorCode::kFormat,
           "component " + std::to_string(c) + " but Csiz = " + std::to_string(csiz));
  return {c, parse_sqcd(r)};
}

}  // namespace gj2k::codec
