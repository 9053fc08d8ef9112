// ICC to sRGB through lcms2 (codec/decoder_icc_lcms.h).
#include "codec/decoder_icc_lcms.h"

#include "gj2k/error.h"

#ifdef GJ2K_HAVE_LCMS2
#include <lcms2.h>

#include <algorithm>
#include <memory>
#endif

namespace gj2k::codec {

#ifdef GJ2K_HAVE_LCMS2
namespace {

struct ProfileCloser {
  void operator()(void* p) const { cmsCloseProfile(p); }
};
struct TransformDeleter {
  void operator()(void* t) const { cmsDeleteTransform(t); }
};
using Profile = std::unique_ptr<void, ProfileCloser>;
using Transform = std::unique_ptr<void, TransformDeleter>;

// Runs `t` over planar components `in` (n_in of them) into `out` (3), one pixel row per call.
template <class T>
void run(cmsHTRANSFORM t, const std::vector<Component*>& in, std::vector<Samples>& out,
         size_t pixels) {
  const size_t n_in = in.size();
  std::vector<T> src(pixels * n_in), dst(pixels * 3);
  for (size_t i = 0; i < pixels; ++i)
    for (size_t c = 0; c < n_in; ++c) src[i * n_in + c] = static_cast<T>(in[c]->samples[i]);
  cmsDoTransform(t, src.data(), dst.data(), static_cast<cmsUInt32Number>(pixels));
  for (size_t c = 0; c < 3; ++c) {
    out[c].resize(pixels);
    for (size_t i = 0; i < pixels; ++i) out[c][i] = dst[i * 3 + c];
  }
}

}  // namespace

bool have_lcms2() {
  return true;
}

bool icc_to_srgb_lcms(Image& image, const std::vector<uint8_t>& icc,
                      std::vector<std::string>& warnings) {
  Profile in(cmsOpenProfileFromMem(icc.data(), static_cast<cmsUInt32Number>(icc.size())));
  if (!in) {
    warnings.push_back("ICC profile: lcms2 cannot read it; the image keeps its profile");
    return false;
  }
  const cmsColorSpaceSignature space = cmsGetColorSpace(in.get());
  const bool rgb = space == cmsSigRgbData, grey = space == cmsSigGrayData;
  const size_t need = rgb ? 3 : 1;
  if ((!rgb && !grey) || image.components.size() < need) {
    warnings.push_back(
        "ICC profile: not an RGB or grey profile for the image's components; "
        "the image keeps its profile");
    return false;
  }
  std::vector<Component*> comps;
  for (size_t c = 0; c < need; ++c) {
    Component& comp = image.components[c];
    if (comp.width != image.components[0].width || comp.height != image.components[0].height ||
        comp.dx != 1 || comp.dy != 1) {
      warnings.push_back(
          "ICC profile: components of different sizes; the image keeps its "
          "profile");
      return false;
    }
    comps.push_back(&comp);
  }
  const bool wide = image.components[0].precision > 8;
  const cmsUInt32Number in_type =
      rgb ? (wide ? TYPE_RGB_16 : TYPE_RGB_8) : (wide ? TYPE_GRAY_16 : TYPE_GRAY_8);
  const cmsUInt32Number out_type = wide ? TYPE_RGB_16 : TYPE_RGB_8;
  Profile srgb(cmsCreate_sRGBProfile());
  Transform t(cmsCreateTransform(in.get(), in_type, srgb.get(), out_type,
                                 cmsGetHeaderRenderingIntent(in.get()), 0));
  if (!t) {
    warnings.push_back(
        "ICC profile: lcms2 cannot make a transform to sRGB; the image keeps "
        "its profile");
    return false;
  }
  const size_t pixels = image.components[0].samples.size();
  std::vector<Samples> out(3);
  if (wide)
    run<uint16_t>(t.get(), comps, out, pixels);
  else
    run<uint8_t>(t.get(), comps, out, pixels);
  if (grey) {  // the grey component becomes R, G, B
    Component proto = image.components[0];
    proto.is_alpha = false;
    image.components.insert(image.components.begin() + 1, 2, proto);
  }
  for (size_t c = 0; c < 3; ++c) {
    image.components[c].samples = std::move(out[c]);
    image.components[c].is_signed = false;
    image.components[c].is_alpha = false;
  }
  image.color_space = ColorSpace::kSRGB;
  image.icc_profile.clear();
  return true;
}

#else

bool have_lcms2() {
  return false;
}

bool icc_to_srgb_lcms(Image&, const std::vector<uint8_t>&, std::vector<std::string>&) {
  throw Error(ErrorCode::kUnsupported,
              "converting ICC profiles to sRGB needs gj2k built with lcms2 (liblcms2-dev)");
}

#endif

}  // namespace gj2k::codec
