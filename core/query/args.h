#pragma once

#include "model/tracestore.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kinetoscope {

// A slice's args, decoded on demand: the store keeps each args object as the JSON text the trace had
// (decoding every one at load would cost more than the load itself), and the few views that show or group by
// args decode the one they need. Nested values (arrays, objects) stay JSON text, minified.
std::vector<ArgField> decodeArgsText(std::string_view argsJson);
inline std::vector<ArgField> decodeArgs(const TraceStore& store, EventRef ref) {
    return decodeArgsText(store.argsText(ref));
}

// A slice's args typed as the SQL layer's `args` table has them: an integer or a real where the value's JSON
// text reads whole as one, a string's text, anything else (true, null, arrays, objects) as minified JSON.
// One decoder serves a whole scan (an export reads every slice's): it keeps its parser and buffers, and the
// views it gives stay valid until its next decode().
struct TypedArg {
    enum class Kind { Integer, Real, String, Json };
    std::string_view key;
    std::string_view text; // a String's text or a Json's; empty for numbers
    Kind kind = Kind::Json;
    std::int64_t integer = 0;
    double real = 0;
};
class TypedArgsDecoder {
  public:
    TypedArgsDecoder();
    ~TypedArgsDecoder();
    // `readableAfter`: how many bytes past the text are the caller's to read (the rest of the trace's text):
    // with simdjson's padding's worth, the text is parsed where it is, not copied first.
    const std::vector<TypedArg>& decode(std::string_view argsJson, std::size_t readableAfter = 0);

  private:
    struct Parser;
    std::unique_ptr<Parser> m_parser;
};

// One JSON value as a person reads it: a string decoded (`"C:\\runs"` reads C:\runs), anything else minified;
// text that does not parse comes back as it is.
std::string jsonValueText(std::string_view json);

// jsonValueText of arrays and objects, each distinct text made once: the same shapes and launch dimensions
// recur from step to step, so a scan over millions of slices minifies a few thousand texts. Keyed by its own
// copy of the raw text. A text given stays valid until startOverIfFull().
class MinifiedJson {
  public:
    const std::string& of(std::string_view raw);
    // Forgets every text once they hold more than a few megabytes (the texts that repeat, an operator's
    // shapes, come back at once; 300,000 texts, the bound this had, held 45 MB a decoder, two of them through
    // an export): call it only where no text it gave is still in use.
    void startOverIfFull() {
        if (m_bytes > MaxBytes) {
            m_texts.clear();
            m_bytes = 0;
        }
    }

  private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    static constexpr std::size_t MaxBytes = std::size_t(4) << 20;
    std::unordered_map<std::string, std::string, Hash, std::equal_to<>> m_texts;
    std::size_t m_bytes = 0; // the texts' and their entries' (a map node, two strings: ~100 bytes more each)
};

// What `record_shapes=True` writes of an operator's inputs, one entry per argument: "Input Dims" (a shape, []
// for what is not a tensor, a list of shapes for a tensor list), "Input type" and "Concrete Inputs" (the
// value of a scalar or list argument, as text: "[1, 1]", "True", "0.125"; "" for tensors).
struct OperatorInput {
    std::vector<std::int64_t> shape;
    bool list = false; // a tensor list (the shape stays empty)
    bool valid = true; // false: a dimension that is not an integer (a damaged file)
};
struct OperatorInputs {
    std::vector<OperatorInput> dims;
    std::vector<std::string> types;
    std::vector<std::string> concrete;
    std::string dimsText;  // "Input Dims" as minified JSON (for grouping and the report)
    std::string typesText; // "Input type" likewise
    bool hasDims() const { return !dimsText.empty(); }
};

// The three fields as the args hold them (JSON text, not minified), for a caller that caches what it decodes
// from them: the same text decodes the same, whatever the call's ids around it.
struct OperatorInputsText {
    std::string_view dims, types, concrete;
};

// Decodes the inputs of many operators, keeping its parsers (and their buffers) across calls.
class OperatorInputsDecoder {
  public:
    OperatorInputsDecoder();
    ~OperatorInputsDecoder();
    // Finds the fields without decoding them: views into `argsJson`. False when the args hold no "Input
    // Dims" array (record_shapes was off) or are not an object.
    bool locate(std::string_view argsJson, OperatorInputsText& out);
    bool decode(const OperatorInputsText& text, OperatorInputs& out);
    bool decode(std::string_view argsJson, OperatorInputs& out);

  private:
    struct Parser;
    std::unique_ptr<Parser> m_parser;
};

} // namespace kinetoscope
