// The roofline's Triton kernels (TorchInductor's generated code): what their launch events say they move.
#include "analysis/roofline/perfmodel.h"

#include "model/argscan.h"

namespace kinetoscope {

std::optional<OpCost> tritonKernelCost(const OperatorInputs& inputs) {
    OpCost c;
    c.family = OpFamily::Triton;
    double largest = -1;
    for (std::size_t i = 0; i < inputs.dims.size(); ++i) {
        const OperatorInput& in = inputs.dims[i];
        if (in.shape.empty()) continue; // a scalar (Inductor passes sizes and numels too)
        const std::string_view type =
            i < inputs.types.size() ? std::string_view(inputs.types[i]) : std::string_view();
        const int bpe = bytesPerElement(type);
        if (bpe <= 0) continue;
        double elements = 1;
        for (std::int64_t d : in.shape)
            elements *= double(d);
        c.bytes += elements * bpe;
        // The FLOPs' type, were they known: the largest tensor's.
        if (elements * bpe > largest) {
            largest = elements * bpe;
            c.compute = computeTypeOfDtype(type);
        }
    }
    if (c.bytes <= 0) return std::nullopt; // nothing it moves is known: not modelled
    return c;
}

void applyInductorEstimates(std::string_view argsJson, OpCost& cost) {
    if (const auto gb = argNumber(argsJson, "kernel_num_gb"); gb && *gb >= 0) cost.bytes = *gb * 1e9;
    if (const auto flop = argNumber(argsJson, "kernel_flop"); flop && *flop >= 0) cost.flops = *flop;
}

} // namespace kinetoscope
