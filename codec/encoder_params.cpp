// EncodeParams validation and the output-format choice (include/gj2k/encoder.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "codec/encoder_internal.h"
#include "gj2k/encoder.h"
#include "gj2k/error.h"

namespace gj2k {
namespace {

[[noreturn]] void refuse(const std::string& option, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument, option + ": " + why);
}

bool is_pow2(uint32_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

std::string num(double v) {
  std::string s = std::to_string(v);
  while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.')) {
    const bool dot = s.back() == '.';
    s.pop_back();
    if (dot) break;
  }
  return s;
}

}  // namespace

FileFormat format_from_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (ext == ".jp2") return FileFormat::kJp2;
  if (ext == ".j2k" || ext == ".j2c" || ext == ".jpc") return FileFormat::kJ2k;
  refuse("-o", "output '" + path.string() +
                   "' must end in .jp2 (JP2 file) or .j2k/.j2c/.jpc (codestream)");
}

namespace codec {

int effective_layers(const EncodeParams& p) {
  const size_t targets = std::max({p.rates.size(), p.bpp.size(), p.psnr.size()});
  if (p.layers > 0) return p.layers;
  return targets > 0 ? static_cast<int>(targets) : 1;
}

bool effective_mct(const EncodeParams& p, const Image& image) {
  if (p.mct == 0) return false;
  const auto& c = image.components;
  const bool compatible = c.size() >= 3 && c[0].dx == c[1].dx && c[0].dx == c[2].dx &&
                          c[0].dy == c[1].dy && c[0].dy == c[2].dy;
  if (p.mct == 1) return true;  // validate() has refused incompatible images
  return compatible && c[0].precision == c[1].precision && c[0].precision == c[2].precision &&
         c[0].is_signed == c[1].is_signed && c[0].is_signed == c[2].is_signed;
}

int precinct_exponent(const EncodeParams& p, int levels, int r, bool horizontal) {
  if (p.precincts.empty()) return 15;
  // Entry 0 is for the highest resolution (r = levels), entry k for r = levels - k.
  const size_t k = static_cast<size_t>(levels - r);
  const auto& e = p.precincts[std::min(k, p.precincts.size() - 1)];
  const uint32_t v = horizontal ? e.first : e.second;
  int ex = 0;
  while ((1u << ex) < v && ex < 15) ++ex;
  return ex;
}

int exponent_of(uint32_t pow2) {
  int e = 0;
  while ((1u << e) < pow2) ++e;
  return e;
}

}  // namespace codec

