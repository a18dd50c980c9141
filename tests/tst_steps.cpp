// Steps (core/analysis/ops/steps): the TensorBoard plugin's ProfilerStep ranges, exactly. The real traces'
// expected ranges are what the plugin itself printed (../shared/tools/tbref, kineto's torch_tb_profiler); the
// synthetic traces show each of its rules alone: GPU work launched before the first step, a launch straddling
// a step's boundary, tail steps without GPU work, and a last step that launched under 80% of the one before.
#include "analysis/ops/steps.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

class TestSteps : public QObject {
    Q_OBJECT
  private slots:
    void pluginRanges_data();
    void pluginRanges();
    void rules_data();
    void rules();
};

namespace {

// A host thread (pid 100) with ProfilerStep ranges and cudaLaunchKernel calls, its kernels on GPU 0 stream 7.
struct StepTrace {
    std::string events;
    int correlation = 1;
    void add(const std::string& e) { events += (events.empty() ? "" : ",\n") + e; }
    void slice(const char* cat, const std::string& name, int ts, int dur, int pid, int tid,
               const std::string& args = "{}") {
        add("{\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"name\":\"" + name +
            "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
            ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + ",\"args\":" + args + "}");
    }
    void step(int n, int ts, int dur) {
        slice("user_annotation", "ProfilerStep#" + std::to_string(n), ts, dur, 100, 100);
    }
    // A launch call on the host over [launchTs, launchTs + launchDur] and its kernel on the GPU at [ts, ts +
    // dur].
    void kernel(int launchTs, int launchDur, int ts, int dur, const char* launchCat = "cuda_runtime") {
        const std::string corr = std::to_string(correlation++);
        slice(launchCat, "cudaLaunchKernel", launchTs, launchDur, 100, 100, "{\"correlation\":" + corr + "}");
        slice("kernel", "k", ts, dur, 0, 7, "{\"correlation\":" + corr + ",\"device\":0,\"stream\":7}");
    }
    // GPU work no host call launched (its launch was not captured).
    void orphanKernel(int ts, int dur) {
        slice("kernel", "orphan", ts, dur, 0, 7, "{\"device\":0,\"stream\":7}");
    }
    std::string json() const { return "{\"schemaVersion\":1,\"traceEvents\":[\n" + events + "\n]}"; }
};

using Ranges = QList<QPair<qint64, qint64>>; // [start, end] in µs

Ranges stepsOf(const TraceStore& store, QStringList* names = nullptr) {
    Ranges out;
    for (const StepRange& s : findSteps(store)) {
        out.append({s.start / 1000, s.end / 1000});
        if (names) *names << QString::fromStdString(stepLabel(store, s));
    }
    return out;
}

} // namespace

