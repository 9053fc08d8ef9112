// Running the gj2k CLI (and other programs) from tests: shell quoting, exit status, output.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "common/shared_data.h"

namespace gj2k::test {

inline const std::filesystem::path& cli_binary() {
  static const std::filesystem::path p = std::filesystem::path(GJ2K_BINARY_DIR) / "bin" / "gj2k";
  return p;
}

// A path or word quoted for the shell.
inline std::string q(const std::filesystem::path& p) {
  std::string s(1, '\'');
  s.append(p.string());
  s.push_back('\'');
  return s;
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct RunResult {
  int status = -1;  // exit status, -1 when killed
  std::string out, err;
};

// Runs a shell command line with stdout and stderr captured.
inline RunResult run_shell(const std::string& command) {
  const auto out = scratch_dir() / "run_stdout.txt";
  const auto err = scratch_dir() / "run_stderr.txt";
  std::string cmd = command;
  cmd += " >" + q(out) + " 2>" + q(err) + " </dev/null";
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// Runs `gj2k <args>`.
inline RunResult run_gj2k(const std::string& args) {
  return run_shell(q(cli_binary()) + " " + args);
}

// Whether a program is on PATH.
inline bool have_program(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

#define GJ2K_REQUIRE_CLI()                                                          \
  do {                                                                              \
    if (!std::filesystem::exists(::gj2k::test::cli_binary()))                       \
      GTEST_SKIP() << ::gj2k::test::cli_binary() << " not built (target gj2k_cli)"; \
  } while (0)

}  // namespace gj2k::test
