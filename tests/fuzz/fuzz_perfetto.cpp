// libFuzzer target: the Perfetto protobuf reader (issue 63) on its own. Whatever the bytes (lengths past the
// end, huge repeated fields, interned ids that name nothing, clocks that map nowhere), it converts or says
// why in one line, without a crash, a hang or memory beyond the input's measure; what it converts loads
// through the one JSON importer and keeps the store's invariants.
#include "fuzz_input.h"

#include "import/perfettoimport.h"

#include <cstdlib>

using namespace kinetoscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const ConvertedTrace converted = perfettoToKinetoJson(bytes);
    if (!converted.error.empty()) return 0;
    if (converted.json.empty()) std::abort(); // a conversion either has a trace or says why not
    const LoadResult r =
        fuzz::loadBytes(reinterpret_cast<const std::uint8_t*>(converted.json.data()), converted.json.size());
    if (r.ok())
        fuzz::checkInvariants(*r.store);
    else if (r.error.empty() && !r.cancelled)
        std::abort();
    return 0;
}
