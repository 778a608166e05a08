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

/// First fit of `items` taken in `order`.
static ArenaPacking firstFit(const std::vector<ArenaItem> &items,
                             const std::vector<size_t> &order) {
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

ArenaPacking remat::packArena(const std::vector<ArenaItem> &items) {
  auto lifetime = [&](size_t i) { return items[i].end - items[i].start + 1; };
  // Three orders, ties broken by earlier start, then item order: decreasing
  // size; decreasing size x lifetime (long-lived large buffers low, so that
  // short-lived ones fill the holes above them); decreasing lifetime.
  auto bySize = [&](size_t l, size_t r) {
    if (items[l].size != items[r].size)
      return items[l].size > items[r].size;
    return items[l].start < items[r].start;
  };
  auto byArea = [&](size_t l, size_t r) {
    // size <= 2^60 (the planner's limit) and lifetimes are op counts:
    // compare in long double rather than risk an overflow.
    long double a = static_cast<long double>(items[l].size) * lifetime(l);
    long double b = static_cast<long double>(items[r].size) * lifetime(r);
    if (a != b)
      return a > b;
    return items[l].start < items[r].start;
  };
  auto byLifetime = [&](size_t l, size_t r) {
    if (lifetime(l) != lifetime(r))
      return lifetime(l) > lifetime(r);
    return bySize(l, r);
  };
  ArenaPacking best;
  bool first = true;
  auto tryOrder = [&](auto less) {
    std::vector<size_t> order(items.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), less);
    ArenaPacking packing = firstFit(items, order);
    if (first || packing.arenaBytes < best.arenaBytes)
      best = std::move(packing);
    first = false;
  };
  tryOrder(bySize);
  tryOrder(byArea);
  tryOrder(byLifetime);
  return best;
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
