// libFuzzer target: the live-capture wire decoder on arbitrary bytes, fed in pieces of varying size, then
// what it decoded turned into the viewer's store (straight from the records, as the live view and a spool
// file do) and into Save's JSON. Every input must decode or stop with an error and an offset; nothing may
// read out of bounds, grow unbounded or overflow; the store must satisfy its invariants and the JSON must
// load.
#include "fuzz_input.h"
#include "live/livecapture.h"
#include "live/wireingest.h"
#include "wire/wire.h"

#include <cstdint>
#include <cstdlib>

using namespace kinetoscope;
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

    const LoadResult store = live::loadWireStream(bytes);
    if (store.ok()) {
        fuzz::checkInvariants(*store.store);
        live::CaptureRecords capture;
        live::WireIngest ingest(capture);
        (void)(ingest.feed(bytes) && ingest.finish());
        const LoadResult saved = loadTraceText(capture.toTraceJson());
        if (!saved.ok()) std::abort();
        fuzz::checkInvariants(*saved.store);
    } else if (store.error.empty()) {
        std::abort(); // a failure must say why
    }
    return 0;
}
