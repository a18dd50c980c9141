// libFuzzer target: the JSON importer alone (plain and gzip), fast enough for the ten-million-execution long
// run (fuzz_loader adds every analysis and query on top and runs ~300 inputs/s). Beyond "no crash, no leak,
// no UB", whatever loads must satisfy the store's invariants, which the viewer and every analysis rely on
// without checking.
#include "fuzz_input.h"

#include <cstdlib>

using namespace kinetoscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    LoadResult r = fuzz::loadBytes(data, size);
    if (r.ok())
        fuzz::checkInvariants(*r.store);
    else if (r.error.empty() && !r.cancelled)
        std::abort(); // a failure must always say why
    return 0;
}
