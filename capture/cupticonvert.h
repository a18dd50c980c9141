#pragma once

// CUPTI activity records -> wire records: a pure function of the records (and of what earlier records taught
// it: open NVTX ranges, each context's device, kernel names already demangled), over CUPTI's plain structs.
// It needs CUPTI's headers and nothing of its library except, through ApiNames, the names of runtime and
// driver calls, so the tests build records in memory, in the struct versions of the installed headers, and
// check every kind the agent collects without a GPU (tests/tst_cupticonvert.cpp).

#include "activitysource.h"

#include <cupti_activity.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace kinetoscope::capture {

class CuptiRecordConverter {
  public:
    // The name of a runtime (`driver` false) or driver call by its callback id, versioned as CUPTI reports it
    // ("cudaLaunchKernel_v7000"): the agent asks cuptiGetCallbackName, the tests a table.
    using ApiNames = std::function<std::string(bool driver, std::uint32_t cbid)>;
    // NVTX ranges started but never ended (nvtxRangeStart without nvtxRangeEnd) would otherwise accumulate
    // forever.
    static constexpr std::size_t maxOpenMarkers = 4096;

    explicit CuptiRecordConverter(ApiNames apiNames);
    // Emits the wire records for one CUPTI record (none for a kind it does not handle, or the start of a
    // range).
    void convert(const CUpti_Activity& record, RecordSink& sink);
    // Range starts refused because maxOpenMarkers were open, since the last call.
    std::uint64_t takeDropped();

    // The plain name of a versioned entry point ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel").
    static std::string withoutVersionSuffix(std::string name);

  private:
    struct OpenMarker {
        std::string name; // copied: CUPTI promises the name pointer only for the start record's lifetime
        std::uint32_t pid = 0;
        std::uint64_t tid = 0;
        std::int64_t start = 0;
    };
    // CUPTI shares one name pointer among a kernel's records; the mangled text is kept to notice a pointer
    // reused for another kernel (a module unloaded and another loaded).
    struct KernelName {
        std::string mangled;
        std::string shown;
    };

    void convertMarker(const CUpti_ActivityMarker2& marker, RecordSink& sink);
    std::string_view apiName(bool driver, std::uint32_t cbid);
    std::string_view kernelName(const char* name);
    std::uint32_t deviceOfContext(std::uint32_t contextId) const;

    ApiNames m_apiNames;
    std::unordered_map<std::uint64_t, std::string> m_apiNameCache; // key: driver << 32 | cbid
    std::unordered_map<const char*, KernelName> m_kernelNames;
    std::unordered_map<std::uint32_t, OpenMarker> m_openMarkers; // key: CUPTI marker id
    std::unordered_map<std::uint32_t, std::uint32_t>
        m_contextDevices; // synchronization records carry no device
    std::uint64_t m_dropped = 0;
};

} // namespace kinetoscope::capture
