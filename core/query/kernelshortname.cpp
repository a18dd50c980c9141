#include "kernelshortname.h"

#include <array>
#include <cctype>
#include <cstdlib>
#include <cxxabi.h>
#include <optional>
#include <vector>

namespace kinetoscope {

namespace {

constexpr std::size_t kLongNameCut = 72;

bool isIdentChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}
bool endsWith(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// A name that is not a signature, cut at an underscore within kLongNameCut characters: Tensile's "Cijk_..."
// names run to 300 characters of tuning flags after the few that say what the kernel is.
std::string capped(std::string_view name) {
    if (name.size() <= kLongNameCut) return std::string(name);
    // At the last underscore within the limit, so that no field is cut in half; at the limit itself when the
    // name has no underscore late enough (never inside a UTF-8 sequence).
    std::size_t cut = name.rfind('_', kLongNameCut);
    if (cut == std::string_view::npos || cut < kLongNameCut / 2) {
        cut = kLongNameCut;
        while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
            --cut;
    }
    return std::string(name.substr(0, cut)) + "\u2026";
}

// The bracket depth before each character of `s`, or nullopt when the brackets do not balance (not a name
// this parser understands). '<' and '>' nest like the others except inside parentheses, where a demangled
// name can hold an expression: std::enable_if<(((8)>(0)))&&...>.
std::optional<std::vector<int>> bracketDepths(std::string_view s) {
    std::vector<int> depths(s.size());
    std::string open;
    for (std::size_t i = 0; i < s.size(); ++i) {
        depths[i] = int(open.size());
        const char c = s[i];
        const bool inParens = !open.empty() && open.back() == '(';
        if (c == '(' || c == '{' || c == '[' || (c == '<' && !inParens)) {
            open.push_back(c);
        } else if (c == ')' || c == '}' || c == ']' || (c == '>' && !inParens)) {
            static constexpr std::string_view closers = ")}]>", openers = "({[<";
            if (open.empty() || open.back() != openers[closers.find(c)]) return std::nullopt;
            open.pop_back();
        }
    }
    if (!open.empty()) return std::nullopt;
    return depths;
}

// The first top-level position of `c` in `s`, or npos.
std::size_t findTopLevel(std::string_view s, const std::vector<int>& depths, char c, std::size_t from = 0) {
    for (std::size_t i = from; i < s.size(); ++i)
        if (depths[i] == 0 && s[i] == c) return i;
    return std::string_view::npos;
}

// The position just past the last top-level "::" in `s` (0 when none).
std::size_t afterLastTopLevelScope(std::string_view s, const std::vector<int>& depths) {
    std::size_t after = 0;
    for (std::size_t i = 0; i + 1 < s.size(); ++i)
        if (depths[i] == 0 && s[i] == ':' && s[i + 1] == ':') after = i + 2;
    return after;
}

// The start of the last top-level space-separated word of `s`: the name after a return type.
std::size_t lastTopLevelWord(std::string_view s, const std::vector<int>& depths) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (depths[i] == 0 && s[i] == ' ') start = i + 1;
    return start;
}

std::string withoutAnonymousNamespaces(std::string_view s) {
    static constexpr std::string_view anon = "(anonymous namespace)::";
    std::string out;
    out.reserve(s.size());
    std::size_t pos = 0;
    while (true) {
        const std::size_t hit = s.find(anon, pos);
        out.append(s.substr(pos, hit == std::string_view::npos ? std::string_view::npos : hit - pos));
        if (hit == std::string_view::npos) return out;
        pos = hit + anon.size();
    }
}

std::string lowerFirst(std::string_view s) {
    std::string out(s);
    if (!out.empty()) out[0] = char(std::tolower(static_cast<unsigned char>(out[0])));
    return out;
}

// What a word of a template argument says the kernel computes, or nothing when it is plumbing (types,
// wrappers, offset calculators). The patterns are PyTorch's naming conventions for its CUDA functors and
// lambdas.
std::optional<std::string> operationOf(std::string_view word) {
    static constexpr std::array<std::string_view, 6> wrappers = {"BinaryFunctor",   "AUnaryFunctor",
                                                                 "BUnaryFunctor",   "UnaryFunctor",
                                                                 "gpu_kernel_impl", "gpu_kernel_impl_nocast"};
    for (std::string_view w : wrappers)
        if (word == w) return std::nullopt;
    // CUDAFunctor_add, CUDAFunctorOnSelf_add, CUDAFunctorOnOther_add.
    if (startsWith(word, "CUDAFunctor")) {
        const std::size_t underscore = word.find('_');
        if (underscore != std::string_view::npos && underscore + 1 < word.size())
            return std::string(word.substr(underscore + 1));
    }
    if (startsWith(word, "launch_") && word.size() > 7) return std::string(word.substr(7));
    for (std::string_view suffix : {std::string_view("_kernel_cuda"), std::string_view("_kernel_impl"),
                                    std::string_view("_functor"), std::string_view("_kernel")}) {
        if (endsWith(word, suffix) && word.size() > suffix.size())
            return std::string(word.substr(0, word.size() - suffix.size()));
    }
    for (std::string_view suffix : {std::string_view("Functor"), std::string_view("Ops")})
        if (endsWith(word, suffix) && word.size() > suffix.size())
            return lowerFirst(word.substr(0, word.size() - suffix.size()));
    return std::nullopt;
}

// The first word of the template arguments that names an operation, in the order they are written: the
// functor is the outermost argument that is not plumbing, and its own arguments come after it.
std::optional<std::string> operationIn(std::string_view templateArgs) {
    std::size_t i = 0;
    while (i < templateArgs.size()) {
        if (!isIdentChar(templateArgs[i])) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < templateArgs.size() && isIdentChar(templateArgs[end]))
            ++end;
        const std::string_view word = templateArgs.substr(i, end - i);
        if (!std::isdigit(static_cast<unsigned char>(word[0])))
            if (auto op = operationOf(word)) return op;
        i = end;
    }
    return std::nullopt;
}

