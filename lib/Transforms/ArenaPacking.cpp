//===- ArenaPacking.cpp - interval packing of buffers in an arena ---------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/ArenaPacking.h"

#include <algorithm>
#include <numeric>
#include <utility>

using namespace remat;

static int64_t alignUp(int64_t value, int64_t alignment) {
  if (alignment <= 1)
    return value;
  return (value + alignment - 1) / alignment * alignment;
}

bool remat::lifetimesIntersect(const ArenaItem &a, const ArenaItem &b) {
  return a.start <= b.end && b.start <= a.end;
}

ArenaPacking remat::packArena(const std::vector<ArenaItem> &items) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t l, size_t r) {
    if (items[l].size != items[r].size)
      return items[l].size > items[r].size;
    return items[l].start < items[r].start;
  });

  ArenaPacking packing;
  packing.offsets.assign(items.size(), 0);
  std::vector<size_t> placed;
  // (offset, end offset) of the placed items whose lifetime intersects the
  // current one.
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (size_t index : order) {
    const ArenaItem &item = items[index];
    busy.clear();
    for (size_t other : placed)
      if (items[other].size > 0 && lifetimesIntersect(item, items[other]))
        busy.emplace_back(packing.offsets[other],
                          packing.offsets[other] + items[other].size);
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    if (item.size > 0) {
      for (const auto &[begin, end] : busy) {
        if (offset + item.size <= begin)
          break;
        offset = std::max(offset, alignUp(end, item.alignment));
      }
    }
    packing.offsets[index] = offset;
    packing.arenaBytes = std::max(packing.arenaBytes, offset + item.size);
    placed.push_back(index);
  }
  return packing;
}

int64_t remat::livenessLowerBound(const std::vector<ArenaItem> &items) {
  // +size at start, -size just after end; at equal positions removals come
  // first (an item ending at p-1 is not live at p).
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * items.size());
  for (const ArenaItem &item : items) {
    events.emplace_back(item.start, item.size);
    events.emplace_back(item.end + 1, -item.size);
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (const auto &event : events) {
    live += event.second;
    peak = std::max(peak, live);
  }
  return peak;
}
