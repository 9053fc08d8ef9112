// `gj2k info IN`: a JP2 file or codestream described: a short summary by default, the full
// structure with --markers (boxes, main header markers) and --tiles (plus every tile-part),
// or the summary's facts as JSON with --json (for scripts).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codec/jp2/boxes.h"
#include "codec/markers/reader.h"
#include "gj2k/error.h"
#include "tools/command.h"

namespace {

using namespace gj2k::codec;

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw gj2k::Error(gj2k::ErrorCode::kIo, "cannot open '" + path + "'");
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw gj2k::Error(gj2k::ErrorCode::kIo, "cannot read '" + path + "'");
  return data;
}

std::string depth_str(uint8_t precision, bool is_signed) {
  return std::string(is_signed ? "s" : "u") + std::to_string(precision);
}

// " SIZ@2 COD@45 PPMx225@169..100599": runs of one marker are folded.
std::string marker_list(const std::vector<MarkerInfo>& markers) {
  std::string s;
  for (size_t i = 0; i < markers.size();) {
    size_t j = i + 1;
    while (j < markers.size() && markers[j].code == markers[i].code) ++j;
    s += " " + marker_name(markers[i].code);
    if (j - i > 2)
      s += "x" + std::to_string(j - i) + "@" + std::to_string(markers[i].offset) + ".." +
           std::to_string(markers[j - 1].offset);
    else
      for (size_t k = i; k < j; ++k)
        s += (k > i ? " " + marker_name(markers[k].code) : std::string()) + "@" +
             std::to_string(markers[k].offset);
    i = j;
  }
  return s;
}

// Latin-1 comment text with control characters shown as '.'.
std::string printable(const std::vector<uint8_t>& d) {
  std::string s;
  for (uint8_t ch : d) s += (ch >= 0x20 && ch != 0x7F) ? static_cast<char>(ch) : '.';
  return s;
}

const char* cs_name(uint32_t e) {
  switch (e) {
    case enum_cs::kSRGB:
      return "sRGB";
    case enum_cs::kGreyscale:
      return "greyscale";
    case enum_cs::kSYCC:
      return "sYCC";
    case 12:
      return "CMYK";
    case 14:
      return "CIELab";
    case 20:
      return "e-sRGB";
    case 21:
      return "ROMM-RGB";
    default:
      return "other";
  }
}

void print_jp2(const Jp2Header& h) {
  std::printf("JP2 file (brand '%s', compatible:", box_type_name(h.brand).c_str());
  for (uint32_t c : h.compatibility) std::printf(" '%s'", box_type_name(c).c_str());
  std::printf(")\n  boxes:\n");
  for (const BoxInfo& b : h.boxes)
    std::printf("    %*s%-4s at %llu, %llu bytes\n", 2 * b.depth, "", box_type_name(b.type).c_str(),
                static_cast<unsigned long long>(b.offset),
                static_cast<unsigned long long>(b.length));
  const Ihdr& i = h.ihdr;
  std::printf("  ihdr: %ux%u, %u components, depth %s\n", i.width, i.height, i.components,
              i.depth ? depth_str(i.depth->precision, i.depth->is_signed).c_str() : "per bpcc");
  if (!h.bpcc.empty()) {
    std::printf("  bpcc:");
    for (BitDepth d : h.bpcc) std::printf(" %s", depth_str(d.precision, d.is_signed).c_str());
    std::printf("\n");
  }
  for (const Colr& c : h.colr) {
    if (c.method == 1)
      std::printf("  colr: enumerated %u (%s), precedence %d\n", c.enumerated,
                  cs_name(c.enumerated), c.precedence);
    else
      std::printf("  colr: method %u (%s), ICC profile of %zu bytes\n", c.method,
                  c.method == 2 ? "restricted ICC" : "JPX", c.icc.size());
  }
  if (h.pclr) {
    std::printf("  pclr: %u entries x %zu columns (", h.pclr->entries, h.pclr->columns.size());
    for (size_t k = 0; k < h.pclr->columns.size(); ++k)
      std::printf("%s%s", k ? " " : "",
                  depth_str(h.pclr->columns[k].precision, h.pclr->columns[k].is_signed).c_str());
    std::printf(")\n");
  }
  for (const CmapEntry& e : h.cmap)
    std::printf("  cmap: component %u %s column %u\n", e.component,
                e.mapping ? "via palette" : "direct", e.column);
  for (const CdefEntry& e : h.cdef)
    std::printf("  cdef: channel %u type %u association %u\n", e.channel, e.type, e.association);
  if (h.has_rreq) {
    std::printf("  rreq: standard features");
    for (uint16_t f : h.rreq_features) std::printf(" %u", f);
    std::printf("\n");
  }
  std::printf("  codestream: offset %llu, %llu bytes%s\n",
              static_cast<unsigned long long>(h.codestream_offset),
              static_cast<unsigned long long>(h.codestream_length),
              h.codestream_truncated ? " (truncated)" : "");
}

