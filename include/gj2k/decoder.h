// gj2k: decoding JPEG 2000 Part 1 codestreams (.j2k/.j2c) and JP2 files (ISO/IEC 15444-1).
//
//   gj2k::Decoder dec("in.jp2");             // or Decoder(bytes) from memory
//   gj2k::HeaderInfo info = dec.read_header();  // geometry without decoding
//   gj2k::DecodeParams params;  params.reduce = 1;
//   gj2k::Image image = dec.decode(params);
//   // or straight into your own 8/16/32-bit buffer, planar or interleaved:
//   std::optional<gj2k::Image> shape = dec.direct_output(params);  // geometry, no samples
//   gj2k::OutputBuffer out{pixels, bytes, gj2k::SampleType::k8, /*interleaved=*/true};
//   dec.decode_into(params, out);
//
// Every failure is a gj2k::Error whose message names what was wrong and where (the file when
// the decoder reads one, marker or box, byte offset, tile); allocation failures are
// Error(kResource). No other exception leaves these functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gj2k/batch.h"
#include "gj2k/error.h"
#include "gj2k/export.h"
#include "gj2k/image.h"

namespace gj2k {

// A rectangle on the full-resolution reference grid, half-open: [x0, x1) x [y0, y1).
struct Region {
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

enum class DecodeDevice { kAuto, kCpu, kGpu };

// The default DecodeParams::max_samples: physical memory / 32, at least 2^24. A decode peaks
// near 8 bytes per output sample (the output and one tile's coefficients at 4 bytes each), so
// the default keeps a decode within about a quarter of the memory: 4 Gsamples with 128 GiB,
// 512 Msamples with 16 GiB.
GJ2K_API uint64_t default_max_samples();

struct DecodeParams {
  // Discard the `reduce` highest resolution levels (0 = full resolution). The output area is
  // ceil(x / 2^reduce) of the image area (15444-1 B-14 applied to the image). Must not exceed
  // the smallest number of decomposition levels of any decoded tile-component.
  uint32_t reduce = 0;
  // Decode at most this many quality layers (0 = all).
  uint32_t max_layers = 0;
  // Decode only this area of the reference grid (full-resolution coordinates); the output
  // image is the intersection with the image area (scaled by reduce). Only code-blocks whose
  // wavelet support reaches the area are decoded.
  std::optional<Region> region;
  // Decode only this tile (index in raster order, 0-based); the output area is the tile's.
  std::optional<uint32_t> tile;
  // Decode only these components (codestream indices, output in this order). Empty: all.
  std::vector<uint32_t> components;
  // Resample subsampled components to the image grid (dx = dy = 1) by sample replication.
  bool upsample = false;
  // Render in sRGB: sYCC (JP2 colr 18) to RGB, upsampling chroma first when subsampled, and
  // images described by a restricted ICC profile (monochrome or matrix/TRC RGB) converted to
  // sRGB (grey stays one component). Other colour descriptions are left as they are.
  bool force_rgb = false;
  // Render the colour as opj_decompress does before it writes an image file (its color.c):
  // sYCC and e-sYCC to RGB (4:4:4, 4:2:2 and 4:2:0 chroma upsampled; three components with
  // subsampled chroma and no colour space are taken as sYCC, as OpenJPEG takes them), CMYK to
  // 8-bit RGB (kRgb; kRgbKeepCmyk keeps the four inks, as opj_decompress writes TIFF), then
  // components of mixed subsampling upsampled to the image grid (all subsampled alike: kept
  // at their size, as opj_decompress writes them). ICC profiles stay attached
  // (Image::icc_profile; force_rgb converts restricted ones); CIELab is left as L*a*b*
  // samples with a warning (OpenJPEG converts it through lcms2). With `components` given,
  // only the sizes are handled (no colour conversion). kNone: the components as
  // the codestream and JP2 boxes give them. The CLI uses kRgb for PNM and kRgbKeepCmyk for
  // TIFF outputs.
  enum class Render { kNone, kRgb, kRgbKeepCmyk };
  // Convert images described by an ICC profile (colr method 2) to sRGB through lcms2, as
  // opj_decompress does by default (RGB and grey profiles; grey becomes three components),
  // before the rendering above. Off by default: the profile stays with the image. Without
  // lcms2 in the build: Error(kUnsupported).
  bool icc_to_srgb = false;
  Render render = Render::kNone;
  // On a truncated or damaged stream, decode what it holds instead of throwing, as OpenJPEG's
  // non-strict mode (opj_decompress -allow-partial) does: the code-blocks of the packet in
  // which the data ends, from the first codeword segment that runs past it, decode as zero;
  // everything read before decodes. Tiles without any tile-part are 0 (with or without it).
  bool allow_partial = false;
  // Worker threads for decoding (0 = all hardware threads).
  uint32_t threads = 0;
  // Where Tier-1 and the inverse transforms run (code-block decoding, dequantization, DWT,
  // RCT/ICT, DC shift, clipping; parsing and Tier-2 stay on the CPU). kAuto: the GPU when one
  // is present and the output (all components at the decoded resolution; a region by its own
  // area) is large enough for the GPU to be faster than `threads` CPU threads, counting CUDA
  // start-up for a process's first GPU decode (`gj2k device` prints the figures and the
  // break-even sizes); else the CPU. kGpu without a GPU throws Error(kDevice).
  DecodeDevice device = DecodeDevice::kAuto;
  // Refuse (Error kResource) a decode whose output, or one tile's coefficients, would hold
  // more samples than this (all components together): a guard against headers that describe
  // absurd images. The default depends on the machine (default_max_samples()).
  uint64_t max_samples = default_max_samples();
  // JP2 only: apply the palette (pclr/cmap) and channel definitions (cdef) (default). When
  // false, the codestream's components are returned as they are.
  bool apply_jp2_color = true;
  // Return the codestream components without the inverse multiple component transform (RCT
  // or ICT, Annex G): what ISO/IEC 15444-4 class 0 compares. For diagnostics.
  bool skip_mct = false;
  // Called from the coding thread with a stage name and the fraction done (0..1). Return false
  // to cancel: the call then throws Error(kCancelled). May be empty. Must not throw.
  std::function<bool(const char* stage, double fraction)> progress;
  // Called (on the calling thread, before decode returns or throws) once per distinct warning:
  // a quirk of the input accepted the way OpenJPEG accepts it (e.g. more coding passes than a
  // code-block's bit-planes allow, TPsot == TNsot, a JP2 pclr without cmap), or data skipped
  // under allow_partial. One line each, naming what and where. Null: warnings are dropped.
  std::function<void(const std::string&)> on_warning;
};

struct ComponentInfo {
  uint32_t dx = 1, dy = 1;
  uint32_t precision = 8;
  bool is_signed = false;
  uint32_t width = 0, height = 0;  // at full resolution
};

// What read_header() learns from the main header (and JP2 boxes) without decoding.
struct HeaderInfo {
  bool is_jp2 = false;
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // image area on the reference grid
  uint32_t tile_x0 = 0, tile_y0 = 0, tile_width = 0, tile_height = 0;
  uint32_t num_tiles_x = 0, num_tiles_y = 0;
  std::vector<ComponentInfo> components;  // codestream components
  uint32_t levels = 0;                    // decomposition levels of the main COD
  uint32_t min_levels = 0;                // smallest levels of any component in main COD/COC
  uint32_t layers = 0;                    // quality layers of the main COD
  bool reversible = false;                // main COD transform is 5/3
  uint32_t progression = 0;  // main COD progression order, numbered as Table A.16 (0 = LRCP)
  ColorSpace color_space = ColorSpace::kUnknown;
  uint32_t output_components = 0;    // after JP2 palette/cdef (= components.size() for .j2k)
  std::vector<uint8_t> icc_profile;  // JP2 colr ICC profile bytes when color_space == kICC
};

// A caller-owned buffer that Decoder::decode_into or copy_to writes an output image into.
// Sample (x, y) of output component k lies at
//   data + k * plane_stride + y * row_stride + x * sample bytes            (planar)
//   data + y * row_stride + (x * components + k) * sample bytes            (interleaved)
// Every sample is stored as its value in the sample type's width, two's complement for signed
// components, exactly (a component whose precision exceeds the width is refused, never
// scaled). Interleaved buffers need components of one size.
struct OutputBuffer {
  void* data = nullptr;
  size_t size = 0;  // bytes available from data
  SampleType type = SampleType::k8;
  bool interleaved = false;
  bool big_endian = false;  // byte order of 16/32-bit samples (false: little-endian, the host's)
  size_t row_stride = 0;    // bytes; 0: packed rows of the widest component
  size_t plane_stride = 0;  // planar: bytes between planes; 0: row_stride * the tallest height
};

// The bytes `layout` (its data and size are not read) needs for the components of `image`
// (their samples are not read). Throws Error(kInvalidArgument) for strides below a row or a
// plane, an interleaved layout of components of different sizes, or a component whose
// precision exceeds the sample type.
GJ2K_API size_t output_bytes(const Image& image, const OutputBuffer& layout);

// Writes `image` into `out` as OutputBuffer describes. Throws what output_bytes throws,
// Error(kInvalidArgument) for null data, and Error(kBufferTooSmall) when out.size is below
// output_bytes.
GJ2K_API void copy_to(const Image& image, const OutputBuffer& out);

class GJ2K_API Decoder {
 public:
  // Reads the whole file. Throws Error(kIo) when it cannot be read.
  explicit Decoder(const std::filesystem::path& path);
  // Copies the bytes.
  explicit Decoder(std::span<const uint8_t> bytes);
  explicit Decoder(std::vector<uint8_t> bytes);
  ~Decoder();
  Decoder(Decoder&&) noexcept;
  Decoder& operator=(Decoder&&) noexcept;

