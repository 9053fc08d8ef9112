// gj2k: the encoder's public API. Encodes an Image to a JPEG 2000 Part 1 codestream
// (ISO/IEC 15444-1 Annex A) or a JP2 file (Annex I).
//
// Defaults follow opj_compress: lossless (5/3 reversible), 5 decomposition levels, 64x64
// code-blocks, LRCP, one quality layer, no tiles, multi-component transform on when the image
// has 3 or more components whose first three share their subsampling and precision.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gj2k/batch.h"
#include "gj2k/export.h"
#include "gj2k/image.h"

namespace gj2k {

// Progression orders, numbered as in COD's SGcod (15444-1 Table A.16).
enum class ProgressionOrder : uint8_t { kLRCP = 0, kRLCP = 1, kRPCL = 2, kPCRL = 3, kCPRL = 4 };

// How each tile is split into tile-parts (A.4.2): one tile-part per tile, or a new tile-part
// whenever the resolution (R), layer (L) or component (C) of the next packet changes.
enum class TilePartSplit : uint8_t { kNone, kResolution, kLayer, kComponent };

// One progression change of a POC marker (A.6.6): packets of layers [0, layer_end),
// resolutions [res_start, res_end), components [comp_start, comp_end) in `order`.
struct ProgressionChange {
  uint32_t res_start = 0, comp_start = 0;
  uint32_t layer_end = 1, res_end = 33, comp_end = 16384;
  ProgressionOrder order = ProgressionOrder::kLRCP;
  bool operator==(const ProgressionChange&) const = default;
};

struct EncodeParams {
  // ---- transform and quantization
  bool irreversible = false;  // --irreversible: 9/7 + ICT + scalar quantization; else 5/3 + RCT
  int levels = 5;             // --levels: decomposition levels, 0..32
  int mct = -1;               // --mct: 1 on, 0 off, -1 auto (on for >= 3 compatible components)
  int guard_bits = 2;         // --guard-bits: 0..7
  // Base quantization step for 9/7 relative to the nominal range (0: chosen by gj2k; only
  // matters for the full-quality layer, rate targets truncate anyway).
  double base_step = 0.0;

  // ---- code-blocks and precincts
  uint32_t cblk_width = 64, cblk_height = 64;  // --cblk WxH: powers of two 4..1024, w*h <= 4096
  // Precinct sizes: powers of two, the first for the highest resolution, each next one for
  // the next lower resolution; the last repeats for the rest. (The CLI's -c/--precincts list
  // every resolution, lower ones halving the last given, as opj_compress -c does.)
  // Empty: maximal precincts (2^15) everywhere.
  std::vector<std::pair<uint32_t, uint32_t>> precincts;
  uint8_t cblk_style = 0;  // --modes: code-block style bits of Table A.19 (bypass=1, reset=2,
                           // termall=4, vsc=8, pterm=16, segsym=32)

  // ---- quality layers and rate targets (at most one kind of target)
  int layers = 0;  // --layers: 0 = as many as targets given, else 1
  // --rate: compression ratios per layer (as opj_compress -r), decreasing; 1 (or 0) for the
  // last layer means lossless (all passes).
  std::vector<double> rates;
  std::vector<double> bpp;   // --bpp: bits per pixel per layer (of the image area), increasing
  std::vector<double> psnr;  // --psnr: dB per layer, increasing

  // ---- progression, tiles and geometry
  ProgressionOrder order = ProgressionOrder::kLRCP;    // --order
  std::vector<ProgressionChange> progression_changes;  // POC marker in the main header
  uint32_t tile_width = 0, tile_height = 0;            // --tile WxH; 0 = one tile
  uint32_t tile_x0 = 0, tile_y0 = 0;                   // --tile-origin X,Y (<= image origin)
  bool set_image_origin = false;                       // --image-origin X,Y given
  uint32_t image_x0 = 0, image_y0 = 0;  // replaces the image's origin (x1, y1 follow)

  // ---- codestream options
  bool sop = false, eph = false;  // --sop, --eph: SOP markers before packets, EPH after headers
  bool tlm = false, plt = false;  // --tlm, --plt: TLM in the main header, PLT per tile-part
  TilePartSplit tile_parts = TilePartSplit::kNone;  // --tile-parts R|L|C
  std::string comment;      // --comment: a Latin-1 COM marker; empty = "Created by gj2k VERSION"
  bool no_comment = false;  // write no COM marker at all

