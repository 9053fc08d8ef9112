// Writing output files so that a failed or killed process never leaves a partial file under
// the output's name: the bytes go to a temporary file in the same folder, which is renamed over
// the output (rename(2) replaces it atomically) once complete, and removed on failure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>

namespace gj2k::detail {

// Throws Error(kIo) naming `path` unless the folder it would be written in exists and is a
// folder. Called before any coding, so a typo costs nothing.
void check_output_folder(const std::filesystem::path& path);

// Calls write(tmp) with a fresh temporary path beside `path` (".<name>.<pid>-<n>.gj2k-tmp"),
// then renames it to `path`. When write throws (or the rename fails) the temporary is removed
// and the error passed on (a rename failure is Error(kIo) naming `path`).
void write_through_temporary(const std::filesystem::path& path,
                             const std::function<void(const std::filesystem::path& tmp)>& write);

// write_through_temporary for bytes produced in pieces: produce(put) calls put with each
// piece in order; they are written as they come (no buffer the size of the file). Write and
// close failures throw Error(kIo) naming `path`.
using ByteSink = std::function<void(std::span<const uint8_t>)>;
void write_stream_replacing(const std::filesystem::path& path,
                            const std::function<void(const ByteSink& put)>& produce);

// write_through_temporary for bytes in memory.
void write_bytes_replacing(const std::filesystem::path& path, std::span<const uint8_t> bytes);

}  // namespace gj2k::detail
