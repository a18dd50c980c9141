#include "testsupport.h"

#include <sqlite3.h>

#include "analysis/ops/kernels.h"
#include "analysis/overview/overview.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <zlib.h>

#include <filesystem>
#include <fstream>

namespace kinetoscope::test {

std::string tracePath(const char* relative) {
    return std::string(KINETOSCOPE_TRACES_DIR) + "/" + relative;
}

std::string gzipText(const std::string& text, int members) {
    std::string out;
    const std::size_t step = (text.size() + members - 1) / std::max(members, 1);
    for (std::size_t pos = 0; pos < text.size() || (pos == 0 && text.empty()); pos += step) {
        const std::string part = text.substr(pos, step);
        z_stream zs{};
        deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
        std::string buf(deflateBound(&zs, part.size()) + 64, '\0');
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(part.data()));
        zs.avail_in = uInt(part.size());
        zs.next_out = reinterpret_cast<Bytef*>(buf.data());
        zs.avail_out = uInt(buf.size());
        deflate(&zs, Z_FINISH);
        buf.resize(zs.total_out);
        deflateEnd(&zs);
        out += buf;
        if (text.empty()) break;
    }
    return out;
}

std::string readText(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb"); // reads plain files as they are
    if (!f) return {};
    std::string out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, std::size_t(n));
    gzclose(f);
    return n < 0 ? std::string() : out;
}

std::string writeCompiled3LayersDebugFolder(const std::string& root) {
    const std::string data = std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/compiled_3layers/";
    const std::filesystem::path run =
        std::filesystem::path(root) / "torch_compile_debug" / "run_1" / "torchinductor";
    for (const auto& entry : std::filesystem::directory_iterator(data)) {
        const std::string name = entry.path().filename().string(); // model__<graph>__<file>.gz
        if (!name.starts_with("model__")) continue;
        const std::size_t split = name.find("__", 7);
        if (split == std::string::npos) continue;
        const std::filesystem::path p =
            run / name.substr(0, split) / name.substr(split + 2, name.size() - split - 5);
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << readText(entry.path().string());
    }
    return data + "compiled_3layers.pt.trace.json.gz";
}

QString compareGolden(const QString& name, const std::string& machineActual) {
    // Paths into the corpus (a report names its source) are written from its folder on: the same on any
    // machine.
    std::string actual = machineActual;
    const std::string traces = KINETOSCOPE_TRACES_DIR, placeholder = "${TRACES}";
    for (std::size_t at = 0; !traces.empty() && (at = actual.find(traces, at)) != std::string::npos;
         at += placeholder.size())
        actual.replace(at, traces.size(), placeholder);
    const QString path = QStringLiteral(KINETOSCOPE_GOLDEN_DIR) + "/" + name;
    if (qEnvironmentVariableIsSet("KINETOSCOPE_UPDATE_GOLDEN")) {
        QFile f(path);
        if (f.open(QIODevice::WriteOnly)) f.write(actual.data(), qint64(actual.size()));
        return {};
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return "missing golden file " + path;
    const QByteArray expected = f.readAll();
    if (expected == QByteArray::fromStdString(actual)) {
        QFile::remove(path + ".actual");
        return {};
    }
    QFile out(path + ".actual");
    if (out.open(QIODevice::WriteOnly)) out.write(actual.data(), qint64(actual.size()));
    out.close();
    QProcess diff;
    diff.start("diff", {"-u", path, path + ".actual"});
    diff.waitForFinished();
    return "golden mismatch for " + name + ":\n" + QString::fromUtf8(diff.readAllStandardOutput().left(4000));
}

LoadResult loadText(const std::string& json, std::size_t chunkBytes, unsigned threads) {
    LoadOptions options;
    options.chunkBytes = chunkBytes;
    options.threads = threads;
    return loadTraceText(json, options);
}

LoadOptions gpuWorkOnlyOptions(unsigned threads, std::size_t chunkBytes) {
    LoadOptions options;
    options.threads = threads;
    options.chunkBytes = chunkBytes;
    options.gpuWorkOnly = true;
    options.gpuWorkOnlyUnlessTextHas = kernelTableHostKeys();
    return options;
}

const Recommendation* recommendation(const Overview& overview, std::string_view id) {
    for (const Recommendation& r : overview.recommendations)
        if (r.id == id) return &r;
    return nullptr;
}

double figure(const Recommendation& recommendation, std::string_view name) {
    for (const auto& [n, v] : recommendation.figures)
        if (n == name) return v;
    return -1;
}

std::optional<std::int64_t> writeTraceShiftedOntoSnapshot(const std::string& tracePath,
                                                          const MemorySnapshot& snapshot,
                                                          const QString& outPath) {
    LoadResult original = loadTrace(tracePath);
    if (!original.store || snapshot.devices.empty()) return std::nullopt;
    const TraceStore& store = *original.store;
    TimeNs firstOp = store.maxTime();
    for (const Track& track : store.tracks())
        for (std::uint32_t row = 0; row < track.sliceCount(); ++row)
            if (store.categories()[track.categories[row]].kind == CategoryKind::CpuOp)
                firstOp = std::min(firstOp, track.starts[row]);
    const TimeNs span = store.maxTime() - firstOp;
    const DeviceHistory& h = snapshot.devices.front();
    std::vector<std::int64_t> allocNs;
    for (std::size_t i = 0; i < h.size(); ++i)
        if (h.actions[i] == AllocatorAction::Alloc && h.timesUs[i] != noTimeUs)
            allocNs.push_back(h.timesUs[i] * 1000);
    if (allocNs.empty()) return std::nullopt;
    // The window of the trace's length holding the most allocations.
    std::size_t bestFirst = 0, bestCount = 0;
    for (std::size_t a = 0, b = 0; a < allocNs.size(); ++a) {
        while (b < allocNs.size() && allocNs[b] - allocNs[a] <= span)
            ++b;
        if (b - a > bestCount) {
            bestCount = b - a;
            bestFirst = a;
        }
    }
    const std::int64_t base = allocNs[bestFirst] - firstOp;
    QString text = QString::fromStdString(readText(tracePath));
    const QRegularExpression baseKey(QStringLiteral("\"baseTimeNanoseconds\": *[0-9]+"));
    if (!text.contains(baseKey)) return std::nullopt;
    text.replace(baseKey, QStringLiteral("\"baseTimeNanoseconds\": %1").arg(base));
    QFile f(outPath);
    if (!f.open(QIODevice::WriteOnly)) return std::nullopt;
    f.write(text.toUtf8());
    return base;
}

std::vector<std::vector<std::string>> sqliteRows(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    std::vector<std::vector<std::string>> rows;
    if (sqlite3_open_v2(("file:" + path + "?immutable=1").c_str(), &db,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK)
        qFatal("cannot open %s", path.c_str());
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
        qFatal("%s: %s", sql.c_str(), sqlite3_errmsg(db));
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        auto& row = rows.emplace_back();
        for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
            const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
            row.emplace_back(t ? t : "");
        }
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return rows;
}

} // namespace kinetoscope::test
