// A capture written as a Kineto trace (Capture > Save, `kinetoscope-cli record`).
#include "capturewalk.h"

namespace kinetoscope::live {

namespace {

// Writes the events as Kineto JSON (Capture > Save, `kinetoscope-cli record`).
class JsonSink {
  public:
    JsonSink(std::string& text, std::int64_t base) : m_out{text}, m_base(base) {}

    void meta(bool process, std::int64_t pid, std::int64_t tid, std::int64_t ts, std::string_view value) {
        begin("M", Cat::Metadata, process ? "process_name" : "thread_name", pid, tid, ts);
        m_out.raw(", \"args\": {\"name\": ");
        m_out.str(value);
        m_out.raw("}}");
    }
    template <typename Rest>
    void slice(Cat cat, Name name, std::int64_t pid, std::int64_t tid, std::int64_t start, std::int64_t end,
               const std::uint64_t* externalId, std::uint64_t correlation, Rest&& rest) {
        complete(cat, name.text, pid, tid, start, end);
        m_out.raw(", \"args\": ");
        writeArgs(m_out, externalId, correlation, rest);
        m_out.raw("}");
    }
    void annotation(Name name, std::int64_t pid, std::int64_t tid, std::int64_t start, std::int64_t end) {
        complete(Cat::UserAnnotation, name.text, pid, tid, start, end);
        m_out.raw("}");
    }
    void mark(Name name, std::int64_t pid, std::int64_t tid, std::int64_t ts) {
        begin("i", Cat::UserAnnotation, name.text, pid, tid, ts);
        m_out.raw(", \"s\": \"t\"}");
    }
    // ac2g: a launch's start binds to the call, its end to the GPU work starting there (bp "e").
    void flow(bool start, Name name, std::int64_t pid, std::int64_t tid, std::int64_t ts, std::uint64_t id) {
        begin(start ? "s" : "f", Cat::Ac2g, name.text, pid, tid, ts);
        m_out.raw(", \"id\": ");
        m_out.num(id);
        m_out.raw(start ? "}" : ", \"bp\": \"e\"}");
    }

  private:
    void begin(const char* ph, Cat cat, std::string_view name, std::int64_t pid, std::int64_t tid,
               std::int64_t ts) {
        m_out.raw(m_first ? "    {\"ph\": \"" : ",\n    {\"ph\": \"");
        m_first = false;
        m_out.raw(ph);
        m_out.raw("\", \"cat\": \"");
        m_out.raw(catText[std::size_t(cat)]);
        m_out.raw("\", \"name\": ");
        m_out.str(name);
        m_out.raw(", \"pid\": ");
        m_out.num(pid);
        m_out.raw(", \"tid\": ");
        m_out.num(tid);
        m_out.raw(", \"ts\": ");
        m_out.micros(ts - m_base);
    }
    void complete(Cat cat, std::string_view name, std::int64_t pid, std::int64_t tid, std::int64_t start,
                  std::int64_t end) {
        begin("X", cat, name, pid, tid, start);
        m_out.raw(", \"dur\": ");
        m_out.micros(std::max<std::int64_t>(0, end - start));
    }

    JsonWriter<std::string> m_out;
    std::int64_t m_base = 0;
    bool m_first = true;
};

} // namespace

std::string CaptureRecords::toTraceJson() const {
    const Walk walk(*this, false);
    std::string text;
    text.reserve(std::size_t(eventCount()) * 220 + 4096);
    JsonWriter<std::string> out{text};
    out.raw("{\n");
    for (const auto& [key, value] : walk.topLevel()) {
        out.raw("  \"");
        out.raw(key);
        out.raw("\": ");
        out.raw(value);
        out.raw(",\n");
    }
    out.raw("  \"traceEvents\": [\n");
    JsonSink sink(text, walk.base);
    walk.names(sink);
    walk.gpuWork(sink);
    walk.apis(sink, 0, m_apis.size());
    walk.markers(sink);
    out.raw("\n  ]\n}\n");
    return text;
}

} // namespace kinetoscope::live
