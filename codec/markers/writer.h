// Writing codestream headers (ISO/IEC 15444-1 Annex A) from the data model of codestream.h.
// Each write_xxx appends one complete marker segment (marker, Lxxx, body) to a ByteWriter.
// Values are checked against the same limits the reader enforces; a value that cannot be
// coded throws Error(kInvalidArgument) naming the marker and field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/markers/codestream.h"

namespace gj2k::codec {

// An append-only big-endian byte buffer with patching of earlier fields.
class ByteWriter {
 public:
  void u8(uint8_t v) { buf_.push_back(v); }
  void u16(uint16_t v) {
    buf_.push_back(static_cast<uint8_t>(v >> 8));
    buf_.push_back(static_cast<uint8_t>(v));
  }
  void u32(uint32_t v) {
    u16(static_cast<uint16_t>(v >> 16));
    u16(static_cast<uint16_t>(v));
  }
  void u64(uint64_t v) {
    u32(static_cast<uint32_t>(v >> 32));
    u32(static_cast<uint32_t>(v));
  }
  void bytes(std::span<const uint8_t> b) { buf_.insert(buf_.end(), b.begin(), b.end()); }
  void patch_u16(size_t pos, uint16_t v);
  void patch_u32(size_t pos, uint32_t v);
  size_t size() const { return buf_.size(); }
  const std::vector<uint8_t>& data() const { return buf_; }
  std::vector<uint8_t>& data() { return buf_; }
  std::vector<uint8_t> release() { return std::move(buf_); }

 private:
  std::vector<uint8_t> buf_;
};

// Markers without a segment.
void write_soc(ByteWriter& w);
void write_sod(ByteWriter& w);
void write_eoc(ByteWriter& w);
void write_eph(ByteWriter& w);                 // FF92
void write_sop(ByteWriter& w, uint16_t nsop);  // FF91 0004 Nsop (packet index mod 65536)
inline constexpr size_t kSopSize = 6;
inline constexpr size_t kEphSize = 2;

void write_siz(ByteWriter& w, const Siz& siz);
void write_cod(ByteWriter& w, const CodingStyle& cod);
// COC/QCC/RGN/POC/CRG: `csiz` picks 8- or 16-bit component fields (16 when csiz >= 257).
void write_coc(ByteWriter& w, uint16_t component, const ComponentCoding& cc, uint32_t csiz);
void write_qcd(ByteWriter& w, const Quantization& q);
void write_qcc(ByteWriter& w, uint16_t component, const Quantization& q, uint32_t csiz);
void write_rgn(ByteWriter& w, const Rgn& rgn, uint32_t csiz);
// One POC segment with all `entries` (at most what fits in 65535 bytes).
void write_poc(ByteWriter& w, std::span<const ProgressionChange> entries, uint32_t csiz);
void write_tlm(ByteWriter& w, const Tlm& tlm);
// Bytes a TLM segment with n entries takes (for reserving space in the main header).
size_t tlm_segment_size(size_t n, uint8_t tile_bytes, uint8_t length_bytes);
void write_plm(ByteWriter& w, const Plm& plm);
void write_plt(ByteWriter& w, const Plt& plt);
// Packet lengths as as many PLT segments as needed (Zplt = first_index, first_index + 1, ...).
void write_plt_segments(ByteWriter& w, std::span<const uint32_t> lengths, uint8_t first_index = 0);
void write_ppm(ByteWriter& w, const Ppx& ppm);  // data must already hold Nppm fields
void write_ppt(ByteWriter& w, const Ppx& ppt);
void write_crg(ByteWriter& w, std::span<const CrgOffset> crg);
void write_com(ByteWriter& w, const Com& com);

// SOT with the given fields; returns the offset of the SOT marker so that patch_psot can set
// Psot once the tile-part's data has been appended.
size_t write_sot(ByteWriter& w, uint16_t isot, uint32_t psot, uint8_t tpsot, uint8_t tnsot);
// Psot = w.size() - sot_offset (the tile-part ends at the current end of the buffer).
void patch_psot(ByteWriter& w, size_t sot_offset);

// SOC, SIZ, COD, COC, QCD, QCC, RGN, POC, CRG, TLM, PLM, PPM (split from ppm_tile_parts),
// COM, in that order. Does not write SOT.
void write_main_header(ByteWriter& w, const MainHeader& mh);
// SOT (Psot as given in tp, patch it later when 0 was a placeholder), the overrides of
// tp.header (COD, COC, QCD, QCC, RGN, POC, PPT, PLT, COM) and SOD. Returns the SOT offset.
size_t write_tile_part_header(ByteWriter& w, const TilePartHeader& tp, uint32_t csiz);

}  // namespace gj2k::codec
