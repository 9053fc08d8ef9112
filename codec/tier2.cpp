// Tier-2 of one tile: packets in progression order, read and written (codec/tier2.h).
#include "codec/tier2.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <optional>

#include "codec/encoder_internal.h"
#include "codec/markers/writer.h"
#include "core/thread_pool.h"
#include "entropy/t2_packet.h"
#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

// Packets a tile may describe before we refuse it (each needs at least one header byte, so a
// real stream with this many packets would be gigabytes).
constexpr uint64_t kMaxPackets = uint64_t{1} << 26;

[[noreturn]] void fail(ErrorCode code, uint32_t t, const std::string& what) {
  throw Error(code, "tile " + std::to_string(t) + ": " + what);
}

// ---- shared by both directions -------------------------------------------------------------

// What the progression orders need of tile t, from the layout of each component.
TileProgression tile_progression(const MainHeader& main, const TileHeader* header, uint32_t t,
                                 std::span<const TileComponentLayout* const> layouts) {
  TileProgression prog;
  prog.tile = tile_rect(main.siz, t);
  prog.layers = effective_cod(main, header).layers;
  for (size_t c = 0; c < layouts.size(); ++c) {
    const SizComponent& sc = main.siz.components[c];
    prog.components.push_back(component_precincts(*layouts[c], sc.dx, sc.dy));
  }
  return prog;
}

// The packets of the tile in order: its POC (B.12.2) when it has one, else COD's (B.12.1).
std::vector<PacketId> tile_order(const TileProgression& prog, const MainHeader& main,
                                 const TileHeader* header) {
  const auto& pocs = effective_poc(main, header);
  if (pocs.empty()) return packet_order(prog, effective_cod(main, header).progression);
  return packet_order(prog, pocs);
}

// The codeword segment rules of component c (the code-block style bits that shape them).
entropy::SegmentStyle segment_style(const MainHeader& main, const TileHeader* header, uint16_t c) {
  const uint8_t style = effective_coding(main, header, c).cblk_style;
  return {(style & cblk_style::kBypass) != 0, (style & cblk_style::kTermAll) != 0};
}

std::vector<entropy::PrecinctBandShape> band_shapes(const Precinct& precinct) {
  std::vector<entropy::PrecinctBandShape> shapes;
  for (const PrecinctBand& pb : precinct.bands) shapes.push_back({pb.blocks_x, pb.blocks_y});
  return shapes;
}

// ---- reading -------------------------------------------------------------------------------

// Thrown by a TileReader over separate tile-parts for a packet that does not lie within one
// (or for any error): the tile is read again from its joined tile-parts.
struct PacketAcrossParts {};

// Reads the packets of one tile one after the other, gathering the kept codeword segments.
// The tile's data is `data` (its tile-parts joined) or, when `parts` is not empty, the ranges
// `parts` of `data` (the codestream), each packet within one of them: then any packet that
// is not, and any error, throws PacketAcrossParts instead (no warning is given).
class TileReader {
 public:
  TileReader(std::span<const uint8_t> data, std::span<const std::pair<size_t, size_t>> parts,
             const std::optional<std::vector<uint8_t>>& headers, const MainHeader& main,
             const TileHeader& header, uint32_t t, const PacketReadOptions& o,
             std::vector<std::string>* warnings)
      : data_(data),
        parts_(parts),
        pos_(parts.empty() ? 0 : parts[0].first),
        end_(parts.empty() ? data.size() : parts[0].second),
        headers_(headers ? std::span<const uint8_t>(*headers) : std::span<const uint8_t>()),
        packed_(headers.has_value()),
        main_(main),
        header_(header),
        t_(t),
        o_(o),
        warnings_(warnings),
        framing_{effective_cod(main, &header).sop, effective_cod(main, &header).eph},
        max_layers_(o.max_layers ? o.max_layers : UINT32_MAX),
        out_(o.components.size()) {
    // Slots for every code-block of the kept resolutions.
    for (size_t c = 0; c < o.components.size(); ++c) {
      const PacketReadComponent& comp = o.components[c];
      for (int r = 0; r <= comp.max_resolution && r < int(comp.layout->resolutions.size()); ++r) {
        const auto& bands = comp.layout->resolutions[r].bands;
        for (uint32_t b = 0; b < bands.size(); ++b)
          out_[c].reserve_band(static_cast<uint32_t>(r), b, bands[b].blocks_x * bands[b].blocks_y);
      }
    }
  }

