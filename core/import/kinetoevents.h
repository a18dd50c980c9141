#pragma once

// Kineto's trace events written as its JSON, for the readers of other formats (an Nsight export, a ROCm
// database, a Perfetto trace) that turn their events into Kineto's so that the one JSON importer builds the
// store (docs/FORMATS.md). Times are ns, written as µs with three decimals: exactly.

#include "model/jsonwriter.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// A file of another format turned into Kineto's JSON.
struct ConvertedTrace {
    std::string json;                 // Kineto's trace of the file's events
    std::vector<std::string> skipped; // what it could not read, one line each
    std::string error;                // why nothing was read (empty when json holds the trace)
};

class KinetoEventWriter {
  public:
    KinetoEventWriter() : m_w(m_text) {}
    JsonWriter<std::string>& w() { return m_w; }
    std::string& text() { return m_text; }
    // The document: beginTrace() writes its header ({"schemaVersion": 1, "displayTimeUnit": "ns"), the caller
    // adds other top-level keys (deviceProperties), beginEvents() opens traceEvents, and finish() closes both
    // and hands over the text.
    void beginTrace() {
        m_w.beginObject({"", ",\n", ""});
        m_w.numField("schemaVersion", 1);
        m_w.strField("displayTimeUnit", "ns");
    }
    void beginEvents() {
        m_w.key("traceEvents");
        m_w.beginArray({"\n", ",\n", "\n"});
    }
    std::string finish() {
        m_w.endArray();
        m_w.endObject();
        return std::move(m_text);
    }
    // One event's common members; the caller adds args and closes it.
    void begin(char phase, std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid,
               std::int64_t ts) {
        m_w.beginObject();
        m_w.strField("ph", std::string_view(&phase, 1));
        m_w.strField("cat", cat);
        m_w.strField("name", name);
        m_w.numField("pid", pid);
        m_w.numField("tid", tid);
        m_w.key("ts");
        m_w.micros(ts);
    }
    void dur(std::int64_t ns) {
        m_w.key("dur");
        m_w.micros(ns);
    }
    // A flow event (s, t, f); a finish binds to the slice enclosing it. Kineto's launch -> GPU flows are
    // "ac2g".
    void flow(char phase, std::int64_t id, std::int64_t pid, std::int64_t tid, std::int64_t ts,
              std::string_view category = "ac2g") {
        begin(phase, category, category, pid, tid, ts);
        m_w.numField("id", id);
        if (phase == 'f') m_w.strField("bp", "e");
        m_w.endObject();
    }

    // A process's or thread's name ("process_name", "thread_name"), as Kineto's metadata events give it.
    void metadata(std::string_view what, std::int64_t pid, std::int64_t tid, std::string_view name) {
        begin('M', "", what, pid, tid, 0);
        m_w.key("args");
        m_w.beginObject();
        m_w.strField("name", name);
        m_w.endObject();
        m_w.endObject();
    }

  private:
    std::string m_text;
    JsonWriter<std::string> m_w;
};

} // namespace kinetoscope
