// Short kernel names (core/query/kernelshortname) on names as real traces record them: each rule on the names
// that need it, then every kernel of several real traces (a golden file of full name -> short name), and the
// places that show them: the kernel table's rows and the summary's JSON.
#include "analysis/ops/kernels.h"
#include "analysis/ops/summary.h"
#include "analysis/report/summaryformat.h"
#include "query/kernelshortname.h"
#include "testsupport.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <set>

using namespace kinetoscope;

class TestKernelShortName : public QObject {
    Q_OBJECT
  private slots:
    void rules_data();
    void rules();
    void signaturesOnly();
    void realTraces();
    void distinctNames_data();
    void distinctNames();
    void tablesAndReports();
};

void TestKernelShortName::rules_data() {
    QTest::addColumn<QString>("full");
    QTest::addColumn<QString>("expected");
    // The functor of a PyTorch elementwise kernel, its wrappers (AUnaryFunctor, BinaryFunctor) looked
    // through.
    QTest::newRow("functor in a wrapper")
        << "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
           "at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, "
           "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
           "at::detail::Array<char*, 2>)"
        << "vectorized_elementwise_kernel<...> (mul)";
    QTest::newRow("CUDAFunctor_")
        << "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
           "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, "
           "3>)"
        << "vectorized_elementwise_kernel<...> (add)";
    QTest::newRow("CUDAFunctorOnOther_")
        << "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnOther_add<float>, "
           "at::detail::Array<char*, 2> >(int, at::native::CUDAFunctorOnOther_add<float>, "
           "at::detail::Array<char*, "
           "2>)"
        << "vectorized_elementwise_kernel<...> (add)";
    // A reduction: the functor sits inside ReduceOp and func_wrapper_t, and has a lambda of its own.
    QTest::newRow("reduction functor")
        << "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
           "at::native::func_wrapper_t<float, "
           "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, "
           "float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, "
           "at::native::func_wrapper_t<float, "
           "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, "
           "float)#1}>, unsigned int, float, 4>)"
        << "reduce_kernel<...> (sum)";
    QTest::newRow("reduction Ops") << "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                                      "at::native::MeanOps<float, float, "
                                      "float, float>, unsigned int, float, 4, 4> "
                                      ">(at::native::ReduceOp<float, at::native::MeanOps<float, "
                                      "float, float, float>, unsigned int, float, 4, 4>)"
                                   << "reduce_kernel<...> (mean)";
    // A lambda's enclosing function names the operation; the anonymous namespace goes.
    QTest::newRow("lambda in launch_")
        << "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
           "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
           "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
           "const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous "
           "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
           "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
           "const::{lambda(float)#1}, at::detail::Array<char*, 2>)"
        << "vectorized_elementwise_kernel<...> (clamp_scalar)";
    QTest::newRow("lambda in _kernel_cuda")
        << "void at::native::vectorized_elementwise_kernel<4, "
           "at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() "
           "const::{lambda()#4}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, "
           "at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() "
           "const::{lambda()#4}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)"
        << "vectorized_elementwise_kernel<...> (sigmoid)";
    // gpu_kernel_impl is plumbing: the copy it wraps is the operation.
    QTest::newRow("through gpu_kernel_impl")
        << "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::(anonymous "
           "namespace)::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() "
           "const::{lambda()#14}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, "
           "at::native::(anonymous "
           "namespace)::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::"
           "operator()() const::{lambda()#14}::operator()() const::{lambda(float)#1} "
           "const&)::{lambda(int)#1}>(int, "
           "at::native::gpu_kernel_impl<at::native::(anonymous namespace)::direct_copy_kernel_cuda(at::"
           "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#14}::operator()() "
           "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::(anonymous "
           "namespace)::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() "
           "const::{lambda()#14}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})"
        << "elementwise_kernel<...> (direct_copy)";
    // No functor: the name, its template arguments folded, its namespaces and parameters gone.
    QTest::newRow("no functor") << "void at::native::(anonymous "
                                   "namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float "
                                   "const*, float const*, float const*, float*, float*, float*)"
                                << "vectorized_layer_norm_kernel<...>";
    QTest::newRow("no namespace") << "void splitKreduce_kernel<float, float, float, float, true, false, "
                                     "false>(cublasSplitKParams<float>, "
                                     "float const*, float const*, float*, float const*, float const*, float "
                                     "const*, float const*, float*, "
                                     "void*, long, float*, int*)"
                                  << "splitKreduce_kernel<...>";
    QTest::newRow("no template")
        << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
        << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t";
    // A generic launcher is named by what it launches.
    QTest::newRow("cutlass::Kernel")
        << "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(cutlass_80_tensorop_"
           "s1688gemm_64x64_32x6_tn_align4::Params)"
        << "cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4";
    // A return type with an expression in it (parentheses holding '>').
    QTest::newRow("enable_if return type")
        << "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
           "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, "
           "c10::BFloat16 "
           "const*, float, int, int)"
        << "fused_add_rms_norm_kernel<...>";
    // Names that are not signatures stay, long ones cut at an underscore.
    QTest::newRow("triton") << "triton_per_fused__to_copy_add_addmm_mean_mul_pow_rsqrt_transpose_view_9"
                            << "triton_per_fused__to_copy_add_addmm_mean_mul_pow_rsqrt_transpose_view_9";
    QTest::newRow("cublas") << "volta_sgemm_128x32_nt"
                            << "volta_sgemm_128x32_nt";
    QTest::newRow("tensile")
        << "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT320x224x64_MI16x16x1_SN_LDSB0_AFC1_AG0_AFEM1_"
           "AFEM1_"
           "ASEM1_CLR1_CADS0_DTLA0_DTLB0_DTVA1_DTVB0"
        << QString::fromUtf8("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT320x224x64_MI16x16x1_SN\u2026");
    QTest::newRow("memcpy") << "Memcpy HtoD (Pageable -> Device)"
                            << "Memcpy HtoD (Pageable -> Device)";
    QTest::newRow("mangled") << "_ZN5aiter3fooIiEEvPT_"
                             << "foo<...>";
    QTest::newRow("unbalanced") << "void broken<int(int)"
                                << "void broken<int(int)";
    QTest::newRow("empty") << ""
                           << "";
}