  // Reads packet number `index` of the tile; false when reading stops (allow_partial).
  bool read(const PacketId& id, size_t index);
  std::vector<BlockSegmentMap> take() { return std::move(out_); }
  const std::vector<BlockSegmentMap>& blocks() const { return out_; }

 private:
  struct PrecinctReader {
    Precinct precinct;
    entropy::PacketDecoder decoder;
  };
  PrecinctReader& precinct(const PacketId& id);
  bool read_header(const PacketId& id, size_t index, entropy::PacketDecoder& dec);
  bool gather(const PacketId& id, const Precinct& precinct);
  void add_piece(BlockSegments& blk, const entropy::Piece& piece);
  // Where the data of code-block (bi, bj) (band grid) of band b of the packet's resolution
  // goes: null when it is not kept (layer, resolution or keep_block).
  BlockSegments* kept_block(const PacketId& id, size_t b, uint32_t bi, uint32_t bj);
  void warn(const std::string& what) {
    if (warnings_) warnings_->push_back("tile " + std::to_string(t_) + ": " + what);
  }
  std::string where(const PacketId& id, size_t index) const {
    return "packet " + std::to_string(index) + " (layer " + std::to_string(id.layer) +
           ", resolution " + std::to_string(id.resolution) + ", component " +
           std::to_string(id.component) + ", precinct " + std::to_string(id.precinct) + ")";
  }

  // The rest of the current tile-part (of the data when joined).
  std::span<const uint8_t> rest() const { return data_.subspan(pos_, end_ - pos_); }

  std::span<const uint8_t> data_;
  std::span<const std::pair<size_t, size_t>> parts_;
  size_t part_ = 0;
  size_t pos_, end_;  // next byte of the data; end of the current tile-part
  std::span<const uint8_t> headers_;
  bool packed_;
  const MainHeader& main_;
  const TileHeader& header_;
  uint32_t t_;
  const PacketReadOptions& o_;
  std::vector<std::string>* warnings_;
  entropy::PacketFraming framing_;
  uint32_t max_layers_;
  std::unordered_map<uint64_t, PrecinctReader> precincts_;
  entropy::DecodedPacket dp_;
  size_t hpos_ = 0;  // next byte of the packed headers
  std::vector<BlockSegmentMap> out_;
};

TileReader::PrecinctReader& TileReader::precinct(const PacketId& id) {
  const uint64_t key =
      (uint64_t{id.component} << 48) | (uint64_t{id.resolution} << 40) | id.precinct;
  auto it = precincts_.find(key);
  if (it != precincts_.end()) return it->second;
  const TileComponentLayout& layout = *o_.components[id.component].layout;
  Precinct p = layout.resolutions[id.resolution].precinct(id.precinct);
  entropy::PacketDecoder dec(band_shapes(p),
                             segment_style(main_, &header_, static_cast<uint16_t>(id.component)));
  return precincts_.emplace(key, PrecinctReader{std::move(p), std::move(dec)}).first->second;
}

// The packet's header into dp_, from the packed headers or the data; false on an error under
// allow_partial.
bool TileReader::read_header(const PacketId& id, size_t index, entropy::PacketDecoder& dec) {
  try {
    if (packed_) {
      if (hpos_ >= headers_.size()) throw Error(ErrorCode::kTruncated, "packed headers end");
      dec.decode_packet(static_cast<int>(id.layer), headers_.subspan(hpos_), framing_, false, dp_);
      hpos_ += dp_.header_bytes;
      if (framing_.sop && pos_ < end_) {
        // (an SOP cut by the end of a tile-part that is not the last: read joined)
        if (end_ - pos_ < kSopSize && part_ + 1 < parts_.size()) throw PacketAcrossParts{};
        pos_ += entropy::skip_sop(rest());
      }
    } else {
      if (pos_ >= end_) throw Error(ErrorCode::kTruncated, "tile data ends");
      dec.decode_packet(static_cast<int>(id.layer), rest(), framing_, true, dp_);
      pos_ += dp_.header_bytes;
    }
  } catch (const Error& e) {
    if (!parts_.empty()) throw PacketAcrossParts{};
    if (!o_.allow_partial)
      fail(
          e.code(), t_,
          where(id, index) + " at byte " + std::to_string(pos_) + " of the tile data: " + e.what());
    warn("stopped at " + where(id, index) + ": " + e.what());
    return false;
  }
  return true;
}

