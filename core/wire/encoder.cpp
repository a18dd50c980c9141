#include "encoder.h"

#include <cstring>

namespace kinetoscope::wire {

namespace {
// Little-endian fixed-width fields (x86 and ARM Linux are little-endian; memcpy keeps it alignment-safe).
// Fields go to a stack buffer and the whole record is appended once: a handful of stores per record, not a
// capacity check per field (the encoder runs for every CUPTI record of the target).
struct Writer {
    char* p;
    template <typename T> void put(T v) {
        std::memcpy(p, &v, sizeof(T));
        p += sizeof(T);
    }
};

void encodePayload(Writer& w, const Record& record) {
    std::visit(
        [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, StringDef>) {
                // Variable length: written by Encoder::add directly.
            } else if constexpr (std::is_same_v<T, Kernel>) {
                w.put(r.device), w.put(r.stream), w.put(r.correlation), w.put(r.start), w.put(r.end),
                    w.put(r.name);
                for (std::uint32_t g : r.grid)
                    w.put(g);
                for (std::uint32_t b : r.block)
                    w.put(b);
                w.put(r.registers), w.put(r.staticShared), w.put(r.dynamicShared);
            } else if constexpr (std::is_same_v<T, Memcpy>) {
                w.put(r.device), w.put(r.stream), w.put(r.correlation), w.put(r.start), w.put(r.end),
                    w.put(r.kind), w.put(r.bytes);
            } else if constexpr (std::is_same_v<T, Memset>) {
                w.put(r.device), w.put(r.stream), w.put(r.correlation), w.put(r.start), w.put(r.end),
                    w.put(r.bytes);
            } else if constexpr (std::is_same_v<T, Api>) {
                w.put(r.driver), w.put(r.cbid), w.put(r.name), w.put(r.correlation), w.put(r.pid),
                    w.put(r.tid), w.put(r.start), w.put(r.end);
            } else if constexpr (std::is_same_v<T, Sync>) {
                w.put(r.device), w.put(r.stream), w.put(r.kind), w.put(r.correlation), w.put(r.start),
                    w.put(r.end);
            } else if constexpr (std::is_same_v<T, Marker>) {
                w.put(r.name), w.put(r.pid), w.put(r.tid), w.put(r.start), w.put(r.end);
            } else if constexpr (std::is_same_v<T, ExternalCorrelation>) {
                w.put(r.correlation), w.put(r.externalId);
            } else if constexpr (std::is_same_v<T, Device>) {
                w.put(r.id), w.put(r.name), w.put(r.totalGlobalMem), w.put(r.computeMajor),
                    w.put(r.computeMinor), w.put(r.numSms), w.put(r.maxThreadsPerSm), w.put(r.warpSize);
            } else if constexpr (std::is_same_v<T, Dropped>) {
                w.put(r.records);
            } else if constexpr (std::is_same_v<T, Notice>) {
                w.put(r.text);
            }
        },
        record);
}
} // namespace

Encoder::Encoder() {
    char header[headerSize];
    std::memcpy(header, magic, sizeof magic);
    Writer w{header + sizeof magic};
    w.put<std::uint16_t>(version);
    w.put<std::uint16_t>(0);
    m_out.append(header, headerSize);
}

std::string Encoder::take() {
    std::string out;
    out.swap(m_out);
    return out;
}

StringRef Encoder::string(std::string_view text) {
    auto [it, inserted] = m_strings.try_emplace(std::string(text), StringRef(m_strings.size()));
    if (inserted) add(StringDef{it->second, std::string(text.substr(0, maxPayload - 4))});
    return it->second;
}

void Encoder::add(const Record& record) {
    if (const auto* text = std::get_if<StringDef>(&record)) {
        char head[recordHeaderSize + 4];
        head[0] = char(RecordType::String);
        const auto length = std::uint32_t(4 + text->text.size());
        std::memcpy(head + 1, &length, 4);
        std::memcpy(head + recordHeaderSize, &text->id, 4);
        m_out.append(head, sizeof head);
        m_out.append(text->text);
        return;
    }
    char buffer[128]; // the largest fixed record (Kernel) is 80 bytes of payload
    Writer w{buffer + recordHeaderSize};
    encodePayload(w, record);
    buffer[0] = char(typeOf(record));
    const auto length = std::uint32_t(w.p - buffer - recordHeaderSize);
    std::memcpy(buffer + 1, &length, sizeof length);
    m_out.append(buffer, std::size_t(w.p - buffer));
}

} // namespace kinetoscope::wire
