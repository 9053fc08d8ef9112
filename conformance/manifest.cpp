// Parsing TOLERANCES.md into the list of decode tests (conformance/manifest.h).
//
// The file has five sections, "## A." .. "## E.", each with a fenced block:
//   A (class 1 profile 0): CSV input,reduce,refs,ncomp,peak,mse,ref_geometry,stream_notes
//   B (class 1 profile 1): CSV input,refs,ncomp,peak,mse,ref_geometry,stream_notes
//   C (class 0): CSV input,reduce,peak,mse,ref_geometry; reduce may read "0 and 1"
//   D (JP2): lines "fileN.jp2: notes", reference jp2_N.tif, limits in the section heading
//   E (further codestreams): entries "name.ext notes" separated by '|', limits in the heading
//     unless an entry says "(peak P, MSE M)".
// Multi-valued peak/mse columns separate components with ':'.
#include "conformance/manifest.h"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "gj2k/error.h"

namespace gj2k::conformance {
namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == sep) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(trim(cur));
  return out;
}

// Splits a CSV row into exactly `n` fields; the last takes the remainder (notes may hold
// commas).
std::vector<std::string> split_n(const std::string& s, size_t n) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (out.size() + 1 < n) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) break;
    out.push_back(trim(s.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  out.push_back(trim(s.substr(pos)));
  return out;
}

[[noreturn]] void bad_line(size_t line, const std::string& what) {
  throw Error(ErrorCode::kFormat, "TOLERANCES.md line " + std::to_string(line) + ": " + what);
}

double to_double(const std::string& s, size_t line) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) bad_line(line, "not a number: '" + s + "'");
  return v;
}

uint32_t to_u32(const std::string& s, size_t line) {
  double v = to_double(s, line);
  if (v < 0 || v > 1e9 || v != static_cast<uint32_t>(v)) bad_line(line, "not a count: " + s);
  return static_cast<uint32_t>(v);
}

std::vector<double> to_doubles(const std::string& s, size_t line) {
  std::vector<double> out;
  for (const auto& f : split(s, ':')) out.push_back(to_double(f, line));
  return out;
}

// "0 and 1" -> {0, 1}; "3" -> {3}.
std::vector<uint32_t> to_reduces(const std::string& s, size_t line) {
  std::vector<uint32_t> out;
  std::istringstream in(s);
  std::string word;
  while (in >> word)
    if (word != "and") out.push_back(to_u32(word, line));
  if (out.empty()) bad_line(line, "no reduce value");
  return out;
}

std::string stem_of(const std::string& file) {
  return fs::path(file).stem().string();
}

// "p0_01" from "p0_01.j2k".
std::string class1_name(const std::string& input) {
  return "c1" + stem_of(input);
}

// Limits "peak P, MSE M" in a heading or note, if present.
bool find_limits(const std::string& text, double& peak, double& mse) {
  static const std::regex re(R"(peak\s+([0-9.]+)\s*,\s*MSE\s+([0-9.]+))", std::regex::icase);
  std::smatch m;
  if (!std::regex_search(text, m, re)) return false;
  peak = std::strtod(m[1].str().c_str(), nullptr);
  mse = std::strtod(m[2].str().c_str(), nullptr);
  return true;
}

// Expands "g1_colr..g3_colr.j2c" to g1_colr.j2c, g2_colr.j2c, g3_colr.j2c.
std::vector<std::string> expand_range(const std::string& token) {
  size_t dots = token.find("..");
  if (dots == std::string::npos) return {token};
  std::string first = token.substr(0, dots), last = token.substr(dots + 2);
  // first = "g1_colr", last = "g3_colr.j2c": the number follows the first letter(s).
  size_t d0 = first.find_first_of("0123456789");
  size_t d1 = last.find_first_of("0123456789");
  if (d0 == std::string::npos || d1 == std::string::npos) return {token};
  size_t e0 = first.find_first_not_of("0123456789", d0);
  size_t e1 = last.find_first_not_of("0123456789", d1);
  int a = std::atoi(first.substr(d0, e0 - d0).c_str());
  int b = std::atoi(last.substr(d1, e1 - d1).c_str());
  std::string prefix = first.substr(0, d0), suffix = last.substr(e1);
  std::vector<std::string> out;
  for (int i = a; i <= b && b - a < 100; ++i) out.push_back(prefix + std::to_string(i) + suffix);
  return out;
}

// "a6_mono_colr_{0..3}.pgm" -> the four names.
std::vector<std::string> expand_braces(const std::string& token) {
  static const std::regex re(R"(^(.*)\{(\d+)\.\.(\d+)\}(.*)$)");
  std::smatch m;
  if (!std::regex_match(token, m, re)) return {token};
  std::vector<std::string> out;
  int a = std::atoi(m[2].str().c_str()), b = std::atoi(m[3].str().c_str());
  for (int i = a; i <= b && b - a < 100; ++i)
    out.push_back(m[1].str() + std::to_string(i) + m[4].str());
  return out;
}

void mark_missing(TestCase& t, const fs::path& dir) {
  std::vector<fs::path> need = {dir / "input" / t.input};
  for (const auto& r : t.refs) need.push_back(dir / "reference" / r);
  std::string missing;
  for (const auto& p : need)
    if (!fs::exists(p)) missing += (missing.empty() ? "" : ", ") + p.filename().string();
  if (!missing.empty()) t.skip = "missing from this copy: " + missing;
}

struct Block {
  std::string section;
  std::string heading;
  std::vector<std::pair<size_t, std::string>> lines;  // (line number, text)
};