bool TileReader::read(const PacketId& id, size_t index) {
  while (pos_ == end_ && part_ + 1 < parts_.size()) {  // the next tile-part
    ++part_;
    pos_ = parts_[part_].first;
    end_ = parts_[part_].second;
  }
  PrecinctReader& pr = precinct(id);
  if (!read_header(id, index, pr.decoder)) return false;
  if (dp_.empty) return true;
  if (pos_ + dp_.body_bytes > end_) {
    if (!parts_.empty()) throw PacketAcrossParts{};
    if (!o_.allow_partial)
      fail(ErrorCode::kTruncated, t_,
           where(id, index) + ": body of " + std::to_string(dp_.body_bytes) + " bytes at byte " +
               std::to_string(pos_) + " runs past the tile data (" + std::to_string(data_.size()) +
               " bytes)");
    warn(where(id, index) + " is truncated");
  }
  return gather(id, pr.precinct);
}

BlockSegments* TileReader::kept_block(const PacketId& id, size_t b, uint32_t bi, uint32_t bj) {
  const PacketReadComponent& comp = o_.components[id.component];
  if (id.layer >= max_layers_ || static_cast<int>(id.resolution) > comp.max_resolution)
    return nullptr;
  const BandLayout& band = comp.layout->resolutions[id.resolution].bands[b];
  if (o_.keep_block && !o_.keep_block(id.component, band, band.code_block(bi, bj))) return nullptr;
  BlockSegments& blk = out_[id.component][block_key(id.resolution, static_cast<uint32_t>(b),
                                                    bi + bj * band.blocks_x)];
  return &blk;
}

// The bodies of the packet in dp_, in the header's order (bands, then code-blocks in raster
// order in the precinct), into the kept code-blocks. allow_partial, as OpenJPEG's non-strict
// mode: from the first codeword segment that runs past the data, the code-blocks of this
// packet lose all their data (they decode as zero); false then, nothing more is read.
bool TileReader::gather(const PacketId& id, const Precinct& precinct) {
  bool cut = false;
  for (size_t b = 0; b < dp_.blocks.size(); ++b) {
    const PrecinctBand& pb = precinct.bands[b];
    for (size_t k = 0; k < dp_.blocks[b].size(); ++k) {
      const entropy::BlockPacketInfo& info = dp_.blocks[b][k];
      if (info.new_passes == 0) continue;
      BlockSegments* blk = kept_block(id, b, pb.cb_i0 + static_cast<uint32_t>(k % pb.blocks_x),
                                      pb.cb_j0 + static_cast<uint32_t>(k / pb.blocks_x));
      if (blk && info.first_inclusion) blk->missing_msbs = info.missing_msbs;
      for (const entropy::Piece& piece : info.pieces) {
        if (cut || piece.length > end_ - std::min(pos_, end_)) {
          cut = true;
          if (blk) *blk = BlockSegments{};
          break;
        }
        if (blk) add_piece(*blk, piece);
        pos_ += piece.length;
      }
    }
  }
  return !cut;
}

// The piece at pos_ of the data into `blk`: a new segment where it lies; a segment's second
// piece turns it into a list of parts (unless it follows the first in the data), to which
// later pieces are added (the open segment's parts are always the last of blk.parts).
void TileReader::add_piece(BlockSegments& blk, const entropy::Piece& piece) {
  const auto length = static_cast<uint32_t>(piece.length);
  if (!blk.open) {
    blk.segs.push_back({pos_, length, static_cast<uint32_t>(piece.passes), 0, 0});
  } else {
    BlockSegments::Seg& s = blk.segs.back();
    if (s.parts == 0 && s.offset + s.length != pos_) {
      s.first_part = static_cast<uint32_t>(blk.parts.size());
      s.parts = 1;
      blk.parts.push_back({s.offset, s.length});
    }
    if (s.parts > 0) {
      blk.parts.push_back({pos_, length});
      ++s.parts;
    }
    s.length += length;
    s.passes += static_cast<uint32_t>(piece.passes);
  }
  blk.open = !piece.ends_segment;
}

