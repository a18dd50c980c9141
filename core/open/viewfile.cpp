#include "viewfile.h"

#include "model/jsonwriter.h"

#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kinetoscope {

namespace {

namespace fs = std::filesystem;

fs::path folderOf(const std::string& viewPath) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(viewPath, ec);
    return (ec ? fs::path(viewPath) : absolute).lexically_normal().parent_path();
}

// Relative to the view's folder when the file is inside it; absolute otherwise.
std::string written(const std::string& file, const fs::path& folder) {
    const fs::path path = fs::path(file).lexically_normal();
    const fs::path relative = path.lexically_relative(folder);
    if (!relative.empty() && *relative.begin() != "..") return relative.generic_string();
    return path.generic_string();
}

std::string resolved(std::string_view file, const fs::path& folder) {
    const fs::path path(file);
    return (path.is_absolute() ? path : folder / path).lexically_normal().string();
}

} // namespace

std::string viewFileJson(const ViewFile& view, const std::string& viewPath) {
    const fs::path folder = folderOf(viewPath);
    std::string out;
    JsonWriter w(out);
    w.beginObject({"\n  ", ",\n  ", "\n"});
    w.numField("kinetoscope_view", 1);
    const auto list = [&](std::string_view key, const std::vector<std::string>& items, bool paths) {
        w.key(key);
        w.beginArray();
        for (const std::string& item : items)
            w.str(paths ? written(item, folder) : item);
        w.endArray();
    };
    list("files", view.view.files, true);
    if (view.view.range) {
        w.key("range_ns");
        w.beginArray();
        w.num(view.view.range->first);
        w.num(view.view.range->second);
        w.endArray();
    }
    if (view.view.select) w.numField("select", *view.view.select);
    list("pinned", view.pinned, false);
    list("hidden", view.hidden, false);
    list("queries", view.queries, false);
    w.endObject();
    return out + "\n";
}

std::optional<ViewFile> parseViewFile(std::string_view text, const std::string& viewPath,
                                      std::string& error) {
    simdjson::dom::parser parser;
    simdjson::dom::object root;
    const simdjson::padded_string padded(text);
    if (const auto e = parser.parse(padded).get(root)) {
        error = std::string("not a view file: ") + simdjson::error_message(e);
        return std::nullopt;
    }
    std::int64_t version = 0;
    if (root["kinetoscope_view"].get(version) || version != 1) {
        error = "not a view file (no \"kinetoscope_view\": 1)";
        return std::nullopt;
    }
    const fs::path folder = folderOf(viewPath);
    ViewFile view;
    const auto strings = [&](std::string_view key, std::vector<std::string>& out, bool paths) {
        simdjson::dom::array array;
        if (root[key].get(array)) return true; // left out: none
        for (const auto item : array) {
            std::string_view v;
            if (item.get(v)) {
                error = std::string(key) + ": expected a list of strings";
                return false;
            }
            out.push_back(paths ? resolved(v, folder) : std::string(v));
        }
        return true;
    };
    if (!strings("files", view.view.files, true) || !strings("pinned", view.pinned, false) ||
        !strings("hidden", view.hidden, false) || !strings("queries", view.queries, false))
        return std::nullopt;
    if (view.view.files.empty()) {
        error = "the view names no trace (files)";
        return std::nullopt;
    }
    simdjson::dom::array range;
    if (!root["range_ns"].get(range)) {
        std::int64_t from = 0, to = 0;
        if (range.size() != 2 || range.at(0).get(from) || range.at(1).get(to) || from >= to) {
            error = "range_ns: expected [START, END] in ns with START < END";
            return std::nullopt;
        }
        view.view.range = std::pair{from, to};
    }
    std::int64_t select = 0;
    if (!root["select"].get(select)) view.view.select = select;
    return view;
}

std::optional<ViewFile> readViewFile(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot read the view file";
        return std::nullopt;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto view = parseViewFile(text.str(), path, error);
    if (!view) error = path + ": " + error;
    return view;
}

} // namespace kinetoscope
