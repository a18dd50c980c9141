// TorchInductor's generated code read as text (core/analysis/compiled/inductorcode.h, kernelsources.h): the
// real compiled modules and kernel file of tests/data/inductor (PyTorch 2.0 to 2.7, README there), each
// kernel's source lines, what it fused and its launch; and finding a trace's kernels in them. No trace of the
// corpus was made by the same run as any of these files, so the finder's test pairs the real Llama code with
// a small trace written here on purpose, whose launch events carry that run's kernel names and cache paths.
#include "analysis/compiled/fxgraph.h"
#include "analysis/compiled/inductor.h"
#include "analysis/compiled/inductorcode.h"
#include "analysis/compiled/kernelsources.h"
#include "analysis/report/analysisresult.h"
#include "analysis/report/summaryformat.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <set>

using namespace kinetoscope;

class TestInductorCode : public QObject {
    Q_OBJECT
  private slots:
    void realCode_data();
    void realCode();
    void writtenOutKernels();
    void malformed();
    void findSources();
    void sameRunCode();
    void fxGraphLines_data();
    void fxGraphLines();
    void debugFolderModelLines();
};

namespace {

std::string dataFile(const char* name) {
    return std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/inductor/" + name;
}

// Line `n` (1-based) of `text`.
std::string_view lineOf(std::string_view text, int n) {
    std::size_t at = 0;
    for (int i = 1; i < n; ++i)
        at = text.find('\n', at) + 1;
    return text.substr(at, text.find('\n', at) - at);
}

const char* const llamaModule = "output_code_pt27_llama_fwd.py.gz";
const char* const llamaKernelFile = "kernel_triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_8.py.gz";
const char* const rmsNorm8 = "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_8";

} // namespace

