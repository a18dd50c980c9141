// Golden summaries (the `kinetoscope-cli summary --json` document) of real traces.
#include "analysis/ops/hosttree.h"
#include "analysis/ops/summary.h"
#include "analysis/report/summaryformat.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

class TestSummary : public QObject {
    Q_OBJECT
  private slots:
    void golden_data();
    void golden();
    void definitions();
    void keyAveragesDefinitions_data();
    void keyAveragesDefinitions();
    void launchOwnerAndDelay();
};

void TestSummary::golden_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("golden");
    QTest::addColumn<bool>("byShape");
    QTest::newRow("torch.compile triton (MI300)")
        << "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz"
        << "torch_compile_triton.summary.json" << false;
    QTest::newRow("resnet50 legacy categories")
        << "pytorch__kineto/"
           "tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz"
        << "resnet50_tb_plugin.summary.json" << false;
    QTest::newRow("qwen on h100, memory events")
        << "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
        << "qwen_h100.summary.json" << false;
    QTest::newRow("distributed sampled rank")
        << "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz"
        << "sampled_rank0.summary.json" << false;
    QTest::newRow("cpu-only legacy torch 1.13") << "debian-torch/mlp_full.json"
                                                << "mlp_full.summary.json" << false;
    QTest::newRow("ddp resnet18 by shape")
        << "AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz"
        << "ddp_resnet18_by_shape.summary.json" << true;
}
void TestSummary::golden() {
    QFETCH(QString, trace);
    QFETCH(QString, golden);
    QFETCH(bool, byShape);
    const LoadResult r = loadTrace(test::tracePath(trace.toUtf8().constData()));
    QVERIFY(r.ok());
    const Summary s = summarize(*r.store, byShape ? OperatorGrouping::NameAndShape : OperatorGrouping::Name);
    const QString mismatch = test::compareGolden(golden, summaryToJson(s));
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
}

// Hand-checked definitions on a tiny trace: self times, device self/total through correlation.
void TestSummary::definitions() {
    const std::string json = R"([
 {"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"python_function","name":"py","pid":1,"tid":1,"ts":5,"dur":60},
 {"ph":"X","cat":"cpu_op","name":"inner","pid":1,"tid":1,"ts":10,"dur":30},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":5,"args":{"correlation":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":70,"dur":5,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":8,"args":{"correlation":1}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":80,"dur":4,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":8,"ts":82,"dur":4}])";
    const LoadResult r = test::loadText(json);
    QVERIFY(r.ok());
    const Summary s = summarize(*r.store);
    QCOMPARE(s.events, std::uint64_t(8));
    QCOMPARE(s.operators.size(), std::size_t(2));
    const OperatorRow& outer = s.operators[0];
    QCOMPARE(QString::fromStdString(outer.name), QString("outer"));
    QCOMPARE(outer.hostTotal, TimeNs(100000));
    // Direct children: inner (the python_function between them is not a host event) and the launch at 70.
    QCOMPARE(outer.hostSelf, TimeNs(65000));
    QCOMPARE(outer.deviceSelf, TimeNs(4000));
    QCOMPARE(outer.deviceTotal, TimeNs(12000));
    const OperatorRow& inner = s.operators[1];
    QCOMPARE(inner.deviceSelf, TimeNs(8000));
    QCOMPARE(inner.deviceTotal, TimeNs(8000));
    QCOMPARE(s.kernels.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(s.kernels[0].name), QString("k1"));
    QCOMPARE(s.kernels[1].count, std::uint64_t(2));
    QCOMPARE(s.kernels[1].min, TimeNs(4000));
    QCOMPARE(s.gpuBusy.at(0), TimeNs(8000 + 6000)); // [20,28] and the union [80,86]
}

// The definitions of docs/DEFINITIONS.md that follow key_averages(), one row per rule, on small hand-written
// traces whose figures are worked out in the comments. Each row: the trace, then (name, count, host self,
// device self, device total) in ns for one operator or annotation row.
void TestSummary::keyAveragesDefinitions_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("annotation");
    QTest::addColumn<qlonglong>("count");
    QTest::addColumn<qlonglong>("hostSelf");
    QTest::addColumn<qlonglong>("deviceSelf");
    QTest::addColumn<qlonglong>("deviceTotal");
    // aten::copy_ spends its time in cudaMemcpyAsync: self is 100 - 90; the copy it launched is its device
    // time.
    const QByteArray copy = R"json([
 {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":5,"dur":90,"args":{"correlation":1}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":10,"dur":60,"args":{"correlation":1}},
 {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":80,"dur":2,"args":{"correlation":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemsetAsync","pid":1,"tid":1,"ts":96,"dur":3,"args":{"correlation":2}}])json";
    QTest::newRow("runtime calls are children; copies and memsets are device time")
        << copy << "aten::copy_" << false << 1ll << 7000ll << 62000ll << 62000ll;
    // A Triton kernel launched through cuLaunchKernel (cuda_driver): the driver call is a child, its kernel
    // device time.
    const QByteArray driver = R"json([
 {"ph":"X","cat":"cpu_op","name":"triton_poi_fused_add_0","pid":1,"tid":1,"ts":0,"dur":50},
 {"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":10,"dur":20,"args":{"correlation":9}},
 {"ph":"X","cat":"kernel","name":"triton_poi_fused_add_0","pid":0,"tid":7,"ts":40,"dur":15,"args":{"correlation":9}}])json";
    QTest::newRow("driver launches count")
        << driver << "triton_poi_fused_add_0" << false << 1ll << 30000ll << 15000ll << 15000ll;
    // An operator whose only child has its name is one call (key_averages' _remove_dup_nodes): aten::div_
    // [0,100] holding aten::div_ [10,90] holding aten::mul [20,30] is one aten::div_ with self 100 - 10.
    const QByteArray dup = R"json([
 {"ph":"X","cat":"cpu_op","name":"aten::div_","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::div_","pid":1,"tid":1,"ts":10,"dur":80},
 {"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":20,"dur":10}])json";
    QTest::newRow("an only child of the same name merges")
        << dup << "aten::div_" << false << 1ll << 90000ll << 0ll << 0ll;
    // With a sibling it does not: the op calls itself and counts twice, self 100 - 80 - 5 and 80 - 10.
    const QByteArray recursive = R"json([
 {"ph":"X","cat":"cpu_op","name":"aten::div_","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::to","pid":1,"tid":1,"ts":2,"dur":5},
 {"ph":"X","cat":"cpu_op","name":"aten::div_","pid":1,"tid":1,"ts":10,"dur":80},
 {"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":20,"dur":10}])json";
    QTest::newRow("an op that calls itself counts twice")
        << recursive << "aten::div_" << false << 2ll << 85000ll << 0ll << 0ll;
    // Steps, optimizer and record_function ranges are annotations, grouped by name with the step number
    // folded.
    const QByteArray steps = R"json([
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":40,"dur":10,"args":{"correlation":3}},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":60,"dur":30,"args":{"correlation":3}},
 {"ph":"X","cat":"cpu_op","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":50}])json";
    QTest::newRow("steps are annotations, grouped")
        << steps << "ProfilerStep#*" << true << 2ll << 120000ll << 30000ll << 30000ll;
    // Equal starts: the longer slice is the parent, whatever the file order.
    const QByteArray ties = R"json([
 {"ph":"X","cat":"cpu_op","name":"inner","pid":1,"tid":1,"ts":0,"dur":40},
 {"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":0,"dur":100}])json";
    QTest::newRow("equal starts: the longer is the parent")
        << ties << "outer" << false << 1ll << 60000ll << 0ll << 0ll;
}

