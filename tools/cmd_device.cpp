// `gj2k device`: what the transform stages would run on here.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "tools/command.h"
#include "transform/device.h"

namespace {
const bool registered = gj2k::cli::register_command(
    {"device", "Show whether a CUDA GPU is usable for the transform stages",
     [](CLI::App&) -> gj2k::cli::RunFn {
       return [] {
         auto info = gj2k::transform::gpu_info();
         if (info.available)
           std::printf(
               "gpu: %s (sm_%d%d, %d SMs, %.1f GiB)\n"
               "--device auto: the GPU for images of %llu samples or more, else the CPU\n",
               info.name.c_str(), info.sm_major, info.sm_minor, info.multiprocessors,
               info.global_memory / double(1u << 30), gj2k::transform::kGpuAutoMinSamples);
         else
           std::printf("gpu: none (%s); the CPU path will be used\n", info.reason.c_str());
         return 0;
       };
     }});
}  // namespace
