#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// A kernel's name as a table row or a slice label should show it. CUDA kernels arrive as demangled C++
// signatures ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::
// launch_clamp_scalar(...)::{lambda()#1}..., at::detail::Array<char*, 2> >(int, ...)"), hundreds of
// characters of which a reader needs two words. The short name:
//   - drops the return type and the parameter list;
//   - drops the namespaces of the kernel's own name (at::native::, (anonymous namespace)::, cub::, ...);
//   - folds the template arguments to <...>;
//   - keeps what the kernel computes when a template argument says it: the functor or the lambda's enclosing
//     function, cleaned of its wrapper words ("CUDAFunctor_add" -> add, "MulFunctor" -> mul,
//     "sigmoid_kernel_cuda" -> sigmoid), after the name in parentheses;
//   - names a generic launcher by what it launches: cutlass::Kernel<cutlass_80_tensorop_...> reads as the
//     cutlass kernel's own name.
// A name that is not a C++ signature (Triton's, cuBLAS's "volta_sgemm_128x32_nn", AMD's Tensile "Cijk_...")
// is kept, cut at its last underscore within 72 characters ("…" marks the cut). The full name stays in
// tooltips, the Details panel, search and JSON output.
std::string shortKernelName(std::string_view fullName);
// Short names for the rows of one table: where kernels of different full names share a short name (DeepSeek's
// three "GemmKernel" in different namespaces, two "vectorized_elementwise_kernel<...> (mul)" of different
// functors), each of them shows what tells it apart: the namespace that differs, else the first template
// argument that differs ("vectorized_elementwise_kernel<4, BinaryFunctor<...>> (mul)"), else, for a name cut
// at 72 characters, the field after the cut that differs; "#2", "#3" in the order given when nothing
// printable does. Equal full names get equal short names. One per full name, in the same order.
std::vector<std::string> distinctShortKernelNames(const std::vector<std::string_view>& fullNames);
// Fills each row's displayName from its name, over the rows of one table.
template <class Rows> void setDisplayNames(Rows& rows) {
    std::vector<std::string_view> names;
    names.reserve(rows.size());
    for (const auto& r : rows)
        names.push_back(r.name);
    std::vector<std::string> shown = distinctShortKernelNames(names);
    for (std::size_t i = 0; i < rows.size(); ++i)
        rows[i].displayName = std::move(shown[i]);
}
// The same for a C++ signature only, nullopt for any other name: for places that show every kind of name (the
// timeline's slice labels), where only signatures need shortening and other names are elided by width.
std::optional<std::string> shortSignatureName(std::string_view fullName);

} // namespace kinetoscope
