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
    // A third of the inputs also load as the GPU's work alone (summary --by kernel), which must agree.
    if (size % 3 == 0) {
        LoadResult gpu = fuzz::loadBytes(data, size, true);
        if (gpu.ok() != r.ok()) std::abort();
        if (gpu.ok()) {
            fuzz::checkInvariants(*gpu.store);
            if (const int line = fuzz::gpuWorkOnlyDiffers(*r.store, *gpu.store)) {
                std::fprintf(stderr, "GPU-only load differs: fuzz_input.h:%d\n", line);
                std::abort();
            }
        }
    }
    return 0;
}
