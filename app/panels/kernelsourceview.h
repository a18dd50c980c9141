#pragma once

#include "analysis/compiled/kernelsources.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace kinetoscope {

// A Triton kernel's generated code (analysis/compiled/kernelsources.h): the file it was found in, read-only
// and highlighted, with the kernel's lines marked and scrolled into view; what it fused (FX nodes, ATen ops,
// the mapping between them) and how it was launched; and the command that benchmarks it alone, shown only
// when the file exists on this machine.
class KernelSourceView : public QWidget {
    Q_OBJECT
  public:
    explicit KernelSourceView(QWidget* parent = nullptr);
    // `text` is the file's text (read by the caller); `launch` what the trace's launch event says.
    void showKernel(const KernelSource& source, const std::string& text, const TritonLaunch& launch);

    // For tests: the text shown, the first line in view, the lines marked, and the benchmark commands.
    QString sourceText() const;
    int firstVisibleLine() const;
    std::pair<int, int> markedLines() const { return m_marked; }
    QString benchmarkCommand() const { return m_benchmark; }

  private:
    QLabel* m_header = nullptr;
    QLabel* m_fused = nullptr;
    QPlainTextEdit* m_source = nullptr;
    QPushButton* m_copy = nullptr;
    QString m_benchmark;
    std::pair<int, int> m_marked{0, 0};
};

// How a Triton kernel was launched, as plain text ("8 warps, 1 stage, XBLOCK=1,R0_BLOCK=2048, grid …"); empty
// when the launch event says nothing of it. Details and the source window both show it.
QString launchConfigText(const TritonLaunch& launch);

// The benchmark commands of PyTorch's Inductor profiling guide for a kernel file (`python FILE`, then the
// same with max-autotune), or empty when the file is not on this machine.
QString benchmarkCommandFor(const std::string& kernelFile);

} // namespace kinetoscope
