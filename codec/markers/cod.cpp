// COD and COC marker segments (15444-1 A.6.1, A.6.2).
#include "codec/markers/reader.h"

namespace gj2k::codec {
namespace {

// SPcod / SPcoc (Table A.15); `user_precincts` is Scod/Scoc bit 0.
ComponentCoding parse_spcod(ByteReader& r, bool user_precincts) {
  ComponentCoding cc;
  cc.levels = r.u8();
  if (cc.levels > transform::kMaxLevels)
    r.fail(ErrorCode::kFormat, std::to_string(cc.levels) + " decomposition levels (at most 32)");
  const uint8_t xcb = r.u8(), ycb = r.u8();
  if (xcb > 8 || ycb > 8 || xcb + ycb > 8)
    r.fail(ErrorCode::kFormat, "code-block size 2^" + std::to_string(xcb + 2) + " x 2^" +
                                   std::to_string(ycb + 2) + " (exponents 2..10, sum at most 12)");
  cc.xcb = static_cast<uint8_t>(xcb + 2);
  cc.ycb = static_cast<uint8_t>(ycb + 2);
  cc.cblk_style = r.u8();
  if (cc.cblk_style & 0x40)  // 15444-15 A.2: HT code-blocks
    throw Error(ErrorCode::kUnsupported, std::string(kHtj2kUnsupported) +
                                             " (code-block style bit 0x40, HT block coding, at "
                                             "byte offset " +
                                             std::to_string(r.pos() - 1) + ")");
  if (cc.cblk_style & ~cblk_style::kAll)
    r.fail(ErrorCode::kUnsupported, "code-block style 0x" + std::to_string(cc.cblk_style) +
                                        " uses bits beyond Part 1 (HTJ2K?)");
  const uint8_t w = r.u8();
  if (w > 1)
    r.fail(ErrorCode::kUnsupported,
           "wavelet transform " + std::to_string(w) + " (Part 1 has only 0 = 9/7 and 1 = 5/3)");
  cc.wavelet = static_cast<Wavelet>(w);
  if (user_precincts) {
    cc.precincts.resize(size_t{cc.levels} + 1);
    for (size_t i = 0; i <= cc.levels; ++i) {
      const uint8_t b = r.u8();
      cc.precincts[i] = {static_cast<uint8_t>(b & 0x0F), static_cast<uint8_t>(b >> 4)};
      if (i > 0 && (cc.precincts[i].ppx == 0 || cc.precincts[i].ppy == 0))
        r.fail(ErrorCode::kFormat, "precinct exponent 0 at resolution " + std::to_string(i) +
                                       " (only resolution 0 may use 0)");
    }
  }
  return cc;
}

}  // namespace

CodingStyle parse_cod(ByteReader& r) {
  CodingStyle cs;
  const uint8_t scod = r.u8();
  if (scod & ~0x07)
    r.fail(ErrorCode::kUnsupported, "Scod = " + std::to_string(scod) + " uses bits beyond Part 1");
  cs.sop = (scod & 0x02) != 0;
  cs.eph = (scod & 0x04) != 0;
  const uint8_t prog = r.u8();
  if (prog > 4) r.fail(ErrorCode::kFormat, "progression order " + std::to_string(prog));
  cs.progression = static_cast<ProgressionOrder>(prog);
  cs.layers = r.u16();
  if (cs.layers == 0) r.fail(ErrorCode::kFormat, "0 quality layers");
  cs.mct = r.u8();
  if (cs.mct > 1)
    r.fail(ErrorCode::kUnsupported,
           "multiple component transform " + std::to_string(cs.mct) + " (Part 2)");
  cs.component = parse_spcod(r, scod & 0x01);
  return cs;
}

std::pair<uint16_t, ComponentCoding> parse_coc(ByteReader& r, uint32_t csiz) {
  const uint16_t c = csiz < 257 ? r.u8() : r.u16();
  if (c >= csiz)
    r.fail(ErrorCode::kFormat,
           "component " + std::to_string(c) + " but Csiz = " + std::to_string(csiz));
  const uint8_t scoc = r.u8();
  if (scoc & ~0x01)
    r.fail(ErrorCode::kUnsupported, "Scoc = " + std::to_string(scoc) + " uses bits beyond Part 1");
  return {c, parse_spcod(r, scoc & 0x01)};
}

}  // namespace gj2k::codec