// Every packet takes at least one header byte, so a tile cannot hold more packets than bytes;
// refuses (before listing them) a count far beyond what the data could hold.
void check_packet_count(const TileProgression& prog, uint64_t bytes, uint32_t t) {
  uint64_t precincts = 0;
  for (const ComponentPrecincts& comp : prog.components)
    for (const ResolutionPrecincts& res : comp.resolutions)
      precincts += uint64_t{res.precincts_x} * res.precincts_y;
  const uint64_t packets = precincts * prog.layers;
  if (packets > kMaxPackets || packets > 16 * bytes + 4096)
    fail(ErrorCode::kTruncated, t,
         std::to_string(packets) + " packets (layers x precincts) in " + std::to_string(bytes) +
             " bytes of packet data");
}

// ---- writing -------------------------------------------------------------------------------

// Code-block (i, j) of band b of a precinct (i, j from the precinct's first block).
const BlockCoding& block_at(const TileComponentCoding& tcc, uint32_t r, size_t b,
                            const PrecinctBand& pb, uint32_t i, uint32_t j) {
  const BandLayout& bl = tcc.layout.resolutions[r].bands[b];
  return tcc.bands[r][b].blocks[size_t{pb.cb_j0 + j} * bl.blocks_x + pb.cb_i0 + i];
}

// Bytes of block data that passes [0, passes) occupy.
uint32_t bytes_through(const BlockCoding& b, uint32_t passes) {
  return passes ? b.passes()[passes - 1].end : 0;
}

// The coder of one precinct of the tile; the missing bit-planes of its blocks are set band by
// band (set_missing_msbs) before its first packet.
struct PrecinctWriter {
  Precinct precinct;
  entropy::PacketEncoder encoder;
};

// Band b of the writer's precinct: the zero bit-plane tag tree codes minima over every block
// that is ever included, so their missing bit-planes are set up front.
void set_missing_msbs(const TileComponentCoding& tcc, uint32_t r, PrecinctWriter& w, size_t b) {
  const PrecinctBand& pb = w.precinct.bands[b];
  for (uint32_t j = 0; j < pb.blocks_y; ++j)
    for (uint32_t i = 0; i < pb.blocks_x; ++i) {
      const BlockCoding& blk = block_at(tcc, r, b, pb, i, j);
      if (!blk.layer_passes.empty() && blk.layer_passes.back() > 0)
        w.encoder.set_missing_msbs(b, j * pb.blocks_x + i, static_cast<int>(blk.enc.missing_msbs));
    }
}

// Whether band b of packet `id`'s precinct has a block with passes in the packet's layer.
bool band_contributes(const TileComponentCoding& tcc, const PacketId& id, const PrecinctBand& pb,
                      size_t b) {
  for (uint32_t j = 0; j < pb.blocks_y; ++j)
    for (uint32_t i = 0; i < pb.blocks_x; ++i) {
      const BlockCoding& blk = block_at(tcc, id.resolution, b, pb, i, j);
      if (blk.layer_passes.empty()) continue;
      if (blk.layer_passes[id.layer] > (id.layer ? blk.layer_passes[id.layer - 1] : 0)) return true;
    }
  return false;
}

