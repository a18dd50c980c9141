#include "kernelshortname.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cxxabi.h>
#include <limits>
#include <map>
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

// A C++ signature's own name: the text (demangled, anonymous namespaces dropped) and where in it the name
// with its namespaces and template arguments lies.
struct Signature {
    std::string text;
    std::size_t qualifiedBegin = 0, qualifiedEnd = 0;
    std::string_view qualified() const {
        return std::string_view(text).substr(qualifiedBegin, qualifiedEnd - qualifiedBegin);
    }
};

std::optional<Signature> parseSignature(std::string_view fullName) {
    const std::optional<std::string> plain = demangled(fullName);
    Signature sig{withoutAnonymousNamespaces(plain ? std::string_view(*plain) : fullName)};
    const std::string_view s = sig.text;
    const std::optional<std::vector<int>> depths = bracketDepths(s);
    if (!depths) return std::nullopt;
    // A signature: a name (ending in an identifier or a template's '>') directly followed by its parameter
    // list.
    const std::size_t paren = findTopLevel(s, *depths, '(');
    if (paren == std::string_view::npos || paren == 0 || s.back() != ')') return std::nullopt;
    if (!isIdentChar(s[paren - 1]) && s[paren - 1] != '>') return std::nullopt;
    sig.qualifiedBegin = lastTopLevelWord(s.substr(0, paren), *depths);
    sig.qualifiedEnd = paren;
    return sig;
}

// Template arguments as a reader compares them: namespaces dropped ("at::native::MulFunctor<float>" ->
// "MulFunctor<float>"), "> >" closed up.
std::string withoutScopes(std::string_view s) {
    std::string out;
    std::size_t i = 0;
    while (i < s.size()) {
        if (!isIdentChar(s[i])) {
            if (!(s[i] == ' ' && i + 1 < s.size() && s[i + 1] == '>')) out.push_back(s[i]);
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < s.size() && isIdentChar(s[end]))
            ++end;
        if (s.substr(end, 2) != "::") out.append(s.substr(i, end - i));
        i = end + (s.substr(end, 2) == "::" ? 2 : 0);
    }
    return out;
}

std::vector<std::string> topLevelArguments(std::string_view args) {
    const std::optional<std::vector<int>> depths = bracketDepths(args);
    if (!depths) return {std::string(args)};
    std::vector<std::string> out;
    std::size_t from = 0;
    while (true) {
        const std::size_t comma = findTopLevel(args, *depths, ',', from);
        std::string_view piece = args.substr(from, comma == std::string_view::npos ? comma : comma - from);
        while (!piece.empty() && piece.front() == ' ')
            piece.remove_prefix(1);
        while (!piece.empty() && piece.back() == ' ')
            piece.remove_suffix(1);
        out.emplace_back(piece);
        if (comma == std::string_view::npos) return out;
        from = comma + 1;
    }
}

// An argument's template name and the text inside its first <> ("MulFunctor<float>" -> "MulFunctor",
// "float"; "gpu_kernel_impl<F>(TensorIteratorBase&)::{lambda(int)#1}" -> "gpu_kernel_impl", "F"); no inner
// text when it is not a template. A lambda is named by the function around it and its own last part, which
// is where two instantiations differ: "direct_copy_kernel_cuda(...)::{lambda(Half)#1}".
std::pair<std::string, std::optional<std::string>> splitTemplate(const std::string& arg) {
    const std::optional<std::vector<int>> depths = bracketDepths(arg);
    if (!depths) return {arg, std::nullopt};
    const std::size_t lt = findTopLevel(arg, *depths, '<');
    const std::size_t paren = findTopLevel(arg, *depths, '(');
    if (paren != std::string::npos && paren < lt) {
        std::size_t last = afterLastTopLevelScope(arg, *depths);
        for (std::size_t i = last; i < arg.size(); ++i)
            if ((*depths)[i] == 0 && arg[i] == ' ') last = i + 1; // past "operator()() const"
        const std::string tail = last > paren ? "::" + arg.substr(last) : std::string();
        return {arg.substr(0, paren) + "(...)" + tail, std::nullopt};
    }
    if (lt == std::string::npos) return {arg, std::nullopt};
    std::size_t gt = lt + 1;
    while (gt < arg.size() && !((*depths)[gt] == 1 && arg[gt] == '>'))
        ++gt;
    return {arg.substr(0, lt), arg.substr(lt + 1, gt - lt - 1)};
}

