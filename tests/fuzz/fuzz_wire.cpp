// libFuzzer target: the live-capture wire decoder on arbitrary bytes, fed in pieces of varying size.
// Every input must decode or stop with an error and an offset; nothing may read out of bounds or grow unbounded.
#include "wire/wire.h"

#include <cstdint>
#include <cstdlib>

using namespace kinetoscope::wire;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::size_t records = 0;
    Decoder d([&](const Record&) { ++records; });
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // The first byte picks the piece size, so splits inside headers and records are exercised too.
    const std::size_t piece = size ? 1 + data[0] % 17 : 1;
    for (std::size_t i = 0; i < bytes.size(); i += piece) {
        if (!d.feed(bytes.substr(i, piece))) break;
    }
    if (!d.finish() && d.error().empty()) std::abort(); // a failure must say why
    if (d.recordsDecoded() != records) std::abort();
    return 0;
}