void TestInductorCode::realCode_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("kernels");
    QTest::addColumn<QString>("kernel");     // one kernel checked in detail
    QTest::addColumn<QString>("kernelPath"); // its `# kernel path:` (its end)
    QTest::addColumn<QStringList>("fxNodes");
    QTest::addColumn<QStringList>("atenOps");
    QTest::addColumn<int>("mappings");      // its node-to-ATen lines
    QTest::addColumn<int>("fragmentLines"); // its graph fragment's lines
    QTest::addColumn<QString>("heuristic");
    QTest::addColumn<QString>("launchStart");     // its launch in `call`
    QTest::addColumn<QString>("firstSourceLine"); // its source's first line, trimmed
    QTest::addColumn<QString>("externKernel");    // a library call of `call`, or empty
    QTest::addColumn<bool>("kernelFile");
    // 2.0: no kernel path, no comments; the kernel file's Triton function is `triton_`, the module's name
    // `triton__0`; a 2.0 decorator `@pointwise(`.
    QTest::newRow("2.0 sin add") << "output_code_pt20_sin_add.py.gz" << 1 << "triton__0"
                                 << "" << QStringList{} << QStringList{} << 0 << 0 << "pointwise"
                                 << "triton__0.run(arg0_1, arg1_1, buf0, 10000"
                                 << "import triton"
                                 << "" << false;
    // 2.1 nightly: `# Original ATen: aten.convolution` without brackets, `# aten.convolution => convolution`.
    QTest::newRow("2.1 conv") << "output_code_pt21dev_conv.py.gz" << 1 << "triton_poi_fused_convolution_0"
                              << "7t/c7tvcnixt3jjxvlenrc4ugkiejksz24vdxtttnedtqqjq47jcna7.py" << QStringList{}
                              << QStringList{"aten.convolution"} << 1 << 0 << "pointwise"
                              << "triton_poi_fused_convolution_0.run(buf1, primals_2, 32768"
                              << "import triton"
                              << "extern_kernels.convolution" << false;
    // 2.3: `# Source Nodes: [mul, y], Original ATen: [aten.mul, aten.sum]`.
    QTest::newRow("2.3 mul sum") << "output_code_pt23_mul_sum.py.gz" << 2 << "triton_per_fused_mul_sum_0"
                                 << "jv/cjvustgntx2ghl5s45uaseoghtwernnjy3uwiq3mojyvqaljjn5z.py"
                                 << QStringList{"mul", "y"} << QStringList{"aten.mul", "aten.sum"} << 2 << 0
                                 << "persistent_reduction"
                                 << "triton_per_fused_mul_sum_0.run("
                                 << "import triton"
                                 << "" << false;
    // 2.6: topologically sorted source nodes, the mapping under its heading, the graph fragment.
    QTest::newRow("2.6 lenet")
        << "output_code_pt26_lenet_bn.py.gz" << 8
        << "triton_per_fused__native_batch_norm_legit_functional_convolution_relu_0"
        << "sv/csvuzarx4a3apcmql3jfxywryrluhzp7jpg2mhktf5asm5vmg7xq.py"
        << QStringList{"out", "out_1", "out_2"}
        << QStringList{"aten.convolution", "aten._native_batch_norm_legit_functional", "aten.relu"} << 3 << 18
        << "persistent_reduction"
        << "triton_per_fused__native_batch_norm_legit_functional_convolution_relu_0.run(buf4, arg1_1"
        << "import triton"
        << "extern_kernels.convolution" << false;
    // 2.7: launches without a grid; a Llama forward's RMSNorm.
    QTest::newRow("2.7 llama") << llamaModule << 10 << rmsNorm8
                               << "ir/cirveghol7wjrq7zwkkgu3sphruzjhq4ru5zcvmudgaexdo5niag.py"
                               << QStringList{} << QStringList{} << -1 << -1 << "reduction"
                               << QString(rmsNorm8) + ".run("
                               << "import triton"
                               << "extern_kernels.mm" << false;
    // The same run's cache file of that kernel: one kernel, its source the whole file from the decorator.
    QTest::newRow("2.7 kernel file") << llamaKernelFile << 1 << rmsNorm8 << "" << QStringList{}
                                     << QStringList{} << 0 << 0 << "reduction"
                                     << ""
                                     << "@triton_heuristics.reduction("
                                     << "" << true;
}

