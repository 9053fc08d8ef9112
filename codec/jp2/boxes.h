// The JP2 file format (ISO/IEC 15444-1 Annex I): reading the boxes around a codestream and
// writing a minimal JP2 file. JPX files (15444-2) whose ftyp lists "jp2 " as compatible are
// read as JP2; boxes this reader does not need (xml, uuid, uinf, res, ...) are skipped.
// Errors are Error(kFormat / kTruncated / kUnsupported) naming the box and its byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/markers/codestream.h"

namespace gj2k::codec {

// Box types (Table I.2) as 32-bit big-endian four-character codes.
constexpr uint32_t fourcc(const char (&s)[5]) {
  return (uint32_t(uint8_t(s[0])) << 24) | (uint32_t(uint8_t(s[1])) << 16) |
         (uint32_t(uint8_t(s[2])) << 8) | uint32_t(uint8_t(s[3]));
}
namespace box {
inline constexpr uint32_t kSignature = fourcc("jP  ");
inline constexpr uint32_t kFtyp = fourcc("ftyp");
inline constexpr uint32_t kJp2h = fourcc("jp2h");
inline constexpr uint32_t kIhdr = fourcc("ihdr");
inline constexpr uint32_t kBpcc = fourcc("bpcc");
inline constexpr uint32_t kColr = fourcc("colr");
inline constexpr uint32_t kPclr = fourcc("pclr");
inline constexpr uint32_t kCmap = fourcc("cmap");
inline constexpr uint32_t kCdef = fourcc("cdef");
inline constexpr uint32_t kRes = fourcc("res ");
inline constexpr uint32_t kJp2c = fourcc("jp2c");
inline constexpr uint32_t kRreq = fourcc("rreq");
inline constexpr uint32_t kXml = fourcc("xml ");
inline constexpr uint32_t kUuid = fourcc("uuid");
inline constexpr uint32_t kUinf = fourcc("uinf");
inline constexpr uint32_t kSignatureContent = 0x0D0A870A;
inline constexpr uint32_t kBrandJp2 = fourcc("jp2 ");
inline constexpr uint32_t kBrandJpx = fourcc("jpx ");
inline constexpr uint32_t kBrandJph = fourcc("jph ");  // HTJ2K (15444-15 Annex D)
}  // namespace box

// "ftyp", or the hex value when the type is not printable.
std::string box_type_name(uint32_t type);

// Enumerated colour spaces of colr method 1 (Table I.10; JPX adds more, kept as numbers).
namespace enum_cs {
inline constexpr uint32_t kSRGB = 16;
inline constexpr uint32_t kGreyscale = 17;
inline constexpr uint32_t kSYCC = 18;
inline constexpr uint32_t kCMYK = 12;    // JPX (15444-2 Table M.25), read as OpenJPEG reads it
inline constexpr uint32_t kCIELab = 14;  // JPX
inline constexpr uint32_t kESYCC = 24;   // JPX
}  // namespace enum_cs

// Where a box was found: offset of its first byte, whole length including its header.
struct BoxInfo {
  uint32_t type = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  int depth = 0;  // 0 top level, 1 inside a superbox (jp2h, res, ...)
};

// A bit depth as coded in ihdr BPC, bpcc and pclr (Table I.5): precision 1..38, signedness.
struct BitDepth {
  uint8_t precision = 8;
  bool is_signed = false;
  bool operator==(const BitDepth&) const = default;
};

struct Ihdr {
  uint32_t height = 0;  // Ysiz - YOsiz
  uint32_t width = 0;   // Xsiz - XOsiz
  uint16_t components = 0;
  std::optional<BitDepth> depth;  // absent when BPC = 255 (depths in bpcc)
  uint8_t compression = 7;        // C: 7 = JPEG 2000
  uint8_t unknown_colourspace = 0;
  uint8_t ipr = 0;
  bool operator==(const Ihdr&) const = default;
};

struct Colr {
  uint8_t method = 1;  // 1 enumerated, 2 restricted ICC, 3+ (JPX) any ICC / vendor
  int8_t precedence = 0;
  uint8_t approximation = 0;
  uint32_t enumerated = 0;   // method 1: enum_cs::
  std::vector<uint8_t> icc;  // method 2 and 3: the ICC profile bytes; others: the raw rest
  // method 1, CIELab (15444-2 M.11.7.4): the ranges and offsets RL, OL, RA, OA, RB, OB and the
  // illuminant IL when the box carries them; empty: the default ranges ("DEF").
  std::vector<uint32_t> lab;
  bool operator==(const Colr&) const = default;
};

// pclr (I.5.3.4): `columns` output channels, `entries` rows; values[row * columns + col].
struct Pclr {
  uint16_t entries = 0;
  std::vector<BitDepth> columns;
  std::vector<int32_t> values;
  bool operator==(const Pclr&) const = default;
};

struct CmapEntry {
  uint16_t component = 0;  // CMP: codestream component
  uint8_t mapping = 0;     // MTYP: 0 direct use, 1 palette mapping
  uint8_t column = 0;      // PCOL: palette column when mapping = 1
  bool operator==(const CmapEntry&) const = default;
};

struct CdefEntry {
  uint16_t channel = 0;      // Cn
  uint16_t type = 0;         // Typ: 0 colour, 1 opacity, 2 premultiplied opacity, 65535 unknown
  uint16_t association = 0;  // Asoc: 0 whole image, 1.. colour index, 65535 none
  bool operator==(const CdefEntry&) const = default;
};

struct Jp2Header {
  uint32_t brand = box::kBrandJp2;
  uint32_t minor_version = 0;
  std::vector<uint32_t> compatibility{box::kBrandJp2};
  Ihdr ihdr;
  std::vector<BitDepth> bpcc;  // one per component when present
  std::vector<Colr> colr;      // in file order; the first one with method 1 or 2 applies
  std::optional<Pclr> pclr;
  std::vector<CmapEntry> cmap;
  std::vector<CdefEntry> cdef;
  bool has_rreq = false;
  std::vector<uint16_t> rreq_features;  // standard feature flags listed in rreq
  std::vector<BoxInfo> boxes;           // every box seen, in file order (children after parent)
  uint64_t codestream_offset = 0;       // the contents of the first jp2c box
  uint64_t codestream_length = 0;
  bool codestream_truncated = false;  // jp2c claimed more bytes than the file holds
  // Deviations from Annex I accepted as OpenJPEG accepts them, one line each.
  std::vector<std::string> warnings;
  // The bit depth of component c from ihdr or bpcc.
  BitDepth component_depth(uint16_t c) const;
};

// Whether `data` starts with a JP2 signature box.
bool is_jp2(std::span<const uint8_t> data);

// Reads the boxes of a JP2 (or JP2-compatible JPX) file. A jp2c box that runs past the end is
// clamped to the data with codestream_truncated set. Quirks accepted with a line in
// `warnings`, as OpenJPEG accepts them: a second ihdr (ignored), pclr without cmap (the palette
// is dropped), damaged boxes after the first jp2c (reading stops there). A 'jph ' brand is
// refused with codec::kHtj2kUnsupported (Error kUnsupported).
Jp2Header read_jp2(std::span<const uint8_t> data);

// A JP2 header describing `siz` with colour space `enumerated` (enum_cs::): ihdr from SIZ
// (BPC = 255 plus bpcc when component depths differ), one enumerated colr.
Jp2Header make_jp2_header(const Siz& siz, uint32_t enumerated);

// Signature, ftyp, jp2h (ihdr, bpcc if non-empty, colr..., pclr, cmap, cdef) and a jp2c box
// holding `codestream`.
std::vector<uint8_t> write_jp2(const Jp2Header& h, std::span<const uint8_t> codestream);

}  // namespace gj2k::codec
