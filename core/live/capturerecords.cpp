// A capture's records as they arrive.
#include "livecapture.h"

#include <algorithm>

namespace kinetoscope::live {

wire::StringRef CaptureRecords::intern(std::string_view text) {
    auto [it, inserted] = m_stringIds.try_emplace(std::string(text), wire::StringRef(m_strings.size()));
    if (inserted) m_strings.emplace_back(text);
    return it->second;
}

void CaptureRecords::add(const wire::Record& record) {
    ++m_counts.records;
    std::visit(
        [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (requires {
                              r.start;
                              r.end;
                          }) {
                auto valid = [](std::int64_t t) { return t >= 0 && t <= maxTime; };
                if (!valid(r.start) || !valid(r.end)) {
                    ++m_counts.rejected;
                    return;
                }
            }
            if constexpr (std::is_same_v<T, wire::StringDef>) {
                (void)intern(r.text);
            } else if constexpr (std::is_same_v<T, wire::Kernel>) {
                m_kernels.push_back(r), ++m_counts.kernels;
            } else if constexpr (std::is_same_v<T, wire::Memcpy>) {
                m_memcpys.push_back(r), ++m_counts.memcpys;
            } else if constexpr (std::is_same_v<T, wire::Memset>) {
                m_memsets.push_back(r), ++m_counts.memsets;
            } else if constexpr (std::is_same_v<T, wire::Api>) {
                m_apis.push_back(r), ++m_counts.apis;
            } else if constexpr (std::is_same_v<T, wire::Sync>) {
                m_syncs.push_back(r), ++m_counts.syncs;
            } else if constexpr (std::is_same_v<T, wire::Marker>) {
                m_markers.push_back(r), ++m_counts.markers;
            } else if constexpr (std::is_same_v<T, wire::ExternalCorrelation>) {
                m_externals.push_back(r);
            } else if constexpr (std::is_same_v<T, wire::Device>) {
                // A context created again on a device repeats its properties: keep one entry per device.
                auto it = std::find_if(m_devices.begin(), m_devices.end(),
                                       [&](const wire::Device& d) { return d.id == r.id; });
                if (it == m_devices.end())
                    m_devices.push_back(r);
                else
                    *it = r;
            } else if constexpr (std::is_same_v<T, wire::Dropped>) {
                m_counts.dropped += r.records;
            } else if constexpr (std::is_same_v<T, wire::Notice>) {
                // A few per capture; a stream repeating one (a reconnecting agent) keeps it once.
                const std::string text(string(r.text));
                if (std::find(m_notices.begin(), m_notices.end(), text) == m_notices.end() &&
                    m_notices.size() < 64)
                    m_notices.push_back(text);
            }
        },
        record);
}

std::uint64_t CaptureRecords::eventCount() const {
    return m_kernels.size() + m_memcpys.size() + m_memsets.size() + m_apis.size() + m_syncs.size() +
           m_markers.size();
}

std::string_view CaptureRecords::string(wire::StringRef id) const {
    return id < m_strings.size() ? std::string_view(m_strings[id]) : std::string_view();
}

} // namespace kinetoscope::live
