// Reading codestream headers (ISO/IEC 15444-1 Annex A) into the data model of codestream.h.
//
// Every value is validated against Annex A; every error is an Error(kFormat, kTruncated or
// kUnsupported) whose message names the marker, the byte offset and, in tile-part headers, the
// tile. Allocations are bounded by the length of the input. Markers gj2k does not know are
// skipped by their length; 0xFF30..0xFF3F are skipped as 2 bytes (A.1.4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/markers/byte_reader.h"
#include "codec/markers/codestream.h"

namespace gj2k::codec {

// The one line with which HTJ2K (Part 15) codestreams are refused (ErrorCode::kUnsupported),
// followed by what gave them away.
inline constexpr const char* kHtj2kUnsupported = "HTJ2K (ISO/IEC 15444-15) is not supported yet";

struct ReadOptions {
  // A tile-part whose Psot runs past the end of the data is clamped to the data (and
  // Codestream::truncated set) instead of failing with kTruncated; parsing stops there. Bytes
  // that are neither SOT nor EOC after a tile-part also stop parsing (truncated set).
  bool allow_truncated = false;
};

// The main header: SOC at offset 0, SIZ next, then markers up to the first SOT (or EOC).
// Requires COD and QCD. Splits PPM data into per-tile-part packed headers.
MainHeader read_main_header(std::span<const uint8_t> cs);

// One tile-part header from its SOT at `offset` to its SOD; sets body_begin/body_end (Psot = 0:
// to the EOC at the end of the data, or to the end of the data).
TilePartHeader read_tile_part_header(std::span<const uint8_t> cs, size_t offset,
                                     const MainHeader& main, const ReadOptions& options = {});

// The whole codestream: main header, all tile-parts in any order, tiles with their tile-parts
// sorted by TPsot and their headers merged. A (tile, component) with fewer expounded step
// sizes than its decomposition levels need is accepted with a warning: the missing subbands
// take exponent 0 and mantissa 0, as OpenJPEG reads them (Quantization::step).
// HTJ2K codestreams (SIZ Rsiz bit 14, a CAP marker naming Part 15, code-block style bit 0x40)
// are refused with kHtj2kUnsupported.
Codestream read_codestream(std::span<const uint8_t> cs, const ReadOptions& options = {});

// ---- single marker segments ----------------------------------------------------------------
// Each parses the body of one marker segment, i.e. `r` spans the bytes after Lxxx up to the
// end of the segment. `csiz` is the number of components (COC/QCC/RGN/POC/CRG field sizes:
// component indices are 8-bit when csiz < 257, else 16-bit).
Siz parse_siz(ByteReader& r);
CodingStyle parse_cod(ByteReader& r);
std::pair<uint16_t, ComponentCoding> parse_coc(ByteReader& r, uint32_t csiz);
Quantization parse_qcd(ByteReader& r);
std::pair<uint16_t, Quantization> parse_qcc(ByteReader& r, uint32_t csiz);
Rgn parse_rgn(ByteReader& r, uint32_t csiz);
std::vector<ProgressionChange> parse_poc(ByteReader& r, uint32_t csiz);
Tlm parse_tlm(ByteReader& r);
Plm parse_plm(ByteReader& r);
Plt parse_plt(ByteReader& r);
Ppx parse_ppx(ByteReader& r);  // PPM or PPT: Z index + data
std::vector<CrgOffset> parse_crg(ByteReader& r, uint32_t csiz);
Com parse_com(ByteReader& r);
// PPM/PPT segments in Z order (file order when numbered consecutively modulo 256).
void sort_by_z(std::vector<Ppx>& segments);
// PPM: split the concatenated Ippm (Nppm-prefixed chunks) into per-tile-part packed headers.
std::vector<std::vector<uint8_t>> split_ppm(std::vector<Ppx> segments);

}  // namespace gj2k::codec
