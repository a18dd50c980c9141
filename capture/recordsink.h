#pragma once

#include "wire/records.h"

#include <string_view>

namespace kinetoscope::capture {

// Receives records on the writer thread. Strings are interned by the sink: call string() to get a StringRef
// for a name, then emit records that refer to it.
class RecordSink {
  public:
    virtual ~RecordSink() = default;
    virtual wire::StringRef string(std::string_view text) = 0;
    virtual void add(const wire::Record& record) = 0;
};

} // namespace kinetoscope::capture
