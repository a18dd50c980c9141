// libFuzzer target: a datagram from anyone on the machine to the on-demand daemon's socket
// (core/live/ondemand.h), through the message decoder and the poll decoder. Nothing may read out of bounds,
// allocate from a lying size or overflow; a decoded poll holds exactly the pids its payload has room for.
#include "live/ondemand.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace kinetoscope::live;
    const std::string_view datagram(reinterpret_cast<const char*>(data), size);
    const auto message = decodeFabricMessage(datagram);
    if (!message) return 0;
    if (message->payload.size() + fabricHeaderBytes != size) std::abort();
    if (const auto poll = decodeKinetoPoll(message->payload))
        if (16 + 4 * poll->pids.size() != message->payload.size()) std::abort();
    return 0;
}
