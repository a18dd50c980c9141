#pragma once

#include "records.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace kinetoscope::wire {

// Appends a stream to a byte buffer. Strings are interned: each distinct text is sent once.
class Encoder {
  public:
    Encoder();
    // The header (written by the constructor) plus everything since; take() hands it over and starts a new
    // batch (without a header: a stream has one).
    std::string take();
    const std::string& buffer() const { return m_out; }
    StringRef string(std::string_view text);
    void add(const Record& record);

  private:
    std::string m_out;
    std::unordered_map<std::string, StringRef> m_strings;
};

} // namespace kinetoscope::wire
