// Helpers shared by the gj2k subcommands: OpenJPEG-style argument translation, the one set of
// input/output rules (positional or -i/-o, or a batch folder), reading any image gj2k knows
// (JPEG 2000 included), option value parsing, and the terminal progress line.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gj2k/image.h"
#include "io/image_io.h"

namespace CLI {
class App;
}  // namespace CLI

namespace gj2k::cli {

// ---- OpenJPEG option names ------------------------------------------------------------------
// opj_compress / opj_decompress use multi-letter options with one dash (-ImgDir, -SOP, -TP,
// -threads ...), which CLI11 would read as bundles of one-letter flags. translate_args rewrites
// each such argument to gj2k's long option before parsing; this table is the one place where
// the OpenJPEG spelling is mapped:
//   -ImgDir --img-dir    -OutFor --out-for   -SOP --sop     -EPH --eph      -TP --tile-parts
//   -PLT --plt           -TLM --tlm          -threads --threads             -mct --mct
//   -quiet --quiet       -force-rgb --force-rgb                 -upsample --upsample
//   -allow-partial --allow-partial
// opj's one-letter options (-r -q -n -b -c -p -t -T -I -M -C -s -d -x -F -l -i -o) are declared
// directly by the subcommands. Options of opj that gj2k does not implement (-POC, -ROI, -IMF,
// -cinema2K, -cinema4K, -jpip, -GuardBits ...) are refused with one line naming them.
std::vector<std::string> translate_args(int argc, char** argv);

// ---- input and output -----------------------------------------------------------------------
// Every command that reads one file and writes another takes them the same way:
//   gj2k CMD IN OUT,  gj2k CMD -i IN -o OUT,  gj2k CMD -i IN OUT,  or a batch:
//   gj2k CMD -i A -i B -i DIR ... -o OUTDIR --format EXT   (-i repeated; a folder gives its files)
//   gj2k CMD --img-dir DIR --out-for EXT [-o OUTDIR]       (opj's -ImgDir / -OutFor)
// --format is --out-for's other name.
struct IoArgs {
  std::vector<std::string> inputs;  // -i, each time it is given
  std::string output, input_pos, output_pos, img_dir, out_for;
};
void add_io_options(CLI::App& app, IoArgs& io, const std::string& input_help,
                    const std::string& output_help);
// Whether the arguments ask for a batch: --img-dir, several -i, an -i that is a folder, or
// --format with -i. A batch writes each input to <out dir>/<stem>.<format>.
bool is_batch(const IoArgs& io);
// The (input, output) pairs to process. In batch form: the inputs in the order given, each
// folder replaced by its regular files whose extension `accept` takes, sorted by name; each to
// <out dir>/<stem>.<out_for>, where the out dir is -o (made when missing; --img-dir without
// -o: img_dir). Throws Error(kInvalidArgument) when input or output is missing or given
// twice, when --format is missing in a batch, and when two inputs would write the same output
// (naming both) or an output would replace its input.
using Job = std::pair<std::filesystem::path, std::filesystem::path>;
std::vector<Job> resolve_io(const IoArgs& io, bool (*accept)(const std::filesystem::path&));

// .j2k .j2c .jpc .jp2 (case-insensitive).
bool is_jpeg2000_path(const std::filesystem::path& path);
// An image format io::read_image reads.
bool is_image_path(const std::filesystem::path& path);
// Reads any image gj2k knows: JPEG 2000 files are decoded (all layers, full resolution),
// others are read by io::read_image.
Image read_any_image(const std::filesystem::path& path, const io::ReadOptions& options = {});

// ---- option values --------------------------------------------------------------------------
[[noreturn]] void bad_option(const std::string& option, const std::string& why);
std::vector<std::string> split(const std::string& s, char sep);
uint32_t parse_u32(const std::string& option, const std::string& s);
// "A,B" or "AxB".
std::pair<uint32_t, uint32_t> parse_pair(const std::string& option, const std::string& s);
// "W,H,C,P,s|u" (convert --raw, encode --raw / opj -F).
io::RawGeometry parse_raw(const std::string& option, const std::string& text);

// ---- progress on a terminal -----------------------------------------------------------------
// One self-rewriting line on stderr: "<prefix>: <stage> [#####.....]  42%". Active only when
// stderr is a terminal and the command is not --quiet; otherwise every call does nothing.
// Redraws at most every 50 ms unless the prefix or stage changes or reaches 100%. Safe to call
// from several threads (the coders of a batch).
class ProgressLine {
 public:
  explicit ProgressLine(bool quiet);
  ~ProgressLine() { clear(); }
  bool active() const { return active_; }
  void set_prefix(std::string prefix) {
    std::lock_guard lock(mutex_);
    prefix_ = std::move(prefix);
  }
  // Shows `stage` at `fraction` (0..1; negative: no bar). Always returns true (never cancels),
  // so it can serve as EncodeParams::progress / DecodeParams::progress.
  bool update(const char* stage, double fraction);
  // update() under another prefix (one file of a batch among several in flight).
  bool update_as(const std::string& prefix, const char* stage, double fraction);
  // Erases the line.
  void clear();
  // Erases the line and prints `text` and a newline on `stream` (stdout or stderr), so that
  // no other thread's update lands in the middle.
  void print(std::FILE* stream, const std::string& text);

 private:
  bool update_locked(const char* stage, double fraction);
  std::mutex mutex_;
  bool active_ = false, shown_ = false;
  std::string prefix_, stage_, drawn_prefix_;
  int percent_ = -2;
  std::chrono::steady_clock::time_point last_{};
};

// "[3/10, 12.3 s, 45.6 MB/s] name" for batch progress: files done, elapsed time and input
// throughput so far.
std::string batch_prefix(size_t index, size_t count, double seconds, uint64_t bytes_done,
                         const std::filesystem::path& name);

// printf into a string.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// The line a batch prints for a file that failed: "gj2k: <input>: <what>", the input named
// once (messages from file readers name it already).
std::string batch_failure(const std::filesystem::path& input, const std::exception& error);

// The closing line of a batch on stdout: "N files in S s, X MB/s of input", timed from `start`.
void print_batch_summary(size_t files, std::chrono::steady_clock::time_point start,
                         uint64_t bytes_in);

}  // namespace gj2k::cli