namespace {

// The image itself (geometry, sample ranges), with the origin (x0, y0) applied.
void validate_image(const EncodeParams& p, const Image& image_in, uint32_t x0, uint32_t y0,
                    bool samples, bool buffers) {
  if (uint64_t{x0} + image_in.width() > UINT32_MAX || uint64_t{y0} + image_in.height() > UINT32_MAX)
    refuse("--image-origin", "the image would extend past the 32-bit reference grid");
  if (image_in.components.empty()) refuse("input", "the image has no components");
  if (image_in.components.size() > 16384)
    refuse("input", "the image has " + std::to_string(image_in.components.size()) +
                        " components, JPEG 2000 allows at most 16384");
  codec::validate_layout(image_in, buffers);
  if (samples && buffers) codec::validate_samples(image_in);
  if (p.set_image_origin) {
    for (size_t c = 0; c < image_in.components.size(); ++c) {
      const Component& comp = image_in.components[c];
      if (component_extent(x0, x0 + image_in.width(), comp.dx) != comp.width ||
          component_extent(y0, y0 + image_in.height(), comp.dy) != comp.height)
        refuse("--image-origin", "moving the origin changes the size of subsampled component " +
                                     std::to_string(c) + "; choose a multiple of its subsampling");
    }
  }
  for (size_t c = 0; c < image_in.components.size(); ++c) {
    const Component& comp = image_in.components[c];
    if (comp.precision > kMaxFilePrecision)
      throw Error(ErrorCode::kUnsupported,
                  "input: component " + std::to_string(c) + " has " +
                      std::to_string(comp.precision) + " bits; gj2k encodes at most " +
                      std::to_string(kMaxFilePrecision) + " bits per sample");
  }
}

// Levels, code-blocks, precincts, code-block style, guard bits, threads, base step, order.
void validate_coding(const EncodeParams& p) {
  if (p.levels < 0 || p.levels > 32)
    refuse("--levels", std::to_string(p.levels) + " is out of 0..32 (15444-1 A.6.1)");
  for (auto [v, what] : {std::pair{p.cblk_width, "width"}, std::pair{p.cblk_height, "height"}}) {
    if (!is_pow2(v) || v < 4 || v > 1024)
      refuse("--cblk", std::string("code-block ") + what + " " + std::to_string(v) +
                           " must be a power of two in 4..1024");
  }
  if (uint64_t{p.cblk_width} * p.cblk_height > 4096)
    refuse("--cblk", std::to_string(p.cblk_width) + "x" + std::to_string(p.cblk_height) +
                         " has more than 4096 samples (15444-1 A.6.1: xcb + ycb <= 12)");
  for (size_t i = 0; i < p.precincts.size(); ++i) {
    const auto [w, h] = p.precincts[i];
    if (!is_pow2(w) || !is_pow2(h) || w > 32768 || h > 32768)
      refuse("--precincts",
             std::to_string(w) + "x" + std::to_string(h) + " must be powers of two up to 32768");
    // Precinct exponent 0 is allowed only for the lowest resolution (A.6.1, Table A.21).
    const int r = p.levels - static_cast<int>(i);
    if ((w < 2 || h < 2) && r > 0)
      refuse("--precincts", std::to_string(w) + "x" + std::to_string(h) +
                                ": size 1 is allowed only for the lowest resolution");
  }
  if (p.cblk_style & ~entropy::cblk_style::kAll) refuse("--modes", "unknown code-block style bits");
  if (p.guard_bits < 0 || p.guard_bits > 7)
    refuse("--guard-bits", std::to_string(p.guard_bits) + " is out of 0..7");
  if (p.threads < 0) refuse("--threads", "must be >= 0 (0 = all cores)");
  if (!(p.base_step >= 0) || !std::isfinite(p.base_step))
    refuse("--base-step", "must be a finite step >= 0 (0 = default)");
  if (static_cast<int>(p.order) > 4) refuse("--order", "unknown progression order");
}

// Rate targets: one kind, one per layer, monotonic.
void validate_rates(const EncodeParams& p) {
  const int kinds = !p.rates.empty() + !p.bpp.empty() + !p.psnr.empty();
  if (kinds > 1) refuse("--rate", "give only one of --rate, --bpp and --psnr");
  const size_t targets = std::max({p.rates.size(), p.bpp.size(), p.psnr.size()});
  if (p.layers < 0 || p.layers > 65535)
    refuse("--layers", std::to_string(p.layers) + " is out of 1..65535");
  if (p.layers > 0 && targets > 0 && static_cast<size_t>(p.layers) != targets)
    refuse("--layers", std::to_string(p.layers) + " layers but " + std::to_string(targets) +
                           " rate targets; give one target per layer or leave --layers out");
  for (size_t i = 0; i < p.rates.size(); ++i) {
    const double r = p.rates[i];
    if (!(r >= 0)) refuse("--rate", num(r) + " is not a compression ratio (>= 1)");
    const bool lossless = r <= 1;
    if (lossless && i + 1 != p.rates.size())
      refuse("--rate", "ratio " + num(r) + " (lossless) may only be the last layer's");
    if (i > 0 && !lossless && !(r < p.rates[i - 1]))
      refuse("--rate", "ratios must decrease layer by layer (" + num(p.rates[i - 1]) + " then " +
                           num(r) + ")");
  }
  for (size_t i = 0; i < p.bpp.size(); ++i) {
    if (!(p.bpp[i] > 0)) refuse("--bpp", num(p.bpp[i]) + " must be > 0");
    if (i > 0 && !(p.bpp[i] > p.bpp[i - 1]))
      refuse("--bpp", "bits per pixel must increase layer by layer");
  }
  for (size_t i = 0; i < p.psnr.size(); ++i) {
    if (!(p.psnr[i] > 0)) refuse("--psnr", num(p.psnr[i]) + " must be > 0 dB");
    if (i > 0 && !(p.psnr[i] > p.psnr[i - 1]))
      refuse("--psnr", "PSNR values must increase layer by layer");
  }
}

// Multi-component transform.
void validate_mct(const EncodeParams& p, const std::vector<Component>& comps) {
  if (p.mct < -1 || p.mct > 1) refuse("--mct", "must be 0 or 1");
  if (p.mct == 1) {
    if (comps.size() < 3)
      refuse("--mct",
             "1 needs at least 3 components, the image has " + std::to_string(comps.size()));
    for (int c = 1; c < 3; ++c)
      if (comps[c].dx != comps[0].dx || comps[c].dy != comps[0].dy)
        refuse("--mct", "1 needs components 0..2 with the same subsampling (15444-1 G.2)");
  }
}

// Tiles, on the image whose origin is (ix0, iy0).
void validate_tiles(const EncodeParams& p, const Image& image_in, uint32_t ix0, uint32_t iy0) {
  if ((p.tile_width == 0) != (p.tile_height == 0))
    refuse("--tile", "give both a tile width and a tile height");
  if (p.tile_x0 > ix0 || p.tile_y0 > iy0)
    refuse("--tile-origin", "(" + std::to_string(p.tile_x0) + "," + std::to_string(p.tile_y0) +
                                ") must not lie right of or below the image origin (" +
                                std::to_string(ix0) + "," + std::to_string(iy0) +
                                ") (15444-1 A.5.1)");
  if (p.tile_width) {
    if (uint64_t{p.tile_x0} + p.tile_width <= ix0 || uint64_t{p.tile_y0} + p.tile_height <= iy0)
      refuse("--tile", "the first tile must overlap the image (XTOsiz + XTsiz > XOsiz, A.5.1)");
    const uint64_t ix1 = uint64_t{ix0} + image_in.width(), iy1 = uint64_t{iy0} + image_in.height();
    const uint64_t nx = (ix1 - p.tile_x0 + p.tile_width - 1) / p.tile_width;
    const uint64_t ny = (iy1 - p.tile_y0 + p.tile_height - 1) / p.tile_height;
    if (nx * ny > 65535)
      refuse("--tile", std::to_string(nx * ny) + " tiles; a codestream holds at most 65535");
  } else if (p.tile_x0 || p.tile_y0) {
    // Without --tile the single tile covers the image from the tile origin; fine.
  }
}

// Tile-parts: TNsot <= 255; a bound that holds for any progression order.
void validate_tile_parts(const EncodeParams& p, const Image& image_in) {
  const int layers = codec::effective_layers(p);
  if (p.tile_parts == TilePartSplit::kResolution && p.levels + 1 > 255)
    refuse("--tile-parts", "R would need more than 255 tile-parts per tile");
  if (p.tile_parts == TilePartSplit::kLayer && layers > 255)
    refuse("--tile-parts",
           "L with " + std::to_string(layers) + " layers needs more than 255 tile-parts per tile");
  if (p.tile_parts == TilePartSplit::kComponent && image_in.components.size() > 255)
    refuse("--tile-parts", "C with " + std::to_string(image_in.components.size()) +
                               " components needs more than 255 tile-parts per tile");
}

// Progression order changes (POC, A.6.6).
void validate_progression_changes(const EncodeParams& p) {
  for (size_t i = 0; i < p.progression_changes.size(); ++i) {
    const ProgressionChange& pc = p.progression_changes[i];
    const std::string at = "progression change " + std::to_string(i) + ": ";
    if (pc.res_start >= pc.res_end || pc.res_start > 32 || pc.res_end > 33)
      refuse("--poc", at + "resolution range empty or out of 0..33");
    if (pc.comp_start >= pc.comp_end || pc.comp_end > 16384)
      refuse("--poc", at + "component range empty or out of 0..16384");
    if (pc.layer_end == 0 || pc.layer_end > 65535)
      refuse("--poc", at + "layer end out of 1..65535");
    if (static_cast<int>(pc.order) > 4) refuse("--poc", at + "unknown progression order");
  }
}

}  // namespace

namespace codec {

void validate(const EncodeParams& p, const Image& image_in, bool samples, bool buffers) {
  const uint32_t x0 = p.set_image_origin ? p.image_x0 : image_in.x0;
  const uint32_t y0 = p.set_image_origin ? p.image_y0 : image_in.y0;
  validate_image(p, image_in, x0, y0, samples, buffers);
  validate_coding(p);
  validate_rates(p);
  validate_mct(p, image_in.components);
  validate_tiles(p, image_in, x0, y0);
  validate_tile_parts(p, image_in);
  if (p.comment.size() > 65531) refuse("--comment", "longer than 65531 bytes");
  validate_progression_changes(p);
}

}  // namespace codec

void validate(const EncodeParams& p, const Image& image_in) {
  codec::validate(p, image_in, true);
}

}  // namespace gj2k
