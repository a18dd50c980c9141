// Inductor's provenance mappings (core/analysis/compiled/provenance.h) on the real file of the GPU run's
// three-layer compile (tests/data/gpu/compiled_3layers: TORCH_COMPILE_DEBUG=1 INDUCTOR_PROVENANCE=1,
// PyTorch 2.11, the forward graph), and each launch of that run's trace joined to its own call: the forward
// graph launches 16 Triton kernels 35 times a call, one kernel once per layer, each call with its own nodes.
#include "analysis/compiled/inductor.h"
#include "analysis/compiled/kernelsources.h"
#include "analysis/compiled/provenance.h"
#include "analysis/report/analysisresult.h"
#include "analysis/report/summaryformat.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace kinetoscope;

class TestProvenance : public QObject {
    Q_OBJECT
  private slots:
    void realFile_data();
    void realFile();
    void malformed_data();
    void malformed();
    void eachLaunchItsCall();
    void summaryJson();
};

namespace {

const std::string debugData = std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/compiled_3layers/";

InductorProvenance realProvenance() {
    const FxGraphLines graph =
        parseFxGraphReadable(test::readText(debugData + "model__0_forward_1.0__fx_graph_readable.py.gz"));
    std::string error;
    auto p = parseInductorProvenance(
        test::readText(debugData +
                       "model__0_forward_1.0__inductor_provenance_tracking_node_mappings.json.gz"),
        graph, &error);
    if (!p) qFatal("provenance: %s", error.c_str());
    return *p;
}

QStringList qstrings(const std::vector<std::string>& items) {
    QStringList out;
    for (const std::string& s : items)
        out << QString::fromStdString(s);
    return out;
}

} // namespace

void TestProvenance::realFile_data() {
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QList<int>>("handles");
    QTest::addColumn<int>("call");              // one call checked in detail (index into handles)
    QTest::addColumn<QStringList>("postNodes"); // its post-grad nodes, as the file lists them
    QTest::addColumn<QStringList>("preNodes");
    QTest::addColumn<QList<int>>("lines"); // its model lines (tests/gpu/transformer.py)
    // The attention projection's weight cast: one kernel, six calls (two a layer), each its own layer's.
    QTest::newRow("weight cast, layer 1 down")
        << "triton_poi_fused__to_copy_4" << QList<int>{7, 15, 23, 31, 39, 47} << 1
        << QStringList{"convert_element_type_19"} << QStringList{"linear_3"} << QList<int>{42};
    QTest::newRow("weight cast, layer 3 proj")
        << "triton_poi_fused__to_copy_4" << QList<int>{7, 15, 23, 31, 39, 47} << 4
        << QStringList{"convert_element_type_54"} << QStringList{"linear_9"} << QList<int>{41};
    // The first kernel: the embedding, the position and the first LayerNorm, fused; one call.
    QTest::newRow("embedding and norm")
        << "triton_per_fused__to_copy_add_embedding_native_layer_norm_0" << QList<int>{1} << 0
        << QStringList{"embedding", "var_mean", "add", "rsqrt", "add_1", "convert_element_type_2",
                       "add_2",     "mul_1",    "mul", "sub"}
        << QStringList{"embedding", "layer_norm", "x", "linear"} << QList<int>{55, 38};
    // GELU of each layer's MLP.
    QTest::newRow("gelu, layer 2") << "triton_poi_fused_gelu_view_8" << QList<int>{13, 29, 45} << 1
                                   << QStringList{"convert_element_type_42",
                                                  "mul_13",
                                                  "mul_11",
                                                  "convert_element_type_41",
                                                  "view_21",
                                                  "add_13",
                                                  "erf_1",
                                                  "mul_12"}
                                   << QStringList{"gelu_1", "linear_6"} << QList<int>{42};
    // Library calls are numbered with the kernels: cuBLAS's addmm, twelve times.
    QTest::newRow("addmm") << "extern_kernels.addmm"
                           << QList<int>{4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48} << 11
                           << QStringList{"addmm_11"} << QStringList{"linear_11"} << QList<int>{42};
}

void TestProvenance::realFile() {
    QFETCH(QString, kernel);
    QFETCH(QList<int>, handles);
    QFETCH(int, call);
    QFETCH(QStringList, postNodes);
    QFETCH(QStringList, preNodes);
    QFETCH(QList<int>, lines);
    static const InductorProvenance p = realProvenance();
    QCOMPARE(p.malformed, 0u);
    std::size_t entries = 0;
    for (const auto& [k, calls] : p.calls)
        entries += calls.size();
    QCOMPARE(entries, std::size_t(51)); // every `name:N` of cppCodeToPost
    const auto* calls = p.callsOf(kernel.toStdString());
    QVERIFY(calls);
    QList<int> got;
    for (const ProvenanceCall& c : *calls)
        got << c.handle;
    QCOMPARE(got, handles);
    const ProvenanceCall& c = (*calls)[std::size_t(call)];
    QCOMPARE(qstrings(c.postNodes), postNodes);
    QCOMPARE(qstrings(c.preNodes), preNodes);
    QList<int> gotLines;
    for (const ModelLine& m : c.modelLines) {
        QVERIFY2(m.file.ends_with("tests/gpu/transformer.py"), m.file.c_str());
        gotLines << m.line;
    }
    QCOMPARE(gotLines, lines);
}