void TestInductorCode::realCode() {
    QFETCH(QString, file);
    QFETCH(int, kernels);
    QFETCH(QString, kernel);
    QFETCH(QString, kernelPath);
    QFETCH(QStringList, fxNodes);
    QFETCH(QStringList, atenOps);
    QFETCH(int, mappings);
    QFETCH(int, fragmentLines);
    QFETCH(QString, heuristic);
    QFETCH(QString, launchStart);
    QFETCH(QString, firstSourceLine);
    QFETCH(QString, externKernel);
    QFETCH(bool, kernelFile);
    const std::string text = test::readText(dataFile(file.toStdString().c_str()));
    QVERIFY(!text.empty());
    const InductorCode code = parseInductorCode(text);
    QCOMPARE(int(code.kernels.size()), kernels);
    QCOMPARE(code.malformed, std::uint64_t(0));
    QCOMPARE(code.isKernelFile, kernelFile);
    const InductorKernelSource* k = code.find(kernel.toStdString());
    QVERIFY2(k, qPrintable(kernel));
    QVERIFY2(k->kernelPath.ends_with(kernelPath.toStdString()), k->kernelPath.c_str());
    QCOMPARE(k->kernelPath.empty(), kernelPath.isEmpty());
    if (mappings >= 0) { // the 2.7 module's RMSNorm comments are long: only their presence is checked below
        QStringList nodes, ops;
        for (const std::string& n : k->fxNodes)
            nodes << QString::fromStdString(n);
        for (const std::string& o : k->atenOps)
            ops << QString::fromStdString(o);
        QCOMPARE(nodes, fxNodes);
        QCOMPARE(ops, atenOps);
        QCOMPARE(int(k->nodeToAten.size()), mappings);
        QCOMPARE(int(k->graphFragment.size()), fragmentLines);
    } else {
        QVERIFY(!k->fxNodes.empty() && !k->atenOps.empty() && !k->nodeToAten.empty());
    }
    QCOMPARE(QString::fromStdString(k->heuristic), heuristic);
    QVERIFY2(k->launch.starts_with(launchStart.toStdString()), k->launch.c_str());
    // Its source: the lines are the bytes, the first is the one expected, the last is the kernel's last
    // statement, and the `def` of the kernel is inside.
    const std::string_view source =
        std::string_view(text).substr(k->sourceBegin, k->sourceEnd - k->sourceBegin);
    QCOMPARE(std::string(lineOf(text, k->firstLine)), std::string(lineOf(source, 1)));
    QCOMPARE(QString::fromStdString(std::string(lineOf(text, k->firstLine))).trimmed(), firstSourceLine);
    QVERIFY(source.find("@triton.jit") != std::string_view::npos);
    QVERIFY(source.find("'''") == std::string_view::npos);
    QVERIFY(k->lastLine > k->firstLine + 5);
    if (!externKernel.isEmpty())
        QVERIFY(std::find(code.externKernels.begin(), code.externKernels.end(), externKernel.toStdString()) !=
                code.externKernels.end());
    // Every kernel's source lies in the file, in order, and none overlaps the next.
    for (std::size_t i = 0; i < code.kernels.size(); ++i) {
        QVERIFY(code.kernels[i].sourceEnd <= text.size());
        if (i) QVERIFY(code.kernels[i - 1].lastLine < code.kernels[i].firstLine);
    }
}

// A module whose kernels are written out as `@triton.jit` functions (as benchmark datasets keep Inductor's
// output), comments, imports between, and the next top-level statement ending a kernel.
void TestInductorCode::writtenOutKernels() {
    const std::string text =
        "import torch\n"
        "# kernel path: /tmp/torchinductor_u/x7/cx7.py\n"
        "# Topologically Sorted Source Nodes: [x], Original ATen: [aten.avg_pool3d]\n"
        "# Source node to ATen node mapping:\n"
        "#   x => avg_pool3d\n"
        "from torch._inductor.runtime import triton_helpers\n"
        "triton_helpers.set_driver_to_gpu()\n"
        "\n"
        "@triton.jit\n"
        "def triton_poi_fused_avg_pool3d_0(in_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
        "    xoffset = tl.program_id(0) * XBLOCK\n"
        "\n"
        "    tl.store(out_ptr0 + (x2), tmp47, xmask)\n"
        "\n"
        "\n"
        "def call(args):\n"
        "    with torch.cuda._DeviceGuard(0):\n"
        "        triton_poi_fused_avg_pool3d_0[grid(16)](arg3_1, buf0, XBLOCK=128, num_warps=4)\n"
        "    return (buf1, )\n";
    const InductorCode code = parseInductorCode(text);
    QCOMPARE(int(code.kernels.size()), 1);
    const InductorKernelSource& k = code.kernels[0];
    QCOMPARE(k.name, std::string("triton_poi_fused_avg_pool3d_0"));
    QCOMPARE(k.firstLine, 9);
    QCOMPARE(k.lastLine, 13);
    QCOMPARE(k.atenOps, std::vector<std::string>{"aten.avg_pool3d"});
    QCOMPARE(k.nodeToAten.size(), std::size_t(1));
    QCOMPARE(k.launch,
             std::string("triton_poi_fused_avg_pool3d_0[grid(16)](arg3_1, buf0, XBLOCK=128, num_warps=4)"));
    QVERIFY(!code.isKernelFile); // it has a `call`
}

