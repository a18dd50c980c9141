#include "args.h"

#include <simdjson.h>

namespace kinetoscope {

namespace {
// One parser and one padded buffer a thread, kept from call to call: a parser's first parse allocates its
// buffers, which cost more than decoding a slice's args (an export decodes millions).
simdjson::simdjson_result<simdjson::dom::element> parseOnThisThread(std::string_view json) {
    thread_local simdjson::dom::parser parser;
    thread_local std::string buffer;
    buffer.assign(json);
    buffer.append(simdjson::SIMDJSON_PADDING, ' ');
    return parser.parse(buffer.data(), json.size(), false);
}
} // namespace

std::vector<ArgField> decodeArgsText(std::string_view argsJson) {
    std::vector<ArgField> fields;
    if (argsJson.empty()) return fields;
    simdjson::dom::object obj;
    if (parseOnThisThread(argsJson).get_object().get(obj)) return fields;
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

struct TypedArgsDecoder::Parser {
    simdjson::ondemand::parser fields;
    std::string buffer;    // the args being decoded, padded (when they cannot be parsed where they lie)
    MinifiedJson minified; // started over only between two decodes
    std::vector<TypedArg> args;
};
TypedArgsDecoder::TypedArgsDecoder() : m_parser(std::make_unique<Parser>()) {}
TypedArgsDecoder::~TypedArgsDecoder() = default;

const std::vector<TypedArg>& TypedArgsDecoder::decode(std::string_view argsJson, std::size_t readableAfter) {
    Parser& p = *m_parser;
    p.args.clear();
    if (argsJson.empty()) return p.args;
    const char* text = argsJson.data();
    const bool inPlace = readableAfter >= simdjson::SIMDJSON_PADDING;
    p.minified.startOverIfFull();
    if (!inPlace) {
        p.buffer.assign(argsJson);
        p.buffer.append(simdjson::SIMDJSON_PADDING, ' ');
        text = p.buffer.data();
    }
    const auto fail = [&]() -> const std::vector<TypedArg>& {
        p.args.clear();
        return p.args;
    };
    simdjson::ondemand::document doc;
    if (p.fields.iterate(text, argsJson.size(), argsJson.size() + simdjson::SIMDJSON_PADDING).get(doc))
        return fail();
    simdjson::ondemand::object obj;
    if (doc.get_object().get(obj)) return fail();
    for (auto field : obj) {
        TypedArg& a = p.args.emplace_back();
        if (field.unescaped_key().get(a.key)) return fail();
        simdjson::ondemand::value value;
        if (field.value().get(value)) return fail();
        simdjson::ondemand::json_type type;
        if (value.type().get(type)) return fail();
        switch (type) {
        case simdjson::ondemand::json_type::string:
            a.kind = TypedArg::Kind::String;
            if (value.get_string().get(a.text)) return fail();
            continue;
        case simdjson::ondemand::json_type::number: {
            if (!value.get_int64().get(a.integer)) {
                a.kind = TypedArg::Kind::Integer;
                continue;
            }
            std::uint64_t u = 0;
            if (!value.get_uint64().get(u)) {
                a.kind = TypedArg::Kind::Real, a.real = double(u);
                continue;
            }
            if (value.get_double().get(a.real)) return fail();
            a.kind = TypedArg::Kind::Real;
            continue;
        }
        case simdjson::ondemand::json_type::boolean: {
            bool b = false;
            if (value.get_bool().get(b)) return fail();
            a.kind = TypedArg::Kind::Json, a.text = b ? "true" : "false";
            continue;
        }
        case simdjson::ondemand::json_type::null:
            if (!value.is_null()) return fail();
            a.kind = TypedArg::Kind::Json, a.text = "null";
            continue;
        default:
            break;
        }
        std::string_view raw;
        if (type == simdjson::ondemand::json_type::array) {
            simdjson::ondemand::array array;
            if (value.get_array().get(array) || array.raw_json().get(raw)) return fail();
        } else {
            simdjson::ondemand::object object;
            if (value.get_object().get(object) || object.raw_json().get(raw)) return fail();
        }
        a.kind = TypedArg::Kind::Json;
        a.text = p.minified.of(raw);
    }
    return p.args;
}

const std::string& MinifiedJson::of(std::string_view raw) {
    auto known = m_texts.find(raw);
    if (known == m_texts.end()) {
        known = m_texts.emplace(std::string(raw), jsonValueText(raw)).first;
        m_bytes += known->first.size() + known->second.size() + 100;
    }
    return known->second; // (a map's values stay where they are as it grows)
}

std::string jsonValueText(std::string_view json) {
    simdjson::dom::element value;
    if (parseOnThisThread(json).get(value)) return std::string(json);
    std::string_view s;
    if (!value.get_string().get(s)) return std::string(s);
    return simdjson::minify(value);
}

struct OperatorInputsDecoder::Parser {
    simdjson::ondemand::parser fields;
    simdjson::dom::parser values;
    std::string args;   // the args being located, padded
    std::string pieces; // the three fields being decoded, padded
};

OperatorInputsDecoder::OperatorInputsDecoder() : m_parser(std::make_unique<Parser>()) {}
OperatorInputsDecoder::~OperatorInputsDecoder() = default;

bool OperatorInputsDecoder::locate(std::string_view argsJson, OperatorInputsText& out) {
    out = {};
    if (argsJson.empty()) return false;
    std::string& buffer = m_parser->args;
    buffer.assign(argsJson);
    buffer.append(simdjson::SIMDJSON_PADDING, ' ');
    simdjson::ondemand::document doc;
    if (m_parser->fields.iterate(buffer.data(), argsJson.size(), buffer.size()).get(doc)) return false;
    simdjson::ondemand::object obj;
    if (doc.get_object().get(obj)) return false;
    for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key)) return false;
        std::string_view* into = key == "Input Dims"        ? &out.dims
                                 : key == "Input type"      ? &out.types
                                 : key == "Concrete Inputs" ? &out.concrete
                                                            : nullptr;
        if (!into) continue; // (skipped unread)
        simdjson::ondemand::array array;
        if (field.value().get_array().get(array) || array.raw_json().get(*into)) {
            *into = {};
            if (into == &out.dims) return false;
        }
    }
    // Views into the caller's text, not the padded copy: they last as long as it does.
    for (std::string_view* view : {&out.dims, &out.types, &out.concrete})
        if (!view->empty()) *view = argsJson.substr(std::size_t(view->data() - buffer.data()), view->size());
    return !out.dims.empty();
}