void TestProvenance::malformed_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<bool>("read");
    QTest::addColumn<int>("calls");
    QTest::addColumn<int>("malformed");
    QTest::newRow("not JSON") << "{\"cppCodeToPost\": {" << false << 0 << 0;
    QTest::newRow("no cppCodeToPost") << "{\"preToPost\": {}}" << false << 0 << 0;
    QTest::newRow("cppCodeToPost not an object") << "{\"cppCodeToPost\": []}" << false << 0 << 0;
    QTest::newRow("empty") << "{\"cppCodeToPost\": {}}" << true << 0 << 0;
    QTest::newRow("bad keys and values")
        << "{\"cppCodeToPost\": {\"k\": [\"a\"], \"k:0\": [\"a\"], \"k:1x\": [\"a\"], \":3\": [\"a\"], "
           "\"k:-2\": [\"a\"], \"k:4\": \"a\", \"k:5\": [1], \"k:99999999999\": [\"a\"], \"k:2\": [\"a\"]}}"
        << true << 1 << 8;
    QTest::newRow("postToPre wrong, nodes kept")
        << "{\"cppCodeToPost\": {\"k:1\": [\"a\", \"b\"]}, \"postToPre\": {\"a\": \"x\", \"b\": [2]}}" << true
        << 1 << 0;
}

void TestProvenance::malformed() {
    QFETCH(QString, json);
    QFETCH(bool, read);
    QFETCH(int, calls);
    QFETCH(int, malformed);
    std::string error;
    const auto p = parseInductorProvenance(json.toStdString(), FxGraphLines{}, &error);
    QCOMPARE(p.has_value(), read);
    if (!p) {
        QVERIFY(!error.empty());
        return;
    }
    std::size_t n = 0;
    for (const auto& [k, c] : p->calls)
        n += c.size();
    QCOMPARE(int(n), calls);
    QCOMPARE(int(p->malformed), malformed);
}

// The trace of the same run with its debug folder: every launch of a forward kernel in each of the three
// forward graph calls is the call of the same place in the provenance (as many launches a call as calls),
// and its nodes are that layer's.
void TestProvenance::eachLaunchItsCall() {
    QTemporaryDir dir;
    const LoadResult r = loadTrace(test::writeCompiled3LayersDebugFolder(dir.path().toStdString()));
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& store = *r.store;
    const KernelSourceSearch s = findKernelSources(store, dir.path().toStdString(), {});
    int kernelsWithCalls = 0;
    for (const KernelSource& k : s.found)
        kernelsWithCalls += !k.calls.empty();
    QCOMPARE(kernelsWithCalls, 16); // the forward graph's Triton kernels (the backward has no mapping)

    std::map<EventRef, int> launchesPerCall;
    int joined = 0;
    QStringList layerCasts; // triton_poi_fused__to_copy_4's launches in the first forward call
    EventRef firstCall;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t row = 0; row < t.sliceCount(); ++row) {
            const std::string name(store.strings().view(t.names[row]));
            if (!name.starts_with("triton_") ||
                store.categories()[t.categories[row]].kind != CategoryKind::CpuOp)
                continue;
            const EventRef launch{TrackId(ti), EventIndex(row)};
            const TritonLaunch args = tritonLaunchAt(store, launch);
            const KernelSource* k = s.find(name, args.kernelHash);
            QVERIFY2(k, name.c_str());
            if (k->calls.empty()) continue; // a backward kernel
            const auto in = launchInGraphCall(store, launch);
            QVERIFY2(in, name.c_str());
            QCOMPARE(in->count, k->calls.size());
            QVERIFY(in->ordinal < in->count);
            ++launchesPerCall[in->graphCall];
            ++joined;
            if (!firstCall.isValid()) firstCall = in->graphCall;
            if (name == "triton_poi_fused__to_copy_4" && in->graphCall == firstCall)
                layerCasts << QString::number(in->ordinal) + " " +
                                  qstrings(k->calls[in->ordinal].preNodes).join(",");
        }
    }
    QCOMPARE(launchesPerCall.size(), std::size_t(3)); // three forward calls (three ProfilerSteps)
    for (const auto& [call, n] : launchesPerCall)
        QCOMPARE(n, 35);
    QCOMPARE(joined, 105);
    layerCasts.sort();
    QCOMPARE(layerCasts, (QStringList{"0 linear_1", "1 linear_3", "2 linear_5", "3 linear_7", "4 linear_9",
                                      "5 linear_11"}));
}

// `summary --json --inductor-dir` writes each kernel's calls.
void TestProvenance::summaryJson() {
    QTemporaryDir dir;
    const LoadResult r = loadTrace(test::writeCompiled3LayersDebugFolder(dir.path().toStdString()));
    QVERIFY2(r.ok(), r.error.c_str());
    auto report = computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    QVERIFY(report->inductor.hasTriton);
    report->inductor.sources = findKernelSources(*r.store, dir.path().toStdString(), {});
    const QJsonObject root =
        QJsonDocument::fromJson(QByteArray::fromStdString(summaryToJson(report->summary, report.get())))
            .object();
    const QJsonArray sources = root["inductor"].toObject()["kernel_sources"].toArray();
    QVERIFY(!sources.isEmpty());
    int withCalls = 0;
    for (const QJsonValue& v : sources) {
        const QJsonObject k = v.toObject();
        if (k["name"].toString() != "triton_poi_fused_gelu_view_8") {
            withCalls += k.contains("calls");
            continue;
        }
        ++withCalls;
        const QJsonArray calls = k["calls"].toArray();
        QCOMPARE(calls.size(), 3);
        const QJsonObject third = calls[2].toObject();
        QCOMPARE(third["handle"].toInt(), 45);
        QCOMPARE(third["pre_nodes"].toArray(), (QJsonArray{"gelu_2", "linear_10"}));
        QCOMPARE(third["post_nodes"].toArray().size(), 8);
        QCOMPARE(third["model_lines"].toArray().first().toObject()["line"].toInt(), 42);
    }
    QCOMPARE(withCalls, 16);
}

QTEST_GUILESS_MAIN(TestProvenance)
#include "tst_provenance.moc"
