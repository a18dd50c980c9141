#include "analysis/memory/memorytimeline.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>
#include <optional>

#include "model/parallel.h"
#include "model/prefaulter.h"

namespace kinetoscope {

// A Fenwick tree over allocation order (1-based inside), standing at one moment.
class MemoryTimeline::Stack {
  public:
    Stack(const MemoryTimeline& timeline, std::vector<std::int64_t> tree, std::int64_t moment)
        : m_timeline(timeline), m_tree(std::move(tree)), m_moment(moment) {}

    std::int64_t moment() const { return m_moment; }
    const std::vector<std::int64_t>& tree() const { return m_tree; }
    // Replays events forward until the stack stands just after `moment`.
    void advanceTo(std::int64_t moment) {
        for (; m_moment < moment; ++m_moment) {
            const auto e = std::size_t(m_moment + 1);
            if (const std::int32_t a = m_timeline.m_eventEnds[e]; a >= 0)
                add(a, -m_timeline.m_allocations[std::size_t(a)].size);
            if (const std::int32_t a = m_timeline.m_eventStarts[e]; a >= 0)
                add(a, m_timeline.m_allocations[std::size_t(a)].size);
        }
    }
    void add(std::int32_t allocation, std::int64_t delta) { addTo(m_tree, allocation, delta); }
    static void addTo(std::vector<std::int64_t>& tree, std::int32_t allocation, std::int64_t delta) {
        for (std::size_t i = std::size_t(allocation) + 1; i < tree.size(); i += i & (~i + 1))
            tree[i] += delta;
    }
    // The live allocation whose band covers byte `offset` (the first with prefix sum > offset), or -1 above
    // the stack.
    Band bandAt(std::int64_t offset) const {
        if (offset < 0) return {};
        std::size_t pos = 0;
        std::int64_t below = 0;
        for (std::size_t step = std::bit_floor(m_tree.size() - 1); step; step >>= 1) {
            const std::size_t next = pos + step;
            if (next < m_tree.size() && below + m_tree[next] <= offset) {
                pos = next;
                below += m_tree[next];
            }
        }
        if (pos >= m_tree.size() - 1) return {};
        const std::int64_t size = m_timeline.m_allocations[pos].size;
        return {std::int32_t(pos), below, below + size};
    }

