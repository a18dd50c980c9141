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

std::int64_t OperatorInput::elements() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape)
        n *= d;
    return n;
}

struct OperatorInputsDecoder::Parser {
    simdjson::dom::parser parser;
    std::string padded;
};

OperatorInputsDecoder::OperatorInputsDecoder() : m_parser(std::make_unique<Parser>()) {}
OperatorInputsDecoder::~OperatorInputsDecoder() = default;

bool OperatorInputsDecoder::decode(std::string_view argsJson, OperatorInputs& out) {
    out = {};
    if (argsJson.empty()) return false;
    std::string& buffer = m_parser->padded;
    buffer.assign(argsJson);
    buffer.append(simdjson::SIMDJSON_PADDING, ' ');
    simdjson::dom::object obj;
    if (m_parser->parser.parse(buffer.data(), argsJson.size(), false).get_object().get(obj)) return false;
    simdjson::dom::array dims;
    if (obj["Input Dims"].get_array().get(dims)) return false;
    out.dimsText = simdjson::minify(dims);
    for (simdjson::dom::element entry : dims) {
        OperatorInput input;
        simdjson::dom::array shape;
        if (!entry.get_array().get(shape)) {
            for (simdjson::dom::element d : shape) {
                std::int64_t v = 0;
                if (!d.get_int64().get(v)) {
                    input.shape.push_back(v);
                } else if (d.is_array()) {
                    input.list = true;
                    input.shape.clear();
                    break;
                }
            }
        }
        out.dims.push_back(std::move(input));
    }
    auto strings = [&](const char* key, std::vector<std::string>& values, std::string* text) {
        simdjson::dom::array array;
        if (obj[key].get_array().get(array)) return;
        if (text) *text = simdjson::minify(array);
        for (simdjson::dom::element e : array) {
            std::string_view s;
            values.push_back(e.get_string().get(s) ? simdjson::minify(e) : std::string(s));
        }
    };
    strings("Input type", out.types, &out.typesText);
    strings("Concrete Inputs", out.concrete, nullptr);
    return true;
}

} // namespace kinetoscope
