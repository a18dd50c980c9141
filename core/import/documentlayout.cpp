#include "documentlayout.h"

#include "jsonscan.h"

namespace kinetoscope {

using jsonscan::ScanStatus;
using jsonscan::skipSpace;

std::optional<LoadFailure> findEventArray(std::string_view text, DocumentLayout& layout) {
    std::size_t pos = 0;
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3; // UTF-8 BOM
    pos = skipSpace(text, pos);
    if (pos >= text.size()) return LoadFailure{"no JSON: the file holds only whitespace", pos};
    if (text[pos] == '[') {
        layout.arrayOpen = pos;
        layout.bareArray = true;
        return std::nullopt;
    }
    if (text[pos] != '{')
        return LoadFailure{"not JSON: expected '{' or '[' at the start of the document", pos};
    ++pos;
    while (true) {
        pos = skipSpace(text, pos);
        if (pos >= text.size()) return LoadFailure{"file ends before the traceEvents array", pos};
        if (text[pos] == '}')
            return LoadFailure{"not a trace: the top-level object has no traceEvents array", pos};
        if (text[pos] != '"') return LoadFailure{"expected a key in the top-level object", pos};
        const auto key = jsonscan::scanValue(text, pos);
        if (key.status != ScanStatus::Ok) return LoadFailure{"file ends inside a top-level key", pos};
        const std::string_view keyText = text.substr(pos + 1, key.end - pos - 2);
        pos = skipSpace(text, key.end);
        if (pos >= text.size() || text[pos] != ':')
            return LoadFailure{"expected ':' after a top-level key", pos};
        pos = skipSpace(text, pos + 1);
        if (keyText == "traceEvents") {
            if (pos >= text.size()) return LoadFailure{"file ends before the traceEvents array", pos};
            if (text[pos] != '[') return LoadFailure{"traceEvents is not an array", pos};
            layout.arrayOpen = pos;
            return std::nullopt;
        }
        const auto value = jsonscan::scanValue(text, pos);
        if (value.status == ScanStatus::Truncated)
            return LoadFailure{"file ends inside top-level key \"" + std::string(keyText) + "\"", pos};
        if (value.status == ScanStatus::Invalid)
            return LoadFailure{"malformed value of top-level key \"" + std::string(keyText) + "\"",
                               value.end};
        layout.topLevel.emplace_back(std::string(keyText), std::string(text.substr(pos, value.end - pos)));
        pos = skipSpace(text, value.end);
        if (pos < text.size() && text[pos] == ',') {
            ++pos;
            continue;
        }
        if (pos < text.size() && text[pos] == '}')
            return LoadFailure{"not a trace: the top-level object has no traceEvents array", pos};
        return LoadFailure{"expected ',' or '}' in the top-level object", pos};
    }
}

void readTrailingKeys(std::string_view text, std::size_t arrayClose, DocumentLayout& layout,
                      ImportStats& stats) {
    std::size_t pos = skipSpace(text, arrayClose + 1);
    auto problem = [&](const char* what) {
        stats.trailingProblem = std::string(what) + " at byte " + std::to_string(pos);
    };
    if (layout.bareArray) {
        if (pos < text.size()) problem("unexpected content after the event array");
        return;
    }
    while (true) {
        if (pos >= text.size()) return problem("file ends before the top-level object closes");
        if (text[pos] == '}') {
            pos = skipSpace(text, pos + 1);
            if (pos < text.size()) problem("unexpected content after the top-level object");
            return;
        }
        if (text[pos] != ',') return problem("expected ',' or '}' after the event array");
        pos = skipSpace(text, pos + 1);
        if (pos >= text.size() || text[pos] != '"') return problem("expected a key after the event array");
        const auto key = jsonscan::scanValue(text, pos);
        if (key.status != ScanStatus::Ok) return problem("malformed key after the event array");
        const std::string keyText(text.substr(pos + 1, key.end - pos - 2));
        pos = skipSpace(text, key.end);
        if (pos >= text.size() || text[pos] != ':') return problem("expected ':' after a key");
        pos = skipSpace(text, pos + 1);
        const auto value = jsonscan::scanValue(text, pos);
        if (value.status != ScanStatus::Ok) return problem("malformed value after the event array");
        layout.topLevel.emplace_back(keyText, std::string(text.substr(pos, value.end - pos)));
        pos = skipSpace(text, value.end);
    }
}

} // namespace kinetoscope