// The positions to show so that lists which differ read differently: in order, each position at which two
// lists that would still read alike differ, up to `most`.
template <class Item>
std::vector<std::size_t> tellingPositions(const std::vector<std::vector<Item>>& lists, std::size_t most) {
    std::size_t longest = 0;
    for (const auto& l : lists)
        longest = std::max(longest, l.size());
    const auto at = [&](std::size_t m, std::size_t k) { return k < lists[m].size() ? lists[m][k] : Item(); };
    std::vector<std::size_t> chosen;
    const auto alike = [&](std::size_t a, std::size_t b) {
        return std::all_of(chosen.begin(), chosen.end(), [&](std::size_t k) { return at(a, k) == at(b, k); });
    };
    for (std::size_t k = 0; k < longest && chosen.size() < most; ++k) {
        bool tells = false;
        for (std::size_t a = 0; a < lists.size() && !tells; ++a)
            for (std::size_t b = a + 1; b < lists.size() && !tells; ++b)
                tells = at(a, k) != at(b, k) && alike(a, b);
        if (tells) chosen.push_back(k);
    }
    return chosen;
}

// For template argument lists that differ, each one written down to what tells it apart: the arguments in
// which they differ (up to three), "..." for each run of arguments they share (the first ones shown as they
// are when short and few). An argument that differs is shown by its template name, or, where those agree,
// by its own arguments the same way.
std::vector<std::string> differingArguments(const std::vector<std::string>& lists, int depth = 0) {
    std::vector<std::vector<std::string>> parts;
    for (const std::string& l : lists)
        parts.push_back(topLevelArguments(l));
    const auto argAt = [&](std::size_t member, std::size_t k) {
        return k < parts[member].size() ? parts[member][k] : std::string();
    };
    // Inside an argument, fewer positions: the name stays readable.
    const std::vector<std::size_t> differing = tellingPositions(parts, depth == 0 ? 3 : 2);
    if (differing.empty()) return std::vector<std::string>(lists.size(), "...");
    // Each differing argument's text for every member.
    std::vector<std::vector<std::string>> told(parts.size());
    for (std::size_t k : differing) {
        std::vector<std::pair<std::string, std::optional<std::string>>> at;
        for (std::size_t m = 0; m < parts.size(); ++m)
            at.push_back(splitTemplate(argAt(m, k)));
        // Those of one template name are told apart by their own arguments.
        std::map<std::string, std::vector<std::size_t>> byName;
        for (std::size_t m = 0; m < parts.size(); ++m)
            byName[at[m].first].push_back(m);
        std::vector<std::string> text(parts.size());
        for (const auto& entry : byName) {
            // (Named, not bound: clang 14 cannot capture a structured binding.)
            const std::string& name = entry.first;
            const std::vector<std::size_t>& members = entry.second;
            const std::optional<std::string>& firstInner = at[members[0]].second;
            const bool differ = std::any_of(members.begin(), members.end(),
                                            [&](std::size_t m) { return at[m].second != firstInner; });
            const bool allTemplates = std::all_of(members.begin(), members.end(),
                                                  [&](std::size_t m) { return at[m].second.has_value(); });
            if (differ && allTemplates && depth < 4) {
                std::vector<std::string> innerLists;
                for (std::size_t m : members)
                    innerLists.push_back(*at[m].second);
                const std::vector<std::string> inner = differingArguments(innerLists, depth + 1);
                for (std::size_t j = 0; j < members.size(); ++j)
                    text[members[j]] = name + "<" + inner[j] + ">";
            } else {
                for (std::size_t m : members)
                    text[m] = capped(name) + (at[m].second ? "<...>" : "");
            }
        }
        for (std::size_t m = 0; m < parts.size(); ++m)
            told[m].push_back(std::move(text[m]));
    }
    const bool leadShown =
        differing[0] <= 2 && std::all_of(parts[0].begin(), parts[0].begin() + std::ptrdiff_t(differing[0]),
                                         [](const std::string& a) { return a.size() <= 12; });
    std::vector<std::string> out;
    for (std::size_t m = 0; m < parts.size(); ++m) {
        std::string text;
        std::size_t next = 0; // the first argument not yet written
        for (std::size_t d = 0; d < differing.size(); ++d) {
            const std::size_t k = differing[d];
            if (k > next) {
                if (next == 0 && leadShown)
                    for (std::size_t j = 0; j < k; ++j)
                        text += parts[m][j] + ", ";
                else
                    text += "..., ";
            }
            text += told[m][d] + ", ";
            next = k + 1;
        }
        if (next < parts[m].size()) text += "..., ";
        text.resize(text.size() - 2);
        out.push_back(std::move(text));
    }
    return out;
}

