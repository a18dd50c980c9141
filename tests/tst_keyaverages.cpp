// Our operator table against PyTorch's own `prof.key_averages()`, on real traces from a GPU (tests/data/gpu:
// an H200, PyTorch 2.11, made by tests/gpu/session.sh). Each trace was exported by the same profile whose
// key_averages() rows were saved beside it, so every row must agree exactly: calls, self and total CPU time,
// self and total device time (to the ns the trace keeps, 0.01 µs).
//
// key_averages() lists by device type: its CPU rows are operators and annotations (ours: the Operators and
// annotation tables; "ProfilerStep*" is our "ProfilerStep#*") and runtime calls (not operators here: they are
// children, counted in their parents' figures, and listed as API calls elsewhere); its CUDA rows are kernels
// (ours: the Kernels table), copies and memsets (checked against the trace's own GPU events) and Kineto's
// GPU-side copies of annotations (gpu_user_annotation), which have no table of ours.
#include "analysis/ops/summary.h"
#include "model/tracestore.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <map>

using namespace kinetoscope;

namespace {

std::string dataPath(const QString& name) {
    return std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/" + name.toStdString();
}

double us(TimeNs ns) {
    return double(ns) / 1000.0;
}

struct GpuEventTotals {
    std::uint64_t count = 0;
    TimeNs total = 0;
};

// Copies, memsets and GPU-side annotations by name, straight from the store.
std::map<std::string, GpuEventTotals, std::less<>> gpuEventsByName(const TraceStore& store,
                                                                   bool annotations) {
    std::map<std::string, GpuEventTotals, std::less<>> out;
    for (const Track& t : store.tracks())
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            const auto [r0, r1] = t.rowsInRange(d, INT64_MIN, INT64_MAX);
            for (std::uint32_t r = r0; r < r1; ++r) {
                const CategoryKind kind = store.categories()[t.categories[r]].kind;
                const bool wanted = annotations
                                        ? kind == CategoryKind::GpuUserAnnotation
                                        : kind == CategoryKind::Memcpy || kind == CategoryKind::Memset;
                if (!wanted) continue;
                GpuEventTotals& g = out[std::string(store.strings().view(t.names[r]))];
                ++g.count;
                g.total += t.durations[r];
            }
        }
    return out;
}

} // namespace

class TestKeyAverages : public QObject {
    Q_OBJECT
  private slots:
    void equalsKeyAverages_data();
    void equalsKeyAverages();
};

void TestKeyAverages::equalsKeyAverages_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("table");
    QTest::addColumn<int>("minimumRows"); // rows checked, so that a table that lost its rows cannot pass
    QTest::newRow("eager training steps") << "eager.pt.trace.json.gz"
                                          << "eager.key_averages.json.gz" << 140;
    QTest::newRow("eager, five steps") << "profiler_eager.pt.trace.json.gz"
                                       << "profiler_eager.key_averages.json.gz" << 140;
    QTest::newRow("torch.compile") << "compiled.pt.trace.json.gz"
                                   << "compiled.key_averages.json.gz" << 150;
    QTest::newRow("torch.compile, three layers")
        << "compiled_3layers/compiled_3layers.pt.trace.json.gz"
        << "compiled_3layers/compiled_3layers.key_averages.json.gz" << 150;
    QTest::newRow("torch.compile, one reduction more") << "compiled_center.pt.trace.json.gz"
                                                       << "compiled_center.key_averages.json.gz" << 150;
    // CUDA graphs: the replayed kernels carry CompiledFunction's External id, not that of the
    // "## Call CompiledFxGraph" range around their cudaGraphLaunch (hosttree.h).
    QTest::newRow("torch.compile, reduce-overhead (CUDA graphs)")
        << "reduce_overhead.pt.trace.json.gz"
        << "reduce_overhead.key_averages.json.gz" << 115;
}

