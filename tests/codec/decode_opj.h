// OpenJPEG (libopenjp2) in memory, for the decoder's interoperability tests: encode a
// gj2k::Image with opj parameters, decode a codestream to a gj2k::Image.
#pragma once

#ifdef GJ2K_HAVE_OPENJPEG
#include <openjpeg.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gj2k/image.h"
#include "tests/common/opj_memory.h"

namespace gj2k::test::opj {

inline void quiet(const char*, void*) {}

// Encodes `image` as a raw codestream (J2K) with `adjust` applied to opj's default parameters.
// threads > 0: OpenJPEG's encoder threads (the codestream does not depend on them).
inline std::vector<uint8_t> encode(const Image& image,
                                   const std::function<void(opj_cparameters_t&)>& adjust,
                                   const std::vector<const char*>& extra_options = {},
                                   int threads = 0) {
  opj_cparameters_t p;
  opj_set_default_encoder_parameters(&p);
  p.tcp_numlayers = 1;
  p.tcp_rates[0] = 0;
  p.cp_disto_alloc = 1;
  adjust(p);
  std::vector<opj_image_cmptparm_t> cp(image.components.size());
  for (size_t c = 0; c < cp.size(); ++c) {
    const Component& comp = image.components[c];
    std::memset(&cp[c], 0, sizeof cp[c]);
    cp[c].dx = comp.dx;
    cp[c].dy = comp.dy;
    cp[c].w = comp.width;
    cp[c].h = comp.height;
    cp[c].x0 = image.x0;
    cp[c].y0 = image.y0;
    cp[c].prec = comp.precision;
    cp[c].sgnd = comp.is_signed;
  }
  const bool rgb = image.components.size() >= 3;
  opj_image_t* im = opj_image_create(static_cast<OPJ_UINT32>(cp.size()), cp.data(),
                                     rgb ? OPJ_CLRSPC_SRGB : OPJ_CLRSPC_GRAY);
  im->x0 = image.x0;
  im->y0 = image.y0;
  im->x1 = image.x1;
  im->y1 = image.y1;
  for (size_t c = 0; c < cp.size(); ++c)
    std::copy(image.components[c].samples.begin(), image.components[c].samples.end(),
              im->comps[c].data);
  opj_codec_t* codec = opj_create_compress(OPJ_CODEC_J2K);
  opj_set_error_handler(codec, quiet, nullptr);
  opj_set_warning_handler(codec, quiet, nullptr);
  if (threads > 0) opj_codec_set_threads(codec, threads);
  Buffer out;
  opj_stream_t* s = make_stream(out, false);
  std::vector<const char*> extra = extra_options;  // e.g. "PLT=YES", "TLM=YES"
  extra.push_back(nullptr);
  bool ok = opj_setup_encoder(codec, &p, im) &&
            (extra_options.empty() || opj_encoder_set_extra_options(codec, extra.data())) &&
            opj_start_compress(codec, im, s) && opj_encode(codec, s) && opj_end_compress(codec, s);
  opj_stream_destroy(s);
  opj_destroy_codec(codec);
  opj_image_destroy(im);
  if (!ok) throw std::runtime_error("opj encode failed");
  return out.bytes;
}

struct DecodeOptions {
  uint32_t reduce = 0;
  uint32_t layers = 0;
  std::optional<std::array<int32_t, 4>> area;
  std::optional<uint32_t> tile;
  // opj_decompress -allow-partial: OpenJPEG's non-strict mode (truncated streams decode).
  bool allow_partial = false;
};

// Decodes a codestream (or a JP2 file, by its signature) with OpenJPEG; nullopt when OpenJPEG
// refuses it, with its error messages in *error when given ("OpenJPEG failed without a
// message" when it gave none).
inline std::optional<Image> decode(const std::vector<uint8_t>& bytes, const DecodeOptions& o = {},
                                   std::string* error = nullptr) {
  const bool jp2 = bytes.size() > 12 && bytes[4] == 'j' && bytes[5] == 'P';
  Buffer in{bytes, 0};
  opj_stream_t* s = make_stream(in, true);
  opj_codec_t* codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  auto append = [](const char* msg, void* user) { *static_cast<std::string*>(user) += msg; };
  if (error)
    opj_set_error_handler(codec, append, error);
  else
    opj_set_error_handler(codec, quiet, nullptr);
  opj_set_warning_handler(codec, quiet, nullptr);
  opj_set_info_handler(codec, quiet, nullptr);
  opj_dparameters_t p;
  opj_set_default_decoder_parameters(&p);
  p.cp_reduce = o.reduce;
  p.cp_layer = o.layers;
  opj_image_t* im = nullptr;
  bool ok = opj_setup_decoder(codec, &p) &&
            (!o.allow_partial || opj_decoder_set_strict_mode(codec, OPJ_FALSE)) &&
            opj_read_header(s, codec, &im);
  if (ok && o.area)
    ok = opj_set_decode_area(codec, im, (*o.area)[0], (*o.area)[1], (*o.area)[2], (*o.area)[3]);
  if (ok) {
    if (o.tile)
      ok = opj_get_decoded_tile(codec, s, im, *o.tile);
    else
      ok = opj_decode(codec, s, im) && opj_end_decompress(codec, s);
  }
  std::optional<Image> out;
  if (ok) {
    Image image;
    image.x0 = im->x0;
    image.y0 = im->y0;
    image.x1 = im->x1;
    image.y1 = im->y1;
    for (uint32_t c = 0; c < im->numcomps; ++c) {
      const opj_image_comp_t& oc = im->comps[c];
      Component comp;
      comp.dx = oc.dx;
      comp.dy = oc.dy;
      comp.precision = oc.prec;
      comp.is_signed = oc.sgnd != 0;
      comp.is_alpha = oc.alpha != 0;
      comp.width = oc.w;
      comp.height = oc.h;
      comp.samples.assign(oc.data, oc.data + size_t{oc.w} * oc.h);
      image.components.push_back(std::move(comp));
    }
    out = std::move(image);
  } else if (error && error->empty()) {
    *error = "OpenJPEG failed without a message";
  }
  if (im) opj_image_destroy(im);
  opj_stream_destroy(s);
  opj_destroy_codec(codec);
  return out;
}

}  // namespace gj2k::test::opj
#endif
