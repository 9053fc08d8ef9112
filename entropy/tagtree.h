// Tag trees (ISO/IEC 15444-1 B.10.2): a quad-tree of minima over a 2-D array of non-negative
// integers, coded incrementally against rising thresholds. One tree per precinct and subband
// codes the layer of first inclusion (B.10.4) and another the missing most significant
// bit-planes (B.10.5); both keep state across the layers of a tile, and reset() restarts them.
#pragma once

#include <cstdint>
#include <vector>

#include "entropy/bitio.h"

namespace gj2k::entropy {

class TagTree {
 public:
  // A value no threshold reaches: the encoder's "not yet known", the decoder's "not decoded".
  static constexpr int32_t kInfinity = INT32_MAX;

  TagTree() = default;
  // A tree over a width x height array of leaves (either may be 0: an empty tree).
  TagTree(uint32_t width, uint32_t height);

  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  uint32_t leaf_count() const { return width_ * height_; }

  // Forgets all coding state and sets every value to kInfinity (encoder and decoder).
  void reset();

  // Encoder: sets the value of leaf (x, y) = leaf index x + y * width and updates the minima
  // of its ancestors. Values may only be lowered. Once coding has started, a value v may be
  // set only while every threshold coded so far, for any leaf, is at most v: the inclusion
  // tree sets the first layer of all blocks first included in layer l before coding any leaf
  // against l + 1.
  void set_value(uint32_t leaf, int32_t value);
  int32_t value(uint32_t leaf) const { return nodes_[leaf].value; }

  // Encoder: writes the bits that tell a decoder whether value(leaf) < threshold, continuing
  // from what was already coded for this leaf and its ancestors (B.10.2).
  void encode(HeaderBitWriter& out, uint32_t leaf, int32_t threshold);

  // Decoder: reads the bits that encode() wrote for (leaf, threshold); returns whether
  // value(leaf) < threshold. value(leaf) is exact once it is below a threshold coded for it.
  bool decode(HeaderBitReader& in, uint32_t leaf, int32_t threshold);

  // Decoder: the whole value of a leaf, coded as encode(leaf, t) for t = 1, 2, ... until the
  // value is below t (how B.10.5 codes missing bit-planes). Throws Error(kFormat) when the
  // value would exceed `limit`.
  int32_t decode_value(HeaderBitReader& in, uint32_t leaf, int32_t limit);
  // Encoder counterpart of decode_value: encode(leaf, value(leaf) + 1).
  void encode_value(HeaderBitWriter& out, uint32_t leaf);

 private:
  struct Node {
    int32_t value = kInfinity;  // encoder: the minimum below; decoder: decoded value
    int32_t low = 0;            // lower bound on value already known to the decoder
    uint32_t parent = 0;        // the node above (the root: itself)
    bool known = false;         // encoder: the "value reached" bit has been sent
  };
  // Levels of the tree: at most 2^30 leaves, so one side halves at most 30 times.
  static constexpr int kMaxLevels = 32;
  void check_leaf(uint32_t leaf) const {
    if (leaf >= leaf_count()) [[unlikely]]
      fail_leaf(leaf);
  }
  [[noreturn]] void fail_leaf(uint32_t leaf) const;
  // The nodes from `leaf` up to the root into path[0..]; returns how many.
  int path_of(uint32_t leaf, uint32_t* path) const;

  uint32_t width_ = 0, height_ = 0;
  std::vector<Node> nodes_;  // leaves first (raster order), then each coarser level
};

}  // namespace gj2k::entropy
