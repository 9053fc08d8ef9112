// The data model of a JPEG 2000 Part 1 codestream's headers (ISO/IEC 15444-1 Annex A).
//
// Field names follow the standard's parameter names where that helps (Xsiz, Psot, ...), stored
// as the value the parameter means, not as the coded byte: a code-block width exponent is
// xcb = value + 2, a precision is Ssiz & 0x7F plus 1, and so on. The reader (reader.h) fills
// these structs and validates every value; the writer (writer.h) serialises them.
//
// Precedence of coding parameters for tile t, component c (A.6, "the more specific wins"):
//   tile-part COC(c) > tile-part COD > main COC(c) > main COD, and QCC/QCD the same way.
// Use effective_coding() / effective_quantization() rather than reading the structs directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "entropy/t1.h"
#include "gj2k/encoder.h"
#include "transform/geometry.h"
#include "transform/quant.h"

namespace gj2k::codec {

// ---- marker codes (A.2, Table A.2) ---------------------------------------------------------
namespace marker {
inline constexpr uint16_t kSoc = 0xFF4F;  // start of codestream (no segment)
inline constexpr uint16_t kSot = 0xFF90;  // start of tile-part
inline constexpr uint16_t kSod = 0xFF93;  // start of data (no segment)
inline constexpr uint16_t kEoc = 0xFFD9;  // end of codestream (no segment)
inline constexpr uint16_t kSiz = 0xFF51;
inline constexpr uint16_t kCod = 0xFF52;
inline constexpr uint16_t kCoc = 0xFF53;
inline constexpr uint16_t kTlm = 0xFF55;
inline constexpr uint16_t kPlm = 0xFF57;
inline constexpr uint16_t kPlt = 0xFF58;
inline constexpr uint16_t kQcd = 0xFF5C;
inline constexpr uint16_t kQcc = 0xFF5D;
inline constexpr uint16_t kRgn = 0xFF5E;
inline constexpr uint16_t kPoc = 0xFF5F;
inline constexpr uint16_t kPpm = 0xFF60;
inline constexpr uint16_t kPpt = 0xFF61;
inline constexpr uint16_t kCrg = 0xFF63;
inline constexpr uint16_t kCom = 0xFF64;
inline constexpr uint16_t kSop = 0xFF91;  // in the bit stream: FF91 0004 Nsop(16)
inline constexpr uint16_t kEph = 0xFF92;  // in the bit stream: FF92 (no segment)
// 0xFF30..0xFF3F are reserved markers without a segment (A.1.4): skipped as 2 bytes.
inline bool has_no_segment(uint16_t code) {
  return code == kSoc || code == kSod || code == kEoc || code == kEph ||
         (code >= 0xFF30 && code <= 0xFF3F);
}
}  // namespace marker

// "SIZ", "COD", ... or "FFxx" for a marker gj2k does not name.
std::string marker_name(uint16_t code);

// Where a marker was found, for `gj2k info` and error messages. offset is the byte offset of
// the marker's first byte in the codestream; length is Lxxx (0 for markers without segment).
struct MarkerInfo {
  uint16_t code = 0;
  size_t offset = 0;
  uint32_t length = 0;
};

// ---- SIZ (A.5.1) ---------------------------------------------------------------------------
struct SizComponent {
  uint8_t precision = 8;   // bits, 1..38 (Ssiz & 0x7F) + 1
  bool is_signed = false;  // Ssiz bit 7
  uint8_t dx = 1;          // XRsiz, 1..255
  uint8_t dy = 1;          // YRsiz, 1..255
  bool operator==(const SizComponent&) const = default;
};

struct Siz {
  uint16_t rsiz = 0;                     // capabilities (0 = full Part 1; 1, 2 = profiles 0, 1)
  uint32_t xsiz = 0, ysiz = 0;           // reference grid extent (image x1, y1)
  uint32_t xosiz = 0, yosiz = 0;         // image origin (x0, y0)
  uint32_t xtsiz = 0, ytsiz = 0;         // nominal tile size
  uint32_t xtosiz = 0, ytosiz = 0;       // tile grid origin
  std::vector<SizComponent> components;  // Csiz entries, 1..16384
  bool operator==(const Siz&) const = default;
};

// ---- COD / COC (A.6.1, A.6.2) --------------------------------------------------------------
// The progression order (SGcod, Ppoc) is gj2k::ProgressionOrder (gj2k/encoder.h).
const char* to_string(ProgressionOrder p);  // "LRCP", ...

// Code-block style bits of SPcod/SPcoc (Table A.19): Tier-1's, entropy/t1.h.
namespace cblk_style = entropy::cblk_style;
std::string cblk_style_names(uint8_t style);  // "BYPASS|RESET|..." or "none"

// SPcod/SPcoc wavelet (Table A.20): the transform's own type, transform/quant.h.
using Wavelet = transform::Wavelet;

// Precinct size exponents of one resolution level (Table A.21): 2^ppx x 2^ppy on the
// resolution's grid. 15/15 is the default when Scod/Scoc bit 0 is clear. ppx, ppy are 0..15;
// only resolution 0 may use 0 (A.6.1).
struct PrecinctSize {
  uint8_t ppx = 15, ppy = 15;
  bool operator==(const PrecinctSize&) const = default;
};

// SPcod / SPcoc: what applies per tile-component. Also carries Scod/Scoc bit 0.
struct ComponentCoding {
  uint8_t levels = 5;      // number of decomposition levels NL, 0..32
  uint8_t xcb = 6;         // code-block width exponent, 2..10 (coded value + 2)
  uint8_t ycb = 6;         // code-block height exponent, 2..10; xcb + ycb <= 12
  uint8_t cblk_style = 0;  // cblk_style:: bits
  Wavelet wavelet = Wavelet::k53;
  // User precincts (Scod/Scoc bit 0): exactly levels + 1 entries, index = resolution r
  // (0 = lowest). Empty: default precincts 2^15 x 2^15 everywhere.
  std::vector<PrecinctSize> precincts;
  bool user_precincts() const { return !precincts.empty(); }
  PrecinctSize precinct(int r) const {
    return precincts.empty() ? PrecinctSize{} : precincts.at(static_cast<size_t>(r));
  }
  bool operator==(const ComponentCoding&) const = default;
};

// COD. Scod bit 0 (user precincts) lives in `component.precincts`.
struct CodingStyle {
  bool sop = false;  // Scod bit 1: SOP marker segments may precede packets
  bool eph = false;  // Scod bit 2: EPH markers follow packet headers
  ProgressionOrder progression = ProgressionOrder::kLRCP;
  uint16_t layers = 1;  // 1..65535
  uint8_t mct = 0;      // 0 none, 1 RCT/ICT on components 0..2 (by wavelet)
  ComponentCoding component;
  bool operator==(const CodingStyle&) const = default;
};

// ---- QCD / QCC (A.6.4, A.6.5) --------------------------------------------------------------
// The quantization style and step of transform/quant.h (Annex E), shared with the
// quantizer: QuantStyle::kNone / kScalarDerived / kScalarExpounded; StepSize {exponent 0..31,
// mantissa 0..2047 (0 for kNone)}.
using QuantStyle = transform::QuantStyle;
using StepSize = transform::QuantStep;
const char* to_string(QuantStyle s);

struct Quantization {
  QuantStyle style = QuantStyle::kNone;
  uint8_t guard_bits = 2;  // 0..7
  // kNone and kScalarExpounded: one entry per subband in the order LL(NL), then for
  // n = NL..1: HL(n), LH(n), HH(n)  (3 NL + 1 entries). kScalarDerived: exactly one (LL).
  std::vector<StepSize> steps;
  // The step of subband `band` at decomposition level n (1..levels; LL uses n = levels), with
  // the derived rule E-5 (epsilon_b = epsilon_0 - NL + n_b, mu_b = mu_0), as
  // transform::signalled_step. A subband past the signalled entries (a quirk the reader warns
  // about) gets exponent 0, mantissa 0, as OpenJPEG reads it. Throws Error(kFormat) when a
  // derived exponent leaves 0..31.
  StepSize step(int levels, int n, transform::Band band) const;
  bool operator==(const Quantization&) const = default;
};

// ---- RGN (A.6.3) ---------------------------------------------------------------------------
struct Rgn {
  uint16_t component = 0;
  uint8_t style = 0;  // Srgn: 0 = implicit (max-shift), the only Part 1 style
  uint8_t shift = 0;  // SPrgn: ROI shift value
  bool operator==(const Rgn&) const = default;
};

// ---- POC (A.6.6) ---------------------------------------------------------------------------
// One progression change is gj2k::ProgressionChange (gj2k/encoder.h): RSpoc = res_start
// (0..32), CSpoc = comp_start (0..16383), LYEpoc = layer_end (1..65535), REpoc = res_end
// (res_start+1..33), CEpoc = comp_end (comp_start+1..16384; coded 0 means 256 with 8-bit
// fields, 16384 with 16), Ppoc = order.

// ---- pointer markers: TLM, PLM, PLT, PPM, PPT (A.7) ----------------------------------------
struct TlmEntry {
  std::optional<uint16_t> tile;  // Ttlm; absent when ST = 0 (tile-parts in index order)
  uint32_t length = 0;           // Ptlm: tile-part length from SOT to end of its data
  bool operator==(const TlmEntry&) const = default;
};
struct Tlm {
  uint8_t index = 0;         // Ztlm
  uint8_t tile_bytes = 1;    // ST: 0, 1 or 2 bytes of Ttlm per entry
  uint8_t length_bytes = 4;  // SP: 2 or 4 bytes of Ptlm per entry
  std::vector<TlmEntry> entries;
  bool operator==(const Tlm&) const = default;
};

// PLM: packet lengths of tile-parts in codestream order. A tile-part's list may continue in
// the next PLM segment; the reader keeps each segment's lists as coded.
struct Plm {
  uint8_t index = 0;                              // Zplm
  std::vector<std::vector<uint32_t>> tile_parts;  // Iplm decoded per Nplm group
  bool operator==(const Plm&) const = default;
};

struct Plt {
  uint8_t index = 0;              // Zplt
  std::vector<uint32_t> lengths;  // Iplt decoded: packet lengths (header + body)
  bool operator==(const Plt&) const = default;
};

// PPM and PPT are kept as segments; the reader also concatenates them (see MainHeader and
// TileHeader) since packed headers may cross segment boundaries.
struct Ppx {
  uint8_t index = 0;          // Zppm / Zppt
  std::vector<uint8_t> data;  // Ippm (with its Nppm fields) / Ippt, as coded
  bool operator==(const Ppx&) const = default;
};

// ---- CRG, COM (A.9) ------------------------------------------------------------------------
struct CrgOffset {
  uint16_t x = 0, y = 0;  // Xcrg, Ycrg in units of 1/65536 of the sample separation
  bool operator==(const CrgOffset&) const = default;
};
struct Com {
  uint16_t registration = 1;  // Rcom: 0 binary, 1 Latin-1 text
  std::vector<uint8_t> data;
  bool operator==(const Com&) const = default;
  std::string text() const { return std::string(data.begin(), data.end()); }
};

// ---- headers -------------------------------------------------------------------------------
struct MainHeader {
  Siz siz;
  CodingStyle cod;
  std::map<uint16_t, ComponentCoding> coc;  // COC by component (sparse)
  Quantization qcd;
  std::map<uint16_t, Quantization> qcc;  // QCC by component (sparse)
  std::map<uint16_t, Rgn> rgn;           // RGN by component (sparse)
  std::vector<ProgressionChange> poc;    // all main-header POC entries, in order
  std::vector<Tlm> tlm;
  std::vector<Plm> plm;
  // PPM: packed packet headers for every tile-part, in codestream order of the tile-parts.
  // Ippm of all PPM segments concatenated in Zppm order and split at the Nppm fields.
  bool has_ppm = false;
  std::vector<std::vector<uint8_t>> ppm_tile_parts;
  std::vector<CrgOffset> crg;  // empty when absent, else Csiz entries
  std::vector<Com> com;
  std::vector<MarkerInfo> markers;  // every marker from SOC to before the first SOT
  size_t end = 0;                   // offset of the first SOT (or of EOC / end of data)
  // Deviations from Annex A accepted as OpenJPEG accepts them, one line each (what and how).
  std::vector<std::string> warnings;
};

// What a tile's tile-part headers may override or add (A.4.2). The reader merges the
// tile-parts of one tile into one of these (in codestream order), and also keeps each
// tile-part's own markers.
struct TileHeader {
  std::optional<CodingStyle> cod;
  std::map<uint16_t, ComponentCoding> coc;
  std::optional<Quantization> qcd;
  std::map<uint16_t, Quantization> qcc;
  std::map<uint16_t, Rgn> rgn;
  std::vector<ProgressionChange> poc;  // all POC entries of the tile, in order
  std::vector<Ppx> ppt;                // PPT segments (per tile-part they restart at Zppt 0)
  std::vector<uint8_t> ppt_data;       // Ippt concatenated: tile-parts in TPsot order, Zppt order
  std::vector<Plt> plt;
  std::vector<Com> com;
};

struct TilePartHeader {
  uint16_t isot = 0;  // tile index
  uint32_t psot = 0;  // length from SOT's first byte to the end of the data (0 = to EOC)
  uint8_t tpsot = 0;  // tile-part index within the tile
  uint8_t tnsot = 0;  // number of tile-parts of the tile, 0 = not given here
  // TPsot == TNsot as coded (an encoder bug OpenJPEG accepts): tnsot was set to TPsot + 1.
  bool tnsot_corrected = false;
  TileHeader header;  // this tile-part's own markers
  std::vector<MarkerInfo> markers;
  size_t sot_offset = 0;  // offset of the SOT marker
  size_t body_begin = 0;  // first byte after SOD
  size_t body_end = 0;    // one past the last byte of the tile-part's data
};

struct Tile {
  uint16_t index = 0;
  TileHeader header;          // the merge of its tile-parts' headers
  std::vector<size_t> parts;  // indices into Codestream::tile_parts, in TPsot order
};

struct Codestream {
  MainHeader main;
  // In codestream order; with PPM, tile_parts[k] takes main.ppm_tile_parts[k] (A.7.4).
  std::vector<TilePartHeader> tile_parts;
  std::vector<Tile> tiles;  // num_tiles() entries, tiles[t].index == t; parts may be empty
  bool eoc_found = false;
  bool truncated = false;  // only with ReadOptions::allow_truncated: data ended early
  // Deviations accepted in tile-part headers (main.warnings holds the main header's).
  std::vector<std::string> warnings;
};

// A tile's data and packed packet headers (PPM/PPT) are gathered by Tier-2 (codec/tier2.h).

// ---- effective parameters for (tile, component) (A.6) --------------------------------------
// `tile` may be null (main header only). Component c must be < Csiz.
const CodingStyle& effective_cod(const MainHeader& main, const TileHeader* tile);
const ComponentCoding& effective_coding(const MainHeader& main, const TileHeader* tile, uint16_t c);
const Quantization& effective_quantization(const MainHeader& main, const TileHeader* tile,
                                           uint16_t c);
uint8_t effective_roi_shift(const MainHeader& main, const TileHeader* tile, uint16_t c);
// Progression changes for a tile: the tile's POC entries if any, else the main header's.
const std::vector<ProgressionChange>& effective_poc(const MainHeader& main, const TileHeader* tile);

// ---- tile geometry (B.3) -------------------------------------------------------------------
uint32_t num_tiles_x(const Siz& siz);  // ceil((Xsiz - XTOsiz) / XTsiz)  (B-5)
uint32_t num_tiles_y(const Siz& siz);
inline uint32_t num_tiles(const Siz& siz) {
  return num_tiles_x(siz) * num_tiles_y(siz);
}
// Tile t's rectangle on the reference grid (B-7..B-10); t = p + q * num_tiles_x.
transform::Rect tile_rect(const Siz& siz, uint32_t t);
// Tile-component rectangle of tile t, component c, on the component's grid (B-12).
transform::Rect tile_component_rect(const Siz& siz, uint32_t t, uint16_t c);

}  // namespace gj2k::codec
