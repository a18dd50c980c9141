#include "gzipsample.h"

#include "jsonscan.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <string_view>
#include <vector>

namespace kinetoscope {

namespace {

constexpr std::size_t blockBytes = std::size_t(1) << 20;
constexpr std::size_t sampleCap = std::size_t(32) << 20;
constexpr std::uint64_t firstSample = std::uint64_t(4) << 20;

// The offset of the last event boundary (a `,` between `}` and `{`) in `text` at or after `from`; npos when
// there is none.
std::size_t lastBoundary(std::string_view text, std::size_t from) {
    std::size_t last = std::string_view::npos;
    for (std::size_t at = from;;) {
        const std::size_t comma = jsonscan::findObjectBoundary(text, at, text.size());
        if (comma == std::string_view::npos) return last;
        last = comma;
        at = comma + 1;
    }
}

struct Piece {
    std::uint64_t block; // which MiB of the inflated text
    std::string text;    // whole events
};

} // namespace

GzipSampler::GzipSampler(const unsigned char* gzip, std::size_t size, SampleFn onSample,
                         const std::atomic<bool>* cancel)
    : m_gzip(gzip), m_size(size), m_onSample(std::move(onSample)), m_cancel(cancel) {
    m_thread = std::thread([this] {
        try {
            run();
        } catch (...) { // out of memory: no sample (the load itself goes on, and says what it met)
        }
    });
}

GzipSampler::~GzipSampler() {
    stop();
}

void GzipSampler::stop() {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
}

void GzipSampler::finish() {
    if (m_thread.joinable()) m_thread.join();
}

void GzipSampler::waitForFirstSample(std::chrono::milliseconds limit) {
    std::unique_lock lock(m_mutex);
    m_firstSampled.wait_for(lock, limit, [&] { return m_sampled; });
}

void GzipSampler::run() {
    struct Signal { // the first sample handed on, or none to come
        GzipSampler& s;
        void operator()() {
            {
                std::lock_guard lock(s.m_mutex);
                s.m_sampled = true;
            }
            s.m_firstSampled.notify_all();
        }
        ~Signal() { (*this)(); }
    } signal{*this};
    const auto stopped = [&] {
        return m_stop.load(std::memory_order_relaxed) ||
               (m_cancel && m_cancel->load(std::memory_order_relaxed));
    };
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return;
    std::string head;  // the document's first MiB, up to its last whole event
    std::string whole; // the whole text, while it is no longer than one block
    std::vector<Piece> pieces;
    std::size_t kept = 0;
    std::uint64_t stride = 4, inflated = 0, nextSample = firstSample;
    std::string block(blockBytes, '\0');
    std::size_t fill = 0;
    std::uint64_t blockIndex = 0;
    bool ended = false;

    // A gzip capture spool (or anything but JSON) is no trace text to sample: seeing its first byte, give up
    // rather than inflate it a second time beside the load.
    enum class Kind { Unknown, Json, Other } kind = Kind::Unknown;
    const auto judge = [&] {
        std::string_view text(block.data(), fill);
        if (text.starts_with("\xEF\xBB\xBF"))
            text.remove_prefix(3); // UTF-8 BOM, as the loader skips it
        else if (std::string_view("\xEF\xBB\xBF").starts_with(text))
            return; // a BOM's start: wait
        const std::size_t open = jsonscan::skipSpace(text, 0);
        if (open < text.size()) kind = text[open] == '{' || text[open] == '[' ? Kind::Json : Kind::Other;
    };
    const auto take = [&](std::string_view text) {
        const std::uint64_t index = blockIndex++;
        if (index == 0) {
            whole.assign(text);
            const std::size_t cut = lastBoundary(text, 0);
            head.assign(text.substr(0, cut == std::string_view::npos ? text.size() : cut));
            return;
        }
        whole.clear();
        if (index % stride != 0) return;
        const std::size_t first = jsonscan::findObjectBoundary(text, 0, text.size());
        if (first == std::string_view::npos) return;
        const std::size_t last = lastBoundary(text, first + 1);
        if (last == std::string_view::npos) return;
        pieces.push_back({index, std::string(text.substr(first + 1, last - first - 1))});
        kept += pieces.back().text.size();
        while (kept > sampleCap) { // thin: every other piece goes
            stride *= 2;
            kept = 0;
            std::erase_if(pieces, [&](const Piece& p) { return p.block % stride != 0; });
            for (const Piece& p : pieces)
                kept += p.text.size();
        }
    };
    const auto sample = [&] {
        if (stopped() || head.empty() || kind != Kind::Json) return;
        std::string json;
        if (ended && blockIndex == 1) {
            json = whole; // the whole document fitted in the first block
        } else {
            const std::size_t open = jsonscan::skipSpace(head, 0);
            const bool object = open < head.size() && head[open] == '{';
            json.reserve(head.size() + kept + pieces.size() + 2);
            json += head;
            for (const Piece& p : pieces) {
                json += ',';
                json += p.text;
            }
            json += object ? "]}" : "]";
        }
        m_onSample(std::move(json), inflated, m_stop);
        signal();
        // The first screen is there: from now on the sampler takes only what the load leaves of the core.
        ::setpriority(PRIO_PROCESS, pid_t(::syscall(SYS_gettid)), 19);
    };

    std::size_t inPos = 0;
    while (!stopped()) {
        if (zs.avail_in == 0) {
            if (inPos >= m_size) break; // cut short: what inflated is sampled below
            const std::size_t feed = std::min<std::size_t>(m_size - inPos, std::size_t(1) << 30);
            zs.next_in = const_cast<Bytef*>(m_gzip + inPos);
            zs.avail_in = static_cast<uInt>(feed);
            inPos += feed;
        }
        zs.next_out = reinterpret_cast<Bytef*>(block.data() + fill);
        zs.avail_out = static_cast<uInt>(blockBytes - fill);
        const int rc = inflate(&zs, Z_NO_FLUSH);
        const std::size_t produced = blockBytes - fill - zs.avail_out;
        fill += produced;
        inflated += produced;
        if (kind == Kind::Unknown && blockIndex == 0) judge();
        if (kind == Kind::Other) break;
        if (fill == blockBytes) {
            take(std::string_view(block.data(), fill));
            fill = 0;
        }
        if (inflated >= nextSample) {
            sample();
            nextSample = inflated * 4;
        }
        if (rc == Z_STREAM_END) {
            // Another member may follow (concatenated gzip files).
            const std::size_t consumed = inPos - zs.avail_in;
            if (m_size - consumed >= 2 && m_gzip[consumed] == 0x1f && m_gzip[consumed + 1] == 0x8b &&
                inflateReset(&zs) == Z_OK)
                continue;
            ended = true;
            break;
        }
        if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_in == 0)) break; // damaged: sample what inflated
    }
    inflateEnd(&zs);
    if (stopped() || kind != Kind::Json) return; // not JSON, or not a byte of it inflated
    if (fill > 0) take(std::string_view(block.data(), fill));
    sample();
}

} // namespace kinetoscope
