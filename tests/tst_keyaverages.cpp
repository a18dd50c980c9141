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
#include "analysis/ops/hosttree.h"
#include "analysis/ops/summary.h"
#include "analysis/overview/overview.h"
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
    void legacyTracesEqualKeyAverages_data();
    void legacyTracesEqualKeyAverages();
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

// Traces of a PyTorch without Kineto (Debian's python3-torch 1.13; tests/data/legacy/make_legacy_traces.py):
// the legacy format names no category, so operators and annotations are told apart by name, and its whole
// microseconds make a child end up to 1 µs after its parent, which we nest in it (docs/DEFINITIONS.md). Calls
// and total CPU time equal key_averages()' exactly. Self times are ours: never negative, and they add up to
// the threads' busy time. key_averages() instead takes such a child away from its parent and gives it to the
// next ancestor that ends after it (the parent's self too high, the ancestor's too low, negative at times);
// the test makes that move on our tree and then needs every self time to equal theirs, so that no other
// difference hides.
void TestKeyAverages::legacyTracesEqualKeyAverages_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("minimumRows");
    QTest::addColumn<int>("minimumOverhangs"); // children ending after their parent, so the move is exercised
    QTest::addColumn<bool>("selfTimes"); // whether key_averages()' self times can be rebuilt from the file
    QTest::newRow("MLP") << "mlp" << 50 << 0 << true;
    QTest::newRow("CNN with shapes") << "cnn_shapes" << 75 << 1 << true;
    QTest::newRow("transformer layer with stacks") << "transformer_stacks" << 100 << 5 << true;
    QTest::newRow("LSTM with profile_memory") << "lstm_memory" << 90 << 20 << true;
    // A TorchScript function that waits on its forks resumes on another thread: key_averages() calls its
    // RecordFunction async (self 0, outside every tree), and the file writes it like any other event.
    QTest::newRow("torch.jit.fork tasks") << "jit_fork" << 20 << 0 << false;
}

void TestKeyAverages::legacyTracesEqualKeyAverages() {
    QFETCH(QString, name);
    QFETCH(int, minimumRows);
    QFETCH(int, minimumOverhangs);
    QFETCH(bool, selfTimes);
    const std::string dir = std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/legacy/";
    const LoadResult loaded = loadTrace(dir + name.toStdString() + ".json.gz");
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    const TraceStore& store = *loaded.store;
    const Summary ours = summarize(store);
    QVERIFY(!ours.operators.empty());
    // The step's breakdown counts the operators as CPU execution (it read 100 % "other").
    const Overview ov = computeOverview(store);
    TimeNs span = 0;
    for (TimeNs t : ov.breakdownTotal)
        span += t;
    QVERIFY2(ov.breakdownTotal[std::size_t(BreakdownCategory::CpuExec)] > span * 9 / 10,
             qPrintable(QString::number(double(ov.breakdownTotal[std::size_t(BreakdownCategory::CpuExec)]) /
                                        double(span))));

    // key_averages() as it would be on our tree: each child that ends after its parent moved to the first
    // ancestor that ends at or after it.
    std::map<std::string, TimeNs, std::less<>> theirSelf;
    std::map<std::string, const OperatorRow*, std::less<>> rows;
    TimeNs selfSum = 0, busy = 0;
    for (const auto* table : {&ours.operators, &ours.annotations})
        for (const OperatorRow& row : *table) {
            rows[row.name] = &row;
            theirSelf[row.name] = row.hostSelf;
            QVERIFY2(row.hostSelf >= 0, row.name.c_str());
            selfSum += row.hostSelf;
        }
    int overhangs = 0;
    for (const Track& t : store.tracks()) {
        if (t.kind != TrackKind::CpuThread) continue;
        QCOMPARE(t.nestingSlack, TimeNs(1000));
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            const auto parent = t.parentOf(r);
            if (!parent) busy += t.durations[r];
            if (!parent || t.endOf(r) <= t.endOf(*parent)) continue;
            ++overhangs;
            const std::string name = annotationGroupName(store.strings().view(t.names[r]));
            theirSelf[annotationGroupName(store.strings().view(t.names[*parent]))] += t.durations[r];
            for (auto a = t.parentOf(*parent); a; a = t.parentOf(*a))
                if (t.endOf(*a) >= t.endOf(r)) {
                    theirSelf[annotationGroupName(store.strings().view(t.names[*a]))] -= t.durations[r];
                    break;
                }
        }
    }
    QCOMPARE(selfSum, busy);
    QVERIFY2(overhangs >= minimumOverhangs, qPrintable(QString::number(overhangs)));

    // key_averages() lists each "#N" apart (train_step#0, train_step#1): summed here as our rows group them.
    struct Theirs {
        qint64 count = 0;
        double self = 0, total = 0;
    };
    std::map<std::string, Theirs> theirs;
    const QJsonDocument reference = QJsonDocument::fromJson(
        QByteArray::fromStdString(test::readText(dir + name.toStdString() + ".key_averages.json.gz")));
    for (const QJsonValue& value : reference.object()["rows"].toArray()) {
        const QJsonObject row = value.toObject();
        const std::string key = row["key"].toString().toStdString();
        if (key == "[memory]") continue; // profile_memory's allocations: export_chrome_trace writes none
        Theirs& t = theirs[annotationGroupName(key)];
        t.count += row["count"].toInteger();
        t.self += row["self_cpu_time_total_us"].toDouble();
        t.total += row["cpu_time_total_us"].toDouble();
    }
    QStringList differences;
    for (const auto& [key, t] : theirs) {
        const auto h = rows.find(key);
        if (h == rows.end()) {
            differences
                << QStringLiteral("%1 (%2 calls) is missing").arg(QString::fromStdString(key)).arg(t.count);
            continue;
        }
        const OperatorRow& o = *h->second;
        if (qint64(o.count) != t.count || us(o.hostTotal) != t.total ||
            (selfTimes && us(theirSelf[key]) != t.self))
            differences << QStringLiteral("%1: calls %2/%3, CPU %4/%5, self CPU as they nest %6/%7 (ours %8)")
                               .arg(QString::fromStdString(key))
                               .arg(o.count)
                               .arg(t.count)
                               .arg(us(o.hostTotal))
                               .arg(t.total)
                               .arg(us(theirSelf[key]))
                               .arg(t.self)
                               .arg(us(o.hostSelf));
    }
    for (const auto& [key, row] : rows)
        if (!theirs.contains(key))
            differences << QStringLiteral("%1 is not theirs").arg(QString::fromStdString(key));
    QVERIFY2(differences.isEmpty(), qPrintable(differences.join('\n')));
    QVERIFY2(int(theirs.size()) >= minimumRows, qPrintable(QString::number(theirs.size())));
}

QTEST_APPLESS_MAIN(TestKeyAverages)
#include "tst_keyaverages.moc"
