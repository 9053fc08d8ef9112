// The `gj2k` Python module: decode, encode and info over the C++ API, NumPy arrays in and out,
// the GIL released while coding. Failures raise gj2k.Error (a RuntimeError) whose `code` is
// the ErrorCode's name ("format", "cancelled", ...).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gj2k/gj2k.h"

namespace py = pybind11;

namespace {

// The input of decode/info: a path (str or os.PathLike) or bytes-like data.
gj2k::Decoder open_decoder(const py::object& src) {
  if (py::isinstance<py::str>(src) || py::hasattr(src, "__fspath__")) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(src));
    py::gil_scoped_release release;
    return gj2k::Decoder(std::filesystem::path(path));
  }
  py::buffer_info b = py::buffer(src).request();
  const auto* p = static_cast<const uint8_t*>(b.ptr);
  if (b.ndim != 1 && b.size != 0) throw py::value_error("gj2k: bytes-like input must be 1-D");
  std::vector<uint8_t> bytes(p, p + b.size * b.itemsize);
  return gj2k::Decoder(std::move(bytes));
}

const char* color_name(gj2k::ColorSpace cs) {
  switch (cs) {
    case gj2k::ColorSpace::kGrey:
      return "grey";
    case gj2k::ColorSpace::kSRGB:
      return "srgb";
    case gj2k::ColorSpace::kSYCC:
      return "sycc";
    case gj2k::ColorSpace::kICC:
      return "icc";
    default:
      return "unknown";
  }
}

