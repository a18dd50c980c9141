#include "args.h"

#include <simdjson.h>

namespace kinetoscope {

std::vector<ArgField> decodeArgsText(std::string_view argsJson) {
    std::vector<ArgField> fields;
    if (argsJson.empty()) return fields;
    simdjson::dom::parser parser;
    simdjson::padded_string padded(argsJson);
    simdjson::dom::object obj;
    if (parser.parse(padded).get_object().get(obj)) return fields;
    for (auto [key, value] : obj) {
        ArgField f;
        f.key = std::string(key);
        std::string_view s;
        if (!value.get_string().get(s)) {
            f.value = std::string(s);
            f.isString = true;
        } else {
            // Numbers print as written (ids beyond 2^53 must not round); arrays and objects minified.
            f.value = simdjson::minify(value);
        }
        fields.push_back(std::move(f));
    }
    return fields;
}

} // namespace kinetoscope
