// Whole-process decode comparison of command-line decoders, for the benchmarks' summaries:
// gj2k (the CLI built next to the benchmark, `gj2k decode --device cpu --threads n`), Grok
// (`grk_decompress -H n`) and OpenJPEG (`opj_decompress -threads n`), each decoding the same
// codestream file to a PPM, timed as a child process: wall, user and system seconds, each the
// median of its own column over a few runs. A decoder not found is reported with a line saying so
// and left out of the table. One-thread rows run every decoder pinned to one CPU (pin_cpu).
// POSIX only (fork, execvp, wait4; sched_setaffinity on Linux).
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace gj2k::bench {

struct ProcessTime {
  double wall = 0, user = 0, sys = 0;
  bool ok = false;  // every run exited with status 0
};

// The CPU that one-thread rows pin every process to: the highest-numbered CPU this process may
// run on (CPU 0 often takes the host's interrupts), or -1 (not pinned) with GJ2K_BENCH_PIN=0
// or where affinity is not available. A one-thread process left to the scheduler may move
// between CPUs as it runs; pinned, every decoder runs on the same core. On the shared GPU hosts
// the ratios still move from run to run either way (docs/PERFORMANCE.md, twenty-seventh run).
inline int pin_cpu() {
  if (const char* e = std::getenv("GJ2K_BENCH_PIN"); e && std::strcmp(e, "0") == 0) return -1;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  for (int c = CPU_SETSIZE - 1; c >= 0; --c)
    if (CPU_ISSET(c, &set)) return c;
#endif
  return -1;
}

// What a row of `threads` threads is pinned to: pin_cpu() for one thread, else nothing (-1).
inline int pin_for(int threads) {
  return threads == 1 ? pin_cpu() : -1;
}

// How a table's heading says where its one-thread rows ran.
inline std::string pin_note(int cpu) {
  return cpu < 0 ? std::string("one-thread rows not pinned")
                 : "one-thread rows pinned to CPU " + std::to_string(cpu) +
                       " (GJ2K_BENCH_PIN=0: not pinned)";
}

// One run of `argv` (no shell, argv[0] looked up on PATH; stdout and stderr to /dev/null),
// pinned to `cpu` unless it is negative.
inline ProcessTime run_process(const std::vector<std::string>& argv, int cpu = -1) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);  // the child must not write this process's buffered output again
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
#if defined(__linux__)
    if (cpu >= 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      if (sched_setaffinity(0, sizeof one, &one) != 0) _exit(126);
    }
#endif
    execvp(args[0], args.data());
    _exit(127);
  }
  if (pid < 0) return {};
  int status = 0;
  rusage ru{};
  if (wait4(pid, &status, 0, &ru) != pid) return {};
  ProcessTime t;
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6;
  t.sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
  t.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return t;
}

// Each command's median wall, user and system time out of `runs` (each the median of its own
// column: one run's system time can be ten times another's on a guest, docs/PERFORMANCE.md
// "Twenty-seventh run", and the run of median wall time need not be the typical one), the
// commands taken in turn (0, 1, ..., then 0 again), after one untimed run of each (the file
// cache, the libraries). On a shared machine whose speed drifts, turns give every command the
// same slow and fast moments, so their ratios hold better than those of one command's runs
// taken together. A command that fails once is reported as failed (ok false) and not run
// again. `cpu`: as run_process.
inline std::vector<ProcessTime> time_in_turns(const std::vector<std::vector<std::string>>& argvs,
                                              int runs, int cpu = -1) {
  const size_t n = argvs.size();
  std::vector<std::vector<ProcessTime>> all(n);
  std::vector<bool> ok(n);
  for (size_t k = 0; k < n; ++k) ok[k] = run_process(argvs[k], cpu).ok;
  for (int r = 0; r < runs; ++r)
    for (size_t k = 0; k < n; ++k) {
      if (!ok[k]) continue;
      const ProcessTime t = run_process(argvs[k], cpu);
      ok[k] = t.ok;
      all[k].push_back(t);
    }
  std::vector<ProcessTime> out(n);
  for (size_t k = 0; k < n; ++k) {
    if (!ok[k] || all[k].empty()) continue;
    auto median = [&](double ProcessTime::*field) {
      std::vector<double> v;
      for (const ProcessTime& t : all[k]) v.push_back(t.*field);
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      return v[v.size() / 2];
    };
    out[k] = {median(&ProcessTime::wall), median(&ProcessTime::user), median(&ProcessTime::sys),
              true};
  }
  return out;
}

