// Stage timing for performance work: with GJ2K_TRACE set in the environment, each TraceStage
// prints "gj2k trace: <name> <ms>" to stderr when it ends (from whichever thread ran it).
// Without it, a TraceStage costs one branch. Not public.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace gj2k::codec {

inline bool trace_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("GJ2K_TRACE");
    return v && *v && *v != '0';
  }();
  return on;
}

// Prints "gj2k trace: <text>" when tracing is on (a figure that is not a stage's time).
template <class... Args>
void trace_note(const char* format, Args... args) {
  if (!trace_enabled()) return;
  std::fprintf(stderr, "gj2k trace: ");
  std::fprintf(stderr, format, args...);
  std::fprintf(stderr, "\n");
}

class TraceStage {
 public:
  explicit TraceStage(const char* name) : name_(trace_enabled() ? name : nullptr) {
    if (name_) start_ = std::chrono::steady_clock::now();
  }
  ~TraceStage() { end(); }
  TraceStage(const TraceStage&) = delete;
  TraceStage& operator=(const TraceStage&) = delete;
  // Ends the stage now (once).
  void end() {
    if (!name_) return;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
            .count();
    std::fprintf(stderr, "gj2k trace: %-24s %9.1f ms\n", name_, ms);
    name_ = nullptr;
  }

 private:
  const char* name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gj2k::codec