void print_coding(const char* indent, const ComponentCoding& cc) {
  std::printf("%slevels %u, code-blocks %ux%u, style %s, wavelet %s\n", indent, cc.levels,
              1u << cc.xcb, 1u << cc.ycb, cblk_style_names(cc.cblk_style).c_str(),
              cc.wavelet == Wavelet::k53 ? "5/3 reversible" : "9/7 irreversible");
  if (cc.user_precincts()) {
    std::printf("%sprecincts (r0..r%u):", indent, cc.levels);
    for (const PrecinctSize& p : cc.precincts) std::printf(" %ux%u", 1u << p.ppx, 1u << p.ppy);
    std::printf("\n");
  }
}

void print_cod(const char* indent, const CodingStyle& cod) {
  std::printf("%sprogression %s, %u layers, MCT %s, SOP %s, EPH %s\n", indent,
              to_string(cod.progression), cod.layers, cod.mct ? "on" : "off",
              cod.sop ? "yes" : "no", cod.eph ? "yes" : "no");
  print_coding(indent, cod.component);
}

void print_quant(const char* indent, const Quantization& q) {
  std::printf("%s%s, %u guard bits, %zu step sizes", indent, to_string(q.style), q.guard_bits,
              q.steps.size());
  if (!q.steps.empty() && q.style != QuantStyle::kNone)
    std::printf(" (first: exponent %u mantissa %u)", q.steps[0].exponent, q.steps[0].mantissa);
  std::printf("\n");
}

void print_pocs(const char* indent, const std::vector<gj2k::ProgressionChange>& pocs) {
  for (const gj2k::ProgressionChange& e : pocs)
    std::printf("%sPOC: res [%u,%u) comp [%u,%u) layers <%u %s\n", indent, e.res_start, e.res_end,
                e.comp_start, e.comp_end, e.layer_end, to_string(e.order));
}

void print_header_overrides(const char* indent, const TileHeader& h) {
  if (h.cod) {
    std::printf("%sCOD:\n", indent);
    print_cod((std::string(indent) + "  ").c_str(), *h.cod);
  }
  for (const auto& [c, cc] : h.coc) {
    std::printf("%sCOC component %u:\n", indent, c);
    print_coding((std::string(indent) + "  ").c_str(), cc);
  }
  if (h.qcd) {
    std::printf("%sQCD: ", indent);
    print_quant("", *h.qcd);
  }
  for (const auto& [c, q] : h.qcc) {
    std::printf("%sQCC component %u: ", indent, c);
    print_quant("", q);
  }
  for (const auto& [c, g] : h.rgn)
    std::printf("%sRGN component %u: style %u, shift %u\n", indent, c, g.style, g.shift);
  print_pocs(indent, h.poc);
  if (!h.ppt.empty())
    std::printf("%sPPT: %zu segments, %zu bytes of packed headers\n", indent, h.ppt.size(),
                h.ppt_data.size());
  size_t plt = 0;
  for (const Plt& p : h.plt) plt += p.lengths.size();
  if (!h.plt.empty()) std::printf("%sPLT: %zu packet lengths\n", indent, plt);
  for (const Com& c : h.com)
    std::printf("%sCOM (%s): %s\n", indent, c.registration == 1 ? "text" : "binary",
                c.registration == 1 ? printable(c.data).c_str()
                                    : (std::to_string(c.data.size()) + " bytes").c_str());
}

