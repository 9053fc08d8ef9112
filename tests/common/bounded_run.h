// Runs a piece of work in a forked child and measures what it cost: wall time and the peak
// resident memory it added (Linux: the peak is reset through /proc/self/clear_refs, then read
// as VmHWM - VmRSS at the start). The child is killed after `kill_after_s` seconds; outside
// sanitizer builds its address space is also capped (RLIMIT_AS), so a runaway allocation fails
// there instead of taking the machine. The child must not use more than one thread (the
// library's worker threads do not survive fork): pass threads = 1 to what it decodes.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <string>

#include "gj2k/error.h"

namespace gj2k::test {

struct BoundedResult {
  enum class Kind { kFinished, kGjError, kOtherException, kCrashed, kKilled };
  Kind kind = Kind::kCrashed;
  std::string message;  // the exception's text, or how the child ended
  double seconds = 0;
  long peak_kb = 0;  // peak resident memory added by the work
  bool memory_measured = false;

  bool clean() const { return kind == Kind::kFinished || kind == Kind::kGjError; }
  std::string describe() const {
    static const char* names[] = {"finished", "gj2k::Error", "other exception", "crashed",
                                  "killed (time limit)"};
    return std::string(names[static_cast<int>(kind)]) + " in " + std::to_string(seconds) +
           " s, peak +" + std::to_string(peak_kb / 1024) + " MB" +
           (message.empty() ? "" : ": " + message);
  }
};

namespace detail {

inline long status_kb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0) return std::atol(line.c_str() + n + 1);
  return -1;
}

inline bool reset_peak() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GJ2K_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GJ2K_TEST_ASAN 1
#endif

}  // namespace detail

// Runs work() in a child process. address_cap_mb bounds the child's address space beyond what
// it has at fork (non-sanitizer builds only).
inline BoundedResult run_bounded(const std::function<void()>& work, int kill_after_s = 20,
                                 long address_cap_mb = 2048) {
  BoundedResult r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.message = "pipe failed";
    return r;
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    r.message = "fork failed";
    return r;
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(static_cast<unsigned>(kill_after_s));
#ifndef GJ2K_TEST_ASAN
    const long vm_kb = detail::status_kb("VmSize:");
    if (vm_kb > 0) {
      rlimit lim;
      lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>(vm_kb + address_cap_mb * 1024) * 1024;
      setrlimit(RLIMIT_AS, &lim);
    }
#endif
    const bool measured = detail::reset_peak();
    const long base_kb = detail::status_kb("VmRSS:");
    int kind = 0;
    std::string message;
    const auto start = std::chrono::steady_clock::now();
    try {
      work();
    } catch (const gj2k::Error& e) {
      kind = 1;
      message = e.what();
    } catch (const std::exception& e) {
      kind = 2;
      message = std::string("std::exception: ") + e.what();
    } catch (...) {
      kind = 2;
      message = "unknown exception";
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const long peak_kb = measured ? detail::status_kb("VmHWM:") - base_kb : 0;
    message = message.substr(0, 2000);
    char head[128];
    const int n = std::snprintf(head, sizeof head, "%d %.6f %ld %d\n", kind, seconds, peak_kb,
                                measured ? 1 : 0);
    (void)!write(fds[1], head, static_cast<size_t>(n));
    (void)!write(fds[1], message.data(), message.size());
    close(fds[1]);
    _exit(0);  // no atexit handlers, no sanitizer leak scan of the parent's state
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  int kind = -1, measured = 0;
  if (std::sscanf(out.c_str(), "%d %lf %ld %d", &kind, &r.seconds, &r.peak_kb, &measured) == 4 &&
      WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    r.kind = static_cast<BoundedResult::Kind>(kind);
    r.memory_measured = measured != 0;
    const size_t eol = out.find('\n');
    r.message = eol == std::string::npos ? "" : out.substr(eol + 1);
  } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    r.kind = BoundedResult::Kind::kKilled;
    r.message = "killed after " + std::to_string(kill_after_s) + " s";
  } else {
    r.kind = BoundedResult::Kind::kCrashed;
    r.message = WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                    : "exit status " + std::to_string(WEXITSTATUS(status));
  }
  return r;
}

}  // namespace gj2k::test
