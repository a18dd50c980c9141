#pragma once

#include "model/tracestore.h"

#include <string_view>
#include <vector>

namespace kinetoscope {

// A slice's args, decoded on demand: the store keeps each args object as the JSON text the trace had
// (decoding every one at load would cost more than the load itself), and the few views that show or group by
// args decode the one they need. Nested values (arrays, objects) stay JSON text, minified.
std::vector<ArgField> decodeArgsText(std::string_view argsJson);
inline std::vector<ArgField> decodeArgs(const TraceStore& store, EventRef ref) {
    return decodeArgsText(store.argsText(ref));
}

} // namespace kinetoscope
