// The CUPTI activity source (activitysource.h). CUPTI fills buffers on its own threads; the callbacks here
// only hand buffers out and take them back, and every record is parsed later in drain() on the agent's writer
// thread.

#include "activitysource.h"
#include "cupticonvert.h"

#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::capture {
namespace {

// A fixed pool keeps the callbacks allocation-free: when the writer falls behind, CUPTI drops and counts
// instead of the target's memory growing.
constexpr std::size_t bufferCount = 32;
constexpr std::size_t bufferSize = std::size_t{4} << 20;
constexpr std::size_t bufferAlignment = 8; // CUPTI requires activity buffers aligned to 8 bytes

struct CollectedKind {
    CUpti_ActivityKind kind;
    bool essential; // without kernels there is nothing worth showing, so only that failure aborts start()
    const char* name;
    const char* without; // what the capture lacks when the driver refuses the kind
};

constexpr CollectedKind collectedKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, true, "CONCURRENT_KERNEL", "kernels"},
    {CUPTI_ACTIVITY_KIND_MEMCPY, false, "MEMCPY", "copies"},
    {CUPTI_ACTIVITY_KIND_MEMSET, false, "MEMSET", "memsets"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, false, "RUNTIME", "runtime API calls (and so launch arrows)"},
    {CUPTI_ACTIVITY_KIND_DRIVER, false, "DRIVER", "driver API calls"},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, false, "SYNCHRONIZATION", "synchronizations"},
    {CUPTI_ACTIVITY_KIND_MARKER, false, "MARKER", "NVTX ranges"},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, false, "EXTERNAL_CORRELATION", "links to framework ops"},
    {CUPTI_ACTIVITY_KIND_DEVICE, false, "DEVICE", "device properties"},
};

std::string cuptiFailure(std::string_view call, CUptiResult result) {
    const char* text = nullptr;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
    std::string message(call);
    message += " failed: ";
    message += text;
    return message;
}

struct PoolDeleter {
    void operator()(std::uint8_t* memory) const {
        ::operator delete[](memory, std::align_val_t{bufferAlignment});
    }
};

class CuptiSource final : public ActivitySource {
  public:
    explicit CuptiSource(CuptiSettings settings) : m_settings(std::move(settings)) {}
    ~CuptiSource() override;

    bool start(std::string& error) override;
    void flush(bool final) override;
    void drain(RecordSink& sink) override;
    void stop() override;
    std::uint64_t takeDropped() override { return m_dropped.exchange(0, std::memory_order_relaxed); }
    std::vector<std::string> takeNotices() override { return std::exchange(m_notices, {}); }
    const char* kind() const override { return "cupti"; }

  private:
    struct FilledBuffer {
        std::uint8_t* data = nullptr;
        std::size_t validSize = 0;
    };

    static void CUPTIAPI onBufferRequested(std::uint8_t** buffer, std::size_t* size,
                                           std::size_t* maxNumRecords);
    static void CUPTIAPI onBufferCompleted(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer,
                                           std::size_t size, std::size_t validSize);

    void disableCollection();
    void recycle(std::uint8_t* buffer);

    // CUPTI's callbacks are plain C functions with no user pointer, so they reach the one collecting instance
    // through s_active. s_handoffMutex guards s_active together with the free list and the completed queue: a
    // callback that found the instance keeps it alive until it is done, and the destructor can tell which
    // buffers CUPTI still holds. The callbacks run once per 4 MiB buffer, so a single mutex costs nothing.
    static inline std::mutex s_handoffMutex;
    static inline CuptiSource* s_active = nullptr;

    std::unique_ptr<std::uint8_t[], PoolDeleter> m_pool;
    std::vector<std::uint8_t*> m_freeBuffers;     // capacity bufferCount: the callbacks never allocate
    std::vector<FilledBuffer> m_completedBuffers; // capacity bufferCount, swapped with m_drainingBuffers
    std::vector<FilledBuffer> m_drainingBuffers;

    const CuptiSettings m_settings;
    std::vector<CUpti_ActivityKind> m_enabledKinds;
    std::vector<std::string> m_notices; // from start(), on the agent's thread
    bool m_collecting = false;
    std::atomic<std::uint64_t> m_dropped{0};

    // Writer-thread state for drain(): what the records teach about later ones.
    CuptiRecordConverter m_converter{[](bool driver, std::uint32_t cbid) {
        const char* name = nullptr;
        const auto domain = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
        return cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name ? std::string(name)
                                                                                  : std::string();
    }};
};

CuptiSource::~CuptiSource() {
    if (m_collecting) stop();
    std::lock_guard lock(s_handoffMutex);
    if (s_active == this) s_active = nullptr;
    // CUPTI may still own a buffer it was handed (records arriving after the final flush); freeing the pool
    // would let it write into freed memory, so in that case the pool is deliberately left allocated.
    const std::size_t returned = m_freeBuffers.size() + m_completedBuffers.size() + m_drainingBuffers.size();
    if (m_pool && returned != bufferCount) static_cast<void>(m_pool.release());
}