  // ---- execution
  int threads = 0;  // --threads: worker threads, 0 = all hardware threads
  enum class Device : uint8_t { kAuto, kCpu, kGpu };
  // --device: where the transform stages run. kAuto: the GPU when one is present, for images
  // of 16 Msamples (all components) or more, else the CPU (below that, CUDA's start-up alone
  // costs more than the whole CPU transform; transform/device.h); kGpu without a GPU throws
  // Error(kDevice).
  Device device = Device::kAuto;
  // Called from the coding thread with a stage name and the fraction done (0..1). Return false
  // to cancel: the call then throws Error(kCancelled). May be empty. Must not throw.
  std::function<bool(const char* stage, double fraction)> progress;
};

// What an encode produced (for summaries and tests).
struct EncodeStats {
  size_t bytes = 0;                   // output size, container included
  std::vector<uint64_t> layer_bytes;  // codestream bytes up to and including each layer's packets
  double seconds = 0;                 // wall time of the whole encode
  uint32_t tiles = 0;                 // number of tiles
  uint64_t code_blocks = 0;           // number of code-blocks coded
  bool gpu = false;  // the transform stages ran on the GPU (--device; a tile with an empty
                     // tile-component, a corner of subsampling, is transformed on the CPU)
};

// A caller-owned buffer of samples that Encoder::encode reads instead of an Image's int32
// samples (the mirror of OutputBuffer, gj2k/decoder.h). Sample (x, y) of component k lies at
//   data + k * plane_stride + y * row_stride + x * sample bytes            (planar)
//   data + y * row_stride + (x * components + k) * sample bytes            (interleaved)
// in the sample type's width, two's complement for signed components; (x, y) count from the
// component's first sample, as Component::at does. Interleaved buffers need components of one
// size. The encoder reads the buffer during the call, more than once (its ranges are checked
// first): it must not change until the call returns.
struct InputBuffer {
  const void* data = nullptr;
  size_t size = 0;  // bytes readable from data
  SampleType type = SampleType::k8;
  bool interleaved = false;
  bool big_endian = false;  // byte order of 16/32-bit samples (false: little-endian; PGM/PPM
                            // files store theirs big-endian)
  size_t row_stride = 0;    // bytes; 0: packed rows of the widest component
  size_t plane_stride = 0;  // planar: bytes between planes; 0: row_stride * the tallest height
};

// Output container formats.
enum class FileFormat : uint8_t { kJ2k, kJp2 };

// The format an output path asks for: .jp2 -> kJp2; .j2k, .j2c, .jpc -> kJ2k (case-insensitive).
// Throws Error(kInvalidArgument) for any other extension.
GJ2K_API FileFormat format_from_extension(const std::filesystem::path& path);

// Checks params against each other and against the image. Throws Error(kInvalidArgument) with
// a message naming the option (by its CLI name, e.g. "--cblk") and why it is refused.
GJ2K_API void validate(const EncodeParams& params, const Image& image);

class GJ2K_API Encoder {
 public:
  Encoder() = default;

  // Encodes to a raw codestream (kJ2k) or a JP2 file (kJp2) in memory. Validates first.
  std::vector<uint8_t> encode(const Image& image, const EncodeParams& params,
                              FileFormat format = FileFormat::kJ2k,
                              EncodeStats* stats = nullptr) const;

  // Encodes and writes `path`, the format chosen by its extension. The extension and the
  // folder are checked before coding (Error kInvalidArgument, kIo); the file is written under
  // a temporary name beside it and renamed when complete, so a failed or killed encode leaves
  // no partial file. Throws Error(kIo) when the file cannot be written.
  void encode_to_file(const Image& image, const EncodeParams& params,
                      const std::filesystem::path& path, EncodeStats* stats = nullptr) const;

  // The same, for an image the caller gives up: its sample buffers may become the encoder's
  // working storage. A one-tile encode on the CPU without a --psnr target transforms them in
  // place instead of allocating and filling a copy of the image (the same bytes either way).
  // Afterwards `image` keeps its geometry, components and colour; their samples are
  // unspecified (empty when taken).
  std::vector<uint8_t> encode(Image&& image, const EncodeParams& params,
                              FileFormat format = FileFormat::kJ2k,
                              EncodeStats* stats = nullptr) const;
  void encode_to_file(Image&& image, const EncodeParams& params, const std::filesystem::path& path,
                      EncodeStats* stats = nullptr) const;

  // Encodes the samples of a caller's buffer: `layout` gives the image's geometry, components
  // (size, subsampling, precision, signedness) and colour, its sample vectors empty (make_layout,
  // gj2k/image.h); `samples` lies as InputBuffer describes. The bytes equal those of encode() of
  // the image with those samples. The samples are read straight from the buffer (on the GPU
  // path, 8- and 16-bit interleaved rows go up as they lie, unpacked on the device), never
  // copied whole into int32 planes. Throws what encode throws, Error(kInvalidArgument) for a layout
  // with samples, a bad buffer layout (as output_bytes for OutputBuffer), null data, a component
  // whose precision exceeds the sample type, or a sample outside its component's range (named by
  // component and position), and Error(kBufferTooSmall) when samples.size is below the layout's
  // needs.
  std::vector<uint8_t> encode(const Image& layout, const InputBuffer& samples,
                              const EncodeParams& params, FileFormat format = FileFormat::kJ2k,
                              EncodeStats* stats = nullptr) const;
  // The same, written to `path` as encode_to_file writes.
  void encode_to_file(const Image& layout, const InputBuffer& samples, const EncodeParams& params,
                      const std::filesystem::path& path, EncodeStats* stats = nullptr) const;
};

// The bytes an InputBuffer of `layout` (its data and size are not read) needs for the
// components of `image` (their samples are not read). Throws Error(kInvalidArgument) as
// output_bytes does for OutputBuffer.
GJ2K_API size_t input_bytes(const Image& image, const InputBuffer& layout);

// Encodes many images with the same parameters; result k is image k's codestream (or JP2
// file), byte for byte what Encoder::encode writes, or its error (whose message starts with
// "image k: "); one bad image never loses the others. Threads are shared as decode_batch
// shares them (gj2k/decoder.h): images of fewer than 2^24 samples encode several at once,
// each on threads / min(threads, images) threads; larger ones, or any under Device::kGpu,
// alone on all. params.progress is called from the worker threads, one call at a time; when it
// returns false, every image not yet encoded ends with Error(kCancelled).
GJ2K_API std::vector<BatchResult<std::vector<uint8_t>>> encode_batch(
    std::span<const Image> images, const EncodeParams& params,
    FileFormat format = FileFormat::kJ2k);

}  // namespace gj2k
