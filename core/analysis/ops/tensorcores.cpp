#include "analysis/ops/tensorcores.h"

#include "analysis/ops/hosttree.h"
#include "analysis/ops/kernelclass.h"
#include "query/args.h"

#include <string>
#include <string_view>

namespace kinetoscope {

namespace {

// Whether a type of "Input type" (c10::BFloat16, c10::Half, c10::Float8_e4m3fn, ...) is one tl.dot runs on
// tensor cores.
bool reducedPrecision(std::string_view type) {
    return type == "c10::BFloat16" || type == "c10::Half" || type.starts_with("c10::Float8_");
}

} // namespace

bool kernelUsesTensorCores(const TraceStore& store, EventRef kernel) {
    const std::string_view name = store.nameOf(kernel);
    if (usesTensorCores(name)) return true;
    if (!name.starts_with("triton_tem_")) return false;
    const KernelCategory category = kernelCategory(name);
    if (category != KernelCategory::Gemm && category != KernelCategory::Conv) return false;
    const auto launch = store.launchOf(kernel);
    if (!launch) return false;
    const auto op = launchingOperator(store, *launch);
    if (!op || store.nameOf(*op) != name) return false; // Inductor names its range after the kernel
    // record_shapes' inputs, read as the roofline reads them (a template is decided once per name).
    OperatorInputs inputs;
    if (!OperatorInputsDecoder().decode(store.argsText(*op), inputs) || inputs.types.size() < 2) return false;
    return reducedPrecision(inputs.types[0]) && reducedPrecision(inputs.types[1]);
}

} // namespace kinetoscope
