// Kernel names as the capture agent reports them: CUPTI's mangled symbols demangled as Kineto does, anything
// else kept as given.
#include "kernelname.h"

#include <QtTest>

using namespace kinetoscope;

class TestKernelName : public QObject {
    Q_OBJECT
  private slots:
    void kernelNamesAreDemangled_data() {
        QTest::addColumn<QString>("cupti");
        QTest::addColumn<QString>("shown");
        QTest::newRow("plain function") << "_Z22kinetoscope_probe_fillPfif"
                                        << "kinetoscope_probe_fill(float*, int, float)";
        // As Kineto writes it (the form of the real traces' names, " >" and all).
        QTest::newRow("PyTorch template")
            << "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_"
               "6detail5ArrayIPcLi1EEEEEviT0_T1_"
            << "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
               "at::detail::Array<char*, 1> >"
               "(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
        QTest::newRow("C kernel (cuBLAS)") << "ampere_sgemm_128x64_nn"
                                           << "ampere_sgemm_128x64_nn";
        QTest::newRow("Triton") << "triton_poi_fused_add_0"
                                << "triton_poi_fused_add_0";
        QTest::newRow("not a valid symbol") << "_Zbogus!"
                                            << "_Zbogus!";
        QTest::newRow("empty") << ""
                               << "";
    }
    void kernelNamesAreDemangled() {
        QFETCH(QString, cupti);
        QFETCH(QString, shown);
        QCOMPARE(QString::fromStdString(capture::demangledKernelName(cupti.toUtf8().constData())), shown);
    }
};

QTEST_APPLESS_MAIN(TestKernelName)
#include "tst_kernelname.moc"
