// What the decoder does to an image after the codestream: JP2 palette (pclr + cmap), channel
// definitions (cdef), upsampling of subsampled components, sYCC to RGB (ISO/IEC 15444-1
// Annex I.5.3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gj2k/image.h"

namespace gj2k::codec {

// The colour description of a JP2 header, independent of how the boxes were parsed.
struct Jp2Color {
  ColorSpace color_space = ColorSpace::kUnknown;
  std::vector<uint8_t> icc_profile;
  // pclr (I.5.3.4): entries x columns, each column with its precision and signedness.
  struct PaletteColumn {
    uint32_t precision = 8;
    bool is_signed = false;
    std::vector<int32_t> values;  // one per entry
  };
  std::vector<PaletteColumn> palette;  // empty: no palette
  // cmap (I.5.3.5): one entry per output channel.
  struct Mapping {
    uint16_t component = 0;  // codestream component
    uint8_t type = 0;        // 0 direct use, 1 palette mapping
    uint8_t column = 0;      // palette column for type 1
  };
  std::vector<Mapping> cmap;
  // cdef (I.5.3.6): channel index, type (0 colour, 1 opacity, 2 premultiplied opacity),
  // association (0 whole image, 1..n colour n, 0xFFFF none).
  struct Channel {
    uint16_t index = 0, type = 0, association = 0;
  };
  std::vector<Channel> cdef;
  // CIELab (colr enumerated 14): RL, OL, RA, OA, RB, OB, IL from the box; empty: defaults.
  std::vector<uint32_t> lab;
};

// Expands a palette: the output has one component per cmap entry (I.5.3.4/5). Palette
// indices outside the palette are clamped to its last entry. Throws Error(kFormat) when cmap
// names a missing component or column.
void apply_palette(Image& image, const Jp2Color& color);

// Orders channels by their cdef association (colour 1, 2, 3, ... first, then the rest) and marks
// opacity channels as alpha (I.5.3.6).
void apply_channel_definitions(Image& image, const Jp2Color& color);

// Replicates every subsampled component to the image grid (dx = dy = 1): grid point x shows
// sample floor(x / dx) - ceil(x0 / dx). Grid points before a component's first sample show
// that sample, or 0 with `zero_uncovered` (how the 15444-4 references of section E show them).
void upsample(Image& image, bool zero_uncovered = false);

// sYCC (Y, Cb, Cr in components 0..2, equal sizes) to sRGB with the ITU-R BT.601 full-range
// matrix; upsamples first when chroma is subsampled. Components past 2 are kept.
void sycc_to_rgb(Image& image);

// What opj_decompress does to a decoded image before writing it (DecodeParams::render):
// sYCC (also three components with subsampled chroma and no stated colour space) and e-sYCC
// to RGB with OpenJPEG's arithmetic, CMYK to 8-bit RGB unless keep_cmyk, then components of
// mixed subsampling upsampled to the image grid (all subsampled alike: left at their size, as
// opj_decompress writes them, the image area becoming their grid with dx = dy = 1).
// CIELab goes to 16-bit sRGB through lcms2 (cielab_to_srgb_lcms) with the colr box's ranges
// `lab` (empty: the defaults). Conversions it cannot make (other chroma subsamplings,
// components of different sizes, CIELab without lcms2) leave the image as it is and add a line
// to `warnings`. With convert_colour false (a subset of the components was decoded) only the
// sizes are handled.
void render_like_openjpeg(Image& image, bool keep_cmyk, bool convert_colour,
                          std::vector<std::string>& warnings,
                          const std::vector<uint32_t>& lab = {});

}  // namespace gj2k::codec