std::vector<Block> read_blocks(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(ErrorCode::kIo, "cannot read " + file.string());
  std::vector<Block> blocks;
  std::string line, section, heading;
  bool in_fence = false;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("```", 0) == 0) {
      in_fence = !in_fence;
      if (in_fence) blocks.push_back({section, heading, {}});
      continue;
    }
    if (in_fence) {
      blocks.back().lines.emplace_back(n, line);
    } else if (line.rfind("## ", 0) == 0) {
      // "## C. Class 0 ..." -> section "C"; the heading text carries the limits.
      size_t dot = line.find('.');
      section = trim(line.substr(3, dot == std::string::npos ? 1 : dot - 3));
      heading = line;
    } else if (!line.empty()) {
      heading += " " + line;  // a heading wrapped onto the following lines
    }
  }
  return blocks;
}

}  // namespace

fs::path default_data_dir() {
  if (const char* env = std::getenv("GJ2K_SHARED"); env && *env)
    return fs::path(env) / "conformance";
  return fs::path("..") / "shared" / "conformance";
}

std::vector<TestCase> load_manifest(const fs::path& dir) {
  std::vector<TestCase> tests;
  for (const Block& block : read_blocks(dir / "TOLERANCES.md")) {
    const std::string& s = block.section;
    if (s == "A" || s == "B" || s == "C") {
      bool header = true;
      std::vector<std::string> cols;
      for (const auto& [ln, text] : block.lines) {
        if (trim(text).empty()) continue;
        if (header) {
          cols = split(text, ',');
          header = false;
          continue;
        }
        auto f = split_n(text, cols.size());
        if (f.size() != cols.size())
          bad_line(ln, "expected " + std::to_string(cols.size()) + " fields");
        auto col = [&](const char* name) -> std::string {
          for (size_t i = 0; i < cols.size(); ++i)
            if (cols[i] == name) return f[i];
          return "";
        };
        TestCase t;
        t.section = s;
        t.input = col("input");
        t.geometry = col("ref_geometry");
        t.notes = col("stream_notes");
        t.peak = to_doubles(col("peak"), ln);
        t.mse = to_doubles(col("mse"), ln);
        if (s == "C") {
          t.kind = CompareKind::kClass0;
          t.ncomp = 1;
          auto reduces = to_reduces(col("reduce"), ln);
          for (uint32_t r : reduces) {
            TestCase u = t;
            u.reduce = r;
            std::string stem = stem_of(t.input);
            if (reduces.size() > 1) {
              u.name = "c0" + stem + "_r" + std::to_string(r);
              u.refs = {"c0" + stem + "r" + std::to_string(r) + ".pgx"};
            } else {
              u.name = "c0" + stem;
              u.refs = {"c0" + stem + ".pgx"};
            }
            mark_missing(u, dir);
            tests.push_back(std::move(u));
          }
          continue;
        }
        t.kind = CompareKind::kPerComponent;
        t.reduce = s == "A" ? to_u32(col("reduce"), ln) : 0;
        t.ncomp = to_u32(col("ncomp"), ln);
        t.name = class1_name(t.input);
        std::string refs = col("refs");
        for (uint32_t k = 0; k < t.ncomp; ++k)
          t.refs.push_back(refs + "_" + std::to_string(k) + ".pgx");
        mark_missing(t, dir);
        if (t.geometry == "n/a" && t.skip.empty()) t.skip = t.notes;
        tests.push_back(std::move(t));
      }
    } else if (s == "D") {
      double peak = 4, mse = 1;
      find_limits(block.heading, peak, mse);
      static const std::regex re(R"(^\s*(file(\d+)\.jp2)\s*:\s*(.*)$)");
      for (const auto& [ln, text] : block.lines) {
        std::smatch m;
        if (trim(text).empty()) continue;
        if (!std::regex_match(text, m, re)) bad_line(ln, "expected 'fileN.jp2: notes'");
        TestCase t;
        t.section = s;
        t.kind = CompareKind::kRgb8;
        t.input = m[1].str();
        t.name = "jp2_" + stem_of(t.input);
        t.refs = {"jp2_" + m[2].str() + ".tif"};
        t.ncomp = 3;
        t.peak = {peak};
        t.mse = {mse};
        t.notes = trim(m[3].str());
        mark_missing(t, dir);
        tests.push_back(std::move(t));
      }
    } else if (s == "E") {
      double peak = 4, mse = 1;
      find_limits(block.heading, peak, mse);
      std::string all;
      for (const auto& [ln, text] : block.lines) all += text + " | ";
      for (const std::string& entry : split(all, '|')) {
        if (entry.empty()) continue;
        std::string first = entry.substr(0, entry.find(' '));
        std::string notes =
            entry.find(' ') == std::string::npos ? "" : trim(entry.substr(entry.find(' ')));
        for (const std::string& input : expand_range(first)) {
          TestCase t;
          t.section = s;
          t.kind = CompareKind::kUpsampled;
          t.input = input;
          t.name = "e_" + stem_of(input);
          t.notes = notes;
          double p = peak, m = mse;
          find_limits(notes, p, m);
          t.peak = {p};
          t.mse = {m};
          static const std::regex refs_re(R"(references\s+(\S+\.(pgm|ppm)))");
          std::smatch rm;
          if (std::regex_search(notes, rm, refs_re)) {
            t.refs = expand_braces(rm[1].str());
          } else {
            std::string stem = stem_of(input);
            bool pgm = fs::exists(dir / "reference" / (stem + ".pgm")) &&
                       !fs::exists(dir / "reference" / (stem + ".ppm"));
            t.refs = {stem + (pgm ? ".pgm" : ".ppm")};
          }
          mark_missing(t, dir);
          tests.push_back(std::move(t));
        }
      }
    }
  }
  if (tests.empty())
    throw Error(ErrorCode::kFormat, (dir / "TOLERANCES.md").string() + ": no tests found");
  return tests;
}

}  // namespace gj2k::conformance
