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
  // Count nodes level by level, then link each node to its parent (2x2 children per parent).
  std::vector<std::pair<uint32_t, uint32_t>> dims{{width, height}};
  while (dims.back().first > 1 || dims.back().second > 1) {
    auto [w, h] = dims.back();
    dims.emplace_back((w + 1) / 2, (h + 1) / 2);
  }
  size_t total = 0;
  for (auto [w, h] : dims) total += size_t{w} * h;
  nodes_.assign(total, Node{});
  size_t offset = 0;
  for (size_t k = 0; k + 1 < dims.size(); ++k) {
    auto [w, h] = dims[k];
    const uint32_t pw = dims[k + 1].first;
    const size_t next = offset + size_t{w} * h;
    for (uint32_t y = 0; y < h; ++y) {
      for (uint32_t x = 0; x < w; ++x) {
        nodes_[offset + x + size_t{y} * w].parent =
            static_cast<uint32_t>(next + x / 2 + size_t{y / 2} * pw);
      }
    }
    offset = next;
  }
  path_.reserve(dims.size());
}

void TagTree::reset() {
  for (Node& n : nodes_) {
    n.value = kInfinity;
    n.low = 0;
    n.known = false;
  }
}

void TagTree::set_value(uint32_t leaf, int32_t value) {
  if (leaf >= leaf_count() || value < 0) {
    throw Error(ErrorCode::kInternal, "tag tree: set_value(" + std::to_string(leaf) + ", " +
                                          std::to_string(value) + ") out of range");
  }
  if (value > nodes_[leaf].value) {
    throw Error(ErrorCode::kInternal, "tag tree: a leaf value may only be lowered");
  }
  uint32_t n = leaf;
  while (true) {
    Node& node = nodes_[n];
    if (node.value <= value && n != leaf) break;  // ancestors already at or below it
    node.value = value;
    if (node.parent == UINT32_MAX) break;
    n = node.parent;
  }
}

void TagTree::build_path(uint32_t leaf) {
  if (leaf >= leaf_count()) {
    throw Error(ErrorCode::kInternal,
                "tag tree: leaf " + std::to_string(leaf) + " of " + std::to_string(leaf_count()));
  }
  path_.clear();
  for (uint32_t n = leaf; n != UINT32_MAX; n = nodes_[n].parent) path_.push_back(n);
  std::reverse(path_.begin(), path_.end());
}

void TagTree::encode(HeaderBitWriter& out, uint32_t leaf, int32_t threshold) {
  build_path(leaf);
  int32_t low = 0;
  for (uint32_t n : path_) {
    Node& node = nodes_[n];
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
  build_path(leaf);
  int32_t low = 0;
  for (uint32_t n : path_) {
    Node& node = nodes_[n];
    low = std::max(low, node.low);
    while (low < threshold && low < node.value) {
      if (in.get_bit()) {
        node.value = low;
      } else {
        ++low;
      }
    }
    node.low = low;
  }
  return nodes_[leaf].value < threshold;
}

int32_t TagTree::decode_value(HeaderBitReader& in, uint32_t leaf, int32_t limit) {
  for (int32_t t = 1;; ++t) {
    if (decode(in, leaf, t)) return nodes_[leaf].value;
    if (t > limit) {
      throw Error(ErrorCode::kFormat, "tag tree: value above " + std::to_string(limit) +
                                          " at header byte " + std::to_string(in.byte_position()));
    }
  }
}

void TagTree::encode_value(HeaderBitWriter& out, uint32_t leaf) {
  const int32_t v = nodes_.at(leaf).value;
  if (v == kInfinity) throw Error(ErrorCode::kInternal, "tag tree: encode_value of an unset leaf");
  encode(out, leaf, v + 1);
}

}  // namespace gj2k::entropy
