// Shared CLI helpers (tools/cli_common.h).
#include "tools/cli_common.h"

#include <sys/ioctl.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "gj2k/decoder.h"
#include "gj2k/error.h"

namespace gj2k::cli {

namespace fs = std::filesystem;

// ---- OpenJPEG option names ------------------------------------------------------------------

namespace {

struct Rename {
  const char* opj;
  const char* gj2k;
};
constexpr Rename kRenames[] = {
    {"-ImgDir", "--img-dir"},
    {"-OutFor", "--out-for"},
    {"-SOP", "--sop"},
    {"-EPH", "--eph"},
    {"-TP", "--tile-parts"},
    {"-PLT", "--plt"},
    {"-TLM", "--tlm"},
    {"-threads", "--threads"},
    {"-mct", "--mct"},
    {"-quiet", "--quiet"},
    {"-force-rgb", "--force-rgb"},
    {"-upsample", "--upsample"},
    {"-allow-partial", "--allow-partial"},
};
constexpr const char* kUnsupported[] = {
    "-POC", "-ROI", "-IMF", "-cinema2K", "-cinema4K", "-jpip", "-GuardBits", "-split-pnm", "-PLM"};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::vector<std::string> translate_args(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    bool renamed = false;
    for (const Rename& r : kRenames)
      if (a == r.opj) {
        out.emplace_back(r.gj2k);
        renamed = true;
        break;
      }
    if (renamed) continue;
    if (i > 0)
      for (const char* u : kUnsupported)
        if (a == u)
          throw Error(ErrorCode::kUnsupported,
                      "OpenJPEG option " + a + " is not supported by gj2k (see gj2k CMD --help)");
    out.push_back(std::move(a));
  }
  return out;
}

// ---- input and output -----------------------------------------------------------------------

void add_io_options(CLI::App& app, IoArgs& io, const std::string& input_help,
                    const std::string& output_help) {
  app.add_option("-i,--input", io.inputs,
                 input_help +
                     "; repeat -i, or give a folder, for a batch (then -o OUTDIR "
                     "--format EXT)")
      ->allow_extra_args(false);
  app.add_option("-o,--output", io.output, output_help + " (batch: the output folder)");
  app.add_option("input", io.input_pos, "the input, as -i");
  app.add_option("output", io.output_pos, "the output, as -o");
  app.add_option("--img-dir", io.img_dir,
                 "batch: process every suitable file of this folder (opj -ImgDir)");
  app.add_option("--out-for,--format", io.out_for,
                 "batch: output format as an extension, e.g. j2k or png (opj -OutFor)");
}

namespace {

// Every regular file of `dir` that `accept` takes, sorted by name.
std::vector<fs::path> folder_inputs(const fs::path& dir, bool (*accept)(const fs::path&)) {
  std::vector<fs::path> inputs;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && accept(entry.path())) inputs.push_back(entry.path());
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

bool is_folder(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

// The batch's jobs: each input to <out_dir>/<stem>.<ext>. Outputs that are their input are
// left out when `skip_self` (the --img-dir form writes beside its inputs), else refused; two
// inputs with one output are refused, naming both.
std::vector<Job> batch_jobs(const std::vector<fs::path>& inputs, const fs::path& out_dir,
                            std::string ext, bool skip_self) {
  if (!ext.empty() && ext[0] == '.') ext.erase(0, 1);
  ext = lower(ext);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (!fs::is_directory(out_dir, ec))
    throw Error(ErrorCode::kIo, out_dir.string() + ": cannot make the output folder");
  std::vector<Job> jobs;
  for (const fs::path& in : inputs) {
    fs::path out = out_dir / in.stem();
    out += "." + ext;
    if (fs::exists(out, ec) && fs::equivalent(in, out, ec)) {
      if (skip_self) continue;  // never overwrite an input
      bad_option("-o", out.string() + " would replace its input");
    }
    for (const Job& job : jobs)
      if (job.second == out)
        bad_option("-i", job.first.string() + " and " + in.string() + " would both write " +
                             out.string() + " (the same name in one output folder)");
    jobs.emplace_back(in, out);
  }
  return jobs;
}

}  // namespace

bool is_batch(const IoArgs& io) {
  if (!io.img_dir.empty() || io.inputs.size() > 1) return true;
  if (io.inputs.size() == 1) return !io.out_for.empty() || is_folder(io.inputs[0]);
  return false;
}

std::vector<Job> resolve_io(const IoArgs& io, bool (*accept)(const fs::path&)) {
  std::vector<std::string> inputs = io.inputs;
  std::string output = io.output;
  std::vector<std::string> positional;
  if (!io.input_pos.empty()) positional.push_back(io.input_pos);
  if (!io.output_pos.empty()) positional.push_back(io.output_pos);
  for (const std::string& p : positional) {
    if (inputs.empty() && io.img_dir.empty())
      inputs.push_back(p);
    else if (output.empty())
      output = p;
    else
      bad_option("input/output", "'" + p + "' is one file too many");
  }
  if (!io.img_dir.empty()) {
    if (!inputs.empty()) bad_option("--img-dir", "give a folder or an input file, not both");
    if (io.out_for.empty()) bad_option("--img-dir", "needs --out-for (opj -OutFor)");
    if (!is_folder(io.img_dir)) throw Error(ErrorCode::kIo, io.img_dir + ": not a folder");
    std::vector<Job> jobs =
        batch_jobs(folder_inputs(io.img_dir, accept),
                   output.empty() ? fs::path(io.img_dir) : fs::path(output), io.out_for, true);
    if (jobs.empty()) throw Error(ErrorCode::kIo, io.img_dir + ": no input files found");
    return jobs;
  }
  IoArgs given = io;
  given.inputs = inputs;
  if (is_batch(given)) {
    if (io.out_for.empty()) {
      for (const std::string& in : inputs)
        if (is_folder(in))
          bad_option("-i", in + " is a directory: a batch of its files needs --format EXT (and "
                                "-o OUTDIR)");
      bad_option("--format", "a batch (several -i) needs the output format");
    }
    if (output.empty())
      bad_option("-o", "a batch (several -i, or a folder) needs the output folder");
    if (fs::exists(output) && !is_folder(output))
      bad_option("-o", output + " is a file; a batch writes into a folder");
    std::vector<fs::path> files;
    for (const std::string& in : inputs) {
      if (!is_folder(in)) {
        files.emplace_back(in);
        continue;
      }
      const std::vector<fs::path> found = folder_inputs(in, accept);
      if (found.empty()) throw Error(ErrorCode::kIo, in + ": no input files found");
      files.insert(files.end(), found.begin(), found.end());
    }
    return batch_jobs(files, output, io.out_for, false);
  }
  if (!io.out_for.empty()) bad_option("--out-for", "only with --img-dir or a batch of -i");
  if (inputs.empty()) bad_option("input", "missing (give IN OUT, or -i IN -o OUT)");
  if (output.empty()) bad_option("output", "missing (give IN OUT, or -i IN -o OUT)");
  return {{inputs[0], output}};
}

bool is_jpeg2000_path(const fs::path& path) {
  const std::string ext = lower(path.extension().string());
  return ext == ".j2k" || ext == ".j2c" || ext == ".jpc" || ext == ".jp2";
}

bool is_image_path(const fs::path& path) {
  return io::format_from_extension(path).has_value();
}

Image read_any_image(const fs::path& path, const io::ReadOptions& options) {
  if (is_jpeg2000_path(path)) return decode_file(path);
  return io::read_image(path, options);
}

// ---- option values --------------------------------------------------------------------------

void bad_option(const std::string& option, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument, option + ": " + why);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

uint32_t parse_u32(const std::string& option, const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 10)
    bad_option(option, "'" + s + "' is not a non-negative integer");
  const unsigned long long v = std::stoull(s);
  if (v > UINT32_MAX) bad_option(option, "'" + s + "' is too large");
  return static_cast<uint32_t>(v);
}

std::pair<uint32_t, uint32_t> parse_pair(const std::string& option, const std::string& s) {
  const char sep = s.find(',') != std::string::npos ? ',' : 'x';
  auto parts = split(s, sep);
  if (parts.size() != 2) bad_option(option, "'" + s + "' is not of the form A,B (or AxB)");
  return {parse_u32(option, parts[0]), parse_u32(option, parts[1])};
}

io::RawGeometry parse_raw(const std::string& option, const std::string& text) {
  io::RawGeometry g;
  unsigned w = 0, h = 0, c = 0, p = 0;
  char sign = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%u,%u,%u,%u,%c%n", &w, &h, &c, &p, &sign, &used) != 5 ||
      used != static_cast<int>(text.size()) || (sign != 's' && sign != 'u'))
    bad_option(option, "'" + text + "': expected WIDTH,HEIGHT,COMPONENTS,PRECISION,s|u");
  g.width = w;
  g.height = h;
  g.num_components = c;
  g.precision = p;
  g.is_signed = sign == 's';
  return g;
}

