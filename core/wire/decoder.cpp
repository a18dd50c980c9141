#include "decoder.h"

#include <cstring>

namespace kinetoscope::wire {

namespace {
// Little-endian fixed-width fields, read with bounds checks: every byte of the stream is hostile.
struct Reader {
    std::string_view in;
    std::size_t pos = 0;
    bool ok = true;
    template <typename T> T get() {
        T v{};
        if (pos + sizeof(T) > in.size()) {
            ok = false;
            return v;
        }
        std::memcpy(&v, in.data() + pos, sizeof(T));
        pos += sizeof(T);
        return v;
    }
    bool done() const { return ok && pos == in.size(); }
};
} // namespace

Decoder::Decoder(Sink sink) : m_sink(std::move(sink)) {}

std::string_view Decoder::stringOf(StringRef id) const {
    return id < m_strings.size() ? std::string_view(m_strings[id]) : std::string_view();
}

bool Decoder::fail(std::uint64_t offset, std::string reason) {
    if (m_error.empty()) {
        m_error = std::move(reason);
        m_errorOffset = offset;
    }
    return false;
}

bool Decoder::feed(std::string_view bytes) {
    if (!m_error.empty()) return false;
    // Decode straight from the caller's bytes; only a record split across calls is copied.
    const bool fromPending = !m_pending.empty();
    if (fromPending) m_pending.append(bytes);
    const std::string_view data = fromPending ? std::string_view(m_pending) : bytes;
    std::size_t pos = 0;
    auto keepTail = [&] {
        if (fromPending)
            m_pending.erase(0, pos);
        else
            m_pending.assign(data.substr(pos));
        m_consumed += pos;
    };
    if (!m_haveHeader) {
        if (data.size() < headerSize) {
            keepTail();
            return true;
        }
        if (std::memcmp(data.data(), magic, sizeof magic) != 0)
            return fail(0, "not a Kinetoscope capture stream (bad magic)");
        std::uint16_t v = 0;
        std::memcpy(&v, data.data() + 4, sizeof v);
        if (v != version)
            return fail(4, "capture stream version " + std::to_string(v) + ", this build reads " +
                               std::to_string(version));
        m_haveHeader = true;
        pos = headerSize;
    }
    while (data.size() - pos >= recordHeaderSize) {
        const auto type = RecordType(std::uint8_t(data[pos]));
        std::uint32_t length = 0;
        std::memcpy(&length, data.data() + pos + 1, sizeof length);
        const std::uint64_t offset = m_consumed + pos;
        if (length > maxPayload)
            return fail(offset, "record length " + std::to_string(length) + " exceeds the limit");
        if (data.size() - pos - recordHeaderSize < length) break; // wait for the rest
        if (!decodeOne(type, data.substr(pos + recordHeaderSize, length), offset)) return false;
        pos += recordHeaderSize + length;
    }
    keepTail();
    return true;
}

bool Decoder::finish() {
    if (!m_error.empty()) return false;
    if (!m_haveHeader)
        return fail(0, m_pending.empty() && m_consumed == 0 ? "empty capture stream"
                                                            : "capture stream ends inside its header");
    if (!m_pending.empty())
        return fail(m_consumed, "capture stream ends inside a record (" + std::to_string(m_pending.size()) +
                                    " bytes left)");
    return true;
}

bool Decoder::decodeOne(RecordType type, std::string_view payload, std::uint64_t offset) {
    Reader r{payload};
    auto needString = [&](StringRef id) { return id < m_strings.size(); };
    Record out(std::in_place_type<Dropped>);
    switch (type) {
    case RecordType::String: {
        StringDef s;
        s.id = r.get<std::uint32_t>();
        if (!r.ok) break;
        s.text = std::string(payload.substr(r.pos));
        r.pos = payload.size();
        // Ids are dense and in order: a gap or repeat means a corrupt or spliced stream.
        if (s.id != m_strings.size())
            return fail(offset, "string id " + std::to_string(s.id) + " out of sequence");
        m_strings.push_back(s.text);
        out.emplace<StringDef>(std::move(s));
        break;
    }
    case RecordType::Kernel: {
        Kernel k;
        k.device = r.get<std::uint32_t>(), k.stream = r.get<std::uint32_t>(),
        k.correlation = r.get<std::uint64_t>();
        k.start = r.get<std::int64_t>(), k.end = r.get<std::int64_t>(), k.name = r.get<std::uint32_t>();
        for (auto& g : k.grid)
            g = r.get<std::uint32_t>();
        for (auto& b : k.block)
            b = r.get<std::uint32_t>();
        k.registers = r.get<std::uint32_t>(), k.staticShared = r.get<std::uint32_t>(),
        k.dynamicShared = r.get<std::uint32_t>();
        if (r.done() && !needString(k.name))
            return fail(offset, "kernel names undefined string " + std::to_string(k.name));
        out = k;
        break;
    }
    case RecordType::Memcpy: {
        Memcpy m;
        m.device = r.get<std::uint32_t>(), m.stream = r.get<std::uint32_t>(),
        m.correlation = r.get<std::uint64_t>();
        m.start = r.get<std::int64_t>(), m.end = r.get<std::int64_t>(), m.kind = r.get<std::uint8_t>(),
        m.bytes = r.get<std::uint64_t>();
        out = m;
        break;
    }
    case RecordType::Memset: {
        Memset m;
        m.device = r.get<std::uint32_t>(), m.stream = r.get<std::uint32_t>(),
        m.correlation = r.get<std::uint64_t>();
        m.start = r.get<std::int64_t>(), m.end = r.get<std::int64_t>(), m.bytes = r.get<std::uint64_t>();
        out = m;
        break;
    }
    case RecordType::Api: {
        Api a;
        a.driver = r.get<std::uint8_t>(), a.cbid = r.get<std::uint32_t>(), a.name = r.get<std::uint32_t>();
        a.correlation = r.get<std::uint64_t>(), a.pid = r.get<std::uint32_t>(),
        a.tid = r.get<std::uint64_t>();
        a.start = r.get<std::int64_t>(), a.end = r.get<std::int64_t>();
        if (r.done() && !needString(a.name))
            return fail(offset, "API call names undefined string " + std::to_string(a.name));
        out = a;
        break;
    }
    case RecordType::Sync: {
        Sync s;
        s.device = r.get<std::uint32_t>(), s.stream = r.get<std::uint32_t>(), s.kind = r.get<std::uint8_t>();
        s.correlation = r.get<std::uint64_t>(), s.start = r.get<std::int64_t>(),
        s.end = r.get<std::int64_t>();
        out = s;
        break;
    }
    case RecordType::Marker: {
        Marker m;
        m.name = r.get<std::uint32_t>(), m.pid = r.get<std::uint32_t>(), m.tid = r.get<std::uint64_t>();
        m.start = r.get<std::int64_t>(), m.end = r.get<std::int64_t>();
        if (r.done() && !needString(m.name))
            return fail(offset, "marker names undefined string " + std::to_string(m.name));
        out = m;
        break;
    }
    case RecordType::ExternalCorrelation: {
        ExternalCorrelation e;
        e.correlation = r.get<std::uint64_t>(), e.externalId = r.get<std::uint64_t>();
        out = e;
        break;
    }
    case RecordType::Device: {
        Device d;
        d.id = r.get<std::uint32_t>(), d.name = r.get<std::uint32_t>(),
        d.totalGlobalMem = r.get<std::uint64_t>();
        d.computeMajor = r.get<std::uint32_t>(), d.computeMinor = r.get<std::uint32_t>(),
        d.numSms = r.get<std::uint32_t>();
        d.maxThreadsPerSm = r.get<std::uint32_t>(), d.warpSize = r.get<std::uint32_t>();
        if (r.done() && !needString(d.name))
            return fail(offset, "device names undefined string " + std::to_string(d.name));
        out = d;
        break;
    }
    case RecordType::Dropped: {
        out = Dropped{r.get<std::uint64_t>()};
        break;
    }
    case RecordType::Notice: {
        const Notice n{r.get<std::uint32_t>()};
        if (r.done() && !needString(n.text))
            return fail(offset, "notice names undefined string " + std::to_string(n.text));
        out = n;
        break;
    }
    default:
        ++m_unknown; // a newer agent's record: its length lets us step over it
        return true;
    }
    if (!r.done())
        return fail(offset, "record of type " + std::to_string(int(type)) + " has " +
                                std::to_string(payload.size()) + " bytes, not its size");
    ++m_records;
    m_recordOffset = offset;
    if (m_sink) m_sink(out);
    return true;
}

} // namespace kinetoscope::wire
