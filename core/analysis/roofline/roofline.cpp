#include "analysis/roofline/roofline.h"

#include "analysis/gpu/intervals.h"
#include "analysis/ops/hosttree.h"
#include "analysis/ops/threadlaunches.h"
#include "model/textformat.h"
#include "query/args.h"

#include <algorithm>
#include <unordered_map>

namespace kinetoscope {

std::optional<double> PerfModelRow::tflops() const {
    if (deviceUnion <= 0) return std::nullopt;
    return flops / (double(deviceUnion) * 1e-9) / 1e12;
}
std::optional<double> PerfModelRow::tbps() const {
    if (deviceUnion <= 0) return std::nullopt;
    return bytes / (double(deviceUnion) * 1e-9) / 1e12;
}
std::optional<double> PerfModelRow::intensity() const {
    if (bytes <= 0) return std::nullopt;
    return flops / bytes;
}
RooflineBound PerfModelRow::bound() const {
    const auto i = intensity();
    if (!peakTflops || !peakTbps || !i) return RooflineBound::Unknown;
    return *i >= *peakTflops / *peakTbps ? RooflineBound::Compute : RooflineBound::Memory;
}
std::optional<double> PerfModelRow::peakFraction() const {
    switch (bound()) {
    case RooflineBound::Compute:
        if (const auto t = tflops()) return *t / *peakTflops;
        break;
    case RooflineBound::Memory:
        if (const auto b = tbps()) return *b / *peakTbps;
        break;
    case RooflineBound::Unknown:
        break;
    }
    return std::nullopt;
}
std::optional<TimeNs> PerfModelRow::headroom() const {
    const auto f = peakFraction();
    if (!f) return std::nullopt;
    return TimeNs(double(deviceUnion) * std::max(0.0, 1.0 - *f));
}

const char* boundName(RooflineBound bound) {
    switch (bound) {
    case RooflineBound::Compute:
        return "compute";
    case RooflineBound::Memory:
        return "memory";
    case RooflineBound::Unknown:
        break;
    }
    return nullptr;
}

namespace {

// An op + input shapes text, decoded and costed.
struct Costed {
    OpCost cost;
    std::string dims, types;     // minified
    PerfModelRow* row = nullptr; // its row, once a call of it counts
};

struct Call {
    std::int32_t node = -1;
    Costed* costed = nullptr;
    IntervalSet work;
    EventRef longestWork = {};
    bool tf32Kernel = false;
    bool duplicate = false;
};

// The length of a call's GPU work with overlaps merged.
TimeNs unionLength(IntervalSet& work) {
    std::sort(work.begin(), work.end());
    return totalLength(unionOf(std::move(work), {}));
}

bool namesTf32(std::string_view kernel) {
    return asciiLower(kernel).find("tf32") != std::string::npos;
}

} // namespace

PerfModelReport perfModel(const TraceStore& store, TimeNs from, TimeNs to) {
    PerfModelReport report;
    for (const DeviceProperties& d : store.metadata().devices)
        if (!d.name.empty()) {
            report.deviceName = d.name;
            break;
        }
    report.peaks = findGpuPeaks(report.deviceName);

    // The GPU work each CPU thread launched, by launch call.
    const std::vector<std::vector<ThreadLaunch>> launches = launchesByThread(store);
    std::vector<std::vector<bool>> covered(store.tracks().size());

    const HostRoles roles(store);
    std::vector<std::int8_t> modelledName(store.strings().size(), -1);
    OperatorInputsDecoder decoder;
    OperatorInputsText text;
    std::string costKey;
    std::unordered_map<std::string, std::optional<Costed>> costs; // values stay put: calls point at them
    std::unordered_map<std::string, PerfModelRow> rows;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.track(TrackId(ti));
        if (t.kind != TrackKind::CpuThread) continue;
        const HostTree tree = hostTree(roles, t, from, to);
        const std::vector<HostNode>& nodes = tree.nodes;
        std::vector<std::int32_t> callOf(nodes.size(), -1);
        std::vector<Call> calls;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const HostNode& n = nodes[i];
            if (n.role != HostRole::Operator || n.start < from || n.start > to) continue;
            std::int8_t& modelled = modelledName[t.names[n.row].value];
            if (modelled < 0) modelled = isModelledOperator(store.strings().view(t.names[n.row]));
            if (!modelled) continue;
            if (!decoder.locate(store.argsText({TrackId(ti), EventIndex(n.row)}), text)) continue;
            report.hasShapes = true;
            // A model's calls repeat a few shapes: each op + shapes text is decoded and costed once.
            costKey.assign(reinterpret_cast<const char*>(&t.names[n.row].value), sizeof(std::uint32_t));
            costKey.append(text.dims).append(1, '\x1f').append(text.types).append(1, '\x1f');
            costKey.append(text.concrete);
            auto [known, fresh] = costs.try_emplace(costKey);
            if (fresh) {
                OperatorInputs inputs;
                if (decoder.decode(text, inputs))
                    if (auto cost = operatorCost(store.strings().view(t.names[n.row]), inputs)) {
                        // A Triton kernel's bytes and FLOPs as Inductor estimated them, where it wrote them.
                        if (cost->family == OpFamily::Triton)
                            applyInductorEstimates(store.argsText({TrackId(ti), EventIndex(n.row)}), *cost);
                        known->second =
                            Costed{*cost, std::move(inputs.dimsText), std::move(inputs.typesText)};
                    }
            }
            if (!known->second) {
                ++report.unreadableCalls;
                continue;
            }
            callOf[i] = std::int32_t(calls.size());
            calls.push_back({std::int32_t(i), &*known->second, {}});
        }
        if (calls.empty()) continue;

