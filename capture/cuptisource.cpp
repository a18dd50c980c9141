// The CUPTI activity source (activitysource.h). CUPTI fills buffers on its own threads; the callbacks here only
// hand buffers out and take them back, and every record is parsed later in drain() on the agent's writer thread.

#include "activitysource.h"
#include "kernelname.h"

#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kinetoscope::capture {
namespace {

// A fixed pool keeps the callbacks allocation-free: when the writer falls behind, CUPTI drops and counts instead of
// the target's memory growing.
constexpr std::size_t bufferCount = 32;
constexpr std::size_t bufferSize = std::size_t{4} << 20;
constexpr std::size_t bufferAlignment = 8; // CUPTI requires activity buffers aligned to 8 bytes

// Ranges started but never ended (nvtxRangeStart without nvtxRangeEnd) would otherwise accumulate forever.
constexpr std::size_t maxOpenMarkers = 4096;

struct CollectedKind {
    CUpti_ActivityKind kind;
    bool essential; // without kernels there is nothing worth showing, so only that failure aborts start()
};

constexpr CollectedKind collectedKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, true},
    {CUPTI_ACTIVITY_KIND_MEMCPY, false},
    {CUPTI_ACTIVITY_KIND_MEMSET, false},
    {CUPTI_ACTIVITY_KIND_RUNTIME, false},
    {CUPTI_ACTIVITY_KIND_DRIVER, false},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, false},
    {CUPTI_ACTIVITY_KIND_MARKER, false},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, false},
    {CUPTI_ACTIVITY_KIND_DEVICE, false},
};

std::string cuptiFailure(std::string_view call, CUptiResult result)
{
    const char* text = nullptr;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
    std::string message(call);
    message += " failed: ";
    message += text;
    return message;
}

// cuptiGetCallbackName reports the versioned entry point ("cudaLaunchKernel_v7000", "cuMemcpyHtoD_v2"); traces and
// users call the function by its plain name, so the suffix is cut.
std::string withoutVersionSuffix(std::string name)
{
    const std::size_t marker = name.rfind("_v");
    if (marker == std::string::npos || marker == 0 || marker + 2 == name.size()) return name;
    for (std::size_t i = marker + 2; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9') return name;
    name.resize(marker);
    return name;
}

const char* orEmpty(const char* text) { return text ? text : ""; }

std::int64_t nanoseconds(std::uint64_t cuptiTimestamp) { return static_cast<std::int64_t>(cuptiTimestamp); }

struct PoolDeleter {
    void operator()(std::uint8_t* memory) const { ::operator delete[](memory, std::align_val_t{bufferAlignment}); }
};

class CuptiSource final : public ActivitySource {
public:
    ~CuptiSource() override;

    bool start(std::string& error) override;
    void flush(bool final) override;
    void drain(RecordSink& sink) override;
    void stop() override;
    std::uint64_t takeDropped() override { return m_dropped.exchange(0, std::memory_order_relaxed); }
    const char* kind() const override { return "cupti"; }

private:
    struct FilledBuffer {
        std::uint8_t* data = nullptr;
        std::size_t validSize = 0;
    };
    struct OpenMarker {
        std::string name; // copied: CUPTI promises the name pointer only for the start record's lifetime
        std::uint32_t pid = 0;
        std::uint64_t tid = 0;
        std::int64_t start = 0;
    };

    static void CUPTIAPI onBufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords);
    static void CUPTIAPI onBufferCompleted(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer,
                                           std::size_t size, std::size_t validSize);

    void disableCollection();
    void recycle(std::uint8_t* buffer);
    void convert(const CUpti_Activity& record, RecordSink& sink);
    void convertMarker(const CUpti_ActivityMarker2& marker, RecordSink& sink);
    std::string_view apiName(CUpti_CallbackDomain domain, std::uint32_t cbid);
    std::string_view kernelName(const char* name);
    std::uint32_t deviceOfContext(std::uint32_t contextId) const;

    // CUPTI's callbacks are plain C functions with no user pointer, so they reach the one collecting instance
    // through s_active. s_handoffMutex guards s_active together with the free list and the completed queue: a
    // callback that found the instance keeps it alive until it is done, and the destructor can tell which buffers
    // CUPTI still holds. The callbacks run once per 4 MiB buffer, so a single mutex costs nothing.
    static inline std::mutex s_handoffMutex;
    static inline CuptiSource* s_active = nullptr;

    std::unique_ptr<std::uint8_t[], PoolDeleter> m_pool;
    std::vector<std::uint8_t*> m_freeBuffers;      // capacity bufferCount: the callbacks never allocate
    std::vector<FilledBuffer> m_completedBuffers;  // capacity bufferCount, swapped with m_drainingBuffers
    std::vector<FilledBuffer> m_drainingBuffers;

    std::vector<CUpti_ActivityKind> m_enabledKinds;
    bool m_collecting = false;
    std::atomic<std::uint64_t> m_dropped{0};

    // Writer-thread state for drain().
    std::unordered_map<std::uint64_t, std::string> m_apiNames; // key: domain << 32 | cbid
    // CUPTI shares one name pointer among a kernel's records; the mangled text is kept to notice a pointer reused
    // for another kernel (a module unloaded and another loaded).
    struct KernelName {
        std::string mangled;
        std::string shown;
    };
    std::unordered_map<const char*, KernelName> m_kernelNames;
    std::unordered_map<std::uint32_t, OpenMarker> m_openMarkers; // key: CUPTI marker id
    std::unordered_map<std::uint32_t, std::uint32_t> m_contextDevices; // synchronization records carry no device
};

