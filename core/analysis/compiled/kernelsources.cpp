#include "analysis/compiled/kernelsources.h"

#include "model/argscan.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace kinetoscope {

namespace fs = std::filesystem;

TritonLaunch tritonLaunchAt(const TraceStore& store, EventRef event) {
    TritonLaunch l;
    l.event = event;
    if (!event.isValid()) return l;
    const std::string_view args = store.argsText(event);
    const auto text = [&](std::string_view key) { return std::string(argString(args, key).value_or("")); };
    l.kernelFile = text("kernel_file");
    l.kernelHash = text("kernel_hash");
    l.kernelBackend = text("kernel_backend");
    l.kernelKwargs = text("kernel_kwargs");
    l.grid = text("grid");
    l.numWarps = argInteger(args, "num_warps");
    l.numStages = argInteger(args, "num_stages");
    l.stream = argInteger(args, "stream");
    l.numGb = argNumber(args, "kernel_num_gb");
    l.flop = argNumber(args, "kernel_flop");
    return l;
}

namespace {
// The first cpu_op (by start) of each key, where `keyOf(event, name)` gives an operator's key, or nothing to
// pass it over.
template <class Key, class KeyOf> std::map<Key, EventRef> firstCpuOps(const TraceStore& store, KeyOf keyOf) {
    std::map<Key, EventRef> first;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (store.categories()[t.categories[r]].kind != CategoryKind::CpuOp) continue;
            const EventRef ref{TrackId(ti), EventIndex(r)};
            std::optional<Key> key = keyOf(ref, store.strings().view(t.names[r]));
            if (!key) continue;
            auto [it, fresh] = first.try_emplace(std::move(*key), ref);
            if (!fresh && t.starts[r] < store.track(it->second.track).starts[it->second.index.value])
                it->second = ref;
        }
    }
    return first;
}

// A kernel as the trace launches it: its name and the kernel_hash its launches carry ("" when they carry
// none).
using KernelKey = std::pair<std::string, std::string>;

// The first launch event (a cpu_op named triton_*) of each kernel name and kernel_hash.
std::map<KernelKey, EventRef> tritonLaunchesByHash(const TraceStore& store) {
    return firstCpuOps<KernelKey>(
        store, [&](EventRef ref, std::string_view name) -> std::optional<KernelKey> {
            if (!name.starts_with("triton_")) return std::nullopt;
            return KernelKey{std::string(name),
                             std::string(argString(store.argsText(ref), "kernel_hash").value_or(""))};
        });
}
} // namespace

const KernelSource* KernelSourceSearch::find(std::string_view name, std::string_view hash) const {
    const KernelSource* byName = nullptr;
    for (const KernelSource& k : found) {
        if (k.kernel != name) continue;
        if (k.kernelHash == hash) return &k;
        if (!byName) byName = &k;
    }
    return byName;
}

TritonLaunch tritonLaunchOf(const TraceStore& store, std::string_view kernelName) {
    const auto ops = firstCpuOps<std::string>(store, [&](EventRef, std::string_view n) {
        return n == kernelName ? std::optional<std::string>(n) : std::nullopt;
    });
    return tritonLaunchAt(store, ops.empty() ? EventRef{} : ops.begin()->second);
}

namespace {

constexpr std::uintmax_t largestFile = 64ull << 20;
constexpr std::size_t mostFiles = 100'000;

std::optional<std::string> readFile(const fs::path& p) {
    std::error_code ec;
    if (!fs::is_regular_file(p, ec) || fs::file_size(p, ec) > largestFile || ec) return std::nullopt;
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return std::move(s).str();
}

// Whether an entry says what its kernel fused (a compiled module's does; a bare kernel file's does not).
bool saysWhatItFused(const InductorKernelSource& k) {
    return !k.atenOps.empty() || !k.fxNodes.empty() || !k.nodeToAten.empty();
}

// The hash of a file in Inductor's cache: its stem ("c5qrc6….py" → "c5qrc6…").
std::string hashOfPath(std::string_view path) {
    return path.empty() ? std::string() : fs::path(path).stem().string();
}

struct Search {
    std::map<KernelKey, KernelSource> best;
    std::map<std::string, std::set<std::string>, std::less<>> wanted; // name -> the hashes its launches say
    std::uint64_t filesRead = 0;

    // Parses `text` (the file `path`) and keeps what it has of the wanted kernels. An entry belongs to the
    // launches whose hash is its file's in the cache; an entry or a launch without a hash goes by the name
    // alone.
    void offer(const std::string& path, std::string_view text, const char* foundBy) {
        const InductorCode code = parseInductorCode(text);
        for (const InductorKernelSource& k : code.kernels) {
            const auto want = wanted.find(k.name);
            if (want == wanted.end()) continue;
            // A module's entry names its kernel file; a kernel file is its own (when its stem is a hash the
            // launches carry: an old module without `# kernel path:` is named by its own hash, no kernel's).
            std::string hash = hashOfPath(k.kernelPath);
            if (hash.empty() && want->second.count(hashOfPath(path))) hash = hashOfPath(path);
            for (const std::string& launched : want->second) {
                if (!hash.empty() && !launched.empty() && hash != launched) continue;
                const KernelKey key{k.name, launched};
                auto it = best.find(key);
                if (it != best.end() && (saysWhatItFused(it->second.code) || !saysWhatItFused(k))) continue;
                best[key] = {k.name, launched, path, foundBy, k, {}, {}};
            }
        }
    }
    bool readAndOffer(const fs::path& p, const char* foundBy) {
        const auto text = readFile(p);
        if (!text) return false;
        ++filesRead;
        offer(p.string(), *text, foundBy);
        return true;
    }
    bool complete(const KernelKey& kernel) const {
        auto it = best.find(kernel);
        return it != best.end() && saysWhatItFused(it->second.code);
    }
};

// "mw/cmwj….py" of "/tmp/torchinductor_root/mw/cmwj….py": the path inside Inductor's cache.
fs::path cacheRelative(const std::string& kernelFile) {
    const fs::path p(kernelFile);
    return p.parent_path().filename() / p.filename();
}

} // namespace