// ---- progress on a terminal -----------------------------------------------------------------

ProgressLine::ProgressLine(bool quiet) : active_(!quiet && ::isatty(STDERR_FILENO)) {}

bool ProgressLine::update(const char* stage, double fraction) {
  if (!active_) return true;
  std::lock_guard lock(mutex_);
  return update_locked(stage, fraction);
}

bool ProgressLine::update_as(const std::string& prefix, const char* stage, double fraction) {
  if (!active_) return true;
  std::lock_guard lock(mutex_);
  prefix_ = prefix;
  return update_locked(stage, fraction);
}

bool ProgressLine::update_locked(const char* stage, double fraction) {
  const int percent = fraction < 0 ? -1 : static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100);
  const auto now = std::chrono::steady_clock::now();
  const bool new_stage = stage_ != stage || drawn_prefix_ != prefix_;
  const bool throttled = percent != 100 && now - last_ < std::chrono::milliseconds(50);
  if (!new_stage && (percent == percent_ || throttled)) return true;
  stage_ = stage;
  drawn_prefix_ = prefix_;
  percent_ = percent;
  last_ = now;
  std::string line = prefix_.empty() ? stage_ : prefix_ + ": " + stage_;
  if (percent >= 0) {
    constexpr int kBar = 20;
    const int filled = percent * kBar / 100;
    line += " [" + std::string(filled, '#') + std::string(kBar - filled, '.') + "] ";
    char pct[16];
    std::snprintf(pct, sizeof pct, "%3d%%", percent);
    line += pct;
  }
  winsize ws{};
  const size_t columns = ::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
  if (line.size() >= columns) line.resize(columns - 1);
  std::fprintf(stderr, "\r\x1b[K%s", line.c_str());
  std::fflush(stderr);
  shown_ = true;
  return true;
}