  private:
    const MemoryTimeline& m_timeline;
    std::vector<std::int64_t> m_tree;
    std::int64_t m_moment;
};

MemoryTimeline::MemoryTimeline(const MemorySnapshot& snapshot, const DeviceHistory& history,
                               std::size_t checkpointBudgetBytes, const std::atomic<bool>* cancel)
    : m_events(std::int64_t(history.size())) {
    const auto n = std::size_t(m_events);
    // The per-event tables, made ready on the other core while the lifetimes are worked out.
    m_eventStarts.reserve(n + 1);
    m_eventEnds.reserve(n + 1);
    m_curve.reserve(n + 1);
    Prefaulter prefaulter;
    prefaulter.watch(m_eventStarts.data(), (n + 1) * sizeof(std::int32_t));
    prefaulter.watch(m_eventEnds.data(), (n + 1) * sizeof(std::int32_t));
    prefaulter.watch(m_curve.data(), (n + 1) * sizeof(std::int64_t));
    prefaulter.start();
    const auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    m_allocations = allocationLifetimes(snapshot, history, cancel);
    if (cancelled()) return;
    // Those alive before the first event at the bottom; the others are already in alloc order. They are few:
    // moved aside and back in front, where a stable partition would take a buffer the size of them all.
    const auto beforeTrace = [](const AllocationLifetime& a) { return a.begin < 0; };
    std::vector<AllocationLifetime> before;
    std::copy_if(m_allocations.begin(), m_allocations.end(), std::back_inserter(before), beforeTrace);
    m_allocations.erase(std::remove_if(m_allocations.begin(), m_allocations.end(), beforeTrace),
                        m_allocations.end());
    m_allocations.insert(m_allocations.begin(), before.begin(), before.end());
    m_eventStarts.assign(n + 1, -1); // one past the end, so that advanceTo may read it harmlessly
    m_eventEnds.assign(n + 1, -1);
    m_initial.assign(m_allocations.size() + 1, 0);
    std::int64_t height = 0;
    for (std::size_t a = 0; a < m_allocations.size(); ++a) {
        const AllocationLifetime& life = m_allocations[a];
        if (life.begin >= 0)
            m_eventStarts[std::size_t(life.begin)] = std::int32_t(a);
        else {
            Stack::addTo(m_initial, std::int32_t(a), life.size);
            height += life.size;
        }
        if (life.end < m_events) m_eventEnds[std::size_t(life.end)] = std::int32_t(a);
    }
    m_curve.push_back(height);
    for (std::size_t e = 0; e < n; ++e) {
        if (m_eventEnds[e] >= 0) height -= m_allocations[std::size_t(m_eventEnds[e])].size;
        if (m_eventStarts[e] >= 0) height += m_allocations[std::size_t(m_eventStarts[e])].size;
        m_curve.push_back(height);
    }
    constexpr std::size_t block = 64;
    m_blockMax.reserve(m_curve.size() / block + 1);
    for (std::size_t i = 0; i < m_curve.size(); i += block)
        m_blockMax.push_back(
            *std::max_element(m_curve.begin() + std::ptrdiff_t(i),
                              m_curve.begin() + std::ptrdiff_t(std::min(m_curve.size(), i + block))));

    // Checkpoints: as many copies of the tree as the budget holds, evenly spaced, so that a raster anywhere
    // replays at most one spacing of events.
    const std::size_t treeBytes = m_initial.size() * sizeof(std::int64_t);
    const std::size_t count = std::min<std::size_t>(checkpointBudgetBytes / treeBytes, n / 4096);
    if (count == 0) return;
    m_spacing = std::int64_t((n + count) / (count + 1));
    Stack walk(*this, m_initial, -1);
    for (std::size_t k = 0; k < count && !cancelled(); ++k) {
        walk.advanceTo(std::int64_t(k + 1) * m_spacing - 1);
        m_checkpoints.push_back(walk.tree());
    }
}

MemoryTimeline::Stack MemoryTimeline::stackAt(std::int64_t moment) const {
    moment = std::clamp<std::int64_t>(moment, -1, m_events - 1);
    // Checkpoint k stands after event (k + 1) * spacing - 1.
    const std::int64_t k =
        m_spacing > 0 ? std::min<std::int64_t>(std::int64_t(m_checkpoints.size()), (moment + 1) / m_spacing)
                      : 0;
    Stack stack = k > 0 ? Stack(*this, m_checkpoints[std::size_t(k - 1)], k * m_spacing - 1)
                        : Stack(*this, m_initial, -1);
    stack.advanceTo(moment);
    return stack;
}

std::int64_t MemoryTimeline::maxActive(std::int64_t first, std::int64_t last) const {
    // Curve index = moment + 1.
    auto i = std::size_t(std::clamp<std::int64_t>(first + 1, 0, std::int64_t(m_curve.size()) - 1));
    const auto j = std::size_t(std::clamp<std::int64_t>(last + 1, 0, std::int64_t(m_curve.size()) - 1));
    constexpr std::size_t block = 64;
    std::int64_t best = m_curve[i];
    while (i <= j) {
        if (i % block == 0 && i + block - 1 <= j) {
            best = std::max(best, m_blockMax[i / block]);
            i += block;
        } else {
            best = std::max(best, m_curve[i]);
            ++i;
        }
    }
    return best;
}

MemoryTimeline::Band MemoryTimeline::bandAt(std::int64_t moment, std::int64_t byteOffset) const {
    if (m_allocations.empty()) return {};
    return stackAt(moment).bandAt(byteOffset);
}

std::vector<MemoryTimeline::Band> MemoryTimeline::bandsIn(std::int64_t moment, std::int64_t fromByte,
                                                          std::int64_t toByte) const {
    std::vector<Band> out;
    if (m_allocations.empty()) return out;
    const Stack stack = stackAt(moment);
    for (std::int64_t at = std::max<std::int64_t>(fromByte, 0); at < toByte;) {
        const Band band = stack.bandAt(at);
        if (band.allocation < 0) break;
        out.push_back(band);
        at = band.top;
    }
    return out;
}

bool MemoryTimeline::rasterColumns(Raster& r, int x0, int x1, std::int64_t firstMoment, std::int64_t span,
                                   const std::atomic<bool>* cancel) const {
    const int width = r.width, height = r.height;
    const double bytesPerRow = double(r.bytesTop) / height;
    std::optional<Stack> stack;
    for (int x = x0; x < x1; ++x) {
        if (cancel && (x & 15) == 0 && cancel->load(std::memory_order_relaxed)) return false;
        // The column's moments, and the highest of them: the column shows that moment.
        const std::int64_t from = firstMoment + span * x / width;
        const std::int64_t to = std::max(from, firstMoment + span * (x + 1) / width - 1);
        std::int64_t shown = from;
        for (std::int64_t m = from + 1; m <= to; ++m)
            if (m_curve[std::size_t(m + 1)] > m_curve[std::size_t(shown + 1)]) shown = m;
        r.column[std::size_t(x)] = shown;
        // Zoomed in past one moment per pixel, neighbouring columns show the same moment: copy the last.
        if (x > x0 && r.column[std::size_t(x - 1)] == shown) {
            for (int y = 0; y < height; ++y)
                r.cells[std::size_t(y) * std::size_t(width) + std::size_t(x)] =
                    r.cells[std::size_t(y) * std::size_t(width) + std::size_t(x - 1)];
            continue;
        }
        if (!stack)
            stack.emplace(stackAt(shown));
        else
            stack->advanceTo(shown);
        const std::int64_t total = m_curve[std::size_t(shown + 1)];
        for (int y = 0; y < height;) {
            const auto bottom = std::int64_t(std::floor(y * bytesPerRow));
            if (bottom >= total) break;
            const Band band = stack->bandAt(bottom);
            if (band.allocation < 0) break;
            const auto rowTop = std::int64_t(std::floor((y + 1) * bytesPerRow));
            std::int32_t cell = band.allocation;
            int next = y + 1;
            if (band.top >= rowTop || band.top >= total) {
                // Rows wholly inside the band (and the one it ends in, when nothing lies above it).
                next = std::max(y + 1, int(std::min(double(height), double(band.top) / bytesPerRow)));
            } else {
                const Band middle = stack->bandAt((bottom + rowTop) / 2);
                // The middle may lie above the stack when the bands end low in the pixel.
                cell = mixedCell - (middle.allocation >= 0 ? middle.allocation : band.allocation);
            }
            for (; y < next; ++y)
                r.cells[std::size_t(y) * std::size_t(width) + std::size_t(x)] = cell;
        }
    }
    return true;
}

MemoryTimeline::Raster MemoryTimeline::raster(std::int64_t firstMoment, std::int64_t lastMoment,
                                              std::int64_t bytesTop, int width, int height,
                                              const std::atomic<bool>* cancel) const {
    Raster r;
    if (width <= 0 || height <= 0 || bytesTop <= 0) return r;
    firstMoment = std::clamp<std::int64_t>(firstMoment, -1, std::max<std::int64_t>(m_events - 1, -1));
    lastMoment = std::clamp<std::int64_t>(lastMoment, firstMoment, std::max<std::int64_t>(m_events - 1, -1));
    r.width = width;
    r.height = height;
    r.bytesTop = bytesTop;
    r.column.resize(std::size_t(width));
    r.cells.assign(std::size_t(width) * std::size_t(height), emptyCell);
    if (m_allocations.empty()) return r;
    // Two halves of the columns on two cores, each replaying from its own start.
    const std::int64_t span = lastMoment - firstMoment + 1;
    const int half = width / 2;
    bool cancelled = false, cancelledRight = false;
    parallelInvoke(
        width >= 256 && m_allocations.size() >= 1024,
        [&] { cancelledRight = !rasterColumns(r, half, width, firstMoment, span, cancel); },
        [&] { cancelled = !rasterColumns(r, 0, half, firstMoment, span, cancel); });
    if (cancelled || cancelledRight) return {};
    return r;
}

} // namespace kinetoscope
