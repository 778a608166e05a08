//===- ArenaPacking.h - interval packing of buffers in an arena -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Offset assignment for buffers with known sizes and lifetimes, independent
// of MLIR: first-fit interval packing (best of three orders) and the
// liveness lower bound it is measured against.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_ARENAPACKING_H
#define REMAT_TRANSFORMS_ARENAPACKING_H

#include <cstdint>
#include <vector>

namespace remat {

/// A buffer to place: `size` bytes live over the closed interval of op
/// positions [start, end].
struct ArenaItem {
  int64_t size = 0;
  int64_t start = 0;
  int64_t end = 0;
  /// Required alignment of the offset, a power of two.
  int64_t alignment = 64;
};

/// The offsets of a packing (one per item, in item order) and the arena
/// size, the largest offset + size.
struct ArenaPacking {
  std::vector<int64_t> offsets;
  int64_t arenaBytes = 0;
};

/// Returns true if the closed intervals of `a` and `b` intersect.
bool lifetimesIntersect(const ArenaItem &a, const ArenaItem &b);

/// First fit, the best of three orders: each item goes to the lowest aligned
/// offset where it overlaps no placed item whose lifetime intersects its
/// own, the items taken by decreasing size, by decreasing size x lifetime
/// and by decreasing lifetime (ties: earlier start, then item order); the
/// packing with the smallest arena is returned (the earlier order on a tie).
ArenaPacking packArena(const std::vector<ArenaItem> &items);

/// The maximum over positions of the total size of the items live there: no
/// packing of these items needs fewer bytes.
int64_t livenessLowerBound(const std::vector<ArenaItem> &items);

} // namespace remat

#endif // REMAT_TRANSFORMS_ARENAPACKING_H