// Band b's part of packet `id`: its blocks' contributions to the layer (`contrib`, one per
// block of the precinct band) and their data, appended to `bodies` in the header's order.
void band_contributions(const TileComponentCoding& tcc, const PacketId& id, const PrecinctBand& pb,
                        size_t b, const entropy::SegmentStyle& seg,
                        std::vector<entropy::BlockContribution>& contrib,
                        std::vector<std::span<const uint8_t>>& bodies) {
  contrib.resize(pb.block_count());
  for (entropy::BlockContribution& c : contrib) {
    c.new_passes = 0;
    c.piece_lengths.clear();
  }
  // A block's layer_passes and its pass records are reads that miss the cache (records
  // downloaded or written by other threads), so they are made in loops of nothing else, where
  // the reads of consecutive blocks overlap, before the contributions are built.
  struct Included {
    const BlockCoding* blk;
    uint32_t k, prev, cur;  // index in the precinct band; passes before and through the layer
    uint32_t from, to;      // bytes_through prev and cur
  };
  thread_local std::vector<Included> in;
  in.clear();
  for (uint32_t j = 0; j < pb.blocks_y; ++j)
    for (uint32_t i = 0; i < pb.blocks_x; ++i) {
      const BlockCoding& blk = block_at(tcc, id.resolution, b, pb, i, j);
      if (blk.layer_passes.empty()) continue;
      const uint32_t prev = id.layer ? blk.layer_passes[id.layer - 1] : 0;
      const uint32_t cur = blk.layer_passes[id.layer];
      if (cur > prev) in.push_back({&blk, j * pb.blocks_x + i, prev, cur, 0, 0});
    }
  for (Included& c : in) {
    c.from = bytes_through(*c.blk, c.prev);
    c.to = bytes_through(*c.blk, c.cur);
  }
  for (const Included& c : in) {
    const BlockCoding& blk = *c.blk;
    entropy::BlockContribution& bc = contrib[c.k];
    bc.new_passes = static_cast<int>(c.cur - c.prev);
    uint32_t first = c.prev, start = c.from;
    entropy::for_each_piece(seg, static_cast<int>(c.prev), bc.new_passes, [&](int n) {
      first += static_cast<uint32_t>(n);
      const uint32_t end = first == c.cur ? c.to : bytes_through(blk, first);
      bc.piece_lengths.push_back(end - start);
      start = end;
    });
    bodies.emplace_back(blk.data() + c.from, c.to - c.from);
  }
}

// The value of the tile-part split key for a packet (-1: never split).
int64_t split_key(TilePartSplit split, const PacketId& id) {
  switch (split) {
    case TilePartSplit::kResolution:
      return id.resolution;
    case TilePartSplit::kLayer:
      return id.layer;
    case TilePartSplit::kComponent:
      return id.component;
    case TilePartSplit::kNone:
      break;
  }
  return -1;
}

}  // namespace

std::span<const uint8_t> tile_data(std::span<const uint8_t> codestream, const Codestream& code,
                                   uint32_t t, std::vector<uint8_t>& joined) {
  const Tile& tile = code.tiles.at(t);
  auto body = [&](size_t part) {
    const TilePartHeader& tp = code.tile_parts[part];
    const size_t end = std::min(tp.body_end, codestream.size());
    return tp.body_begin < end ? codestream.subspan(tp.body_begin, end - tp.body_begin)
                               : std::span<const uint8_t>();
  };
  if (tile.parts.size() == 1) return body(tile.parts[0]);
  for (size_t part : tile.parts) {
    const auto b = body(part);
    joined.insert(joined.end(), b.begin(), b.end());
  }
  return joined;
}

std::optional<std::vector<uint8_t>> tile_packed_headers(const Codestream& code, uint32_t t) {
  const Tile& tile = code.tiles.at(t);
  if (code.main.has_ppm) {
    std::vector<uint8_t> out;
    for (size_t k : tile.parts)
      if (k < code.main.ppm_tile_parts.size())
        out.insert(out.end(), code.main.ppm_tile_parts[k].begin(),
                   code.main.ppm_tile_parts[k].end());
    return out;
  }
  if (!tile.header.ppt.empty()) return tile.header.ppt_data;
  return std::nullopt;
}