        // Each GPU event counts for every modelled call above the operator that launched it.
        for (const ThreadLaunch& l : launches[ti]) {
            std::int32_t a = tree.ownerOfLaunch(l.call.index.value);
            const Track& g = store.track(l.work.track);
            const std::uint32_t w = l.work.index.value;
            bool any = false;
            for (; a >= 0; a = nodes[std::size_t(a)].parent) {
                const std::int32_t c = callOf[std::size_t(a)];
                if (c < 0) continue;
                Call& call = calls[std::size_t(c)];
                call.work.emplace_back(g.starts[w], g.endOf(w));
                store.keepLongest(call.longestWork, l.work);
                if (call.costed->cost.compute == ComputeType::FP32 && call.costed->cost.matrix &&
                    store.categoryOf(l.work).kind == CategoryKind::Kernel &&
                    namesTf32(store.strings().view(g.names[w])))
                    call.tf32Kernel = true;
                any = true;
            }
            if (any) {
                std::vector<bool>& marks = covered[l.work.track.value];
                if (marks.empty()) marks.resize(g.sliceCount());
                marks[w] = true;
            }
        }
        // A modelled call whose nearest modelled ancestor launched just what it did is that ancestor's work.
        for (Call& c : calls)
            for (std::int32_t a = nodes[std::size_t(c.node)].parent; a >= 0; a = nodes[std::size_t(a)].parent)
                if (const std::int32_t p = callOf[std::size_t(a)]; p >= 0) {
                    c.duplicate = calls[std::size_t(p)].work.size() == c.work.size();
                    break;
                }
        for (Call& c : calls) {
            if (c.duplicate) continue;
            const std::string_view name = store.strings().view(t.names[nodes[std::size_t(c.node)].row]);
            Costed& k = *c.costed;
            if (!k.row) { // (shapes texts that differ only in spacing or Concrete Inputs share a row)
                std::string key;
                key.reserve(name.size() + k.dims.size() + k.types.size() + 2);
                key.append(name).append(1, '\x1f').append(k.dims).append(1, '\x1f').append(k.types);
                k.row = &rows[key];
            }
            PerfModelRow& row = *k.row;
            if (row.count == 0) {
                row.name = std::string(name);
                row.inputDims = k.dims;
                row.inputTypes = k.types;
                row.family = k.cost.family;
                row.compute = k.cost.compute;
                row.m = k.cost.m;
                row.n = k.cost.n;
                row.k = k.cost.k;
            }
            if (c.tf32Kernel) row.compute = ComputeType::TF32;
            ++row.count;
            ++report.modelledCalls;
            row.flops += k.cost.flops;
            row.bytes += k.cost.bytes;
            row.deviceUnion += unionLength(c.work);
            store.keepLongest(row.example, {TrackId(ti), EventIndex(nodes[std::size_t(c.node)].row)});
            if (c.longestWork.isValid()) store.keepLongest(row.gpuExample, c.longestWork);
        }
    }

    // The GPU time of the range, and the part no modelled call launched, by who launched it.
    std::unordered_map<std::string_view, NotModelledRow> notModelled;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& g = store.track(TrackId(ti));
        if (g.kind != TrackKind::GpuStream) continue;
        const std::vector<bool>& marks = covered[ti];
        for (std::uint32_t r = 0; r < g.sliceCount(); ++r) {
            if (g.starts[r] < from || g.starts[r] > to ||
                !isGpuWork(store.categories()[g.categories[r]].kind))
                continue;
            report.gpuTime += g.durations[r];
            if (!marks.empty() && marks[r]) {
                report.modelledGpuTime += g.durations[r];
                continue;
            }
            std::string_view by = "(no launch call)";
            const EventRef work{TrackId(ti), EventIndex(r)};
            if (const auto launch = store.launchOf(work)) {
                const auto op = launchingOperator(store, *launch);
                by = op ? store.strings().view(store.track(op->track).names[op->index.value])
                        : std::string_view("(outside any operator)");
            }
            NotModelledRow& row = notModelled[by];
            ++row.count;
            row.gpuTime += g.durations[r];
            store.keepLongest(row.example, work);
        }
    }

    for (auto& [key, row] : rows) {
        if (report.peaks) {
            row.peakTflops = report.peaks->tflops(row.compute);
            row.peakTbps = report.peaks->memoryTBps;
        }
        report.rows.push_back(std::move(row));
    }
    std::sort(report.rows.begin(), report.rows.end(), [](const PerfModelRow& a, const PerfModelRow& b) {
        if (a.deviceUnion != b.deviceUnion) return a.deviceUnion > b.deviceUnion;
        return std::tie(a.name, a.inputDims, a.inputTypes) < std::tie(b.name, b.inputDims, b.inputTypes);
    });
    for (auto& [name, row] : notModelled) {
        row.name = std::string(name);
        report.notModelled.push_back(std::move(row));
    }
    std::sort(report.notModelled.begin(), report.notModelled.end(),
              [](const NotModelledRow& a, const NotModelledRow& b) {
                  return a.gpuTime != b.gpuTime ? a.gpuTime > b.gpuTime : a.name < b.name;
              });
    return report;
}

} // namespace kinetoscope
