// gj2k from C++: encode a 16-bit greyscale ramp losslessly and at 20:1 (9/7), the lossy one
// again from the caller's own 16-bit samples, decode the lossless one back and check it,
// decode a region of the lossy one. Usage: decode_encode_cpp DIR
#include <gj2k/gj2k.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUTPUT_DIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  try {
    std::cout << "gj2k " << gj2k::version() << "\n";
    gj2k::Image image = gj2k::make_image(300, 200, 1, 12);
    image.color_space = gj2k::ColorSpace::kGrey;
    for (uint32_t y = 0; y < 200; ++y)
      for (uint32_t x = 0; x < 300; ++x) image.components[0].at(x, y) = (x * 13 + y * 7) % 4096;

    gj2k::Encoder encoder;
    gj2k::EncodeParams lossless;
    encoder.encode_to_file(image, lossless, dir / "ramp.j2k");
    gj2k::EncodeParams lossy;
    lossy.irreversible = true;
    lossy.rates = {20};
    gj2k::EncodeStats stats;
    const std::vector<uint8_t> bytes = encoder.encode(image, lossy, gj2k::FileFormat::kJp2, &stats);
    std::cout << "lossy: " << stats.bytes << " bytes in " << stats.tiles << " tile(s)\n";

    // The same samples as the caller holds them (uint16_t rows), read in place.
    std::vector<uint16_t> rows(300 * 200);
    for (size_t i = 0; i < rows.size(); ++i)
      rows[i] = static_cast<uint16_t>(image.components[0].samples[i]);
    gj2k::Image layout = gj2k::make_layout(300, 200, 1, 12);
    layout.color_space = gj2k::ColorSpace::kGrey;
    gj2k::InputBuffer in;
    in.data = rows.data();
    in.size = rows.size() * sizeof(uint16_t);
    in.type = gj2k::SampleType::k16;
    if (encoder.encode(layout, in, lossy, gj2k::FileFormat::kJp2) != bytes) {
      std::cerr << "encoding from the caller's samples differs\n";
      return 1;
    }

    gj2k::Decoder decoder(dir / "ramp.j2k");
    const gj2k::HeaderInfo info = decoder.read_header();
    std::cout << "header: " << info.x1 - info.x0 << "x" << info.y1 - info.y0 << ", " << info.levels
              << " levels\n";
    const gj2k::Image back = decoder.decode();
    if (auto diff = gj2k::compare(image, back)) {
      std::cerr << "round trip differs: " << *diff << "\n";
      return 1;
    }
    std::cout << "lossless round trip: " << gj2k::describe(back) << "\n";

    gj2k::DecodeParams params;
    params.region = gj2k::Region{100, 50, 200, 150};
    const gj2k::Image crop = gj2k::decode_memory(bytes, params);
    std::cout << "region of the lossy one: " << gj2k::describe(crop) << "\n";

    gj2k::decode_memory(std::vector<uint8_t>{1, 2, 3});  // throws
    return 1;
  } catch (const gj2k::Error& e) {
    std::cout << "bad input: " << gj2k::to_string(e.code()) << ": " << e.what() << "\n";
    return e.code() == gj2k::ErrorCode::kFormat ? 0 : 1;
  }
}
