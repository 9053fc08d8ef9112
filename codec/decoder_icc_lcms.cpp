// ICC to sRGB through lcms2 (codec/decoder_icc_lcms.h).
#include "codec/decoder_icc_lcms.h"

#include "gj2k/error.h"

#ifdef GJ2K_HAVE_LCMS2
#include <lcms2.h>

#include <algorithm>
#include <cmath>
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

bool cielab_to_srgb_lcms(Image& image, const std::vector<uint32_t>& lab,
                         std::vector<std::string>& warnings) {
  auto& comps = image.components;
  if (comps.size() != 3 || comps[1].width != comps[0].width || comps[1].height != comps[0].height ||
      comps[2].width != comps[0].width || comps[2].height != comps[0].height) {
    warnings.push_back("CIELab: needs three components of one size; left as L*a*b* samples");
    return false;
  }
  Profile in(cmsCreateLab4Profile(nullptr));
  Profile srgb(cmsCreate_sRGBProfile());
  Transform t(in && srgb ? cmsCreateTransform(in.get(), TYPE_Lab_DBL, srgb.get(), TYPE_RGB_16,
                                              INTENT_PERCEPTUAL, 0)
                         : nullptr);
  if (!t) {
    warnings.push_back("CIELab: lcms2 cannot make a transform to sRGB; left as L*a*b* samples");
    return false;
  }
  double full[3], range[3], offset[3];
  for (int c = 0; c < 3; ++c) full[c] = std::ldexp(1.0, int(comps[c].precision)) - 1;
  if (lab.size() >= 6) {
    for (int c = 0; c < 3; ++c) {
      range[c] = lab[2 * c];
      offset[c] = lab[2 * c + 1];
    }
  } else {  // "DEF"
    range[0] = 100;
    range[1] = 170;
    range[2] = 200;
    offset[0] = 0;
    offset[1] = std::ldexp(1.0, int(comps[1].precision) - 1);
    offset[2] =
        std::ldexp(1.0, int(comps[2].precision) - 2) + std::ldexp(1.0, int(comps[2].precision) - 3);
  }
  double lo[3], step[3];
  for (int c = 0; c < 3; ++c) {
    lo[c] = -(range[c] * offset[c]) / full[c];
    step[c] = ((lo[c] + range[c]) - lo[c]) / full[c];
  }
  const size_t n = comps[0].samples.size();
  std::vector<Samples> out(3);
  for (auto& o : out) o.resize(n);
  constexpr size_t kChunk = 4096;
  std::vector<cmsCIELab> in_px(kChunk);
  std::vector<uint16_t> out_px(3 * kChunk);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    for (size_t k = 0; k < m; ++k) {
      in_px[k].L = lo[0] + double(comps[0].samples[i + k]) * step[0];
      in_px[k].a = lo[1] + double(comps[1].samples[i + k]) * step[1];
      in_px[k].b = lo[2] + double(comps[2].samples[i + k]) * step[2];
    }
    cmsDoTransform(t.get(), in_px.data(), out_px.data(), static_cast<cmsUInt32Number>(m));
    for (size_t k = 0; k < m; ++k)
      for (int c = 0; c < 3; ++c) out[c][i + k] = out_px[3 * k + c];
  }
  for (int c = 0; c < 3; ++c) {
    comps[c].samples = std::move(out[c]);
    comps[c].precision = 16;
    comps[c].is_signed = false;
  }
  image.color_space = ColorSpace::kSRGB;
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

bool cielab_to_srgb_lcms(Image&, const std::vector<uint32_t>&, std::vector<std::string>&) {
  throw Error(ErrorCode::kUnsupported,
              "converting CIELab to sRGB needs gj2k built with lcms2 (liblcms2-dev)");
}

#endif

}  // namespace gj2k::codec
