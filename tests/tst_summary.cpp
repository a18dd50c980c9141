// Golden summaries (the `kinetoscope-cli summary --json` document) of real traces.
#include "analysis/summary.h"
#include "analysis/summaryformat.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

class TestSummary : public QObject {
    Q_OBJECT
private slots:
    void golden_data();
    void golden();
    void definitions();
};


void TestSummary::golden_data() {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QString>("golden");
        QTest::addColumn<bool>("byShape");
        QTest::newRow("torch.compile triton (MI300)") << "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz"
                                                       << "torch_compile_triton.summary.json" << false;
        QTest::newRow("resnet50 legacy categories") << "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz"
                                                    << "resnet50_tb_plugin.summary.json" << false;
        QTest::newRow("qwen on h100, memory events") << "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
                                                     << "qwen_h100.summary.json" << false;
        QTest::newRow("distributed sampled rank") << "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz"
                                                  << "sampled_rank0.summary.json" << false;
        QTest::newRow("cpu-only legacy torch 1.13") << "debian-torch/mlp_full.json" << "mlp_full.summary.json" << false;
        QTest::newRow("ddp resnet18 by shape") << "AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz"
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
        QCOMPARE(outer.hostSelf, TimeNs(70000)); // the python_function between them is not an operator
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

QTEST_GUILESS_MAIN(TestSummary)
#include "tst_summary.moc"
