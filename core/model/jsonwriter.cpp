#include "jsonwriter.h"

#include <cstdio>

namespace kinetoscope {

std::string formatMicros(TimeNs ns) {
    const bool negative = ns < 0;
    const unsigned long long a =
        negative ? 0ull - static_cast<unsigned long long>(ns) : static_cast<unsigned long long>(ns);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", negative ? "-" : "", a / 1000, a % 1000);
    return buf;
}

std::string jsonEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    for (const char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
    }
    return out;
}

} // namespace kinetoscope