void print_codestream(const Codestream& cs, uint64_t base, bool tiles) {
  const MainHeader& m = cs.main;
  const Siz& s = m.siz;
  std::printf("Codestream%s\n", base ? (" at offset " + std::to_string(base)).c_str() : "");
  std::printf("  markers in main header:%s\n", marker_list(m.markers).c_str());
  std::printf("  SIZ: Rsiz %u; image [%u,%u)x[%u,%u) = %ux%u; tiles %ux%u at (%u,%u): %ux%u = %u\n",
              s.rsiz, s.xosiz, s.xsiz, s.yosiz, s.ysiz, s.xsiz - s.xosiz, s.ysiz - s.yosiz, s.xtsiz,
              s.ytsiz, s.xtosiz, s.ytosiz, num_tiles_x(s), num_tiles_y(s), num_tiles(s));
  std::printf("  components: %zu\n", s.components.size());
  for (size_t c = 0; c < s.components.size(); ++c) {
    if (c == 8 && s.components.size() > 10) {
      std::printf("    ... (%zu more)\n", s.components.size() - 8);
      break;
    }
    const SizComponent& k = s.components[c];
    std::printf("    %zu: %s, subsampling %ux%u\n", c, depth_str(k.precision, k.is_signed).c_str(),
                k.dx, k.dy);
  }
  std::printf("  COD:\n");
  print_cod("    ", m.cod);
  std::printf("  QCD: ");
  print_quant("", m.qcd);
  TileHeader mh;  // the main header's COC/QCC/RGN/POC/COM, printed like a tile header's
  mh.coc = m.coc;
  mh.qcc = m.qcc;
  mh.rgn = m.rgn;
  mh.poc = m.poc;
  mh.com = m.com;
  print_header_overrides("  ", mh);
  for (const Tlm& t : m.tlm)
    std::printf("  TLM %u: %zu tile-part lengths\n", t.index, t.entries.size());
  for (const Plm& p : m.plm)
    std::printf("  PLM %u: %zu tile-parts\n", p.index, p.tile_parts.size());
  if (m.has_ppm) std::printf("  PPM: packed headers for %zu tile-parts\n", m.ppm_tile_parts.size());
  if (!m.crg.empty()) std::printf("  CRG: %zu component offsets\n", m.crg.size());

  std::printf("  tile-parts: %zu%s%s\n", cs.tile_parts.size(), cs.eoc_found ? ", EOC" : ", no EOC",
              cs.truncated ? ", truncated" : "");
  if (!tiles) return;
  size_t shown = 0;
  for (const Tile& t : cs.tiles) {
    if (t.parts.empty()) continue;
    if (++shown > 64) {
      std::printf("    ... (more tiles)\n");
      break;
    }
    std::printf("    tile %u: %zu tile-part(s)", t.index, t.parts.size());
    for (size_t i : t.parts) {
      const TilePartHeader& tp = cs.tile_parts[i];
      std::printf(" [%u/%u at %zu, %zu data bytes]", tp.tpsot, tp.tnsot, tp.sot_offset,
                  tp.body_end - tp.body_begin);
    }
    std::printf("\n");
    for (size_t i : t.parts)
      std::printf("      markers of part %u:%s\n", cs.tile_parts[i].tpsot,
                  marker_list(cs.tile_parts[i].markers).c_str());
    print_header_overrides("      ", t.header);
  }
  size_t missing = 0;
  for (const Tile& t : cs.tiles) missing += t.parts.empty();
  if (missing) std::printf("  tiles without data: %zu\n", missing);
}

// ---- summary and JSON -----------------------------------------------------------------------

std::string com_text(const Com& c) {
  return c.registration == 1 ? printable(c.data) : std::to_string(c.data.size()) + " bytes";
}

