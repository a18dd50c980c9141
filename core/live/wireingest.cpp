// Wire streams decoded into a capture, one connection or spool file at a time.
#include "wireingest.h"

namespace kinetoscope::live {

WireIngest::WireIngest(CaptureRecords& into)
    : m_into(into), m_decoder([this](const wire::Record& r) { add(r); }) {}

bool WireIngest::feed(std::string_view bytes) {
    m_into.counts().bytes += bytes.size();
    return m_decoder.feed(bytes);
}

bool WireIngest::finish() {
    return m_decoder.finish();
}

void WireIngest::add(const wire::Record& record) {
    const std::uint64_t rejectedBefore = m_into.counts().rejected;
    std::visit(
        [&](auto r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, wire::StringDef>) {
                if (r.id >= m_remap.size()) m_remap.resize(std::size_t(r.id) + 1, 0);
                m_remap[r.id] = m_into.intern(r.text);
                m_into.add(r);
            } else {
                if constexpr (std::is_same_v<T, wire::Kernel> || std::is_same_v<T, wire::Api> ||
                              std::is_same_v<T, wire::Marker> || std::is_same_v<T, wire::Device>)
                    r.name = map(r.name);
                if constexpr (std::is_same_v<T, wire::Notice>) r.text = map(r.text);
                m_into.add(r);
            }
        },
        record);
    if (!m_firstRejected && m_into.counts().rejected != rejectedBefore)
        m_firstRejected = m_decoder.recordOffset();
}

} // namespace kinetoscope::live
