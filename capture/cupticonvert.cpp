#include "cupticonvert.h"

#include "kernelname.h"

namespace kinetoscope::capture {

namespace {
const char* orEmpty(const char* text) {
    return text ? text : "";
}

std::int64_t nanoseconds(std::uint64_t cuptiTimestamp) {
    return static_cast<std::int64_t>(cuptiTimestamp);
}
} // namespace

CuptiRecordConverter::CuptiRecordConverter(ApiNames apiNames) : m_apiNames(std::move(apiNames)) {}

std::uint64_t CuptiRecordConverter::takeDropped() {
    const std::uint64_t dropped = m_dropped;
    m_dropped = 0;
    return dropped;
}

// cuptiGetCallbackName reports the versioned entry point ("cudaLaunchKernel_v7000", "cuMemcpyHtoD_v2");
// traces and users call the function by its plain name, so the suffix is cut.
std::string CuptiRecordConverter::withoutVersionSuffix(std::string name) {
    const std::size_t marker = name.rfind("_v");
    if (marker == std::string::npos || marker == 0 || marker + 2 == name.size()) return name;
    for (std::size_t i = marker + 2; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9') return name;
    name.resize(marker);
    return name;
}

std::string_view CuptiRecordConverter::apiName(bool driver, std::uint32_t cbid) {
    const std::uint64_t key = (std::uint64_t{driver ? 1u : 0u} << 32) | cbid;
    auto found = m_apiNameCache.find(key);
    if (found == m_apiNameCache.end()) {
        std::string text = m_apiNames ? withoutVersionSuffix(m_apiNames(driver, cbid)) : std::string();
        if (text.empty()) text = (driver ? "driver api " : "runtime api ") + std::to_string(cbid);
        found = m_apiNameCache.emplace(key, std::move(text)).first;
    }
    return found->second;
}

std::string_view CuptiRecordConverter::kernelName(const char* name) {
    if (!name) return {};
    KernelName& cached = m_kernelNames[name];
    if (cached.mangled != name) cached = KernelName{name, demangledKernelName(name)};
    return cached.shown;
}

std::uint32_t CuptiRecordConverter::deviceOfContext(std::uint32_t contextId) const {
    // A synchronization seen before any kernel or copy of its context has no device yet; 0 is the common
    // case.
    const auto found = m_contextDevices.find(contextId);
    return found == m_contextDevices.end() ? 0 : found->second;
}

void CuptiRecordConverter::convert(const CUpti_Activity& record, RecordSink& sink) {
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
        out.name = sink.string(apiName(driver, api.cbid));
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

void CuptiRecordConverter::convertMarker(const CUpti_ActivityMarker2& marker, RecordSink& sink) {
    const auto flags = static_cast<std::uint32_t>(marker.flags);
    std::uint32_t pid = 0;
    std::uint64_t tid = 0;
    if (marker.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS ||
        marker.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
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
            ++m_dropped;
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

} // namespace kinetoscope::capture