// The facts of the summary, as JSON (also what the text summary prints).
nlohmann::ordered_json summary_json(const std::string& path, size_t file_bytes,
                                    const std::optional<Jp2Header>& jp2, const Codestream& cs) {
  using nlohmann::ordered_json;
  const MainHeader& m = cs.main;
  const Siz& s = m.siz;
  ordered_json j;
  j["file"] = path;
  j["format"] = jp2 ? "jp2" : "j2k";
  j["bytes"] = file_bytes;
  if (jp2) {
    ordered_json colr = ordered_json::array();
    for (const Colr& c : jp2->colr)
      colr.push_back(c.method == 1 ? ordered_json(cs_name(c.enumerated))
                                   : ordered_json("icc:" + std::to_string(c.icc.size())));
    j["jp2"] = {{"brand", box_type_name(jp2->brand)},
                {"colr", colr},
                {"palette", jp2->pclr.has_value()},
                {"cdef", jp2->cdef.size()},
                {"codestream_offset", jp2->codestream_offset},
                {"codestream_bytes", jp2->codestream_length}};
  }
  j["rsiz"] = s.rsiz;
  j["image"] = {
      {"x0", s.xosiz}, {"y0", s.yosiz}, {"width", s.xsiz - s.xosiz}, {"height", s.ysiz - s.yosiz}};
  ordered_json comps = ordered_json::array();
  for (const SizComponent& k : s.components)
    comps.push_back(
        {{"precision", k.precision}, {"signed", k.is_signed}, {"dx", k.dx}, {"dy", k.dy}});
  j["components"] = comps;
  j["tiles"] = {{"width", s.xtsiz},         {"height", s.ytsiz},
                {"x0", s.xtosiz},           {"y0", s.ytosiz},
                {"across", num_tiles_x(s)}, {"down", num_tiles_y(s)},
                {"count", num_tiles(s)},    {"tile_parts", cs.tile_parts.size()}};
  const CodingStyle& cod = m.cod;
  const ComponentCoding& cc = cod.component;
  ordered_json precincts = ordered_json::array();
  if (cc.user_precincts())
    for (size_t r = cc.precincts.size(); r-- > 0;)  // highest resolution first, as opj -c
      precincts.push_back({1u << cc.precincts[r].ppx, 1u << cc.precincts[r].ppy});
  j["coding"] = {{"wavelet", cc.wavelet == Wavelet::k53 ? "5/3" : "9/7"},
                 {"reversible", cc.wavelet == Wavelet::k53},
                 {"levels", cc.levels},
                 {"layers", cod.layers},
                 {"progression", to_string(cod.progression)},
                 {"mct", cod.mct != 0},
                 {"code_block", {1u << cc.xcb, 1u << cc.ycb}},
                 {"code_block_style", cc.cblk_style},
                 {"precincts", precincts},
                 {"sop", cod.sop},
                 {"eph", cod.eph}};
  j["quantization"] = {{"style", to_string(m.qcd.style)}, {"guard_bits", m.qcd.guard_bits}};
  bool plt = false, ppt = false, tile_cod = false;
  for (const Tile& t : cs.tiles) {
    plt |= !t.header.plt.empty();
    ppt |= !t.header.ppt.empty();
    tile_cod |= t.header.cod.has_value() || !t.header.coc.empty() || t.header.qcd.has_value() ||
                !t.header.qcc.empty();
  }
  ordered_json com = ordered_json::array();
  for (const Com& c : m.com) com.push_back(com_text(c));
  j["markers"] = {{"tlm", !m.tlm.empty()},
                  {"plm", !m.plm.empty()},
                  {"plt", plt},
                  {"ppm", m.has_ppm},
                  {"ppt", ppt},
                  {"poc", !m.poc.empty()},
                  {"coc", !m.coc.empty()},
                  {"qcc", !m.qcc.empty()},
                  {"rgn", !m.rgn.empty()},
                  {"tile_headers", tile_cod},
                  {"com", com}};
  j["complete"] = cs.eoc_found && !cs.truncated;
  return j;
}