CuptiSource::~CuptiSource()
{
    if (m_collecting) stop();
    std::lock_guard lock(s_handoffMutex);
    if (s_active == this) s_active = nullptr;
    // CUPTI may still own a buffer it was handed (records arriving after the final flush); freeing the pool would let
    // it write into freed memory, so in that case the pool is deliberately left allocated.
    const std::size_t returned = m_freeBuffers.size() + m_completedBuffers.size() + m_drainingBuffers.size();
    if (m_pool && returned != bufferCount) static_cast<void>(m_pool.release());
}

bool CuptiSource::start(std::string& error)
{
    if (m_collecting) return true;
    {
        std::lock_guard lock(s_handoffMutex);
        if (s_active && s_active != this) {
            error = "another CUPTI activity source is already collecting";
            return false;
        }
        if (!m_pool) {
            m_pool.reset(static_cast<std::uint8_t*>(
                ::operator new[](bufferCount * bufferSize, std::align_val_t{bufferAlignment})));
            m_freeBuffers.reserve(bufferCount);
            m_completedBuffers.reserve(bufferCount);
            m_drainingBuffers.reserve(bufferCount);
            for (std::size_t i = 0; i < bufferCount; ++i) m_freeBuffers.push_back(m_pool.get() + i * bufferSize);
        }
        s_active = this;
    }

    CUptiResult result = cuptiActivityRegisterCallbacks(&CuptiSource::onBufferRequested,
                                                        &CuptiSource::onBufferCompleted);
    if (result != CUPTI_SUCCESS) {
        error = cuptiFailure("cuptiActivityRegisterCallbacks", result);
        std::lock_guard lock(s_handoffMutex);
        s_active = nullptr;
        return false;
    }

    for (const CollectedKind& collected : collectedKinds) {
        result = cuptiActivityEnable(collected.kind);
        if (result == CUPTI_SUCCESS) {
            m_enabledKinds.push_back(collected.kind);
        } else if (collected.essential) {
            error = cuptiFailure("cuptiActivityEnable(CONCURRENT_KERNEL)", result);
            disableCollection();
            return false;
        }
        // Other kinds may be unsupported on this driver or device; the trace is still useful without them.
    }
    m_collecting = true;
    return true;
}