TilePackets read_tile_packets(std::span<const uint8_t> codestream, const Codestream& code,
                              uint32_t t, const PacketReadOptions& o,
                              std::vector<std::string>* warnings) {
  if (t >= code.tiles.size()) fail(ErrorCode::kInvalidArgument, t, "no such tile");
  const Tile& tile = code.tiles[t];
  if (o.components.size() != code.main.siz.components.size())
    fail(ErrorCode::kInvalidArgument, t, "read_tile_packets: one entry per component expected");
  TilePackets out;
  if (tile.parts.empty()) {
    out.blocks.resize(o.components.size());
    return out;
  }
  const std::optional<std::vector<uint8_t>> headers = tile_packed_headers(code, t);
  std::vector<const TileComponentLayout*> layouts;
  for (const PacketReadComponent& comp : o.components) layouts.push_back(comp.layout);
  const TileProgression prog = tile_progression(code.main, &tile.header, t, layouts);
  // The bodies of the tile-parts in the codestream (as tile_data clamps them).
  std::vector<std::pair<size_t, size_t>> parts;
  size_t bytes = 0;
  for (size_t part : tile.parts) {
    const TilePartHeader& tp = code.tile_parts[part];
    const size_t end = std::min(tp.body_end, codestream.size());
    if (tp.body_begin < end) {
      parts.push_back({tp.body_begin, end});
      bytes += end - tp.body_begin;
    }
  }
  check_packet_count(prog, bytes + (headers ? headers->size() : 0), t);
  const std::vector<PacketId> order = tile_order(prog, code.main, &tile.header);
  // For on_resolution_read: the last packet of each kept (component, resolution).
  std::vector<std::vector<size_t>> last(o.components.size());
  std::vector<std::vector<uint8_t>> complete(o.components.size());
  if (o.on_resolution_read) {
    for (size_t c = 0; c < o.components.size(); ++c) {
      const int kept = o.components[c].max_resolution;
      last[c].assign(kept < 0 ? 0 : size_t(kept) + 1, SIZE_MAX);
      complete[c].assign(last[c].size(), 0);
    }
    for (size_t i = 0; i < order.size(); ++i)
      if (order[i].component < last.size() && order[i].resolution < last[order[i].component].size())
        last[order[i].component][order[i].resolution] = i;
  }
  auto read = [&](std::span<const uint8_t> data, std::span<const std::pair<size_t, size_t>> in) {
    TileReader reader(data, in, headers, code.main, tile.header, t, o, warnings);
    const bool tell = o.on_resolution_read && in.empty();
    // on_reading_end on the way out by an exception, before the reader's maps go.
    struct EndOnThrow {
      const std::function<void(bool)>* end;
      ~EndOnThrow() {
        if (end && *end) (*end)(true);
      }
    } end_on_throw{tell ? &o.on_reading_end : nullptr};
    size_t index = 0;
    for (const PacketId& id : order) {
      if (!reader.read(id, index)) break;
      if (tell && id.component < last.size() && id.resolution < last[id.component].size() &&
          last[id.component][id.resolution] == index) {
        complete[id.component][id.resolution] = 1;
        o.on_resolution_read(TileReadProgress{data, reader.blocks(), complete});
      }
      ++index;
    }
    end_on_throw.end = nullptr;
    if (tell && o.on_reading_end) o.on_reading_end(false);
    return reader.take();
  };
  // Several tile-parts: read in place, which holds where each packet lies within one (as
  // encoders write them); else (or on any error) from the joined tile-parts (tile_data).
  if (tile.parts.size() > 1 && !parts.empty()) {
    try {
      out.data = codestream;
      out.blocks = read(codestream, parts);
      return out;
    } catch (const PacketAcrossParts&) {
    }
  }
  out.data = tile_data(codestream, code, t, out.joined);
  out.blocks = read(out.data, {});
  return out;
}