// Broken text: counted, never fatal, never a kernel out of the file.
void TestInductorCode::malformed() {
    const InductorCode open =
        parseInductorCode("triton_poi_x_0 = async_compile.triton('triton_', '''\nimport triton\n");
    QCOMPARE(int(open.kernels.size()), 0);
    QCOMPARE(open.malformed, std::uint64_t(1));
    const InductorCode noDef = parseInductorCode("@triton.jit\n");
    QCOMPARE(int(noDef.kernels.size()), 0);
    QCOMPARE(noDef.malformed, std::uint64_t(1));
    const InductorCode oneLine = parseInductorCode("k_0 = async_compile.triton('k', '''@triton.jit''')\n");
    QCOMPARE(int(oneLine.kernels.size()), 1);
    QCOMPARE(oneLine.kernels[0].firstLine, 1);
    // The quotes closed on the next line: an empty source, its lines the closing one (found by fuzzing).
    const InductorCode empty = parseInductorCode("k_0 = async_compile.triton('k', '\'\'\'\n\'\'\')\n");
    QCOMPARE(int(empty.kernels.size()), 1);
    QCOMPARE(empty.kernels[0].firstLine, 2);
    QCOMPARE(empty.kernels[0].lastLine, 2);
    QCOMPARE(empty.kernels[0].sourceBegin, empty.kernels[0].sourceEnd);
    QCOMPARE(parseInductorCode("").kernels.size(), std::size_t(0));
    QCOMPARE(parseInductorCode("'''\n'''\n#\n# kernel path:\n=> \n").kernels.size(), std::size_t(0));
}