bool CuptiSource::start(std::string& error) {
    if (m_collecting) return true;
    {
        std::lock_guard lock(s_handoffMutex);
        if (s_active && s_active != this) {
            error = "another CUPTI activity source is already collecting";
            return false;
        }
        if (!m_pool) {
            m_pool.reset(static_cast<std::uint8_t*>(
                ::operator new[](bufferCount* bufferSize, std::align_val_t{bufferAlignment})));
            m_freeBuffers.reserve(bufferCount);
            m_completedBuffers.reserve(bufferCount);
            m_drainingBuffers.reserve(bufferCount);
            for (std::size_t i = 0; i < bufferCount; ++i)
                m_freeBuffers.push_back(m_pool.get() + i * bufferSize);
        }
        s_active = this;
    }

    CUptiResult result =
        cuptiActivityRegisterCallbacks(&CuptiSource::onBufferRequested, &CuptiSource::onBufferCompleted);
    if (result != CUPTI_SUCCESS) {
        error = cuptiFailure("cuptiActivityRegisterCallbacks", result);
        std::lock_guard lock(s_handoffMutex);
        s_active = nullptr;
        return false;
    }

    // CUPTI names a calling thread by pthread_self() unless told otherwise: a number no tool shows (Kineto
    // maps it back to the system id). The system id (gettid) is the thread the user knows, and the main
    // thread's is the process id, as in torch.profiler's traces. A driver that refuses keeps the default and
    // says so.
    if (m_settings.systemThreadIds) {
        result = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
        if (result != CUPTI_SUCCESS)
            m_notices.push_back(cuptiFailure("cuptiSetThreadIdType(SYSTEM)", result) +
                                "; threads are named by pthread_self()");
    } else {
        m_notices.push_back("KINETOSCOPE_CUPTI_THREAD_IDS=pthread: threads are named by pthread_self()");
    }
    for (const std::string& name : m_settings.skippedKinds)
        if (std::none_of(std::begin(collectedKinds), std::end(collectedKinds),
                         [&](const CollectedKind& k) { return !k.essential && name == k.name; }))
            m_notices.push_back("KINETOSCOPE_CUPTI_SKIP: " + name +
                                " is no activity kind this capture can leave off (ignored)");

    for (const CollectedKind& collected : collectedKinds) {
        if (!collected.essential && m_settings.skips(collected.name)) {
            m_notices.push_back(std::string("KINETOSCOPE_CUPTI_SKIP: no ") + collected.without +
                                " in this capture");
            continue;
        }
        result = cuptiActivityEnable(collected.kind);
        if (result == CUPTI_SUCCESS) {
            m_enabledKinds.push_back(collected.kind);
        } else if (collected.essential) {
            error = cuptiFailure("cuptiActivityEnable(CONCURRENT_KERNEL)", result);
            disableCollection();
            return false;
        } else {
            // Other kinds may be unsupported on this driver or device; the trace is still useful without
            // them, and says what it lacks.
            m_notices.push_back(
                cuptiFailure(std::string("cuptiActivityEnable(") + collected.name + ")", result) + "; no " +
                collected.without + " in this capture");
        }
    }
    m_collecting = true;
    return true;
}

void CuptiSource::flush(bool final) {
    if (!m_collecting) return;
    cuptiActivityFlushAll(final ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void CuptiSource::stop() {
    if (!m_collecting) return;
    m_collecting = false;
    disableCollection();
}

void CuptiSource::disableCollection() {
    for (CUpti_ActivityKind kind : m_enabledKinds)
        cuptiActivityDisable(kind);
    m_enabledKinds.clear();
    // Forcing a flush takes back the buffers CUPTI still holds, so a later start() or the destructor sees the
    // whole pool. Whatever they carry arrived after the agent's final drain and is discarded.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard lock(s_handoffMutex);
    if (s_active == this) s_active = nullptr;
    for (const FilledBuffer& filled : m_completedBuffers)
        m_freeBuffers.push_back(filled.data);
    m_completedBuffers.clear();
}

void CUPTIAPI CuptiSource::onBufferRequested(std::uint8_t** buffer, std::size_t* size,
                                             std::size_t* maxNumRecords) {
    *maxNumRecords = 0; // fill each buffer as far as it goes
    *buffer = nullptr;
    *size = 0;
    std::lock_guard lock(s_handoffMutex);
    if (!s_active || s_active->m_freeBuffers.empty()) return; // CUPTI drops and counts; drain() reports it
    *buffer = s_active->m_freeBuffers.back();
    s_active->m_freeBuffers.pop_back();
    *size = bufferSize;
}

void CUPTIAPI CuptiSource::onBufferCompleted(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                                             std::size_t validSize) {
    if (!buffer) return;
    std::lock_guard lock(s_handoffMutex);
    // With no active instance the buffer belongs to a pool that was left allocated on purpose; nothing to do.
    if (s_active) s_active->m_completedBuffers.push_back({buffer, validSize});
}

void CuptiSource::recycle(std::uint8_t* buffer) {
    std::lock_guard lock(s_handoffMutex);
    m_freeBuffers.push_back(buffer);
}

void CuptiSource::drain(RecordSink& sink) {
    if (!m_pool) return;
    {
        std::lock_guard lock(s_handoffMutex);
        m_drainingBuffers.swap(m_completedBuffers);
    }
    for (const FilledBuffer& filled : m_drainingBuffers) {
        CUpti_Activity* record = nullptr;
        // Any result other than success ends the buffer: MAX_LIMIT_REACHED is its normal end, INVALID_KIND an
        // incomplete record after which nothing can be located.
        while (cuptiActivityGetNextRecord(filled.data, filled.validSize, &record) == CUPTI_SUCCESS)
            m_converter.convert(*record, sink);
        // Handing each buffer back as soon as it is parsed gives CUPTI room while the rest are still
        // converting.
        recycle(filled.data);
    }
    m_drainingBuffers.clear();

    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0)
        m_dropped.fetch_add(dropped, std::memory_order_relaxed);
    m_dropped.fetch_add(m_converter.takeDropped(), std::memory_order_relaxed);
}

} // namespace

std::unique_ptr<ActivitySource> makeCuptiSource(const CuptiSettings& settings) {
    return std::make_unique<CuptiSource>(settings);
}

} // namespace kinetoscope::capture
