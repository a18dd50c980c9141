#pragma once

// The active-memory timeline of one device of a CUDA memory snapshot, as memory_viz draws it: every
// allocation a band, stacked in allocation order, so that a band drops when one below it is freed. The x axis
// is the event index. Drawn at full resolution at any zoom: each pixel column shows the allocations alive at
// the highest point of active memory within it (so a spike narrower than a pixel is never lost), and a pixel
// that holds parts of several allocations is folded into one "mixed" cell, as the trace timeline folds
// sub-pixel slices.
//
// The stacking is a Fenwick tree over allocation order holding each live allocation's size: the band at a
// byte offset is one descent. Checkpoints of the tree, within a memory budget, let a raster start anywhere
// without replaying every event before it.

#include "analysis/memory/snapshotreport.h"

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

namespace kinetoscope {

class MemoryTimeline {
  public:
    static constexpr std::int32_t emptyCell = -1; // above the stack
    // A pixel holding parts of several allocations is folded: its cell is mixedCell - a, where a is the
    // allocation at the pixel's middle byte (a sample that favours the allocations covering most of it, so a
    // fold of many small bands keeps their colours as memory_viz's antialiasing does).
    static constexpr std::int32_t mixedCell = -2;
    static bool isMixed(std::int32_t cell) { return cell <= mixedCell; }
    static std::int32_t sampleOf(std::int32_t cell) { return isMixed(cell) ? mixedCell - cell : cell; }

    static constexpr std::size_t defaultCheckpointBudget = std::size_t(64) << 20;
    // Once `cancel` is set the build stops within a few milliseconds, leaving a timeline only to be dropped.
    MemoryTimeline(const MemorySnapshot& snapshot, const DeviceHistory& history,
                   std::size_t checkpointBudgetBytes = defaultCheckpointBudget,
                   const std::atomic<bool>* cancel = nullptr);

    // Allocations in stacking order: those alive before the first event at the bottom, then by alloc event.
    const std::vector<AllocationLifetime>& allocations() const { return m_allocations; }
    std::int64_t eventCount() const { return m_events; }
    // The stack's height before the first event (curve[0]) and after each event (curve[i + 1]).
    std::span<const std::int64_t> curve() const { return m_curve; }
    // The highest point of the curve over events [first, last] (after those events; -1 is before the first).
    std::int64_t maxActive(std::int64_t first, std::int64_t last) const;

    struct Raster {
        int width = 0;
        int height = 0;
        std::int64_t bytesTop = 0; // bytes at the top edge of row height - 1
        std::vector<std::int64_t>
            column; // per column: the moment shown (after that event; -1 before the first)
        std::vector<std::int32_t>
            cells; // row-major, row 0 at the bottom: allocation index, emptyCell, mixedCell
        std::int32_t at(int x, int y) const {
            return cells[std::size_t(y) * std::size_t(width) + std::size_t(x)];
        }
    };
    // Columns split the moments [firstMoment, lastMoment] (-1 = before the first event, e = after event e)
    // evenly; rows split [0, bytesTop). Returns an empty raster when cancelled.
    Raster raster(std::int64_t firstMoment, std::int64_t lastMoment, std::int64_t bytesTop, int width,
                  int height, const std::atomic<bool>* cancel = nullptr) const;

    // The allocation covering a byte offset just after `moment`, and its band's [bottom, top); -1 if none.
    struct Band {
        std::int32_t allocation = -1;
        std::int64_t bottom = 0;
        std::int64_t top = 0;
    };
    Band bandAt(std::int64_t moment, std::int64_t byteOffset) const;
    // Every band at `moment` that overlaps [fromByte, toByte), bottom to top (what a mixed cell holds).
    std::vector<Band> bandsIn(std::int64_t moment, std::int64_t fromByte, std::int64_t toByte) const;

  private:
    class Stack; // the Fenwick tree and the moment it stands at
    Stack stackAt(std::int64_t moment) const;
    // Fills columns [x0, x1) of `r`; false when cancelled.
    bool rasterColumns(Raster& r, int x0, int x1, std::int64_t firstMoment, std::int64_t span,
                       const std::atomic<bool>* cancel) const;

    std::vector<AllocationLifetime> m_allocations;
    // Per event: the allocation it starts (its alloc) and the one it ends (its free_completed, or an alloc of
    // the same address without a free in between), or -1.
    std::vector<std::int32_t> m_eventStarts;
    std::vector<std::int32_t> m_eventEnds;
    std::vector<std::int64_t> m_curve;
    std::vector<std::int64_t> m_initial;                  // the tree before the first event
    std::vector<std::vector<std::int64_t>> m_checkpoints; // the tree after event (k + 1) * m_spacing - 1
    std::int64_t m_spacing = 0;
    std::int64_t m_events = 0;
    std::vector<std::int64_t> m_blockMax; // max of the curve per block of 64 moments
};

} // namespace kinetoscope
