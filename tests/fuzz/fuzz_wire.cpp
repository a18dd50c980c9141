// libFuzzer target: the live-capture wire decoder on arbitrary bytes, fed in pieces of varying size, then
// what it decoded turned into the viewer's store (straight from the records, as the live view and a spool
// file do) and into Save's JSON. Every input must decode or stop with an error and an offset; nothing may
// read out of bounds, grow unbounded or overflow; the store must satisfy its invariants and the JSON must
// load.
#include "fuzz_input.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace kinetoscope;
    if (const int line = fuzz::brokenWireStream({reinterpret_cast<const char*>(data), size})) {
        std::fprintf(stderr, "wire stream check failed: fuzz_input.h:%d\n", line);
        std::abort();
    }
    return 0;
}