void TestSummary::keyAveragesDefinitions() {
    QFETCH(QByteArray, json);
    QFETCH(QString, name);
    QFETCH(bool, annotation);
    QFETCH(qlonglong, count);
    QFETCH(qlonglong, hostSelf);
    QFETCH(qlonglong, deviceSelf);
    QFETCH(qlonglong, deviceTotal);
    const LoadResult r = test::loadText(json.toStdString());
    QVERIFY(r.ok());
    const Summary s = summarize(*r.store);
    const std::vector<OperatorRow>& rows = annotation ? s.annotations : s.operators;
    const OperatorRow* row = nullptr;
    for (const OperatorRow& o : rows)
        if (QString::fromStdString(o.name) == name) row = &o;
    QVERIFY2(row, qPrintable(name));
    QCOMPARE(qlonglong(row->count), count);
    QCOMPARE(qlonglong(row->hostSelf), hostSelf);
    QCOMPARE(qlonglong(row->deviceSelf), deviceSelf);
    QCOMPARE(qlonglong(row->deviceTotal), deviceTotal);
    for (const OperatorRow& o : annotation ? s.operators : s.annotations)
        QVERIFY(QString::fromStdString(o.name) != name);
}

// The operator a kernel's details name (the owner of its launch call, through a Python frame and a nested
// driver call) and its launch delay: max(0, kernel start - end of the launch call).
void TestSummary::launchOwnerAndDelay() {
    const LoadResult r = test::loadText(R"json([
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"python_function","name":"helper.py(3): f","pid":1,"tid":1,"ts":5,"dur":90},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":30,"args":{"correlation":1}},
 {"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":12,"dur":20,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":55,"dur":5,"args":{"correlation":1}},
 {"ph":"X","cat":"kernel","name":"early","pid":0,"tid":7,"ts":30,"dur":5,"args":{"correlation":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":200,"dur":5,"args":{"correlation":3}},
 {"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":210,"dur":5,"args":{"correlation":3}}])json");
    QVERIFY(r.ok());
    const TraceStore& store = *r.store;
    auto kernelNamed = [&](std::string_view name) {
        for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti)
            for (std::uint32_t row = 0; row < store.tracks()[ti].sliceCount(); ++row)
                if (store.nameOf({TrackId(ti), EventIndex(row)}) == name)
                    return EventRef{TrackId(ti), EventIndex(row)};
        return EventRef{};
    };
    for (const char* k : {"late", "early"}) {
        const EventRef kernel = kernelNamed(k);
        const auto launch = store.launchOf(kernel);
        QVERIFY(launch);
        const auto op = launchingOperator(store, *launch);
        QVERIFY(op);
        QCOMPARE(QString::fromUtf8(store.nameOf(*op).data(), qsizetype(store.nameOf(*op).size())),
                 QString("aten::mm"));
        QCOMPARE(launchDelay(store, kernel, *launch), TimeNs(std::string_view(k) == "late" ? 15000 : 0));
    }
    const auto orphanLaunch = store.launchOf(kernelNamed("orphan"));
    QVERIFY(orphanLaunch);
    QVERIFY(!launchingOperator(store, *orphanLaunch));
}

QTEST_GUILESS_MAIN(TestSummary)
#include "tst_summary.moc"
