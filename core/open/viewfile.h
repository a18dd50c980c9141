#pragma once

// A saved view (File > Save View, issue 64): a small JSON file, `.kview`, that opens the traces it names at a
// range with a slice selected, tracks pinned and hidden, and the queries of the Query tab. Paths are written
// relative to the view file where they lie beside it or below it, so that a folder of traces and views can be
// moved or shared whole. A kinetoscope:// link (model/viewlink.h) says the same in one line, without the
// tracks' layout and queries.
//
//   {"kinetoscope_view": 1, "files": ["run/rank0.pt.trace.json.gz"], "range_ns": [START, END],
//    "select": 1234, "pinned": ["GPU 0 · stream 7"], "hidden": ["python3 (123) · thread 9"],
//    "queries": ["SELECT ..."]}

#include "model/viewlink.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

struct ViewFile {
    ViewLink view;                   // files (absolute once read), range, selection
    std::vector<std::string> pinned; // track titles (query/lanelayout.h's trackTitle), in pinned order
    std::vector<std::string> hidden;
    std::vector<std::string> queries;
};

// The file's text, paths made relative to `viewPath`'s folder where they are inside it.
std::string viewFileJson(const ViewFile& view, const std::string& viewPath);
// Reads a view file's text (`viewPath` resolves its relative paths); nullopt and a one-line `error` naming
// the byte when it is not one.
std::optional<ViewFile> parseViewFile(std::string_view text, const std::string& viewPath, std::string& error);
// Reads the file at `path`; the error names it.
std::optional<ViewFile> readViewFile(const std::string& path, std::string& error);

} // namespace kinetoscope