std::vector<WrittenPacket> write_tile_packets(const TileCoding& tile, const MainHeader& main) {
  std::vector<const TileComponentLayout*> layouts;
  for (const TileComponentCoding& tcc : tile.components) layouts.push_back(&tcc.layout);
  const TileProgression prog = tile_progression(main, nullptr, tile.index, layouts);
  const std::vector<PacketId> order = tile_order(prog, main, nullptr);
  const entropy::PacketFraming framing{main.cod.sop, main.cod.eph};

  // The precincts that have packets, in order of their first, each with its packets' places
  // in the progression (a precinct's coder runs from layer to layer).
  struct Writer {
    uint32_t c, r, p;
    std::vector<uint32_t> packets;
    std::optional<PrecinctWriter> w;
  };
  std::vector<Writer> writers;
  {
    std::vector<std::vector<std::vector<int64_t>>> slot(tile.components.size());
    for (size_t c = 0; c < slot.size(); ++c) {
      const auto& res = tile.components[c].layout.resolutions;
      slot[c].resize(res.size());
      for (size_t r = 0; r < res.size(); ++r) slot[c][r].assign(res[r].precinct_count(), -1);
    }
    for (uint32_t k = 0; k < order.size(); ++k) {
      const PacketId& id = order[k];
      int64_t& s = slot[id.component][id.resolution][id.precinct];
      if (s < 0) {
        s = static_cast<int64_t>(writers.size());
        writers.push_back({id.component, id.resolution, id.precinct, {}, std::nullopt});
      }
      writers[static_cast<size_t>(s)].packets.push_back(k);
    }
  }
  // Failures below: the pool rethrows the lowest index's.
  core::parallel_for(0, writers.size(), 1, [&](size_t wi) {
    Writer& w = writers[wi];
    const TileComponentCoding& tcc = tile.components[w.c];
    Precinct prec = tcc.layout.resolutions[w.r].precinct(w.p);
    entropy::PacketEncoder enc(band_shapes(prec),
                               segment_style(main, nullptr, static_cast<uint16_t>(w.c)));
    w.w.emplace(PrecinctWriter{std::move(prec), std::move(enc)});
  });

  // The work goes by precinct band: a precinct's bands have their own tag trees and block
  // states (B.10.2), so they are coded side by side, and a resolution's one precinct (the
  // default) splits three ways. Per packet and band of its precinct (from band_at): whether
  // the band contributes, its header bits and its bodies.
  struct Task {
    uint32_t writer, band;
  };
  std::vector<Task> tasks;
  std::vector<size_t> band_at(order.size() + 1, 0);
  for (uint32_t wi = 0; wi < writers.size(); ++wi) {
    const size_t bands = writers[wi].w->precinct.bands.size();
    for (uint32_t b = 0; b < bands; ++b) tasks.push_back({wi, b});
    for (uint32_t k : writers[wi].packets) band_at[k + 1] = bands;
  }
  for (size_t k = 0; k < order.size(); ++k) band_at[k + 1] += band_at[k];
  const size_t packet_bands = band_at.back();
  std::vector<uint8_t> contributes(packet_bands, 0);
  std::vector<entropy::HeaderBitWriter> bits(packet_bands);
  std::vector<std::vector<std::span<const uint8_t>>> bodies(packet_bands);
  const int threads = tasks.size() > 1 && order.size() > 16 ? 0 : 1;
  // fn(writer, band, its tile-component) for every task, in parallel.
  const auto each_band = [&](const auto& fn) {
    core::parallel_for(
        0, tasks.size(), 1,
        [&](size_t ti) {
          Writer& w = writers[tasks[ti].writer];
          fn(w, size_t{tasks[ti].band}, tile.components[w.c]);
        },
        threads);
  };
  each_band([&](Writer& w, size_t b, const TileComponentCoding& tcc) {
    set_missing_msbs(tcc, w.r, *w.w, b);
    for (uint32_t k : w.packets)
      contributes[band_at[k] + b] = band_contributes(tcc, order[k], w.w->precinct.bands[b], b);
  });
  const auto packet_coded = [&](uint32_t k) {
    for (size_t i = band_at[k]; i < band_at[k + 1]; ++i)
      if (contributes[i]) return true;
    return false;
  };
  each_band([&](Writer& w, size_t b, const TileComponentCoding& tcc) {
    // The thread's, reused from band to band (their piece vectors keep their room): a band
    // then allocates no memory per block, which on many threads, each with its own malloc
    // arena, cost system time in every rate-control round.
    thread_local std::vector<entropy::BlockContribution> contrib;
    for (uint32_t k : w.packets) {
      if (!packet_coded(k)) continue;  // an empty packet: the bit 0, no band coded
      band_contributions(tcc, order[k], w.w->precinct.bands[b], b, w.w->encoder.style(), contrib,
                         bodies[band_at[k] + b]);
      w.w->encoder.encode_band(bits[band_at[k] + b], static_cast<int>(order[k].layer), b, contrib);
    }
  });
  for (Writer& w : writers)
    for (uint32_t k : w.packets) w.w->encoder.end_layer(static_cast<int>(order[k].layer));

  // Each packet: SOP, the header (the bit 1 and its bands' bits, or the bit 0), EPH; then
  // its bands' bodies in order.
  std::vector<WrittenPacket> packets(order.size());
  core::parallel_for(
      0, order.size(), 16,
      [&](size_t k) {
        WrittenPacket& pk = packets[k];
        pk.id = order[k];
        thread_local std::vector<const entropy::HeaderBitWriter*> parts;
        parts.clear();
        for (size_t i = band_at[k]; i < band_at[k + 1]; ++i) parts.push_back(&bits[i]);
        pk.sop = framing.sop ? kSopSize : 0;
        pk.header = entropy::PacketEncoder::write_packet_header(
                        parts, packet_coded(static_cast<uint32_t>(k)), framing,
                        static_cast<uint32_t>(k), pk.bytes) -
                    pk.sop;
        size_t n = 0;
        for (size_t i = band_at[k]; i < band_at[k + 1]; ++i) n += bodies[i].size();
        pk.bodies.reserve(n);
        for (size_t i = band_at[k]; i < band_at[k + 1]; ++i)
          for (std::span<const uint8_t> body : bodies[i]) {
            pk.bodies.push_back(body);
            pk.body += body.size();
          }
      },
      threads);
  return packets;
}