KernelSourceSearch findKernelSources(const TraceStore& store, const std::string& folder,
                                     const std::vector<std::string>& compiledModules) {
    Search s;
    // The Triton kernels of the trace: each name, and each hash its launches carry.
    std::set<std::string> names;
    for (std::uint32_t i = 0; i < store.strings().size(); ++i) {
        const std::string_view n = store.strings().view(StringId(i));
        if (n.starts_with("triton_")) names.emplace(n);
    }
    if (names.empty()) return {}; // an eager model: nothing to look for, no thread's slices scanned
    std::map<KernelKey, TritonLaunch> launches;
    for (const auto& [name, event] : tritonLaunchesByHash(store)) {
        launches.emplace(name, tritonLaunchAt(store, event));
        names.erase(name.first);
    }
    for (const std::string& name : names) // a triton_ name with no launch event: looked for by name
        launches.emplace(KernelKey{name, ""}, TritonLaunch{});
    for (const auto& [key, l] : launches)
        s.wanted[key.first].insert(key.second);

    for (const std::string& m : compiledModules)
        s.readAndOffer(m, "compiled module");
    for (const auto& [key, l] : launches) {
        if (s.complete(key) || l.kernelFile.empty()) continue;
        s.readAndOffer(l.kernelFile, "kernel_file");
        if (!folder.empty() && !s.best.count(key))
            s.readAndOffer(fs::path(folder) / cacheRelative(l.kernelFile), "cache path");
    }
    // By content: every .py under the folder that names a kernel still missing (or found without what it
    // fused).
    if (!folder.empty()) {
        std::error_code ec;
        std::size_t seen = 0;
        for (fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec),
             end;
             it != end && seen < mostFiles; it.increment(ec)) {
            if (ec) break;
            if (!it->is_regular_file(ec) || it->path().extension() != ".py") continue;
            ++seen;
            std::vector<std::string> open;
            for (const auto& [key, l] : launches)
                if (!s.complete(key) && (open.empty() || open.back() != key.first)) open.push_back(key.first);
            if (open.empty()) break;
            const auto text = readFile(it->path());
            if (!text) continue;
            bool names = false;
            for (const std::string& k : open)
                names = names || text->find(k) != std::string::npos;
            if (!names) continue;
            ++s.filesRead;
            s.offer(it->path().string(), *text, "content");
        }
    }
    KernelSourceSearch result;
    // The model lines of kernels found in a debug folder's output_code.py: its fx_graph_readable.py is beside
    // it, and with INDUCTOR_PROVENANCE=1 the nodes of each call of each kernel.
    struct DebugGraph {
        FxGraphLines lines;
        std::optional<InductorProvenance> provenance;
    };
    std::map<fs::path, DebugGraph> graphs;
    for (auto& [key, source] : s.best) {
        if (source.code.nodeToAten.empty()) continue;
        const fs::path dir = fs::path(source.file).parent_path();
        auto it = graphs.find(dir);
        if (it == graphs.end()) {
            DebugGraph g;
            if (const auto text = readFile(dir / "fx_graph_readable.py")) {
                g.lines = parseFxGraphReadable(*text);
                ++s.filesRead;
            }
            if (const auto text = readFile(dir / "inductor_provenance_tracking_node_mappings.json")) {
                g.provenance = parseInductorProvenance(*text, g.lines);
                ++s.filesRead;
            }
            it = graphs.emplace(dir, std::move(g)).first;
        }
        source.modelLines = modelLinesOf(it->second.lines, source.code);
        if (it->second.provenance)
            if (const auto* calls = it->second.provenance->callsOf(source.code.name)) source.calls = *calls;
    }
    result.filesRead = s.filesRead;
    for (const auto& [key, l] : launches) {
        const std::string& kernel = key.first;
        // Only kernels that ran on a GPU (a `triton_` string can be anything else too).
        auto it = s.best.find(key);
        if (it != s.best.end()) {
            result.found.push_back(std::move(it->second));
            continue;
        }
        if (!l.event.isValid())
            continue; // no launch event: nothing says where to look, and maybe not a kernel
        std::string lookedFor =
            l.kernelFile.empty() ? std::string("no kernel_file in the trace") : l.kernelFile;
        if (!folder.empty())
            lookedFor +=
                "; " +
                (l.kernelFile.empty() ? std::string() : cacheRelative(l.kernelFile).string() + " or ") +
                kernel + " under " + folder;
        result.missing.emplace_back(kernel, lookedFor);
    }
    return result;
}

} // namespace kinetoscope