void ProgressLine::clear() {
  std::lock_guard lock(mutex_);
  if (!shown_) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  shown_ = false;
  stage_.clear();
  percent_ = -2;
}

void ProgressLine::print(std::FILE* stream, const std::string& text) {
  std::lock_guard lock(mutex_);
  if (shown_) {
    std::fprintf(stderr, "\r\x1b[K");
    std::fflush(stderr);
    shown_ = false;
    stage_.clear();
    percent_ = -2;
  }
  std::fprintf(stream, "%s\n", text.c_str());
  std::fflush(stream);
}

std::string batch_prefix(size_t index, size_t count, double seconds, uint64_t bytes_done,
                         const fs::path& name) {
  char head[96];
  std::snprintf(head, sizeof head, "[%zu/%zu, %.1f s, %.1f MB/s] ", index, count, seconds,
                seconds > 0 ? bytes_done / seconds / 1e6 : 0.0);
  return head + name.filename().string();
}

std::string format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  va_end(args);
  return out;
}

std::string batch_failure(const fs::path& input, const std::exception& error) {
  std::string what = error.what();
  if (what.find(input.string()) == std::string::npos) what = input.string() + ": " + what;
  return "gj2k: " + what;
}

void print_batch_summary(size_t files, std::chrono::steady_clock::time_point start,
                         uint64_t bytes_in) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu files in %.2f s, %.1f MB/s of input\n", files, elapsed,
              elapsed > 0 ? bytes_in / elapsed / 1e6 : 0.0);
}

}  // namespace gj2k::cli