void WrittenPacket::write_to(uint8_t* dst) const {
  for_each_piece([&dst](const uint8_t* p, size_t n) {
    if (n) std::memcpy(dst, p, n);
    dst += n;
  });
}

std::vector<uint8_t> WrittenPacket::joined() const {
  std::vector<uint8_t> out(size());
  write_to(out.data());
  return out;
}

size_t WrittenTilePart::size() const {
  size_t n = header.size();
  for (const WrittenPacket& p : packets) n += p.size();
  return n;
}

void WrittenTilePart::write_to(uint8_t* dst) const {
  for_each_piece([&dst](const uint8_t* p, size_t n) {
    if (n) std::memcpy(dst, p, n);
    dst += n;
  });
}

std::vector<uint8_t> WrittenTilePart::joined() const {
  std::vector<uint8_t> out(size());
  write_to(out.data());
  return out;
}

std::vector<WrittenTilePart> write_tile_parts(uint16_t tile, std::span<const WrittenPacket> packets,
                                              TilePartSplit split, bool plt) {
  std::vector<std::pair<size_t, size_t>> ranges;  // [begin, end) packet indices
  size_t begin = 0;
  for (size_t i = 1; i <= packets.size(); ++i)
    if (i == packets.size() ||
        split_key(split, packets[i].id) != split_key(split, packets[i - 1].id)) {
      ranges.push_back({begin, i});
      begin = i;
    }
  if (ranges.empty()) ranges.push_back({0, 0});
  if (ranges.size() > 255)
    throw Error(ErrorCode::kInvalidArgument,
                "--tile-parts: tile " + std::to_string(tile) + " would need " +
                    std::to_string(ranges.size()) +
                    " tile-parts (at most 255); choose a progression order that groups them");
  std::vector<WrittenTilePart> parts;
  for (size_t k = 0; k < ranges.size(); ++k) {
    const auto part = packets.subspan(ranges[k].first, ranges[k].second - ranges[k].first);
    ByteWriter w;
    const size_t sot =
        write_sot(w, tile, 0, static_cast<uint8_t>(k), static_cast<uint8_t>(ranges.size()));
    if (plt && !part.empty()) {
      std::vector<uint32_t> lengths;
      for (const WrittenPacket& p : part) lengths.push_back(static_cast<uint32_t>(p.size()));
      write_plt_segments(w, lengths, 0);
    }
    write_sod(w);
    uint64_t psot = w.size() - sot;
    for (const WrittenPacket& p : part) psot += p.size();
    if (psot > 0xFFFFFFFFu)
      throw Error(
          ErrorCode::kInvalidArgument,
          "tile " + std::to_string(tile) + ": a tile-part longer than 2^32 - 1 bytes (Psot)");
    w.patch_u32(sot + 6, static_cast<uint32_t>(psot));
    parts.push_back({tile, w.release(), part});
  }
  return parts;
}

}  // namespace gj2k::codec
