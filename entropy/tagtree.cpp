// Tag tree coding (15444-1 B.10.2).
#include "entropy/tagtree.h"

#include <algorithm>
#include <string>

#include "gj2k/error.h"

namespace gj2k::entropy {

TagTree::TagTree(uint32_t width, uint32_t height) : width_(width), height_(height) {
  if (width == 0 || height == 0) {
    width_ = height_ = 0;
    return;
  }
  if (uint64_t{width} * height > (uint64_t{1} << 30)) {
    throw Error(ErrorCode::kInvalidArgument, "tag tree: " + std::to_string(width) + " x " +
                                                 std::to_string(height) + " leaves is too many");
  }
  // Level k holds ceil(width / 2^k) x ceil(height / 2^k) nodes, each the parent of the 2x2
  // nodes below it, up to a single root. The nodes are made level by level in raster order,
  // which is their order in nodes_.
  size_t total = 0;
  for (uint32_t w = width, h = height;; w = (w + 1) / 2, h = (h + 1) / 2) {
    total += size_t{w} * h;
    if (w == 1 && h == 1) break;
  }
  nodes_.reserve(total);
  for (uint32_t w = width, h = height; w > 1 || h > 1; w = (w + 1) / 2, h = (h + 1) / 2) {
    const auto up = static_cast<uint32_t>(nodes_.size()) + w * h;  // the next level's first
    for (uint32_t y = 0; y < h; ++y) {
      const uint32_t above = up + (y / 2) * ((w + 1) / 2);
      for (uint32_t x = 0; x < w; ++x) nodes_.push_back(Node{kInfinity, 0, above + x / 2, false});
    }
  }
  nodes_.push_back(Node{kInfinity, 0, static_cast<uint32_t>(nodes_.size()), false});  // root
}

void TagTree::reset() {
  for (Node& n : nodes_) {
    n.value = kInfinity;
    n.low = 0;
    n.known = false;
  }
}

void TagTree::fail_leaf(uint32_t leaf) const {
  throw Error(ErrorCode::kInternal,
              "tag tree: leaf " + std::to_string(leaf) + " of " + std::to_string(leaf_count()));
}

int TagTree::path_of(uint32_t leaf, uint32_t* path) const {
  int n = 0;
  path[n++] = leaf;
  for (uint32_t i = leaf; nodes_[i].parent != i;) path[n++] = i = nodes_[i].parent;
  return n;
}

void TagTree::set_value(uint32_t leaf, int32_t value) {
  if (leaf >= leaf_count() || value < 0) {
    throw Error(ErrorCode::kInternal, "tag tree: set_value(" + std::to_string(leaf) + ", " +
                                          std::to_string(value) + ") out of range");
  }
  if (value > nodes_[leaf].value) {
    throw Error(ErrorCode::kInternal, "tag tree: a leaf value may only be lowered");
  }
  nodes_[leaf].value = value;
  for (uint32_t i = leaf; nodes_[i].parent != i;) {
    i = nodes_[i].parent;
    Node& node = nodes_[i];
    if (node.value <= value) break;  // ancestors already at or below it
    node.value = value;
  }
}

void TagTree::encode(HeaderBitWriter& out, uint32_t leaf, int32_t threshold) {
  check_leaf(leaf);
  uint32_t path[kMaxLevels];
  int32_t low = 0;
  for (int k = path_of(leaf, path) - 1; k >= 0; --k) {  // root first
    Node& node = nodes_[path[k]];
    // What the decoder knows of a child is at least what it knows of the parent.
    low = std::max(low, node.low);
    while (low < threshold) {
      if (low >= node.value) {
        if (!node.known) {
          out.put_bit(1);  // "the value is low"
          node.known = true;
        }
        break;
      }
      out.put_bit(0);  // "the value is above low"
      ++low;
    }
    node.low = low;
  }
}

bool TagTree::decode(HeaderBitReader& in, uint32_t leaf, int32_t threshold) {
  check_leaf(leaf);
  // B.10.2 walks from the root, carrying the largest lower bound of the nodes above. The walk
  // here starts at the lowest node of the leaf's path that no bit can change at this
  // threshold: its value known (then every node above is known and lower, so its bound is the
  // largest) or its bound at the threshold already (then no node below reads a bit either).
  // The nodes above it would read nothing, so the same bits are read and the same answer
  // given; the lower bounds stored below it may be smaller than a walk from the root leaves
  // them, but every walk takes the largest along its path, which is the same. With no such
  // node it starts at the root.
  uint32_t path[kMaxLevels];
  int top = 0;
  path[0] = leaf;
  for (uint32_t i = leaf;;) {
    const Node& node = nodes_[i];
    if (node.low >= threshold || node.value < threshold || node.parent == i) break;
    path[++top] = i = node.parent;
  }
  int32_t low = 0;
  for (int k = top; k >= 0; --k) {
    Node& node = nodes_[path[k]];
    low = std::max(low, node.low);
    // The node's bits: a 0 for each value it is not, up to a 1 at its value (B.10.2).
    const int32_t limit = std::min(threshold, node.value);
    if (low < limit) {
      const int32_t zeros = in.get_zeros_then_one(limit - low);
      low += zeros;
      if (low < limit) node.value = low;
    }
    node.low = low;
  }
  return nodes_[leaf].value < threshold;
}

int32_t TagTree::decode_value(HeaderBitReader& in, uint32_t leaf, int32_t limit) {
  // decode(leaf, t) for t = 1, 2, ... reads, leaf after leaf of the path, the same bits as one
  // decode(leaf, t) for the last t: each node's bits follow its parent's, whatever the
  // threshold. So one walk with the threshold limit + 1 reads what the walks up to it would.
  if (decode(in, leaf, limit < INT32_MAX ? std::max(limit, 0) + 1 : INT32_MAX))
    return nodes_[leaf].value;
  throw Error(ErrorCode::kFormat, "tag tree: value above " + std::to_string(limit) +
                                      " at header byte " + std::to_string(in.byte_position()));
}

void TagTree::encode_value(HeaderBitWriter& out, uint32_t leaf) {
  const int32_t v = nodes_.at(leaf).value;
  if (v == kInfinity) throw Error(ErrorCode::kInternal, "tag tree: encode_value of an unset leaf");
  encode(out, leaf, v + 1);
}

}  // namespace gj2k::entropy