// A qualified name without its namespaces, its template arguments folded: "cutlass::gemm::Gemm<A, B>" ->
// "Gemm<...>". `templateArgs` receives the text inside the outer <>.
std::optional<std::string> foldedBaseName(std::string_view qualified,
                                          std::string_view* templateArgs = nullptr) {
    const std::optional<std::vector<int>> depths = bracketDepths(qualified);
    if (!depths || qualified.empty()) return std::nullopt;
    const std::string_view base = qualified.substr(afterLastTopLevelScope(qualified, *depths));
    const std::size_t lt = base.find('<');
    if (lt == std::string_view::npos || base.back() != '>') return std::string(base);
    if (templateArgs) *templateArgs = base.substr(lt + 1, base.size() - lt - 2);
    return std::string(base.substr(0, lt)) + "<...>";
}

bool isGenericLauncher(std::string_view baseName) {
    static constexpr std::array<std::string_view, 4> launchers = {"Kernel<...>", "Kernel2<...>",
                                                                  "device_kernel<...>", "kernel<...>"};
    for (std::string_view l : launchers)
        if (baseName == l) return true;
    return false;
}

// A mangled name ("_ZN5aiter24add_rmsnorm_quant_kernel..."), as some HIP kernels arrive, demangled by the C++
// runtime; nullopt when it is not one.
std::optional<std::string> demangled(std::string_view name) {
    if (!startsWith(name, "_Z")) return std::nullopt;
    int status = 0;
    char* out = abi::__cxa_demangle(std::string(name).c_str(), nullptr, nullptr, &status);
    if (status != 0 || !out) return std::nullopt;
    std::string text(out);
    std::free(out);
    return text;
}

} // namespace

std::optional<std::string> shortSignatureName(std::string_view fullName) {
    const std::optional<std::string> plain = demangled(fullName);
    const std::string name = withoutAnonymousNamespaces(plain ? std::string_view(*plain) : fullName);
    const std::string_view s = name;
    const std::optional<std::vector<int>> depths = bracketDepths(s);
    if (!depths) return std::nullopt;
    // A signature: a name (ending in an identifier or a template's '>') directly followed by its parameter
    // list.
    const std::size_t paren = findTopLevel(s, *depths, '(');
    if (paren == std::string_view::npos || paren == 0 || s.back() != ')') return std::nullopt;
    if (!isIdentChar(s[paren - 1]) && s[paren - 1] != '>') return std::nullopt;
    const std::string_view head = s.substr(0, paren);
    const std::string_view qualified = head.substr(lastTopLevelWord(head, *depths));

    std::string_view args;
    const std::optional<std::string> base = foldedBaseName(qualified, &args);
    if (!base) return std::nullopt;
    if (isGenericLauncher(*base)) {
        // cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>: the argument is the kernel.
        const std::optional<std::vector<int>> argDepths = bracketDepths(args);
        const std::string_view first =
            argDepths ? args.substr(0, findTopLevel(args, *argDepths, ',')) : std::string_view();
        if (const std::optional<std::string> launched = foldedBaseName(first)) return capped(*launched);
    }
    if (const std::optional<std::string> op = operationIn(args)) return *base + " (" + *op + ")";
    return *base;
}

std::string shortKernelName(std::string_view fullName) {
    if (std::optional<std::string> shortName = shortSignatureName(fullName)) return std::move(*shortName);
    const std::optional<std::string> plain = demangled(fullName);
    return capped(plain ? std::string_view(*plain) : fullName);
}

} // namespace kinetoscope
