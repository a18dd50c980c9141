#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace kinetoscope {

// The first screen of a gzip trace while it inflates (LoadOptions::preview). The fast inflater (libdeflate)
// takes a whole member at once and says nothing until it is done; meanwhile a streaming one (zlib, about
// three times slower, so it never finishes first) inflates the same stream on another core and keeps pieces
// spread over what it has inflated so far: the first MiB (the document's head and metadata) and one MiB in
// every `stride` (4 at first), at most 32 MiB in all (past that, every other piece goes and the stride
// doubles). Each time the inflated text has grown fourfold (from 4 MiB: a first screen in a few hundredths of
// a second, and few swaps of the screen), and when the stream ends, it hands the pieces as one JSON text (the
// head, the pieces cut at event boundaries, the array and document closed) to `onSample`, on its own thread,
// with a flag that says when to give up. A stream that is not JSON (a gzip capture spool: its first byte says
// so) it leaves at once, handing on nothing. stop() (and the destructor) ends it and waits; so does `cancel`,
// the load's.
class GzipSampler {
  public:
    using SampleFn =
        std::function<void(std::string json, std::uint64_t inflatedBytes, const std::atomic<bool>& stop)>;
    GzipSampler(const unsigned char* gzip, std::size_t size, SampleFn onSample,
                const std::atomic<bool>* cancel = nullptr);
    ~GzipSampler();
    GzipSampler(const GzipSampler&) = delete;
    GzipSampler& operator=(const GzipSampler&) = delete;

    void stop();
    // Waits for the end of the stream (tests: KINETOSCOPE_GZIP_SAMPLE_TO_END makes the loader wait for every
    // sample instead of stopping the sampler when the fast inflater is done).
    void finish();
    // Waits until the first sample has been handed on (or the sampler ended), at most `limit`: what else
    // would take the other core (faulting the output in ahead of the inflater) waits for the first screen.
    void waitForFirstSample(std::chrono::milliseconds limit);

  private:
    void run();

    const unsigned char* m_gzip;
    std::size_t m_size;
    SampleFn m_onSample;
    const std::atomic<bool>* m_cancel;
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::condition_variable m_firstSampled;
    bool m_sampled = false;
    std::thread m_thread;
};

} // namespace kinetoscope