void CuptiSource::flush(bool final)
{
    if (!m_collecting) return;
    cuptiActivityFlushAll(final ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void CuptiSource::stop()
{
    if (!m_collecting) return;
    m_collecting = false;
    disableCollection();
}

void CuptiSource::disableCollection()
{
    for (CUpti_ActivityKind kind : m_enabledKinds) cuptiActivityDisable(kind);
    m_enabledKinds.clear();
    // Forcing a flush takes back the buffers CUPTI still holds, so a later start() or the destructor sees the
    // whole pool. Whatever they carry arrived after the agent's final drain and is discarded.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard lock(s_handoffMutex);
    if (s_active == this) s_active = nullptr;
    for (const FilledBuffer& filled : m_completedBuffers) m_freeBuffers.push_back(filled.data);
    m_completedBuffers.clear();
}

void CUPTIAPI CuptiSource::onBufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords)
{
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
                                             std::size_t validSize)
{
    if (!buffer) return;
    std::lock_guard lock(s_handoffMutex);
    // With no active instance the buffer belongs to a pool that was left allocated on purpose; nothing to do.
    if (s_active) s_active->m_completedBuffers.push_back({buffer, validSize});
}

void CuptiSource::recycle(std::uint8_t* buffer)
{
    std::lock_guard lock(s_handoffMutex);
    m_freeBuffers.push_back(buffer);
}

void CuptiSource::drain(RecordSink& sink)
{
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
            convert(*record, sink);
        // Handing each buffer back as soon as it is parsed gives CUPTI room while the rest are still converting.
        recycle(filled.data);
    }
    m_drainingBuffers.clear();

    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0)
        m_dropped.fetch_add(dropped, std::memory_order_relaxed);
}

std::string_view CuptiSource::apiName(CUpti_CallbackDomain domain, std::uint32_t cbid)
{
    const std::uint64_t key = (std::uint64_t{static_cast<std::uint32_t>(domain)} << 32) | cbid;
    auto found = m_apiNames.find(key);
    if (found == m_apiNames.end()) {
        const char* name = nullptr;
        std::string text;
        if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name && *name)
            text = withoutVersionSuffix(name);
        else
            text = (domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver api " : "runtime api ") + std::to_string(cbid);
        found = m_apiNames.emplace(key, std::move(text)).first;
    }
    return found->second;
}

std::string_view CuptiSource::kernelName(const char* name)
{
    if (!name) return {};
    KernelName& cached = m_kernelNames[name];
    if (cached.mangled != name) cached = KernelName{name, demangledKernelName(name)};
    return cached.shown;
}

std::uint32_t CuptiSource::deviceOfContext(std::uint32_t contextId) const
{
    // A synchronization seen before any kernel or copy of its context has no device yet; 0 is the common case.
    const auto found = m_contextDevices.find(contextId);
    return found == m_contextDevices.end() ? 0 : found->second;
}