// For long names cut at the same place (Tensile's "Cijk_..."), the underscore fields past the cut in which
// they differ (up to three), each after "…".
std::vector<std::string> differingFields(const std::vector<std::string_view>& names) {
    std::vector<std::vector<std::string_view>> fields;
    for (std::string_view n : names) {
        fields.emplace_back();
        std::size_t from = 0;
        while (true) {
            const std::size_t u = n.find('_', from);
            fields.back().push_back(n.substr(from, u == std::string_view::npos ? u : u - from));
            if (u == std::string_view::npos) break;
            from = u + 1;
        }
    }
    const std::vector<std::size_t> telling = tellingPositions(fields, 3);
    std::vector<std::string> out(names.size());
    for (std::size_t m = 0; m < names.size(); ++m) {
        out[m] = capped(names[m]);
        for (std::size_t k : telling)
            if (k < fields[m].size()) out[m] += std::string(fields[m][k]) + "\u2026";
    }
    return out;
}

// The groups of positions whose names read the same but whose full names differ.
std::vector<std::vector<std::size_t>> collisions(const std::vector<std::string>& shown,
                                                 const std::vector<std::string_view>& fullNames) {
    std::map<std::string_view, std::vector<std::size_t>> byShown;
    for (std::size_t i = 0; i < shown.size(); ++i)
        byShown[shown[i]].push_back(i);
    std::vector<std::vector<std::size_t>> out;
    for (auto& entry : byShown) {
        std::vector<std::size_t>& members = entry.second;
        const std::string_view first = fullNames[members[0]];
        const bool differ =
            std::any_of(members.begin(), members.end(), [&](std::size_t m) { return fullNames[m] != first; });
        if (differ) out.push_back(std::move(members));
    }
    return out;
}

// The kernel a generic launcher launches, as a qualified name (cutlass::Kernel2<deep_gemm::GemmKernel<128>>
// -> deep_gemm::GemmKernel<128>); nullopt when `qualified` is no launcher or its first argument is a type
// (cuBLAS's gemvx::kernel<int, ...> launches nothing: a launched kernel has a name of its own,
// cutlass_80_..., flash::...).
std::optional<std::string_view> launchedKernel(std::string_view qualified) {
    std::string_view args;
    const std::optional<std::string> base = foldedBaseName(qualified, &args);
    if (!base || !isGenericLauncher(*base)) return std::nullopt;
    const std::optional<std::vector<int>> argDepths = bracketDepths(args);
    if (!argDepths) return std::nullopt;
    std::string_view first = args.substr(0, findTopLevel(args, *argDepths, ','));
    while (!first.empty() && first.front() == ' ')
        first.remove_prefix(1);
    while (!first.empty() && first.back() == ' ')
        first.remove_suffix(1);
    const bool named =
        first.find('_') != std::string_view::npos || first.find("::") != std::string_view::npos;
    if (!named || !foldedBaseName(first)) return std::nullopt;
    return first;
}

// The name a kernel is known by: the launched kernel's for a generic launcher, else the signature's own.
std::string_view ownQualifiedName(const Signature& sig) {
    return launchedKernel(sig.qualified()).value_or(sig.qualified());
}

// The short name of a parsed signature; nullopt where its name does not fold.
std::optional<std::string> shortNameOf(const Signature* sig) {
    if (!sig) return std::nullopt;
    std::string_view args;
    const std::optional<std::string> base = foldedBaseName(sig->qualified(), &args);
    if (!base) return std::nullopt;
    // cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>: the argument is the kernel.
    if (const std::optional<std::string_view> launched = launchedKernel(sig->qualified()))
        return capped(*foldedBaseName(*launched));
    if (const std::optional<std::string> op = operationIn(args)) return *base + " (" + *op + ")";
    return *base;
}

// shortKernelName with the name's signature parsed already (or nullopt: not a signature).
std::string shortKernelNameOf(std::string_view fullName, const std::optional<Signature>& sig) {
    if (std::optional<std::string> shortName = shortNameOf(sig ? &*sig : nullptr))
        return std::move(*shortName);
    const std::optional<std::string> plain = demangled(fullName);
    return capped(plain ? std::string_view(*plain) : fullName);
}

} // namespace