void TestSteps::pluginRanges_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<QList<double>>(
        "pluginBounds"); // start, end of each step in µs, as the plugin printed them
    // Step 0 starts after GPU work queued before it (no step launched it) has ended: 157 ms later than its
    // host range.
    QTest::newRow("HTA trace_compare base")
        << "facebookresearch__HolisticTraceAnalysis/tests__data__trace_compare__base__base.json.gz"
        << QStringList{"ProfilerStep#1009", "ProfilerStep#1010"}
        << QList<double>{1661938466422360, 1661938466422495, 1661938466422495, 1661938466539623};
    QTest::newRow("Qwen H100, step 6 starts 14 ms after its host range")
        << test::traces::qwenH100 << QStringList{"ProfilerStep#6"}
        << QList<double>{1428625746091.72, 1428625781275.082};
    QTest::newRow("HTA negative_queue_length, step 550 3.2 ms later")
        << "facebookresearch__HolisticTraceAnalysis/"
           "tests__data__negative_queue_length_values_check__rank0.json.gz"
        << QStringList{"ProfilerStep#550", "ProfilerStep#551", "ProfilerStep#552", "ProfilerStep#553",
                       "ProfilerStep#554"}
        << QList<double>{1683564901551949, 1683564901920360, 1683564901920360, 1683564902135930,
                         1683564902135930, 1683564902352447, 1683564902352447, 1683564902568658,
                         1683564902568658, 1683564902781176};
    // The tail step launched under 80% of what step 1 launched: dropped.
    QTest::newRow("HTA MI250 (ROCm), tail step dropped")
        << test::traces::htaMi250 << QStringList{"ProfilerStep#1"}
        << QList<double>{4203669603187.439, 4203669612475.73};
    // The plugin's own 2020 sample (a bare event array, given to the plugin inside {"traceEvents": ...}): the
    // GPU work queued before step 5 no longer counts as its, 31.8 ms; the averaged breakdown is then the
    // plugin's to the microsecond (kernel 99,260.667 µs per step, where ours read 104,396.333).
    QTest::newRow("TensorBoard's 2020 ResNet-50 sample")
        << test::traces::resnet2020 << QStringList{"ProfilerStep#5", "ProfilerStep#6", "ProfilerStep#7",
                                                   "ProfilerStep#8", "ProfilerStep#9", "ProfilerStep#10"}
        << QList<double>{1606910596328920, 1606910596508300, 1606910596508394, 1606910596719506,
                         1606910596719621, 1606910596930432, 1606910596930542, 1606910597147341,
                         1606910597147443, 1606910597367900, 1606910597368000, 1606910597580280};
    QTest::newRow("TensorBoard's ResNet-50 sample")
        << "pytorch__kineto/"
           "tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz"
        << QStringList{"ProfilerStep#16", "ProfilerStep#17", "ProfilerStep#18",
                       "ProfilerStep#19", "ProfilerStep#20", "ProfilerStep#21"}
        << QList<double>{1623143093496582, 1623143093668354, 1623143093668354, 1623143093817907,
                         1623143093817907, 1623143093967710, 1623143093967710, 1623143094117242,
                         1623143094117242, 1623143094271585, 1623143094271585, 1623143094426050};
}

void TestSteps::pluginRanges() {
    QFETCH(QString, trace);
    QFETCH(QStringList, names);
    QFETCH(QList<double>, pluginBounds);
    LoadResult r = loadTrace(test::tracePath(trace.toUtf8().constData()));
    QVERIFY2(r.ok(), r.error.c_str());
    QStringList ourNames;
    const Ranges ours = stepsOf(*r.store, &ourNames);
    QCOMPARE(ourNames, names);
    QCOMPARE(qsizetype(ours.size() * 2), pluginBounds.size());
    for (qsizetype i = 0; i < ours.size(); ++i) {
        // The plugin holds µs as doubles; ours are the file's ns: equal within 1 µs.
        QVERIFY2(std::abs(double(ours[i].first) - pluginBounds[2 * i]) <= 1.0,
                 qPrintable(QStringLiteral("step %1 starts at %2, the plugin's at %3")
                                .arg(i)
                                .arg(ours[i].first)
                                .arg(pluginBounds[2 * i], 0, 'f', 3)));
        QVERIFY2(std::abs(double(ours[i].second) - pluginBounds[2 * i + 1]) <= 1.0,
                 qPrintable(QStringLiteral("step %1 ends at %2, the plugin's at %3")
                                .arg(i)
                                .arg(ours[i].second)
                                .arg(pluginBounds[2 * i + 1], 0, 'f', 3)));
    }
}