const char* order_name(uint32_t order) {
  static const char* const kNames[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  return order < 5 ? kNames[order] : "unknown";
}

py::dict info(const py::object& src) {
  gj2k::Decoder dec = open_decoder(src);
  const gj2k::HeaderInfo h = dec.read_header();
  py::list comps;
  for (const auto& c : h.components) {
    py::dict d;
    d["width"] = c.width;
    d["height"] = c.height;
    d["dx"] = c.dx;
    d["dy"] = c.dy;
    d["precision"] = c.precision;
    d["signed"] = c.is_signed;
    comps.append(d);
  }
  py::dict d;
  d["jp2"] = h.is_jp2;
  d["width"] = h.x1 - h.x0;
  d["height"] = h.y1 - h.y0;
  d["origin"] = py::make_tuple(h.x0, h.y0);
  d["components"] = comps;
  d["output_components"] = h.output_components;
  d["tile_size"] = py::make_tuple(h.tile_width, h.tile_height);
  d["tile_origin"] = py::make_tuple(h.tile_x0, h.tile_y0);
  d["tiles"] = py::make_tuple(h.num_tiles_x, h.num_tiles_y);
  d["levels"] = h.levels;
  d["min_levels"] = h.min_levels;
  d["layers"] = h.layers;
  d["reversible"] = h.reversible;
  d["progression"] = order_name(h.progression);
  d["color_space"] = color_name(h.color_space);
  d["icc_profile"] =
      py::bytes(reinterpret_cast<const char*>(h.icc_profile.data()), h.icc_profile.size());
  return d;
}

gj2k::DecodeDevice decode_device(const std::string& s) {
  if (s == "auto") return gj2k::DecodeDevice::kAuto;
  if (s == "cpu") return gj2k::DecodeDevice::kCpu;
  if (s == "gpu") return gj2k::DecodeDevice::kGpu;
  throw py::value_error("gj2k: device must be 'auto', 'cpu' or 'gpu', not '" + s + "'");
}

template <class T>
py::array to_array(const gj2k::Image& image, uint32_t w, uint32_t h) {
  const size_t nc = image.components.size();
  std::vector<py::ssize_t> shape{h, w};
  if (nc > 1) shape.push_back(static_cast<py::ssize_t>(nc));
  py::array_t<T> out(shape);
  T* dst = out.mutable_data();
  for (size_t c = 0; c < nc; ++c) {
    const int32_t* s = image.components[c].samples.data();
    const size_t n = size_t{w} * h;
    for (size_t i = 0; i < n; ++i) dst[i * nc + c] = static_cast<T>(s[i]);
  }
  return out;
}

// The array decode() returns, decoded straight into it (Decoder::decode_into: each tile's
// samples packed into the array, no int32 image and no copy after) where the decode needs no
// whole-image work and its components share one size and one signedness, on a little-endian
// host (the array's byte order); nullopt otherwise, deciding nothing (decode() then reports what
// is wrong, as it would).
template <class T>
py::array decode_into_typed(gj2k::Decoder& dec, const gj2k::DecodeParams& p,
                            const gj2k::Image& shape, gj2k::SampleType type) {
  const auto& c0 = shape.components[0];
  const size_t nc = shape.components.size();
  std::vector<py::ssize_t> dims{c0.height, c0.width};
  if (nc > 1) dims.push_back(static_cast<py::ssize_t>(nc));
  py::array_t<T> out(dims);
  gj2k::OutputBuffer buffer;
  buffer.data = out.mutable_data();
  buffer.size = static_cast<size_t>(out.nbytes());
  buffer.type = type;
  buffer.interleaved = nc > 1;
  {
    py::gil_scoped_release release;
    dec.decode_into(p, buffer);
  }
  return out;
}
std::optional<py::array> decode_into_array(gj2k::Decoder& dec, const gj2k::DecodeParams& p) {
  if constexpr (std::endian::native != std::endian::little) return std::nullopt;
  std::optional<gj2k::Image> shape;
  try {
    shape = dec.direct_output(p);
  } catch (const gj2k::Error&) {
    return std::nullopt;
  }
  if (!shape || shape->components.empty()) return std::nullopt;
  const auto& c0 = shape->components[0];
  uint32_t prec = 0;
  for (const auto& c : shape->components) {
    if (c.width != c0.width || c.height != c0.height || c.is_signed != c0.is_signed)
      return std::nullopt;
    prec = std::max(prec, c.precision);
  }
  if (c0.width == 0 || c0.height == 0) return std::nullopt;
  const bool sgn = c0.is_signed;
  using gj2k::SampleType;
  if (prec <= 8)
    return sgn ? decode_into_typed<int8_t>(dec, p, *shape, SampleType::k8)
               : decode_into_typed<uint8_t>(dec, p, *shape, SampleType::k8);
  if (prec <= 16)
    return sgn ? decode_into_typed<int16_t>(dec, p, *shape, SampleType::k16)
               : decode_into_typed<uint16_t>(dec, p, *shape, SampleType::k16);
  return decode_into_typed<int32_t>(dec, p, *shape, SampleType::k32);
}

py::array decode(const py::object& src, uint32_t reduce,
                 std::optional<std::vector<uint32_t>> region, std::optional<uint32_t> tile,
                 std::vector<uint32_t> components, uint32_t layers, bool upsample, bool force_rgb,
                 bool allow_partial, uint32_t threads, const std::string& device) {
  gj2k::DecodeParams p;
  p.reduce = reduce;
  if (region) {
    if (region->size() != 4) throw py::value_error("gj2k: region is (x0, y0, x1, y1)");
    p.region = gj2k::Region{(*region)[0], (*region)[1], (*region)[2], (*region)[3]};
  }
  p.tile = tile;
  p.components = std::move(components);
  p.max_layers = layers;
  p.upsample = upsample;
  p.force_rgb = force_rgb;
  p.allow_partial = allow_partial;
  p.threads = threads;
  p.device = decode_device(device);
  gj2k::Decoder dec = open_decoder(src);
  if (std::optional<py::array> a = decode_into_array(dec, p)) return *a;
  gj2k::Image image;
  {
    py::gil_scoped_release release;
    image = dec.decode(p);
  }
  if (image.components.empty()) throw py::value_error("gj2k: the decoded image has no components");
  const auto& c0 = image.components[0];
  uint32_t prec = 0;
  bool sgn = false;
  for (const auto& c : image.components) {
    if (c.width != c0.width || c.height != c0.height)
      throw py::value_error(
          "gj2k: the components have different sizes (subsampling); pass upsample=True or "
          "decode one component at a time (components=[k])");
    prec = std::max(prec, c.precision);
    sgn = sgn || c.is_signed;
  }
  if (prec <= 8)
    return sgn ? to_array<int8_t>(image, c0.width, c0.height)
               : to_array<uint8_t>(image, c0.width, c0.height);
  if (prec <= 16)
    return sgn ? to_array<int16_t>(image, c0.width, c0.height)
               : to_array<uint16_t>(image, c0.width, c0.height);
  return to_array<int32_t>(image, c0.width, c0.height);
}

gj2k::ProgressionOrder order_of(const std::string& s) {
  static const char* const kNames[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  for (int i = 0; i < 5; ++i)
    if (s == kNames[i]) return static_cast<gj2k::ProgressionOrder>(i);
  throw py::value_error("gj2k: order must be LRCP, RLCP, RPCL, PCRL or CPRL, not '" + s + "'");
}

// A number or a sequence of numbers as a list (None: empty).
std::vector<double> numbers(const py::object& o) {
  if (o.is_none()) return {};
  if (py::isinstance<py::float_>(o) || py::isinstance<py::int_>(o)) return {o.cast<double>()};
  return o.cast<std::vector<double>>();
}

py::object encode(const py::array& array, const py::object& path, bool lossless,
                  const py::object& rate, const py::object& psnr, int levels,
                  std::pair<uint32_t, uint32_t> cblk, int layers, const std::string& order,
                  std::optional<std::pair<uint32_t, uint32_t>> tile,
                  std::optional<std::string> format, std::optional<uint32_t> precision,
                  std::optional<bool> mct, int threads, const std::string& device,
                  std::optional<std::string> color_space) {
  if (array.ndim() != 2 && array.ndim() != 3)
    throw py::value_error(
        "gj2k: encode takes a (height, width) or (height, width, components) "
        "array");
  const py::dtype dt = array.dtype();
  const bool is_signed = dt.kind() == 'i';
  const size_t bytes = static_cast<size_t>(dt.itemsize());
  if ((dt.kind() != 'u' && dt.kind() != 'i') || bytes > 2)
    throw py::value_error("gj2k: encode takes uint8, uint16, int8 or int16 samples");
  const uint32_t h = static_cast<uint32_t>(array.shape(0));
  const uint32_t w = static_cast<uint32_t>(array.shape(1));
  const uint32_t nc = array.ndim() == 3 ? static_cast<uint32_t>(array.shape(2)) : 1;
  const uint32_t prec = precision.value_or(static_cast<uint32_t>(8 * bytes));
  if (prec < 1 || prec > 8 * bytes)
    throw py::value_error("gj2k: precision " + std::to_string(prec) + " does not fit the dtype");
  // The array's own memory is the encoder's input (Encoder::encode(layout, InputBuffer)): rows
  // of interleaved pixels at any positive row stride (the stride of an axis of length 1 does
  // not matter); an array laid out otherwise is copied into C order first. The encoder reads it
  // with the GIL released: another thread must not write it meanwhile.
  const size_t pixel = size_t{nc} * bytes, packed_row = size_t{w} * pixel;
  const auto rows_of_pixels = [&](const py::array& x) {
    const auto ok = [&](int axis, size_t want) {
      return x.shape(axis) == 1 ||
             (x.strides(axis) > 0 && static_cast<size_t>(x.strides(axis)) == want);
    };
    return ok(static_cast<int>(x.ndim()) - 1, bytes) && (x.ndim() == 2 || ok(1, pixel)) &&
           (h == 1 || (x.strides(0) > 0 && static_cast<size_t>(x.strides(0)) >= packed_row));
  };
  py::array a = array;
  if (!rows_of_pixels(a)) a = py::array::ensure(array, py::array::c_style);
  if (!a || !rows_of_pixels(a)) throw py::value_error("gj2k: the array cannot be read in rows");
  const bool big =
      dt.byteorder() == '>' || (dt.byteorder() == '=' && std::endian::native == std::endian::big);
  gj2k::Image image = gj2k::make_layout(w, h, nc, prec, is_signed);
  gj2k::InputBuffer in;
  in.data = a.data();
  in.type = bytes == 1 ? gj2k::SampleType::k8 : gj2k::SampleType::k16;
  in.interleaved = true;
  in.big_endian = bytes > 1 && big;
  in.row_stride = h > 1 ? static_cast<size_t>(a.strides(0)) : packed_row;
  in.size = h ? in.row_stride * (h - 1) + packed_row : 0;
  if (color_space) {
    if (*color_space == "grey")
      image.color_space = gj2k::ColorSpace::kGrey;
    else if (*color_space == "srgb")
      image.color_space = gj2k::ColorSpace::kSRGB;
    else if (*color_space == "sycc")
      image.color_space = gj2k::ColorSpace::kSYCC;
    else
      throw py::value_error("gj2k: color_space must be 'grey', 'srgb' or 'sycc'");
  }

  gj2k::EncodeParams p;
  p.irreversible = !lossless;
  p.rates = numbers(rate);
  p.psnr = numbers(psnr);
  p.levels = levels;
  p.cblk_width = cblk.first;
  p.cblk_height = cblk.second;
  p.layers = layers;
  p.order = order_of(order);
  if (tile) {
    p.tile_width = tile->first;
    p.tile_height = tile->second;
  }
  if (mct) p.mct = *mct ? 1 : 0;
  p.threads = threads;
  const gj2k::DecodeDevice d = decode_device(device);
  p.device = d == gj2k::DecodeDevice::kCpu   ? gj2k::EncodeParams::Device::kCpu
             : d == gj2k::DecodeDevice::kGpu ? gj2k::EncodeParams::Device::kGpu
                                             : gj2k::EncodeParams::Device::kAuto;
  gj2k::FileFormat fmt = gj2k::FileFormat::kJ2k;
  std::optional<std::filesystem::path> out_path;
  if (!path.is_none()) {
    out_path =
        std::filesystem::path(std::string(py::str(py::module_::import("os").attr("fspath")(path))));
    fmt = gj2k::format_from_extension(*out_path);
  }
  if (format) {
    if (*format == "jp2")
      fmt = gj2k::FileFormat::kJp2;
    else if (*format == "j2k")
      fmt = gj2k::FileFormat::kJ2k;
    else
      throw py::value_error("gj2k: format must be 'j2k' or 'jp2'");
  }
  std::vector<uint8_t> out;
  {
    py::gil_scoped_release release;
    out = gj2k::Encoder().encode(image, in, p, fmt);  // `a` keeps the samples alive
    if (out_path) {
      std::FILE* f = std::fopen(out_path->c_str(), "wb");
      const bool ok = f && std::fwrite(out.data(), 1, out.size(), f) == out.size();
      if (f && std::fclose(f) != 0)
        throw gj2k::Error(gj2k::ErrorCode::kIo, "cannot write " + out_path->string());
      if (!ok) throw gj2k::Error(gj2k::ErrorCode::kIo, "cannot write " + out_path->string());
    }
  }
  if (out_path) return py::none();
  return py::bytes(reinterpret_cast<const char*>(out.data()), out.size());
}

const char* code_name(gj2k::ErrorCode code) {
  switch (code) {
    case gj2k::ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case gj2k::ErrorCode::kIo:
      return "io";
    case gj2k::ErrorCode::kFormat:
      return "format";
    case gj2k::ErrorCode::kTruncated:
      return "truncated";
    case gj2k::ErrorCode::kUnsupported:
      return "unsupported";
    case gj2k::ErrorCode::kDevice:
      return "device";
    case gj2k::ErrorCode::kInternal:
      return "internal";
    case gj2k::ErrorCode::kCancelled:
      return "cancelled";
    case gj2k::ErrorCode::kBufferTooSmall:
      return "buffer_too_small";
    case gj2k::ErrorCode::kResource:
      return "resource";
  }
  return "unknown";
}

}  // namespace

PYBIND11_MODULE(gj2k, m) {
  m.doc() = "gj2k: JPEG 2000 Part 1 (ISO/IEC 15444-1) decoding and encoding with NumPy arrays";
  m.attr("__version__") = gj2k::version();
  static py::exception<gj2k::Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const gj2k::Error& e) {
      py::object type = py::reinterpret_borrow<py::object>(error.ptr());
      py::object instance = type(e.what());
      instance.attr("code") = code_name(e.code());
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });

  m.def("info", &info, py::arg("src"),
        "Header information without decoding: size, components, tiles, levels, layers, "
        "progression, colour space, ICC bytes. src: a path or bytes.");
  m.def("decode", &decode, py::arg("src"), py::kw_only(), py::arg("reduce") = 0,
        py::arg("region") = py::none(), py::arg("tile") = py::none(),
        py::arg("components") = std::vector<uint32_t>{}, py::arg("layers") = 0,
        py::arg("upsample") = false, py::arg("force_rgb") = false, py::arg("allow_partial") = false,
        py::arg("threads") = 0, py::arg("device") = "auto",
        "Decodes a path or bytes to an array of shape (height, width) for one component, else "
        "(height, width, components); dtype uint8/uint16 (int8/int16 when signed) by the "
        "largest precision, int32 above 16 bits. region=(x0, y0, x1, y1) on the full-resolution "
        "grid; tile=index; components=[indices]; layers=0 for all.");
  m.def(
      "release_resources", [] { return gj2k::release_gpu_resources(); },
      "Frees what the library keeps between calls to make the next one fast (the GPU's pooled "
      "buffers, pinned memory and streams, the CPU's kept coefficient buffers); returns how "
      "many pooled objects were freed.");
  m.def("encode", &encode, py::arg("array"), py::arg("path") = py::none(), py::kw_only(),
        py::arg("lossless") = true, py::arg("rate") = py::none(), py::arg("psnr") = py::none(),
        py::arg("levels") = 5, py::arg("cblk") = std::pair<uint32_t, uint32_t>{64, 64},
        py::arg("layers") = 0, py::arg("order") = "LRCP", py::arg("tile") = py::none(),
        py::arg("format") = py::none(), py::arg("precision") = py::none(),
        py::arg("mct") = py::none(), py::arg("threads") = 0, py::arg("device") = "auto",
        py::arg("color_space") = py::none(),
        "Encodes a (height, width[, components]) uint8/uint16/int8/int16 array. With a path, "
        "writes the file (format by extension) and returns None; else returns the bytes "
        "(format='j2k' by default, or 'jp2'). lossless=False: 9/7 irreversible; rate: "
        "compression ratios per layer (decreasing); psnr: dB per layer.");
}