bool OperatorInputsDecoder::decode(const OperatorInputsText& text, OperatorInputs& out) {
    out = {};
    // One document holding the three arrays, so one parse decodes them.
    std::string& buffer = m_parser->pieces;
    buffer.assign("[");
    buffer.append(text.dims).append(",").append(text.types.empty() ? "[]" : text.types);
    buffer.append(",").append(text.concrete.empty() ? "[]" : text.concrete).append("]");
    const std::size_t length = buffer.size();
    buffer.append(simdjson::SIMDJSON_PADDING, ' ');
    simdjson::dom::array all;
    if (m_parser->values.parse(buffer.data(), length, false).get_array().get(all)) return false;
    simdjson::dom::array dims, types, concrete;
    if (all.at(0).get_array().get(dims) || all.at(1).get_array().get(types) ||
        all.at(2).get_array().get(concrete))
        return false;
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
                } else {
                    input.valid = false;
                }
            }
        }
        out.dims.push_back(std::move(input));
    }
    auto strings = [](simdjson::dom::array array, std::vector<std::string>& values) {
        for (simdjson::dom::element e : array) {
            std::string_view s;
            values.push_back(e.get_string().get(s) ? simdjson::minify(e) : std::string(s));
        }
    };
    out.typesText = simdjson::minify(types);
    strings(types, out.types);
    strings(concrete, out.concrete);
    return true;
}

bool OperatorInputsDecoder::decode(std::string_view argsJson, OperatorInputs& out) {
    OperatorInputsText text;
    if (!locate(argsJson, text)) {
        out = {};
        return false;
    }
    return decode(text, out);
}

} // namespace kinetoscope
