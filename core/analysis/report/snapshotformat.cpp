#include "analysis/report/snapshotformat.h"

#include "analysis/report/sections.h"
#include "model/jsonwriter.h"
#include "model/textformat.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace kinetoscope {

namespace {

void writeAllocations(JsonWriter<std::string>& w, const MemorySnapshot& s, const LiveAllocations& live) {
    std::vector<SnapshotAllocationRow> rows;
    for (const AllocationLifetime& a : live.allocations)
        rows.push_back({&s, &a});
    writeRows(w, snapshotAllocationColumns(), rows, {"\n   ", ",\n   ", "\n  "});
}

template <typename W> void optionalNum(W& w, std::string_view key, const std::optional<std::int64_t>& v) {
    w.key(key);
    if (v)
        w.num(*v);
    else
        w.null();
}

} // namespace

std::string snapshotReportJson(const MemorySnapshot& snapshot, const SnapshotReport& report) {
    std::string out;
    JsonWriter w(out);
    w.beginObject();
    if (snapshot.partial) { // only the first bytes were read (a file cut short or damaged): absent otherwise
        w.key("partial");
        w.beginObject();
        w.numField("read_bytes", snapshot.readBytes);
        w.endObject();
    }
    w.key("devices");
    w.beginArray({"\n ", ",\n ", "\n"});
    for (const DeviceMemoryReport& d : report.devices) {
        w.beginObject({"", ",\n  ", ""});
        w.numField("device", d.device);
        w.key("events");
        w.beginObject();
        for (const auto& [name, n] : d.events)
            w.numField(name, n);
        w.endObject();
        w.numField("segments", d.segments);
        w.numField("reserved_bytes", d.reservedBytes);
        w.numField("allocated_bytes", d.allocatedBytes);
        w.key("history_recorded");
        w.boolean(d.historyRecorded);
        optionalNum(w, "peak_active_bytes", d.peakActiveBytes);
        optionalNum(w, "peak_time_us", d.peak ? d.peak->timeUs : std::nullopt);
        w.key("largest_at_peak");
        if (d.peak)
            writeAllocations(w, snapshot, *d.peak);
        else
            w.null();
        if (d.liveAt) {
            w.key("live_at");
            w.beginObject();
            optionalNum(w, "time_us", d.liveAt->timeUs);
            w.numField("active_bytes", d.liveAt->activeBytes);
            w.key("allocations");
            writeAllocations(w, snapshot, *d.liveAt);
            w.endObject();
        }
        w.endObject();
    }
    w.endArray();
    w.endObject();
    out += '\n';
    return out;
}

namespace {

void allocationLines(std::string& out, const MemorySnapshot& s, const LiveAllocations& live) {
    char addr[24];
    for (const AllocationLifetime& a : live.allocations) {
        std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(a.addr));
        out += "    " + formatBytes(double(a.size)) + "  " + addr + "  " + allocationSite(s, a.stack) + "\n";
    }
}

} // namespace

std::string snapshotReportText(const MemorySnapshot& snapshot, const SnapshotReport& report) {
    std::string out;
    if (!snapshot.hasTrace) out += "Old snapshot layout (a bare list of segments): no allocator trace.\n";
    if (snapshot.partial)
        out += "Partial: read up to byte " + std::to_string(snapshot.readBytes) +
               " of the pickle. The events after it are missing, and so are the allocations made before the "
               "trace that no event read frees.\n";
    for (const DeviceMemoryReport& d : report.devices) {
        out += "Device " + std::to_string(d.device) + "\n";
        std::string events;
        for (const auto& [name, n] : d.events)
            events += (events.empty() ? "" : ", ") + name + " " + std::to_string(n);
        out += "  Events:      " + (events.empty() ? std::string("none") : events) + "\n";
        out += "  Segments:    " + countText(d.segments, "segment") + ", " +
               formatBytes(double(d.reservedBytes)) + " reserved, " + formatBytes(double(d.allocatedBytes)) +
               " allocated at snapshot time\n";
        if (d.peak && !d.historyRecorded) {
            out +=
                "  No allocation history was recorded (_record_memory_history was off): the snapshot's own "
                "moment is the only one known.\n  Largest allocated at snapshot time:\n";
            allocationLines(out, snapshot, *d.peak);
        } else if (d.peak) {
            out += "  Peak active: " + formatBytes(double(*d.peakActiveBytes));
            if (d.peak->timeUs) out += " at time_us " + std::to_string(*d.peak->timeUs);
            out += " (after event " + std::to_string(d.peak->afterEvent + 1) + " of " + std::to_string([&] {
                       std::uint64_t n = 0;
                       for (const auto& e : d.events)
                           n += e.second;
                       return n;
                   }()) +
                   ")\n  Largest alive at the peak:\n";
            allocationLines(out, snapshot, *d.peak);
        }
        if (d.liveAt) {
            out += "  Alive at time_us " + std::to_string(*d.liveAt->timeUs) + ": " +
                   formatBytes(double(d.liveAt->activeBytes)) + " active\n";
            allocationLines(out, snapshot, *d.liveAt);
        }
    }
    if (snapshot.stats.malformedEvents || snapshot.stats.malformedSegments)
        out += "Skipped: " + countText(snapshot.stats.malformedEvents, "malformed event") + ", " +
               countText(snapshot.stats.malformedSegments, "malformed segment or block",
                         "malformed segments or blocks") +
               "\n";
    if (snapshot.stats.sizesOutOfRange)
        out += "Sizes below 0 or above 1 TiB, read as 0: " + std::to_string(snapshot.stats.sizesOutOfRange) +
               "\n";
    return out;
}

} // namespace kinetoscope