void TestKeyAverages::equalsKeyAverages() {
    QFETCH(QString, trace);
    QFETCH(QString, table);
    QFETCH(int, minimumRows);
    const LoadResult loaded = loadTrace(dataPath(trace));
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    const TraceStore& store = *loaded.store;
    const Summary ours = summarize(store);
    std::map<std::string, const OperatorRow*, std::less<>> hostRows;
    for (const auto* rows : {&ours.operators, &ours.annotations})
        for (const OperatorRow& row : *rows)
            hostRows[row.name] = &row;
    std::map<std::string, const KernelRow*, std::less<>> kernelRows;
    for (const KernelRow& row : ours.kernels)
        kernelRows[row.name] = &row;
    const auto copies = gpuEventsByName(store, false);
    const auto gpuAnnotations = gpuEventsByName(store, true);

    const QJsonDocument reference =
        QJsonDocument::fromJson(QByteArray::fromStdString(test::readText(dataPath(table))));
    QVERIFY2(reference.isObject(), "key_averages table unreadable");
    const auto near = [](double a, double b) { return std::abs(a - b) <= 0.01 + 1e-9 * std::abs(b); };
    int checked = 0;
    QStringList differences;
    for (const QJsonValue& value : reference.object()["rows"].toArray()) {
        const QJsonObject row = value.toObject();
        const std::string key = row["key"].toString().toStdString();
        const QString shown = QString::fromStdString(key.substr(0, 90));
        const qint64 count = row["count"].toInteger();
        const double selfCpu = row["self_cpu_time_total_us"].toDouble();
        const double totalCpu = row["cpu_time_total_us"].toDouble();
        const double selfDevice = row["self_device_time_total_us"].toDouble();
        const double totalDevice = row["device_time_total_us"].toDouble();
        if (row["device_type"].toString() != "DeviceType.CPU") {
            if (const auto k = kernelRows.find(key); k != kernelRows.end()) {
                ++checked;
                if (qint64(k->second->count) != count || !near(us(k->second->total), selfDevice))
                    differences << QStringLiteral("kernel %1: %2 calls, %3 us; key_averages %4, %5")
                                       .arg(shown)
                                       .arg(k->second->count)
                                       .arg(us(k->second->total))
                                       .arg(count)
                                       .arg(selfDevice);
            } else if (const auto c = copies.find(key); c != copies.end()) {
                ++checked;
                if (qint64(c->second.count) != count || !near(us(c->second.total), selfDevice))
                    differences << QStringLiteral("copy or memset %1: %2 calls, %3 us; key_averages %4, %5")
                                       .arg(shown)
                                       .arg(c->second.count)
                                       .arg(us(c->second.total))
                                       .arg(count)
                                       .arg(selfDevice);
            } else if (!gpuAnnotations.contains(key) && !key.starts_with("ProfilerStep")) {
                differences
                    << QStringLiteral("GPU row %1 (%2 calls) is not in the trace").arg(shown).arg(count);
            }
            continue;
        }
        const auto h = hostRows.find(key == "ProfilerStep*" ? "ProfilerStep#*" : key);
        if (h == hostRows.end()) {
            // Runtime and driver calls are rows of key_averages() and children of our operators.
            if (!(key.starts_with("cuda") || key.starts_with("cu")))
                differences << QStringLiteral("operator %1 (%2 calls) is missing").arg(shown).arg(count);
            continue;
        }
        ++checked;
        const OperatorRow& o = *h->second;
        if (qint64(o.count) != count || !near(us(o.hostSelf), selfCpu) || !near(us(o.hostTotal), totalCpu) ||
            !near(us(o.deviceSelf), selfDevice) || !near(us(o.deviceTotal), totalDevice))
            differences << QStringLiteral(
                               "%1: calls %2/%3, self CPU %4/%5, CPU %6/%7, self device %8/%9, device "
                               "%10/%11 (ours/theirs, us)")
                               .arg(shown)
                               .arg(o.count)
                               .arg(count)
                               .arg(us(o.hostSelf))
                               .arg(selfCpu)
                               .arg(us(o.hostTotal))
                               .arg(totalCpu)
                               .arg(us(o.deviceSelf))
                               .arg(selfDevice)
                               .arg(us(o.deviceTotal))
                               .arg(totalDevice);
    }
    QVERIFY2(differences.isEmpty(), qPrintable(differences.join('\n')));
    QVERIFY2(checked >= minimumRows, qPrintable(QStringLiteral("only %1 rows checked").arg(checked)));
}

QTEST_APPLESS_MAIN(TestKeyAverages)
#include "tst_keyaverages.moc"
