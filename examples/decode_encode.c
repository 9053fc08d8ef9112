/* gj2k from C: encode an RGB gradient losslessly to a .jp2 file through a write callback, read
 * its header, decode it back into an interleaved 8-bit buffer and check every sample, then
 * decode a half-size preview. Usage: decode_encode_c OUTPUT.jp2 */
#include <gj2k.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int write_file(void* user, const void* data, size_t size) {
  return fwrite(data, 1, size, (FILE*)user) == size;
}

static int report(void* user, const char* stage, double fraction) {
  (void)user;
  printf("  %s %3.0f%%\n", stage, 100.0 * fraction);
  return 1; /* 0 would cancel */
}

static int fail(gj2k_context* ctx, const char* what) {
  fprintf(stderr, "%s: %s (%s)\n", what, gj2k_context_error(ctx),
          gj2k_status_string(gj2k_context_error_code(ctx)));
  gj2k_context_destroy(ctx);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUTPUT.jp2\n", argv[0]);
    return 2;
  }
  enum { W = 256, H = 128, C = 3 };
  static uint8_t rgb[W * H * C], back[W * H * C];
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) rgb[(y * W + x) * C + c] = (uint8_t)(x + y * c + 40 * c);

  printf("gj2k %s (headers %s)\n", gj2k_version_string(), GJ2K_VERSION);
  gj2k_context* ctx = gj2k_context_create();
  if (!ctx) return fprintf(stderr, "%s\n", gj2k_last_error()), 1;
  gj2k_context_set_threads(ctx, 2);
  gj2k_context_set_progress(ctx, report, NULL);

  gj2k_image_desc image = {sizeof(gj2k_image_desc), W, H, C, 8, 0, GJ2K_CS_SRGB, NULL, 0};
  gj2k_buffer in = {rgb, sizeof rgb, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  gj2k_encode_params params;
  gj2k_encode_params_init(&params);
  params.format = GJ2K_FORMAT_JP2;
  params.levels = 4;
  FILE* f = fopen(argv[1], "wb");
  if (!f) return fprintf(stderr, "cannot write %s\n", argv[1]), 1;
  gj2k_status s = gj2k_encode_to_callback(ctx, &image, &in, &params, write_file, f);
  fclose(f);
  if (s != GJ2K_OK) return fail(ctx, "encode");
  gj2k_context_set_progress(ctx, NULL, NULL);

  gj2k_decoder* dec = gj2k_decoder_create_file(ctx, argv[1]);
  if (!dec) return fail(ctx, "open");
  gj2k_info info;
  info.struct_size = sizeof info;
  if (gj2k_decoder_read_header(dec, &info) != GJ2K_OK) return fail(ctx, "header");
  printf("%s: %ux%u, %u components, %u levels, %u layers, %s\n", argv[1], info.width,
         info.height, info.num_components, info.levels, info.layers,
         info.reversible ? "reversible" : "irreversible");

  gj2k_buffer out = {back, sizeof back, GJ2K_SAMPLE_8, GJ2K_INTERLEAVED, 0, 0};
  if (gj2k_decode_into(dec, NULL, &out) != GJ2K_OK) return fail(ctx, "decode");
  if (memcmp(rgb, back, sizeof rgb) != 0) return fprintf(stderr, "round trip differs\n"), 1;
  printf("lossless round trip: identical\n");

  gj2k_decode_params dp;
  gj2k_decode_params_init(&dp);
  dp.reduce = 1;
  if (gj2k_decoder_decode(dec, &dp) != GJ2K_OK) return fail(ctx, "decode");
  size_t size = 0;
  gj2k_decoder_output_size(dec, GJ2K_SAMPLE_16, GJ2K_PLANAR, &size);
  uint16_t* preview = (uint16_t*)malloc(size);
  gj2k_buffer pb = {preview, size, GJ2K_SAMPLE_16, GJ2K_PLANAR, 0, 0};
  if (!preview || gj2k_decoder_copy(dec, &pb) != GJ2K_OK) return fail(ctx, "copy");
  gj2k_info o;
  o.struct_size = sizeof o;
  gj2k_decoder_output(dec, &o);
  printf("preview: %ux%u, %zu bytes as 16-bit planes\n", o.width, o.height, size);
  free(preview);

  /* Errors come back as a code and a message. */
  gj2k_decoder* bad = gj2k_decoder_create_memory(ctx, "JPEG 2000?", 10);
  s = gj2k_decoder_read_header(bad, &info);
  printf("bad input: %s: %s\n", gj2k_status_string(s), gj2k_context_error(ctx));
  gj2k_decoder_destroy(bad);
  gj2k_decoder_destroy(dec);
  gj2k_context_destroy(ctx);
  return s == GJ2K_ERR_FORMAT ? 0 : 1;
}
