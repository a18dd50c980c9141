#pragma once

#include "open/opentrace.h"
#include "snapshot/memorysnapshot.h"

#include <QString>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {
struct Overview;
struct Recommendation;
} // namespace kinetoscope

namespace kinetoscope::test {

// Path of a file of the real-trace corpus (../shared/traces).
std::string tracePath(const char* relative);
// The corpus traces the GPU analyses are checked on against HTA (relative to ../shared/traces).
namespace traces {
inline constexpr const char* qwenH100 =
    "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
inline constexpr const char* b200Eager = "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz";
inline constexpr const char* htaAlexnet =
    "facebookresearch__HolisticTraceAnalysis/"
    "tests__data__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz";
inline constexpr const char* htaMi250 = "facebookresearch__HolisticTraceAnalysis/"
                                        "tests__data__amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz";
inline constexpr const char* htaNsResolution =
    "facebookresearch__HolisticTraceAnalysis/"
    "tests__data__ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
inline constexpr const char* resnet18Mi300 =
    "AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz";
inline constexpr const char* bertMi300 =
    "AMD-AGI__TraceLens/tests__traces__mi300__gaunernst_bert-small-uncased__1016001.json.gz";
inline constexpr const char* normalizationMi300 =
    "AMD-AGI__TraceLens/tests__traces__perf_model__normalization__normalization_layer_test.json.gz";
inline constexpr const char* torchCompileMi300 =
    "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz";
inline constexpr const char* resnet2020 =
    "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz";
} // namespace traces
// The real CUDA memory snapshots of the corpus (under snapshots/): EoR_NN (no allocator_settings), GPT-2
// medium training and inference, cs336 forward (external_annotations) and its mixed-precision run.
inline constexpr const char* snapshots[] = {
    "JasperSolt__EoR_NN__snapshot.pickle",
    "Wedsonlin__assignment2-systems__results__medium_1024_training_memory_snapshot.pickle",
    "Wedsonlin__assignment2-systems__results__medium_128_inference_memory_snapshot.pickle",
    "kkaitlyn111__cs336-a2-systems__cs336_systems__memory_logs__memory_ctx128_forward.pickle",
    "kkaitlyn111__cs336-a2-systems__memory_files__memory_ctx128_forward_mixed.pickle",
};
std::string gzipText(const std::string& text, int members = 1);
// The rows of a query on a SQLite file (opened read-only and immutable), each cell as text (NULL empty): a
// profiler's database read the plain way, to check our readers against.
std::vector<std::vector<std::string>> sqliteRows(const std::string& path, const std::string& sql);
// The text of a (possibly gzip-compressed) file; empty when it cannot be read.
std::string readText(const std::string& path);
// Rebuilds TORCH_COMPILE_DEBUG's folder of the GPU run's three-layer compile under `root`
// (root/torch_compile_debug/run_1/torchinductor/<graph>/<file>) from tests/data/gpu/compiled_3layers, where
// each file is kept gzipped as `model__<graph>__<file>.gz`. Returns the trace of the same run.
std::string writeCompiled3LayersDebugFolder(const std::string& root);
// Compares `actual` with golden file `name`; on mismatch writes NAME.actual beside it and returns a
// `diff -u` for the failure message. Set KINETOSCOPE_UPDATE_GOLDEN=1 to rewrite the golden file. The corpus
// folder (KINETOSCOPE_TRACES_DIR) in `actual` is compared as "${TRACES}".
QString compareGolden(const QString& name, const std::string& actual);
// Loads a JSON text with the given chunk size and thread count (to exercise the splitter on small input).
LoadResult loadText(const std::string& json, std::size_t chunkBytes = 8u << 20, unsigned threads = 0);
// What `summary --by kernel` loads with: the GPU's work alone, unless the text holds what the kernel table
// reads from other events.
LoadOptions gpuWorkOnlyOptions(unsigned threads, std::size_t chunkBytes);
// The overview's recommendation of that id (analysis/overview/overview.h), or null.
const Recommendation* recommendation(const Overview& overview, std::string_view id);
// A recommendation's figure of that name, or -1 when it has none.
double figure(const Recommendation& recommendation, std::string_view name);

// ALTERS a real trace on purpose, for tests of a snapshot linked to a trace (no real snapshot has a trace of
// the same run): writes the trace to `outPath` with its baseTimeNanoseconds rewritten so that the snapshot's
// busiest stretch of allocations (first device) starts at the trace's first cpu_op. Returns the new base.
std::optional<std::int64_t> writeTraceShiftedOntoSnapshot(const std::string& tracePath,
                                                          const MemorySnapshot& snapshot,
                                                          const QString& outPath);

} // namespace kinetoscope::test