// Whether `tool` is an executable file, given as a path or found on PATH.
inline bool executable(const std::string& tool) {
  if (tool.find('/') != std::string::npos) return access(tool.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

// The gj2k CLI built next to the benchmark executable (argv[0]), or "gj2k" on PATH.
inline std::string gj2k_cli(const char* argv0) {
  const std::filesystem::path next = std::filesystem::path(argv0).parent_path() / "gj2k";
  if (!next.parent_path().empty() && executable(next.string())) return next.string();
  return "gj2k";
}

struct CliStream {
  std::string name;            // as printed
  std::filesystem::path file;  // a .j2k codestream
};

// The machine, for the tables' headings: /proc/cpuinfo's model name, family, model and
// stepping of the first CPU and its hardware threads, or "unknown" where they cannot be
// read. One-thread ratios move with the host (docs/PERFORMANCE.md, twenty-first run).
inline std::string host_description() {
  std::string name, family, model, stepping;
  if (std::FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    auto value = [&](const char* key, std::string& out) {
      const size_t n = std::strlen(key);
      if (!out.empty() || std::strncmp(line, key, n) != 0) return;
      const char* colon = std::strchr(line + n, ':');
      if (!colon) return;
      out = colon + 1;
      while (!out.empty() && (out.front() == ' ' || out.front() == '\t')) out.erase(0, 1);
      while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    };
    while (std::fgets(line, sizeof line, f)) {
      value("model name", name);
      value("cpu family", family);
      value("model\t", model);
      value("stepping", stepping);
      if (line[0] == '\n' && !name.empty()) break;  // the first CPU's block ends
    }
    std::fclose(f);
  }
  const unsigned threads = std::thread::hardware_concurrency();
  return (name.empty() ? std::string("unknown") : name) + " (family " + family + ", model " +
         model + ", stepping " + stepping + "), " + std::to_string(threads) + " threads";
}

// Decodes each stream with each decoder on each thread count and prints the table; the
// PPMs go to `scratch` (deleted after). `gj2k`: the CLI to run (gj2k_cli).
inline void print_cli_table(const std::vector<CliStream>& streams, const std::vector<int>& threads,
                            const std::string& gj2k, const std::filesystem::path& scratch,
                            int runs = 5) {
  struct Tool {
    const char* label;
    std::string exe;
    bool found;
  };
  std::vector<Tool> tools = {{"gj2k", gj2k, executable(gj2k)},
                             {"grok", "grk_decompress", executable("grk_decompress")},
                             {"openjpeg", "opj_decompress", executable("opj_decompress")}};
  std::printf(
      "\nWhole process, decode to PPM (medians of %d runs, each column its own, the decoders in "
      "turns; wall/user/sys s)\nhost: %s; %s\n",
      runs, host_description().c_str(), pin_note(pin_cpu()).c_str());
  for (const Tool& t : tools)
    if (!t.found) std::printf("  %s: %s not found, left out\n", t.label, t.exe.c_str());
  std::printf("%-26s %4s", "stream", "thr");
  for (const Tool& t : tools)
    if (t.found) std::printf(" %22s", t.label);
  std::printf(" %12s %12s\n", "grok/gj2k", "opj/gj2k");
  const std::filesystem::path out = scratch / "gj2k-bench-cli-out.ppm";
  for (const CliStream& s : streams) {
    if (!std::filesystem::exists(s.file)) {
      std::printf("%-26s (no stream file %s)\n", s.name.c_str(), s.file.string().c_str());
      continue;
    }
    for (int n : threads) {
      const std::string ns = std::to_string(n), in = s.file.string(), o = out.string();
      std::printf("%-26s %4d", s.name.c_str(), n);
      double wall[3] = {0, 0, 0};
      std::vector<std::vector<std::string>> argvs;
      std::vector<size_t> tool_of;
      for (size_t k = 0; k < tools.size(); ++k) {
        if (!tools[k].found) continue;
        if (k == 0)
          argvs.push_back(
              {tools[k].exe, "decode", "--device", "cpu", "--threads", ns, "-i", in, "-o", o});
        else if (k == 1)
          argvs.push_back({tools[k].exe, "-H", ns, "-i", in, "-o", o});
        else
          argvs.push_back({tools[k].exe, "-threads", ns, "-i", in, "-o", o});
        tool_of.push_back(k);
      }
      const std::vector<ProcessTime> times = time_in_turns(argvs, runs, pin_for(n));
      for (size_t i = 0; i < times.size(); ++i) {
        const ProcessTime& t = times[i];
        if (t.ok) {
          wall[tool_of[i]] = t.wall;
          std::printf("   %6.3f/%6.3f/%6.3f", t.wall, t.user, t.sys);
        } else {
          std::printf(" %22s", "failed");
        }
      }
      std::fflush(stdout);
      std::printf(" %12.2f %12.2f\n", wall[0] > 0 ? wall[1] / wall[0] : 0.0,
                  wall[0] > 0 ? wall[2] / wall[0] : 0.0);
    }
  }
  std::filesystem::remove(out);
}

}  // namespace gj2k::bench