std::optional<std::string> shortSignatureName(std::string_view fullName) {
    const std::optional<Signature> sig = parseSignature(fullName);
    return shortNameOf(sig ? &*sig : nullptr);
}

std::string shortKernelName(std::string_view fullName) {
    return shortKernelNameOf(fullName, parseSignature(fullName));
}

std::vector<std::string> distinctShortKernelNames(const std::vector<std::string_view>& fullNames) {
    std::vector<std::string> shown;
    std::vector<std::optional<Signature>> signatures;
    for (std::string_view n : fullNames) {
        signatures.push_back(parseSignature(n));
        shown.push_back(shortKernelNameOf(n, signatures.back()));
    }
    const auto scopeOf = [&](std::size_t i) -> std::string {
        if (!signatures[i]) return {};
        const std::string_view q = ownQualifiedName(*signatures[i]);
        const std::optional<std::vector<int>> depths = bracketDepths(q);
        const std::size_t after = depths ? afterLastTopLevelScope(q, *depths) : 0;
        return after >= 2 ? std::string(q.substr(0, after - 2)) : std::string();
    };
    // The namespace that differs: its last part when that tells them apart, else all of it.
    for (const auto& group : collisions(shown, fullNames)) {
        std::vector<std::string> scopes;
        for (std::size_t m : group)
            scopes.push_back(scopeOf(m));
        if (std::all_of(scopes.begin(), scopes.end(), [&](const auto& sc) { return sc == scopes[0]; }))
            continue;
        const auto last = [](const std::string& sc) {
            const std::size_t colons = sc.rfind("::");
            return colons == std::string::npos ? sc : sc.substr(colons + 2);
        };
        std::map<std::string, std::string> lastOf; // last part -> the first whole scope seen with it
        bool lastsTell = true;
        for (const std::string& sc : scopes) {
            auto [it, fresh] = lastOf.try_emplace(last(sc), sc);
            if (!fresh && it->second != sc) lastsTell = false;
        }
        for (std::size_t j = 0; j < group.size(); ++j)
            if (!scopes[j].empty())
                shown[group[j]] = (lastsTell ? last(scopes[j]) : scopes[j]) + "::" + shown[group[j]];
    }
    // The template argument that differs, where the name folds its arguments.
    for (const auto& group : collisions(shown, fullNames)) {
        std::vector<std::size_t> folded;
        std::vector<std::string> lists;
        for (std::size_t m : group) {
            if (!signatures[m] || shown[m].find("<...>") == std::string::npos) continue;
            const std::string_view q = ownQualifiedName(*signatures[m]);
            const std::size_t lt = q.find('<');
            if (lt == std::string_view::npos || q.back() != '>') continue;
            folded.push_back(m);
            lists.push_back(withoutScopes(q.substr(lt + 1, q.size() - lt - 2)));
        }
        if (folded.size() < 2) continue;
        const std::vector<std::string> told = differingArguments(lists);
        for (std::size_t j = 0; j < folded.size(); ++j) {
            std::string& text = shown[folded[j]];
            text.replace(text.find("<...>"), 5, "<" + told[j] + ">");
        }
    }
    // Long names cut at the same place: the fields after the cut in which they differ.
    for (const auto& group : collisions(shown, fullNames)) {
        std::vector<std::size_t> cut;
        std::vector<std::string_view> names;
        for (std::size_t m : group)
            if (!signatures[m] && fullNames[m].size() > kLongNameCut) {
                cut.push_back(m);
                names.push_back(fullNames[m]);
            }
        if (cut.size() < 2) continue;
        const std::vector<std::string> told = differingFields(names);
        for (std::size_t j = 0; j < cut.size(); ++j)
            shown[cut[j]] = told[j];
    }
    // Nothing printable tells them apart: numbered in the order given, the first one left as it is.
    for (const auto& group : collisions(shown, fullNames)) {
        std::map<std::string_view, std::size_t> number;
        for (std::size_t m : group) {
            auto [it, fresh] = number.try_emplace(fullNames[m], number.size() + 1);
            if (it->second > 1) shown[m] += " #" + std::to_string(it->second);
        }
    }
    return shown;
}

} // namespace kinetoscope