void print_summary(const nlohmann::ordered_json& j) {
  const auto& img = j["image"];
  const auto& t = j["tiles"];
  const auto& c = j["coding"];
  std::printf("%s: %s, %llu bytes%s\n", j["file"].get<std::string>().c_str(),
              j["format"] == "jp2" ? "JP2 file" : "codestream",
              static_cast<unsigned long long>(j["bytes"].get<uint64_t>()),
              j["complete"].get<bool>() ? "" : " (incomplete: no EOC or truncated)");
  std::printf("  image     %ux%u at (%u,%u), %zu component(s):", img["width"].get<uint32_t>(),
              img["height"].get<uint32_t>(), img["x0"].get<uint32_t>(), img["y0"].get<uint32_t>(),
              j["components"].size());
  size_t shown = 0;
  for (const auto& k : j["components"]) {
    if (++shown > 8) {
      std::printf(" ...");
      break;
    }
    std::printf(" %s%u", k["signed"].get<bool>() ? "s" : "u", k["precision"].get<uint32_t>());
    if (k["dx"] != 1 || k["dy"] != 1)
      std::printf("(%ux%u)", k["dx"].get<uint32_t>(), k["dy"].get<uint32_t>());
  }
  std::printf("\n");
  if (j.contains("jp2")) {
    std::printf("  colour   ");
    for (const auto& colr : j["jp2"]["colr"]) std::printf(" %s", colr.get<std::string>().c_str());
    if (j["jp2"]["palette"].get<bool>()) std::printf(", palette");
    std::printf("\n");
  }
  std::printf("  tiles     %ux%u at (%u,%u): %ux%u = %u, %zu tile-part(s)\n",
              t["width"].get<uint32_t>(), t["height"].get<uint32_t>(), t["x0"].get<uint32_t>(),
              t["y0"].get<uint32_t>(), t["across"].get<uint32_t>(), t["down"].get<uint32_t>(),
              t["count"].get<uint32_t>(), t["tile_parts"].get<size_t>());
  std::printf("  coding    %s %s, %u levels, %u layer(s), %s, MCT %s, code-blocks %ux%u",
              c["wavelet"].get<std::string>().c_str(),
              c["reversible"].get<bool>() ? "reversible" : "irreversible",
              c["levels"].get<uint32_t>(), c["layers"].get<uint32_t>(),
              c["progression"].get<std::string>().c_str(), c["mct"].get<bool>() ? "on" : "off",
              c["code_block"][0].get<uint32_t>(), c["code_block"][1].get<uint32_t>());
  if (c["code_block_style"] != 0)
    std::printf(" (%s)", cblk_style_names(c["code_block_style"].get<uint8_t>()).c_str());
  std::printf("\n");
  if (!c["precincts"].empty()) {
    std::printf("  precincts");
    for (const auto& p : c["precincts"])
      std::printf(" %ux%u", p[0].get<uint32_t>(), p[1].get<uint32_t>());
    std::printf(" (highest resolution first)\n");
  }
  std::string markers;
  for (const char* name : {"sop", "eph"})
    if (c[name].get<bool>()) markers += std::string(" ") + name;
  for (const auto& [name, v] : j["markers"].items())
    if (v.is_boolean() && v.get<bool>()) markers += " " + name;
  for (auto& ch : markers) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (!markers.empty()) std::printf("  markers  %s\n", markers.c_str());
  for (const auto& text : j["markers"]["com"])
    std::printf("  comment   %s\n", text.get<std::string>().c_str());
}

struct InfoOptions {
  std::string path;
  bool tiles = false, markers = false, json = false;
};

int run_info(const InfoOptions& o) {
  const std::vector<uint8_t> data = read_file(o.path);
  std::span<const uint8_t> cs(data);
  uint64_t base = 0;
  std::optional<Jp2Header> jp2;
  if (is_jp2(data)) {
    jp2 = read_jp2(data);
    base = jp2->codestream_offset;
    cs = cs.subspan(jp2->codestream_offset, jp2->codestream_length);
  }
  const Codestream codestream = read_codestream(cs);
  if (o.json) {
    std::printf("%s\n", summary_json(o.path, data.size(), jp2, codestream).dump(2).c_str());
  } else if (o.tiles || o.markers) {
    if (jp2) print_jp2(*jp2);
    print_codestream(codestream, base, o.tiles);
  } else {
    print_summary(summary_json(o.path, data.size(), jp2, codestream));
  }
  return 0;
}

const bool registered = gj2k::cli::register_command(
    {"info", "Describe a JP2 file or JPEG 2000 codestream (summary, --markers, --tiles, --json)",
     [](CLI::App& app) -> gj2k::cli::RunFn {
       auto o = std::make_shared<InfoOptions>();
       app.add_option("input", o->path, "JP2 file or codestream (.jp2, .j2k, .j2c)")->required();
       app.add_flag("--markers", o->markers, "list boxes and main-header markers with offsets");
       app.add_flag("--tiles", o->tiles, "as --markers, plus every tile and tile-part");
       app.add_flag("--json", o->json, "the summary as JSON");
       return [o] { return run_info(*o); };
     }});

}  // namespace