void TestKernelShortName::rules() {
    QFETCH(QString, full);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(shortKernelName(full.toStdString())), expected);
}

void TestKernelShortName::signaturesOnly() {
    // The timeline's labels shorten signatures and leave every other name to be elided by width.
    QVERIFY(!shortSignatureName("aten::mm").has_value());
    QVERIFY(!shortSignatureName("torch/nn/modules/module.py(1501): _call_impl").has_value());
    QVERIFY(!shortSignatureName("Memcpy HtoD (Pageable -> Device)").has_value());
    QVERIFY(!shortSignatureName(std::string(100, 'x')).has_value());
    QCOMPARE(shortSignatureName("void k<int>(int)").value_or(""), std::string("k<...>"));
}

namespace {
const char* const realTraceFiles[] = {
    "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz",
    "AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz",
    "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz",
};
} // namespace

void TestKernelShortName::realTraces() {
    // Every distinct kernel name of four real traces (NVIDIA H100, B200, V100-era, AMD MI300) with its short
    // name, in a golden file that shows the rules' effect on all of them at once.
    std::map<std::string, std::string> shortByFull;
    for (const char* file : realTraceFiles) {
        LoadResult r = loadTrace(test::tracePath(file));
        QVERIFY2(r.ok(), r.error.c_str());
        for (const KernelRow& k : summarize(*r.store, OperatorGrouping::Name).kernels)
            shortByFull.emplace(k.name, shortKernelName(k.name));
    }
    QVERIFY2(shortByFull.size() > 150, qPrintable(QString::number(shortByFull.size())));
    std::string listing;
    std::size_t withOperation = 0;
    for (const auto& [full, shortName] : shortByFull) {
        // Never the noise the rules remove, never longer than the full name, never empty.
        QVERIFY2(!shortName.empty(), full.c_str());
        QVERIFY2(shortName.rfind("void ", 0) != 0, full.c_str());
        QVERIFY2(shortName.find("anonymous namespace") == std::string::npos, full.c_str());
        QVERIFY2(shortName.find("at::native::") == std::string::npos, full.c_str());
        QVERIFY2(shortName.size() <= full.size(), full.c_str());
        QVERIFY2(shortName.size() <= 110, full.c_str());
        // A cut name fits the CLI's 80-column name field without a second cut.
        if (shortName.find("\u2026") != std::string::npos) QVERIFY2(shortName.size() <= 72 + 3, full.c_str());
        if (shortName.find("<...> (") != std::string::npos) ++withOperation;
        listing += full + "\n    -> " + shortName + "\n";
    }
    // PyTorch's elementwise and reduction kernels keep what they compute.
    QVERIFY(withOperation > 40);
    const QString diff = test::compareGolden(QStringLiteral("kernel_short_names.txt"), listing);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// Rows whose short names would read alike show what tells them apart (issue 52 item 3: three "GemmKernel" of
// DeepSeek's trace in different namespaces, two "vectorized_elementwise_kernel<...> (mul)" of different
// figures).
void TestKernelShortName::distinctNames_data() {
    QTest::addColumn<QStringList>("full");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("namespaces")
        << QStringList{"void deep_gemm::GemmKernel<128, 64>(deep_gemm::Params)",
                       "void cutlass::gemm::kernel::GemmKernel<128, 64>(cutlass::Params)",
                       "void flashinfer::GemmKernel<128, 64>(flashinfer::Params)", "triton_poi_fused_add_0"}
        << QStringList{"deep_gemm::GemmKernel<...>", "kernel::GemmKernel<...>", "flashinfer::GemmKernel<...>",
                       "triton_poi_fused_add_0"};
    // Launched by one generic launcher: the namespace of what it launches tells them apart (issue 61 item 15:
    // these read "GemmKernel", "GemmKernel #2", "GemmKernel #3").
    QTest::newRow("namespaces of launched kernels")
        << QStringList{"void cutlass::device_kernel<deep_gemm::GemmKernel<128, 64> >(deep_gemm::Params)",
                       "void cutlass::device_kernel<cutlass::gemm::kernel::GemmKernel<128, 64> "
                       ">(cutlass::Params)",
                       "void cutlass::device_kernel<flashinfer::GemmKernel<128, 64> >(flashinfer::Params)"}
        << QStringList{"deep_gemm::GemmKernel<...>", "kernel::GemmKernel<...>",
                       "flashinfer::GemmKernel<...>"};
    QTest::newRow("arguments of launched kernels")
        << QStringList{"void cutlass::Kernel2<deep_gemm::GemmKernel<128, 64> >(deep_gemm::Params)",
                       "void cutlass::Kernel2<deep_gemm::GemmKernel<256, 64> >(deep_gemm::Params)"}
        << QStringList{"GemmKernel<128, ...>", "GemmKernel<256, ...>"};
    const QString mulUnary =
        "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
        "at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, "
        "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
        "at::detail::Array<char*, 2>)";
    QString mulBinary = mulUnary;
    mulBinary.replace("AUnaryFunctor", "BinaryFunctor").replace("Array<char*, 2>", "Array<char*, 3>");
    QString mulHalf = mulUnary;
    mulHalf.replace("AUnaryFunctor<float, float, float", "AUnaryFunctor<c10::Half, c10::Half, c10::Half");
    QString mulWide = mulUnary;
    mulWide.replace("vectorized_elementwise_kernel<4", "vectorized_elementwise_kernel<2");
    QTest::newRow("functor, dtype, vector width")
        << QStringList{mulUnary, mulBinary, mulHalf, mulWide}
        << QStringList{"vectorized_elementwise_kernel<4, AUnaryFunctor<float, ...>, ...> (mul)",
                       "vectorized_elementwise_kernel<4, BinaryFunctor<...>, ...> (mul)",
                       "vectorized_elementwise_kernel<4, AUnaryFunctor<Half, ...>, ...> (mul)",
                       "vectorized_elementwise_kernel<2, AUnaryFunctor<float, ...>, ...> (mul)"};
    QTest::newRow("lambdas of one function")
        << QStringList{"void at::native::vectorized_elementwise_kernel<4, "
                       "at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() "
                       "const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, int)",
                       "void at::native::vectorized_elementwise_kernel<4, "
                       "at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() "
                       "const::{lambda(double)#1}, at::detail::Array<char*, 2> >(int, int)"}
        << QStringList{
               "vectorized_elementwise_kernel<4, neg_kernel_cuda(...)::{lambda(float)#1}, ...> (neg)",
               "vectorized_elementwise_kernel<4, neg_kernel_cuda(...)::{lambda(double)#1}, ...> (neg)"};
    const QString tensile =
        "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_AFC1_"
        "GRVWA8_LBSPPA1024_ULSGRO0_WG32_8_1";
    QString tensileOther = tensile;
    tensileOther.replace("ULSGRO0", "ULSGRO1");
    QTest::newRow("long names cut alike")
        << QStringList{tensile, tensileOther}
        << QStringList{
               "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN\u2026ULSGRO0\u2026",
               "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN\u2026ULSGRO1\u2026"};
    QTest::newRow("the same kernel twice")
        << QStringList{"void a::k<1>(int)", "void a::k<1>(int)", "void a::k<2>(int)"}
        << QStringList{"k<1>", "k<1>", "k<2>"};
    QTest::newRow("only the parameters differ")
        << QStringList{"void a::k<1>(int)", "void a::k<1>(float)"} << QStringList{"k<...>", "k<...> #2"};
}

void TestKernelShortName::distinctNames() {
    QFETCH(QStringList, full);
    QFETCH(QStringList, expected);
    std::vector<std::string> owned;
    for (const QString& f : full)
        owned.push_back(f.toStdString());
    std::vector<std::string_view> names(owned.begin(), owned.end());
    const std::vector<std::string> shown = distinctShortKernelNames(names);
    QCOMPARE(int(shown.size()), expected.size());
    for (int i = 0; i < expected.size(); ++i)
        QCOMPARE(QString::fromStdString(shown[std::size_t(i)]), expected[i]);
}

void TestKernelShortName::tablesAndReports() {
    LoadResult r = loadTrace(test::tracePath(realTraceFiles[0]));
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& store = *r.store;
    const KernelTable table = kernelTable(store, KernelGrouping::Name, store.minTime(), store.maxTime());
    QVERIFY(!table.rows.empty());
    // Each row its short name, unless another row's reads the same: then distinct (issue 52 item 3).
    std::map<std::string, std::set<std::string>> namesShown;
    for (const KernelTableRow& row : table.rows)
        namesShown[row.displayName].insert(row.name);
    for (const auto& [shown, names] : namesShown)
        QVERIFY2(names.size() == 1, shown.c_str());
    for (const KernelTableRow& row : table.rows) {
        const bool shared = std::count_if(table.rows.begin(), table.rows.end(), [&](const KernelTableRow& o) {
                                return shortKernelName(o.name) == shortKernelName(row.name);
                            }) > 1;
        if (!shared) QCOMPARE(row.displayName, shortKernelName(row.name));
    }
    // The JSON keeps the full name and adds the short one; the text table shows the short one.
    const Summary summary = summarize(store, OperatorGrouping::Name);
    const std::string json = summaryToJson(summary);
    const std::string& full = summary.kernels.front().name;
    QVERIFY(json.find("\"display_name\": \"" + shortKernelName(full) + "\"") != std::string::npos);
    std::string error;
    SummaryTextOptions options;
    const std::optional<std::string> text = summaryToText(summary, options, error);
    QVERIFY2(text, error.c_str());
    QVERIFY(text->find(shortKernelName(full)) != std::string::npos);
    QVERIFY(text->find("void at::native::") == std::string::npos);
}

QTEST_GUILESS_MAIN(TestKernelShortName)
#include "tst_kernelshortname.moc"
