// gj2k::io: reading and writing images in TIFF, PNG, PNM (PBM/PGM/PPM/PAM), PGX and raw planar
// form; reading BMP, TGA and JPEG.
//
// Every reader checks its input and throws gj2k::Error naming the file, the problem and where
// (byte offset or line): kFormat for a violated format, kTruncated for data that ends early,
// kUnsupported for valid input gj2k does not handle, kIo when a file cannot be opened, read or
// written. No reader allocates more than its input can justify. Images read from files have
// their origin at (0, 0) and every component at subsampling 1x1.
//
// Writers refuse, with Error(kUnsupported), images their format cannot hold (for example signed
// samples to PNM, mixed precisions to TIFF); they never change sample values. Writers ignore the
// image origin (x0, y0): the files hold each component's own width x height.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gj2k/decoder.h"
#include "gj2k/encoder.h"
#include "gj2k/image.h"

namespace gj2k::io {

enum class Format {
  kTiff,       // .tif .tiff
  kPnm,        // .pnm .pbm .pgm .ppm
  kPgx,        // .pgx
  kRaw,        // .raw: planar, big-endian samples
  kRawLittle,  // .rawl: planar, little-endian samples
  kPng,        // .png
  kBmp,        // .bmp (read only)
  kTga,        // .tga (read only)
  kJpeg,       // .jpg .jpeg (read only)
};

// The format named by a path's extension (case-insensitive); nullopt when none fits.
std::optional<Format> format_from_extension(const std::filesystem::path& path);

enum class TiffCompression { kNone, kDeflate, kLzw, kPackBits };

// Geometry of raw planar data, which holds no header: component 0's samples row by row, then
// component 1's, ... Each sample takes 1 byte when precision <= 8, else 2 bytes (byte order
// from big_endian). Signed samples are two's complement in their 1 or 2 bytes.
struct RawGeometry {
  uint32_t width = 0, height = 0;
  uint32_t num_components = 1;
  uint32_t precision = 8;  // 1..16
  bool is_signed = false;
  bool big_endian = true;
};

struct ReadOptions {
  std::optional<RawGeometry> raw;  // required for .raw/.rawl (byte order from the extension)
  // Refuse (Error kResource) a compressed image (TIFF) of more samples than this; the default
  // is the decoder's (gj2k::default_max_samples()). Uncompressed formats are bounded by their
  // file size.
  uint64_t max_samples = default_max_samples();
};

struct WriteOptions {
  TiffCompression tiff_compression = TiffCompression::kNone;
  bool pgx_little_endian = false;  // PGX "LM" instead of "ML"
};

// ---- dispatch by extension ------------------------------------------------------------------

// Reads an image, format from the extension. Throws Error(kInvalidArgument) for an unknown
// extension or a raw file without options.raw. Every failure is a gj2k::Error naming the file
// (allocation failures: kResource).
Image read_image(const std::filesystem::path& path, const ReadOptions& options = {});

// Checks, before anything is coded, that `path` can take an image: a known extension
// (Error kInvalidArgument) in an existing folder (Error kIo). Returns the format.
Format check_output(const std::filesystem::path& path);

// Writes an image, format from the extension. A .pgx path with several components writes one
// file per component, component k to "<stem>_<k>.pgx" beside it (see write_pgx). Every file is
// written under a temporary name in its folder and renamed when complete: a failed or killed
// write leaves no partial file under the output's name.
void write_image(const Image& image, const std::filesystem::path& path,
                 const WriteOptions& options = {});

// ---- whole files into memory ----------------------------------------------------------------

// Bytes that a reader fills: resize(n) does not zero them.
using FileBytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;
// The bytes of a file, in a std::vector<uint8_t> or (Bytes = FileBytes) a buffer that is not
// zero-filled before the read writes it. Throws Error(kIo) naming the file when it cannot be
// read.
template <class Bytes = std::vector<uint8_t>>
Bytes read_file(const std::filesystem::path& path);
extern template std::vector<uint8_t> read_file(const std::filesystem::path&);
extern template FileBytes read_file(const std::filesystem::path&);
// Writes bytes to a file (replacing it, through a temporary name as write_image). Throws
// Error(kIo) naming the file on failure.
void write_file(const std::filesystem::path& path, std::span<const uint8_t> bytes);

// ---- TIFF (libtiff) -------------------------------------------------------------------------
// Reads the first image of a TIFF: 1..16 bits per sample, any number of samples per pixel,
// contiguous or planar, strips or tiles, any compression libtiff decodes except JPEG/OJPEG.
// MinIsWhite is inverted to MinIsBlack; a palette is expanded to RGB (8-bit components for
// palettes of <= 8 bits, else 16-bit); extra samples marked associated or unassociated alpha
// become Component::is_alpha; SAMPLEFORMAT_INT gives signed components; an ICC profile gives
// ColorSpace::kICC. Refuses float samples, YCbCr, more than 16 bits per sample.
// `name` is used in error messages. What is allocated is bounded by what the data can hold
// (the compression's best ratio) and by max_samples; strips and tiles are decoded into it as
// they come, so data that fails early costs little.
Image read_tiff(std::span<const uint8_t> data, const std::string& name = "<memory>",
                uint64_t max_samples = default_max_samples());
Image read_tiff(const std::filesystem::path& path, uint64_t max_samples = default_max_samples());
// Writes a contiguous TIFF with strips. Every component must share precision (1..16),
// signedness and subsampling 1x1. Photometric is RGB when the first three components are not
// alpha and the colour space is not grey, else MinIsBlack; the rest are extra samples
// (unassociated alpha where Component::is_alpha, else unspecified). An alpha component among
// the photometric samples is refused.
std::vector<uint8_t> encode_tiff(const Image& image, TiffCompression compression,
                                 const std::string& name = "<memory>");
void write_tiff(const Image& image, const std::filesystem::path& path,
                TiffCompression compression = TiffCompression::kNone);

// ---- PNM (netpbm) ---------------------------------------------------------------------------
// Reads P1..P7 (P7: see read_pam): maxval 1..65535, precision = bits needed for maxval, samples
// kept as they are (a sample above maxval is an error). 16-bit binary samples are big-endian.
// Bitmaps (P1/P4, where 1 is black) become 1-bit greyscale with 0 black. Comments are skipped.
Image read_pnm(std::span<const uint8_t> data, const std::string& name = "<memory>");
Image read_pnm(const std::filesystem::path& path);
// The samples of a binary P5/P6 file of maxval 255 or 65535 as the file stores them
// (pixel-interleaved rows, 16-bit samples big-endian), with the image they belong to (no
// samples: make_layout), for Encoder::encode(layout, InputBuffer): no int32 image is made.
// nullopt for any other PNM (text, bitmaps, PAM, other maxvals, whose samples need checking,
// a header past the first 64 KiB, a file whose size is unknown): read_pnm reads those. Throws
// as read_pnm does for a bad header, a truncated file or an i/o error.
struct PnmRows {
  Image layout;
  std::vector<uint8_t, DefaultInitAllocator<uint8_t>> bytes;
  InputBuffer buffer() const;  // over `bytes`, valid while they are
};
std::optional<PnmRows> read_pnm_rows(const std::filesystem::path& path);
// Writes P5 (1 component) or P6 (3 components) with maxval 2^precision - 1, or P4 when
// `bitmap` is set (1 component of precision 1). Components must be unsigned, of one
// precision 1..16 and one size.
std::vector<uint8_t> encode_pnm(const Image& image, bool bitmap = false,
                                const std::string& name = "<memory>");
// Writes P4 for .pbm, PAM (P7) for .pam, else as encode_pnm.
void write_pnm(const Image& image, const std::filesystem::path& path);
// The header write_pnm writes for `image` (its samples are not read) to a .pgm/.ppm/.pnm path,
// when the format holds the image: the file is then that header followed by the samples
// pixel-interleaved, 1 byte each, or 2 big-endian past 8 bits (what Decoder::decode_into writes
// into an OutputBuffer of SampleType::k8 / k16, interleaved, big_endian). nullopt for other
// extensions and for images write_pnm refuses.
std::optional<std::string> pnm_header(const Image& image, const std::filesystem::path& path);

// PAM (P7): WIDTH, HEIGHT, DEPTH (1..16384 components), MAXVAL (1..65535), optional TUPLTYPE;
// samples pixel-interleaved, 16-bit big-endian when MAXVAL > 255. TUPLTYPE GRAYSCALE* or
// BLACKANDWHITE* gives kGrey, RGB* kSRGB, and *_ALPHA marks the last component as alpha.
// read_pnm reads P7 too.
Image read_pam(std::span<const uint8_t> data, const std::string& name = "<memory>");
// Any number of unsigned components of one precision (1..16) and size; alpha only as the last
// component after 1 (grey) or 3 (RGB) colour components.
std::vector<uint8_t> encode_pam(const Image& image, const std::string& name = "<memory>");

// ---- PGX (JPEG 2000 conformance) ------------------------------------------------------------
// Reads one component: header "PG ML|LM [+|-]<precision> <width> <height>" (whitespace between
// fields may vary, the sign may be absent (unsigned) or attached to the precision; the line may
// end in CR LF), then width*height samples of 1 byte (precision <= 8) or 2 bytes, big-endian
// (ML) or little-endian (LM). Precision 1..16; a sample outside its precision is an error.
Image read_pgx(std::span<const uint8_t> data, const std::string& name = "<memory>");
Image read_pgx(const std::filesystem::path& path);
// One component as a PGX file; the header is "PG ML|LM +|- <precision> <width> <height>\n",
// the layout OpenJPEG's opj_decompress writes.
std::vector<uint8_t> encode_pgx(const Component& component, bool little_endian = false,
                                const std::string& name = "<memory>");
// Writes a one-component image to `path`; an image of N > 1 components to "<stem>_<k>.pgx"
// for k = 0..N-1 in path's folder. Returns the paths written.
std::vector<std::filesystem::path> write_pgx(const Image& image, const std::filesystem::path& path,
                                             bool little_endian = false);

// ---- raw planar samples ---------------------------------------------------------------------
// Reads raw planar samples of the given geometry; the data size must match it exactly.
Image read_raw(std::span<const uint8_t> data, const RawGeometry& geometry,
               const std::string& name = "<memory>");
Image read_raw(const std::filesystem::path& path, const RawGeometry& geometry);
// Writes every component planar, 1 or 2 bytes per sample by each component's precision (1..16).
std::vector<uint8_t> encode_raw(const Image& image, bool big_endian = true,
                                const std::string& name = "<memory>");
void write_raw(const Image& image, const std::filesystem::path& path, bool big_endian = true);

// ---- PNG (libpng) ---------------------------------------------------------------------------
// Reads grey, grey + alpha, RGB, RGBA and palette PNGs of any bit depth, interlaced or not:
// palettes (and tRNS transparency) are expanded to RGB(A) 8-bit; grey below 8 bits keeps its
// precision (1, 2 or 4); a uniform sBIT below the bit depth gives that precision (samples
// shifted back down); an iCCP profile gives ColorSpace::kICC, else kGrey or kSRGB. 16-bit
// samples are exact. Alpha becomes Component::is_alpha.
Image read_png(std::span<const uint8_t> data, const std::string& name = "<memory>");
Image read_png(const std::filesystem::path& path);
// Writes 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA) unsigned components of one size and
// one precision 1..16. Grey of 1, 2 or 4 bits is written at that depth; other precisions at the
// next depth of 8 or 16 bits, scaled up, with sBIT holding the precision (read_png undoes it).
// An ICC profile (kICC) is written as iCCP.
std::vector<uint8_t> encode_png(const Image& image, const std::string& name = "<memory>");
void write_png(const Image& image, const std::filesystem::path& path);

// ---- BMP, TGA, JPEG (read only, as opj_compress reads them) ----------------------------------
// BMP: BITMAPINFOHEADER and its V4/V5 extensions (OS/2 core headers too), bottom-up or
// top-down, 1/4/8-bit palettes (uncompressed, RLE4, RLE8), 16 and 32-bit with or without
// BITFIELDS masks (a component per mask, precision = its bit count; an alpha mask adds an alpha
// component), 24-bit. Palette images whose colours are all grey give one grey component.
Image read_bmp(std::span<const uint8_t> data, const std::string& name = "<memory>");
// TGA: uncompressed and RLE colour-mapped (8-bit indices into a 24/32-bit map), true colour
// (16, 24, 32 bits; alpha from the descriptor's attribute bits) and greyscale (8-bit) images,
// either origin.
Image read_tga(std::span<const uint8_t> data, const std::string& name = "<memory>");
// JPEG (libjpeg-turbo): the decoded 8-bit pixels, grey (1 component), RGB (3; YCbCr converted)
// or CMYK (4, as stored); an embedded ICC profile gives ColorSpace::kICC.
Image read_jpeg(std::span<const uint8_t> data, const std::string& name = "<memory>");

}  // namespace gj2k::io
