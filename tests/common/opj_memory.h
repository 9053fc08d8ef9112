// A libopenjp2 stream over bytes in memory, for tests and benchmarks that run OpenJPEG beside
// gj2k. Input streams read `bytes` from `pos`; output streams write there, growing it.
// Reading past the end returns (OPJ_SIZE_T)-1, as libopenjp2 expects at end of stream.
#pragma once

#include <openjpeg.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gj2k::test::opj {

struct Buffer {
  std::vector<uint8_t> bytes;
  size_t pos = 0;
};

inline OPJ_SIZE_T read_fn(void* dst, OPJ_SIZE_T n, void* user) {
  auto* b = static_cast<Buffer*>(user);
  if (b->pos >= b->bytes.size()) return static_cast<OPJ_SIZE_T>(-1);
  n = std::min<OPJ_SIZE_T>(n, b->bytes.size() - b->pos);
  std::memcpy(dst, b->bytes.data() + b->pos, n);
  b->pos += n;
  return n;
}
inline OPJ_SIZE_T write_fn(void* src, OPJ_SIZE_T n, void* user) {
  auto* b = static_cast<Buffer*>(user);
  if (b->pos + n > b->bytes.size()) b->bytes.resize(b->pos + n);
  std::memcpy(b->bytes.data() + b->pos, src, n);
  b->pos += n;
  return n;
}
inline OPJ_OFF_T skip_fn(OPJ_OFF_T n, void* user) {
  auto* b = static_cast<Buffer*>(user);
  const auto next = static_cast<OPJ_OFF_T>(b->pos) + n;
  if (next < 0) return -1;
  b->pos = static_cast<size_t>(next);
  return n;
}
inline OPJ_BOOL seek_fn(OPJ_OFF_T n, void* user) {
  auto* b = static_cast<Buffer*>(user);
  if (n < 0) return OPJ_FALSE;
  b->pos = static_cast<size_t>(n);
  return OPJ_TRUE;
}

// The caller keeps `b` alive until opj_stream_destroy.
inline opj_stream_t* make_stream(Buffer& b, bool input, size_t chunk = size_t{1} << 16) {
  opj_stream_t* s = opj_stream_create(chunk, input ? OPJ_TRUE : OPJ_FALSE);
  opj_stream_set_user_data(s, &b, nullptr);
  opj_stream_set_user_data_length(s, b.bytes.size());
  opj_stream_set_read_function(s, read_fn);
  opj_stream_set_write_function(s, write_fn);
  opj_stream_set_skip_function(s, skip_fn);
  opj_stream_set_seek_function(s, seek_fn);
  return s;
}

}  // namespace gj2k::test::opj