  // Parses the JP2 boxes (if any) and the main header. Cheap; idempotent.
  HeaderInfo read_header();
  // Decodes with the given parameters. May be called more than once.
  Image decode(const DecodeParams& params = {});

  // What decode(params) returns, without samples, known from the headers alone when the
  // decode needs nothing done to the whole image after its tiles: no JP2 palette or channel
  // definitions applied, no colour conversion (force_rgb, icc_to_srgb, a render that converts
  // sYCC, e-sYCC, CMYK or CIELab), no upsampling or render of subsampled components. Then
  // decode_into places every tile straight into the caller's buffer. nullopt otherwise (the
  // output is known after decoding). Throws as decode does for bad parameters.
  std::optional<Image> direct_output(const DecodeParams& params = {});

  // Decodes into a caller's buffer, the samples identical to copy_to(decode(params), out).
  // When direct_output(params) has a value, each tile's final samples go straight into `out`
  // (on the GPU path packed on the device, so that only the packed bytes come down) and no
  // image of int32 samples is made; otherwise decode() then copy_to. The layout and size are
  // checked before any tile is decoded where direct_output is known. Returns the output's
  // description (decode's image without samples). Throws what decode and copy_to throw; after
  // a failure the buffer's bytes are unspecified. Bytes of `out` that hold no sample (row and
  // plane padding) are not written.
  Image decode_into(const DecodeParams& params, const OutputBuffer& out);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Convenience: decode a file or a buffer in one call.
GJ2K_API Image decode_file(const std::filesystem::path& path, const DecodeParams& params = {});
GJ2K_API Image decode_memory(std::span<const uint8_t> bytes, const DecodeParams& params = {});

// Decodes many codestreams or JP2 files in memory with the same parameters; result k is
// stream k's image, or its error (whose message starts with "stream k: "), and one bad stream
// never loses the others. Equal to decode_memory of each stream, sample for sample.
// Threads (params.threads, 0 = all hardware threads): streams of fewer than 2^24 samples (all
// components at full resolution) decode several at once, min(threads, streams) of them, each
// on threads / that many, on the device the cost model of DecodeParams::device picks for that
// share (at most 8 on the GPU at once, each on threads / 8: their serial CPU parts and short
// kernels overlap); a larger stream waits for those in flight and decodes alone on all the threads.
// Why: a decode has serial parts (parsing, Tier-2, the output and its colour) that leave threads
// idle; streams side by side fill them, and each decode's own team synchronises less. Measured on
// two cores with 2560x1600 RGB photos, two at a time on one thread each was never slower than one
// after the other on both, and faster for 9/7. Memory: the streams in flight each hold their
// decode's working set. params.progress and params.on_warning are called from the worker threads,
// one call at a time; warnings are prefixed with "stream k: ". When progress returns false, every
// stream not yet decoded ends with Error(kCancelled).
GJ2K_API std::vector<BatchResult<Image>> decode_batch(
    std::span<const std::span<const uint8_t>> streams, const DecodeParams& params = {});

}  // namespace gj2k
