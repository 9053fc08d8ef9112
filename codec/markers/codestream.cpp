// Helpers of the codestream data model: names, precedence (A.6), tile geometry (B.3).
#include "codec/markers/codestream.h"

#include <algorithm>
#include <cstdio>

#include "gj2k/error.h"

namespace gj2k::codec {

std::string marker_name(uint16_t code) {
  switch (code) {
    case marker::kSoc:
      return "SOC";
    case marker::kSot:
      return "SOT";
    case marker::kSod:
      return "SOD";
    case marker::kEoc:
      return "EOC";
    case marker::kSiz:
      return "SIZ";
    case marker::kCod:
      return "COD";
    case marker::kCoc:
      return "COC";
    case marker::kTlm:
      return "TLM";
    case marker::kPlm:
      return "PLM";
    case marker::kPlt:
      return "PLT";
    case marker::kQcd:
      return "QCD";
    case marker::kQcc:
      return "QCC";
    case marker::kRgn:
      return "RGN";
    case marker::kPoc:
      return "POC";
    case marker::kPpm:
      return "PPM";
    case marker::kPpt:
      return "PPT";
    case marker::kCrg:
      return "CRG";
    case marker::kCom:
      return "COM";
    case marker::kSop:
      return "SOP";
    case marker::kEph:
      return "EPH";
    default:
      break;
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04X", code);
  return buf;
}

const char* to_string(ProgressionOrder p) {
  switch (p) {
    case ProgressionOrder::kLRCP:
      return "LRCP";
    case ProgressionOrder::kRLCP:
      return "RLCP";
    case ProgressionOrder::kRPCL:
      return "RPCL";
    case ProgressionOrder::kPCRL:
      return "PCRL";
    case ProgressionOrder::kCPRL:
      return "CPRL";
  }
  return "?";
}

const char* to_string(QuantStyle s) {
  switch (s) {
    case QuantStyle::kNone:
      return "none";
    case QuantStyle::kScalarDerived:
      return "scalar derived";
    case QuantStyle::kScalarExpounded:
      return "scalar expounded";
  }
  return "?";
}

std::string cblk_style_names(uint8_t style) {
  static const char* const kNames[] = {"BYPASS", "RESET", "TERMALL", "VSC", "PTERM", "SEGMARK"};
  std::string s;
  for (int i = 0; i < 6; ++i) {
    if (!(style & (1u << i))) continue;
    if (!s.empty()) s += '|';
    s += kNames[i];
  }
  return s.empty() ? "none" : s;
}

StepSize Quantization::step(int levels, int n, transform::Band band) const {
  if (levels < 0 || levels > transform::kMaxLevels || n < 0 || n > levels ||
      (band == transform::Band::kLL && n != levels) || (band != transform::Band::kLL && n < 1))
    throw Error(ErrorCode::kInternal, "Quantization::step: no such subband");
  if (style != QuantStyle::kScalarDerived &&
      static_cast<size_t>(transform::qcd_index(levels, n, band)) >= steps.size())
    return StepSize{0, 0};  // not signalled: what OpenJPEG reads (reader.h, read_codestream)
  return transform::signalled_step(style, steps, levels, n, band);
}

const CodingStyle& effective_cod(const MainHeader& main, const TileHeader* tile) {
  return tile && tile->cod ? *tile->cod : main.cod;
}

const ComponentCoding& effective_coding(const MainHeader& main, const TileHeader* tile,
                                        uint16_t c) {
  if (tile) {
    if (auto it = tile->coc.find(c); it != tile->coc.end()) return it->second;
    if (tile->cod) return tile->cod->component;
  }
  if (auto it = main.coc.find(c); it != main.coc.end()) return it->second;
  return main.cod.component;
}

const Quantization& effective_quantization(const MainHeader& main, const TileHeader* tile,
                                           uint16_t c) {
  if (tile) {
    if (auto it = tile->qcc.find(c); it != tile->qcc.end()) return it->second;
    if (tile->qcd) return *tile->qcd;
  }
  if (auto it = main.qcc.find(c); it != main.qcc.end()) return it->second;
  return main.qcd;
}

uint8_t effective_roi_shift(const MainHeader& main, const TileHeader* tile, uint16_t c) {
  if (tile)
    if (auto it = tile->rgn.find(c); it != tile->rgn.end()) return it->second.shift;
  if (auto it = main.rgn.find(c); it != main.rgn.end()) return it->second.shift;
  return 0;
}

const std::vector<ProgressionChange>& effective_poc(const MainHeader& main,
                                                    const TileHeader* tile) {
  return tile && !tile->poc.empty() ? tile->poc : main.poc;
}

uint32_t num_tiles_x(const Siz& siz) {
  if (siz.xtsiz == 0 || siz.xsiz <= siz.xtosiz) return 0;
  return static_cast<uint32_t>((uint64_t{siz.xsiz} - siz.xtosiz + siz.xtsiz - 1) / siz.xtsiz);
}

uint32_t num_tiles_y(const Siz& siz) {
  if (siz.ytsiz == 0 || siz.ysiz <= siz.ytosiz) return 0;
  return static_cast<uint32_t>((uint64_t{siz.ysiz} - siz.ytosiz + siz.ytsiz - 1) / siz.ytsiz);
}

transform::Rect tile_rect(const Siz& siz, uint32_t t) {
  const uint32_t nx = num_tiles_x(siz);
  if (nx == 0 || t >= nx * num_tiles_y(siz))
    throw Error(ErrorCode::kInternal, "tile_rect: tile " + std::to_string(t) + " out of range");
  const uint64_t p = t % nx, q = t / nx;
  // B-7..B-10, in 64 bits: XTOsiz + (p+1) XTsiz may pass 2^32.
  transform::Rect r;
  r.x0 = static_cast<uint32_t>(std::max<uint64_t>(siz.xtosiz + p * siz.xtsiz, siz.xosiz));
  r.y0 = static_cast<uint32_t>(std::max<uint64_t>(siz.ytosiz + q * siz.ytsiz, siz.yosiz));
  r.x1 = static_cast<uint32_t>(std::min<uint64_t>(siz.xtosiz + (p + 1) * siz.xtsiz, siz.xsiz));
  r.y1 = static_cast<uint32_t>(std::min<uint64_t>(siz.ytosiz + (q + 1) * siz.ytsiz, siz.ysiz));
  return r;
}

transform::Rect tile_component_rect(const Siz& siz, uint32_t t, uint16_t c) {
  const transform::Rect tr = tile_rect(siz, t);
  const SizComponent& comp = siz.components.at(c);
  auto cdiv = [](uint32_t a, uint32_t d) {
    return static_cast<uint32_t>((uint64_t{a} + d - 1) / d);
  };
  return {cdiv(tr.x0, comp.dx), cdiv(tr.y0, comp.dy), cdiv(tr.x1, comp.dx), cdiv(tr.y1, comp.dy)};
}

}  // namespace gj2k::codec