void TestSteps::rules_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<Ranges>("expected");
    {
        // Activation checkpointing's recompute, or warm-up: a kernel launched before step 0 runs into it.
        // Step 0 starts when that kernel ends, not at its host start.
        StepTrace t;
        t.kernel(10, 5, 20, 280); // launched before any step, runs until 300
        t.step(1, 100, 400);
        t.kernel(150, 5, 310, 50); // step 0's first GPU work starts at 310
        t.step(2, 500, 400);
        t.kernel(550, 5, 600, 50);
        QTest::newRow("GPU work before the first step")
            << QString::fromStdString(t.json()) << Ranges{{300, 500}, {500, 900}};
    }
    {
        // Work that ends after step 0's own GPU work began does not move the start.
        StepTrace t;
        t.kernel(10, 5, 20, 300); // ends at 320, after step 0's first kernel starts (310)
        t.step(1, 100, 400);
        t.kernel(150, 5, 310, 50);
        t.step(2, 500, 400);
        t.kernel(550, 5, 600, 50);
        QTest::newRow("earlier work still running")
            << QString::fromStdString(t.json()) << Ranges{{100, 500}, {500, 900}};
    }
    {
        // GPU work whose launch was not captured counts for no step, so it moves step 0's start too.
        StepTrace t;
        t.orphanKernel(50, 200);
        t.step(1, 100, 400);
        t.kernel(150, 5, 310, 50);
        t.step(2, 500, 400);
        t.kernel(550, 5, 600, 50);
        QTest::newRow("GPU work without a launch")
            << QString::fromStdString(t.json()) << Ranges{{250, 500}, {500, 900}};
    }
    {
        // A launch call that straddles step 1's end launches for no step: step 1 is not extended to its
        // kernel.
        StepTrace t;
        t.step(1, 100, 400);
        t.kernel(150, 5, 200, 50);
        t.kernel(495, 10, 1200, 50); // 495..505 straddles 500
        t.step(2, 500, 400);
        t.kernel(550, 5, 600, 50);
        QTest::newRow("a launch straddling a boundary")
            << QString::fromStdString(t.json()) << Ranges{{100, 500}, {500, 900}};
    }
    {
        // A driver-level launch (cuLaunchKernel) is not one of the plugin's runtime calls.
        StepTrace t;
        t.step(1, 100, 400);
        t.kernel(150, 5, 200, 50);
        t.kernel(160, 5, 700, 50, "cuda_driver");
        t.step(2, 500, 400);
        t.kernel(550, 5, 600, 50);
        QTest::newRow("driver launches count for no step")
            << QString::fromStdString(t.json()) << Ranges{{100, 500}, {500, 900}};
    }
    {
        // Steps whose GPU work the profiler never saw are dropped from the tail.
        StepTrace t;
        t.step(1, 100, 400);
        t.kernel(150, 5, 550, 100); // runs past step 1's host end
        t.step(2, 500, 400);
        t.kernel(550, 5, 700, 50);
        t.step(3, 900, 100);
        t.step(4, 1000, 100);
        QTest::newRow("tail steps without GPU work")
            << QString::fromStdString(t.json()) << Ranges{{100, 650}, {650, 900}};
    }
    {
        // The last step that launched anything launched under 80% of the one before: dropped as incomplete.
        StepTrace t;
        t.step(1, 100, 400);
        for (int i = 0; i < 5; ++i)
            t.kernel(150 + 10 * i, 5, 200 + 20 * i, 10);
        t.step(2, 500, 400);
        for (int i = 0; i < 3; ++i)
            t.kernel(550 + 10 * i, 5, 600 + 20 * i, 10);
        QTest::newRow("a short last step") << QString::fromStdString(t.json()) << Ranges{{100, 500}};
    }
    {
        // No step launched GPU work: the host ranges as they are, none dropped.
        StepTrace t;
        t.orphanKernel(50, 200);
        t.step(1, 100, 400);
        t.step(2, 500, 400);
        QTest::newRow("no GPU work in any step")
            << QString::fromStdString(t.json()) << Ranges{{100, 500}, {500, 900}};
    }
}

void TestSteps::rules() {
    QFETCH(QString, json);
    QFETCH(Ranges, expected);
    LoadResult r = test::loadText(json.toStdString());
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(stepsOf(*r.store), expected);
}

QTEST_GUILESS_MAIN(TestSteps)
#include "tst_steps.moc"