void CuptiSource::convert(const CUpti_Activity& record, RecordSink& sink)
{
    switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto& kernel = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
        m_contextDevices[kernel.contextId] = kernel.deviceId;
        wire::Kernel out;
        out.device = kernel.deviceId;
        out.stream = kernel.streamId;
        out.correlation = kernel.correlationId;
        out.start = nanoseconds(kernel.start);
        out.end = nanoseconds(kernel.end);
        out.name = sink.string(kernelName(kernel.name));
        out.grid[0] = static_cast<std::uint32_t>(kernel.gridX);
        out.grid[1] = static_cast<std::uint32_t>(kernel.gridY);
        out.grid[2] = static_cast<std::uint32_t>(kernel.gridZ);
        out.block[0] = static_cast<std::uint32_t>(kernel.blockX);
        out.block[1] = static_cast<std::uint32_t>(kernel.blockY);
        out.block[2] = static_cast<std::uint32_t>(kernel.blockZ);
        out.registers = kernel.registersPerThread;
        out.staticShared = static_cast<std::uint32_t>(kernel.staticSharedMemory);
        out.dynamicShared = static_cast<std::uint32_t>(kernel.dynamicSharedMemory);
        sink.add(out);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto& copy = reinterpret_cast<const CUpti_ActivityMemcpy6&>(record);
        m_contextDevices[copy.contextId] = copy.deviceId;
        wire::Memcpy out;
        out.device = copy.deviceId;
        out.stream = copy.streamId;
        out.correlation = copy.correlationId;
        out.start = nanoseconds(copy.start);
        out.end = nanoseconds(copy.end);
        out.kind = copy.copyKind;
        out.bytes = copy.bytes;
        sink.add(out);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto& set = reinterpret_cast<const CUpti_ActivityMemset4&>(record);
        m_contextDevices[set.contextId] = set.deviceId;
        wire::Memset out;
        out.device = set.deviceId;
        out.stream = set.streamId;
        out.correlation = set.correlationId;
        out.start = nanoseconds(set.start);
        out.end = nanoseconds(set.end);
        out.bytes = set.bytes;
        sink.add(out);
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto& api = reinterpret_cast<const CUpti_ActivityAPI&>(record);
        const bool driver = record.kind == CUPTI_ACTIVITY_KIND_DRIVER;
        wire::Api out;
        out.driver = driver ? 1 : 0;
        out.cbid = api.cbid;
        out.name = sink.string(apiName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, api.cbid));
        out.correlation = api.correlationId;
        out.pid = api.processId;
        out.tid = api.threadId;
        out.start = nanoseconds(api.start);
        out.end = nanoseconds(api.end);
        sink.add(out);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto& sync = reinterpret_cast<const CUpti_ActivitySynchronization2&>(record);
        wire::Sync out;
        out.device = deviceOfContext(sync.contextId);
        // CUPTI_SYNCHRONIZATION_INVALID_VALUE (0xffffffff) for context and event synchronizations: no stream.
        out.stream = sync.streamId;
        out.kind = static_cast<std::uint8_t>(sync.type);
        out.correlation = sync.correlationId;
        out.start = nanoseconds(sync.start);
        out.end = nanoseconds(sync.end);
        sink.add(out);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER:
        convertMarker(reinterpret_cast<const CUpti_ActivityMarker2&>(record), sink);
        break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto& external = reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record);
        wire::ExternalCorrelation out;
        out.correlation = external.correlationId;
        out.externalId = external.externalId;
        sink.add(out);
        break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
        const auto& device = reinterpret_cast<const CUpti_ActivityDevice5&>(record);
        wire::Device out;
        out.id = device.id;
        out.name = sink.string(orEmpty(device.name));
        out.totalGlobalMem = device.globalMemorySize;
        out.computeMajor = device.computeCapabilityMajor;
        out.computeMinor = device.computeCapabilityMinor;
        out.numSms = device.numMultiprocessors;
        out.warpSize = device.numThreadsPerWarp ? device.numThreadsPerWarp : 32;
        // The record has no thread limit per multiprocessor; it is the warp limit in threads.
        out.maxThreadsPerSm = device.maxWarpsPerMultiprocessor * out.warpSize;
        sink.add(out);
        break;
    }
    default:
        break;
    }
}

void CuptiSource::convertMarker(const CUpti_ActivityMarker2& marker, RecordSink& sink)
{
    const auto flags = static_cast<std::uint32_t>(marker.flags);
    std::uint32_t pid = 0;
    std::uint64_t tid = 0;
    if (marker.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS || marker.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
        pid = marker.objectId.pt.processId;
        if (marker.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) tid = marker.objectId.pt.threadId;
    }
    const std::int64_t timestamp = nanoseconds(marker.timestamp);

    if (flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
        wire::Marker out;
        out.name = sink.string(orEmpty(marker.name));
        out.pid = pid;
        out.tid = tid;
        out.start = timestamp;
        out.end = timestamp;
        sink.add(out);
    } else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        auto found = m_openMarkers.find(marker.id);
        if (found == m_openMarkers.end() && m_openMarkers.size() >= maxOpenMarkers) {
            m_dropped.fetch_add(1, std::memory_order_relaxed);
            return;
        }
        m_openMarkers[marker.id] = OpenMarker{orEmpty(marker.name), pid, tid, timestamp};
    } else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        // An end without its start began before collection did; there is no name to show for it.
        const auto found = m_openMarkers.find(marker.id);
        if (found == m_openMarkers.end()) return;
        const OpenMarker& open = found->second;
        wire::Marker out;
        out.name = sink.string(open.name);
        out.pid = open.pid;
        out.tid = open.tid;
        out.start = open.start;
        out.end = timestamp;
        sink.add(out);
        m_openMarkers.erase(found);
    }
}

} // namespace

std::unique_ptr<ActivitySource> makeCuptiSource() { return std::make_unique<CuptiSource>(); }

} // namespace kinetoscope::capture
