// Test helper: an RGB 8-bit interleaved picture through a gj2k_context and back (C API).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gj2k.h"

namespace gj2k::test {

struct CapiRoundTrip {
  std::vector<uint8_t> stream, decoded;
};

// Encodes `pixels` (w x h, RGB 8-bit interleaved; 9/7 when `irreversible`, code-blocks of
// cblk x cblk, 0: the default) through ctx, then decodes the stream into interleaved 8-bit
// samples through ctx. Empty parts on failure (reported as test failures).
inline CapiRoundTrip capi_round_trip(gj2k_context* ctx, const std::vector<uint8_t>& pixels,
                                     uint32_t w, uint32_t h, bool irreversible, uint32_t cblk = 0) {
  CapiRoundTrip r;
  gj2k_image_desc d{};
  d.struct_size = sizeof(d);
  d.width = w;
  d.height = h;
  d.num_components = 3;
  d.precision = 8;
  d.color_space = GJ2K_CS_SRGB;
  gj2k_buffer in{
      const_cast<uint8_t*>(pixels.data()), pixels.size(), GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  gj2k_encode_params ep;
  gj2k_encode_params_init(&ep);
  ep.irreversible = irreversible;
  if (cblk) ep.cblk_width = ep.cblk_height = cblk;
  uint8_t* out = nullptr;
  size_t size = 0;
  if (gj2k_encode_to_memory(ctx, &d, &in, &ep, &out, &size) != GJ2K_OK) {
    ADD_FAILURE() << gj2k_context_error(ctx);
    return r;
  }
  r.stream.assign(out, out + size);
  gj2k_free(out);
  gj2k_decoder* dec = gj2k_decoder_create_memory(ctx, r.stream.data(), r.stream.size());
  if (!dec) {
    ADD_FAILURE() << gj2k_last_error();
    return r;
  }
  r.decoded.resize(pixels.size());
  gj2k_buffer buf{r.decoded.data(), r.decoded.size(), GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  if (gj2k_decode_into(dec, nullptr, &buf) != GJ2K_OK) {
    ADD_FAILURE() << gj2k_context_error(ctx);
    r.decoded.clear();
  }
  gj2k_decoder_destroy(dec);
  return r;
}

}  // namespace gj2k::test