// The finder: a trace made here on purpose for the real Llama run (its launch events name that run's kernels
// and cache files), and a folder laid out as that run's cache and debug output, under other names.
void TestInductorCode::findSources() {
    const LoadResult r = test::loadText(R"json([
 {"ph": "X", "cat": "cpu_op", "name": "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_8", "pid": 1, "tid": 1,
  "ts": 10, "dur": 20, "args": {"kernel_file": "/nowhere/torchinductor_u/ir/cirveghol7wjrq7zwkkgu3sphruzjhq4ru5zcvmudgaexdo5niag.py",
  "kernel_hash": "cirveghol7wjrq7zwkkgu3sphruzjhq4ru5zcvmudgaexdo5niag", "kernel_backend": "triton", "num_warps": 8,
  "num_stages": 1, "stream": 0, "kernel_kwargs": "XBLOCK=1,R0_BLOCK=2048"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 15, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_8", "pid": 0, "tid": 7,
  "ts": 40, "dur": 30, "args": {"correlation": 1, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused_mul_silu_7", "pid": 1, "tid": 1, "ts": 50, "dur": 20,
  "args": {"kernel_file": "/nowhere/torchinductor_u/zz/czz.py"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 55, "dur": 5,
  "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_mul_silu_7", "pid": 0, "tid": 7, "ts": 80, "dur": 30,
  "args": {"correlation": 2, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused_gone_0", "pid": 1, "tid": 1, "ts": 90, "dur": 20,
  "args": {"kernel_file": "/nowhere/torchinductor_u/gg/cgone.py"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 95, "dur": 5,
  "args": {"correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_gone_0", "pid": 0, "tid": 7, "ts": 120, "dur": 30,
  "args": {"correlation": 3, "stream": 7, "device": 0}}
])json");
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& store = *r.store;
    const TritonLaunch launch = tritonLaunchOf(store, rmsNorm8);
    QVERIFY(launch.event.isValid());
    QCOMPARE(launch.kernelHash, std::string("cirveghol7wjrq7zwkkgu3sphruzjhq4ru5zcvmudgaexdo5niag"));
    QCOMPARE(launch.numWarps, std::optional<std::int64_t>(8));
    QCOMPARE(launch.kernelKwargs, std::string("XBLOCK=1,R0_BLOCK=2048"));
    QVERIFY(!launch.numGb);

    QTemporaryDir dir;
    const std::filesystem::path root(dir.path().toStdString());
    const auto write = [&](const std::filesystem::path& p, const std::string& text) {
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
    };
    // Only the cache: kernel 8 by the cache's relative path, without what it fused; the others missing.
    write(root / "cache/ir/cirveghol7wjrq7zwkkgu3sphruzjhq4ru5zcvmudgaexdo5niag.py",
          test::readText(dataFile(llamaKernelFile)));
    KernelSourceSearch s = findKernelSources(store, (root / "cache").string(), {});
    QCOMPARE(int(s.found.size()), 1);
    QCOMPARE(s.found[0].kernel, std::string(rmsNorm8));
    QCOMPARE(s.found[0].foundBy, std::string("cache path"));
    QVERIFY(s.found[0].code.atenOps.empty());
    QCOMPARE(int(s.missing.size()), 2);
    QCOMPARE(s.missing[0].first, std::string("triton_poi_fused_gone_0"));
    QVERIFY2(s.missing[0].second.starts_with("/nowhere/torchinductor_u/gg/cgone.py; gg/cgone.py or "
                                             "triton_poi_fused_gone_0 under "),
             s.missing[0].second.c_str());
    // With the run's compiled module somewhere below, under another name: found by content, and it wins for
    // kernel 8 because it says what the kernel fused.
    write(root / "cache/debug/run_1/some_module.py", test::readText(dataFile(llamaModule)));
    write(root / "cache/unrelated.py", "print('not inductor')\n");
    s = findKernelSources(store, (root / "cache").string(), {});
    QCOMPARE(int(s.found.size()), 2);
    for (const KernelSource& k : s.found) {
        QCOMPARE(k.foundBy, std::string("content"));
        QVERIFY(k.file.ends_with("some_module.py"));
        QVERIFY(!k.code.atenOps.empty());
    }
    QCOMPARE(int(s.missing.size()), 1);
    // The module given directly, no folder.
    const std::string module = (root / "cache/debug/run_1/some_module.py").string();
    s = findKernelSources(store, {}, {module});
    QCOMPARE(int(s.found.size()), 2);
    QCOMPARE(s.found[0].foundBy, std::string("compiled module"));
    QCOMPARE(s.missing[0].second, std::string("/nowhere/torchinductor_u/gg/cgone.py"));

    // summary --json: the "inductor" block lists each found kernel and each missing one.
    auto report = computeAnalysis(store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    report->inductor.sources = s;
    const QJsonObject inductor =
        QJsonDocument::fromJson(QByteArray::fromStdString(summaryToJson(report->summary, report.get())))
            .object()["inductor"]
            .toObject();
    const QJsonArray found = inductor["kernel_sources"].toArray();
    QCOMPARE(found.size(), 2);
    const QJsonObject silu = found[0].toObject();
    QCOMPARE(silu["name"].toString(), QString("triton_poi_fused_mul_silu_7"));
    QCOMPARE(silu["file"].toString(), QString::fromStdString(module));
    QVERIFY(silu["aten_ops"].toArray().contains(QString("aten.silu")));
    QVERIFY(silu["first_line"].toInt() > 0 && silu["last_line"].toInt() > silu["first_line"].toInt());
    QCOMPARE(inductor["kernel_sources_missing"].toArray().size(), 1);
}

// The compiled trace and the code of the same run (tests/data/gpu, an H200, PyTorch 2.11): every Triton
// launch says where its kernel file is (kernel_file, kernel_hash) and what it moves (kernel_num_gb). Laid out
// as Inductor's cache held them, every kernel is found by the cache's path; with the run's two compiled
// modules (forward and backward) each is found with what it fused.
void TestInductorCode::sameRunCode() {
    const std::string gpu = std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/";
    const LoadResult r = loadTrace(gpu + "compiled.pt.trace.json.gz");
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& store = *r.store;
    QTemporaryDir dir;
    const std::filesystem::path cache = std::filesystem::path(dir.path().toStdString()) / "inductor";
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(gpu + "kernels")) {
        std::string name = entry.path().filename().string(); // <hash>.py.gz
        name.resize(name.size() - 3);
        const std::filesystem::path p = cache / name.substr(1, 2) / name; // the cache's <xx>/<hash>.py
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << test::readText(entry.path().string());
        ++files;
    }
    QCOMPARE(files, 33);
    KernelSourceSearch s = findKernelSources(store, cache.string(), {});
    QVERIFY2(s.missing.empty(), s.missing.empty() ? "" : s.missing.front().second.c_str());
    // 31 names, two of them (triton_poi_fused__to_copy_6 and _9) each a forward and a backward kernel of its
    // own hash: 33 kernels, each found in its own file.
    QCOMPARE(int(s.found.size()), 33);
    std::set<std::string> names;
    for (const KernelSource& k : s.found) {
        names.insert(k.kernel);
        QVERIFY2(std::filesystem::path(k.file).stem().string() == k.kernelHash,
                 qPrintable(QString::fromStdString(k.kernel + " " + k.kernelHash + " in " + k.file)));
        QCOMPARE(s.find(k.kernel, k.kernelHash), &k);
        QCOMPARE(k.foundBy, std::string("cache path"));
        QCOMPARE(k.code.name, k.kernel);
        QVERIFY(k.code.lastLine > k.code.firstLine);
        const TritonLaunch launch = tritonLaunchOf(store, k.kernel);
        QVERIFY2(launch.numGb && *launch.numGb > 0, k.kernel.c_str());
        QVERIFY(launch.numWarps && launch.numStages);
        QCOMPARE(launch.kernelBackend, std::string("triton"));
        QVERIFY(launch.kernelFile.ends_with(launch.kernelHash + ".py"));
    }
    std::vector<std::string> modules;
    for (const char* m : {"inductor_fwd/output_code.py.gz", "inductor_bwd/output_code.py.gz"}) {
        modules.push_back(
            (std::filesystem::path(dir.path().toStdString()) / (std::string(m, 12) + ".py")).string());
        std::ofstream(modules.back(), std::ios::binary) << test::readText(gpu + m);
    }
    QCOMPARE(int(names.size()), 31);
    s = findKernelSources(store, {}, modules);
    QVERIFY(s.missing.empty());
    QCOMPARE(int(s.found.size()), 33);
    for (const KernelSource& k : s.found) {
        QCOMPARE(k.foundBy, std::string("compiled module"));
        QVERIFY2(!k.code.atenOps.empty() && !k.code.fxNodes.empty(), k.kernel.c_str());
        // The module's own `# kernel path:` names the hash the launch carried.
        QCOMPARE(std::filesystem::path(k.code.kernelPath).stem().string(), k.kernelHash);
    }
    // One name, two graphs: the forward's kernel from the forward module, the backward's from the backward
    // one.
    std::set<std::string> moduleFiles;
    for (const KernelSource& k : s.found)
        if (k.kernel == "triton_poi_fused__to_copy_6") moduleFiles.insert(k.file);
    QCOMPARE(int(moduleFiles.size()), 2);
}

// fx_graph_readable.py's `# File:` comments: the nodes under one belong to its line, up to a blank line; a
// comment that cannot be read is counted and its nodes get no line.
void TestInductorCode::fxGraphLines_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("expected"); // "file:line|code", or empty: no line
    QTest::addColumn<int>("malformed");
    const QString graph =
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, primals_1: \"f32[4]\"):\n"
        "        # File: /m/model.py:55 in forward, code: x = self.embed(tokens) + self.pos\n"
        "        embedding: \"f32[8]\" = torch.ops.aten.embedding.default(primals_1, primals_2)\n"
        "        var_mean = torch.ops.aten.var_mean.correction(add, [2])\n"
        "        getitem: \"f32[8]\" = var_mean[0]\n"
        "\n"
        "        after_blank: \"f32[8]\" = torch.ops.aten.add.Tensor(x, y)\n"
        "        # File: /m/a:b.py:7 in <genexpr>, code: q = (y for y in z)\n"
        "        view_2: \"bf16[8]\" = torch.ops.aten.view.default(getitem_2, [8])\n"
        "        # File: /m/model.py:x in forward, code: broken\n"
        "        lost = torch.ops.aten.mul.Tensor(a, b)\n";
    QTest::newRow("annotated node") << graph << "embedding"
                                    << "/m/model.py:55|x = self.embed(tokens) + self.pos" << 1;
    QTest::newRow("node without a type") << graph << "var_mean"
                                         << "/m/model.py:55|x = self.embed(tokens) + self.pos" << 1;
    QTest::newRow("after a blank line") << graph << "after_blank"
                                        << "" << 1;
    QTest::newRow("a colon in the path") << graph << "view_2"
                                         << "/m/a:b.py:7|q = (y for y in z)" << 1;
    QTest::newRow("under a broken comment") << graph << "lost"
                                            << "" << 1;
    QTest::newRow("not a node") << graph << "primals_1"
                                << "" << 1;
}

void TestInductorCode::fxGraphLines() {
    QFETCH(QString, text);
    QFETCH(QString, node);
    QFETCH(QString, expected);
    QFETCH(int, malformed);
    const std::string t = text.toStdString();
    const FxGraphLines g = parseFxGraphReadable(t);
    QCOMPARE(int(g.malformed), malformed);
    const auto it = g.nodeLine.find(node.toStdString());
    if (expected.isEmpty()) {
        QVERIFY(it == g.nodeLine.end());
        return;
    }
    QVERIFY(it != g.nodeLine.end());
    const ModelLine& m = g.lines[it->second];
    QCOMPARE(QString::fromStdString(m.file + ":" + std::to_string(m.line) + "|" + m.code), expected);
}

// TORCH_COMPILE_DEBUG's folder of the GPU run's second compile (three layers;
// tests/data/gpu/compiled_3layers): each graph's output_code.py with its fx_graph_readable.py beside it. The
// trace's kernels are found there by content, each with the model lines it computes.
void TestInductorCode::debugFolderModelLines() {
    QTemporaryDir dir;
    const LoadResult r = loadTrace(test::writeCompiled3LayersDebugFolder(dir.path().toStdString()));
    QVERIFY2(r.ok(), r.error.c_str());
    const KernelSourceSearch s = findKernelSources(*r.store, dir.path().toStdString(), {});
    QVERIFY2(s.missing.empty(), s.missing.empty() ? "" : s.missing.front().second.c_str());
    int withLines = 0;
    for (const KernelSource& k : s.found) {
        QCOMPARE(k.foundBy, std::string("content"));
        QVERIFY(k.file.ends_with("output_code.py"));
        withLines += !k.modelLines.empty();
        for (const ModelLine& m : k.modelLines)
            QVERIFY2(m.file.ends_with("tests/gpu/transformer.py") && m.line > 0, m.file.c_str());
    }
    QCOMPARE(withLines, int(s.found.size()));
    // The first forward kernel fuses the embedding, the position and the first LayerNorm: lines 55 and 38.
    const KernelSource* first = s.find("triton_per_fused__to_copy_add_embedding_native_layer_norm_0");
    QVERIFY(first);
    QStringList lines;
    for (const ModelLine& m : first->modelLines)
        lines << QString::number(m.line) + " " + QString::fromStdString(m.code);
    QCOMPARE(lines, (QStringList{"55 x = self.embed(tokens) + self.position",
                                 "38 q, k, v = self.qkv(self.norm1(x)).split(c, dim=2)"}));
}

QTEST_GUILESS_MAIN(TestInductorCode)
#include "tst_inductorcode.moc"
