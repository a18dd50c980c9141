#include "panels/kernelsourceview.h"

#include <QApplication>
#include <QClipboard>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QVBoxLayout>

namespace kinetoscope {

namespace {

// Python as Inductor writes it: keywords, strings, numbers, comments, and Triton's `tl.` calls.
class PythonHighlighter : public QSyntaxHighlighter {
  public:
    explicit PythonHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
        const auto format = [](const char* color, bool bold = false) {
            QTextCharFormat f;
            f.setForeground(QColor(QLatin1String(color)));
            if (bold) f.setFontWeight(QFont::Bold);
            return f;
        };
        m_rules = {
            {QRegularExpression(QStringLiteral(
                 "\\b(def|return|if|else|elif|for|in|while|import|from|as|with|and|or|not|is|None|True|False|"
                 "del|pass|lambda|class)\\b")),
             format("#7c3aed", true)},
            {QRegularExpression(QStringLiteral("\\btl\\.\\w+")), format("#0369a1")},
            {QRegularExpression(QStringLiteral("@[\\w.]+")), format("#b45309")},
            {QRegularExpression(QStringLiteral("\\b\\d+(\\.\\d+)?([eE][-+]?\\d+)?\\b")), format("#047857")},
            {QRegularExpression(QStringLiteral("'[^'\\n]*'|\"[^\"\\n]*\"")), format("#b91c1c")},
            {QRegularExpression(QStringLiteral("#[^\\n]*")), format("#6b7280")},
        };
    }

  protected:
    void highlightBlock(const QString& text) override {
        for (const auto& [re, fmt] : m_rules) {
            for (auto it = re.globalMatch(text); it.hasNext();) {
                const auto m = it.next();
                setFormat(int(m.capturedStart()), int(m.capturedLength()), fmt);
            }
        }
    }

  private:
    std::vector<std::pair<QRegularExpression, QTextCharFormat>> m_rules;
};

QString joined(const std::vector<std::string>& items) {
    QStringList l;
    for (const std::string& s : items)
        l << QString::fromStdString(s);
    return l.join(QStringLiteral(", ")).toHtmlEscaped();
}

} // namespace

QString launchConfigText(const TritonLaunch& launch) {
    QStringList config;
    if (launch.numWarps) config << QObject::tr("%1 warps").arg(*launch.numWarps);
    if (launch.numStages)
        config << (*launch.numStages == 1 ? QObject::tr("1 stage")
                                          : QObject::tr("%1 stages").arg(*launch.numStages));
    if (!launch.kernelKwargs.empty()) config << QString::fromStdString(launch.kernelKwargs);
    if (!launch.grid.empty()) config << QObject::tr("grid %1").arg(QString::fromStdString(launch.grid));
    return config.join(QStringLiteral(", "));
}

QString benchmarkCommandFor(const std::string& kernelFile) {
    if (kernelFile.empty() || !QFileInfo(QString::fromStdString(kernelFile)).isFile()) return {};
    const QString file = QString::fromStdString(kernelFile);
    return QStringLiteral("python %1\nTORCHINDUCTOR_MAX_AUTOTUNE=1 python %1").arg(file);
}

KernelSourceView::KernelSourceView(QWidget* parent) : QWidget(parent) {
    setWindowTitle(tr("Generated code"));
    auto* layout = new QVBoxLayout(this);
    m_header = new QLabel(this);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    m_fused = new QLabel(this);
    m_fused->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_fused->setWordWrap(true);
    m_source = new QPlainTextEdit(this);
    m_source->setReadOnly(true);
    m_source->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new PythonHighlighter(m_source->document());
    m_copy = new QPushButton(tr("Copy the benchmark command"), this);
    m_copy->setToolTip(tr("Runs this kernel alone, as PyTorch's Inductor profiling guide does; the second "
                          "line autotunes it first"));
    connect(m_copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_benchmark); });
    layout->addWidget(m_header);
    layout->addWidget(m_fused);
    layout->addWidget(m_source, 1);
    layout->addWidget(m_copy, 0, Qt::AlignLeft);
    resize(1000, 700);
}

void KernelSourceView::showKernel(const KernelSource& source, const std::string& text,
                                  const TritonLaunch& launch) {
    const InductorKernelSource& k = source.code;
    const QString config = launchConfigText(launch);
    QString header =
        QStringLiteral("<b>%1</b><br/>%2 <span style=\"color:#6b7280\">lines %3–%4, found by %5</span>")
            .arg(QString::fromStdString(source.kernel).toHtmlEscaped(),
                 QString::fromStdString(source.file).toHtmlEscaped())
            .arg(k.firstLine)
            .arg(k.lastLine)
            .arg(QString::fromStdString(source.foundBy));
    if (!k.heuristic.empty())
        header += tr("<br/>Inductor heuristic: %1").arg(QString::fromStdString(k.heuristic));
    if (!config.isEmpty()) header += tr("<br/>Launched with %1").arg(config.toHtmlEscaped());
    if (!k.launch.empty())
        header +=
            tr("<br/>In the module: <code>%1</code>").arg(QString::fromStdString(k.launch).toHtmlEscaped());
    m_header->setText(header);
    QString fused;
    if (!k.atenOps.empty()) fused += tr("<b>Fuses</b> %1").arg(joined(k.atenOps));
    if (!k.fxNodes.empty()) fused += tr("<br/><b>FX nodes</b> %1").arg(joined(k.fxNodes));
    // The mapping from FX nodes to ATen ops: its first lines here, all of it in the tooltip (a fused RMSNorm
    // maps a dozen nodes, which would push the source out of view).
    constexpr std::size_t mappingShown = 4;
    QString mapping;
    for (std::size_t i = 0; i < k.nodeToAten.size(); ++i) {
        const QString line =
            QStringLiteral("%1 ⇒ %2").arg(QString::fromStdString(k.nodeToAten[i].first).toHtmlEscaped(),
                                          QString::fromStdString(k.nodeToAten[i].second).toHtmlEscaped());
        mapping += (i ? QStringLiteral("<br/>") : QString()) + line;
        if (i < mappingShown) fused += QStringLiteral("<br/>&nbsp;&nbsp;") + line;
    }
    if (k.nodeToAten.size() > mappingShown)
        fused += tr("<br/>&nbsp;&nbsp;… and %1 more (hover to see them all)")
                     .arg(k.nodeToAten.size() - mappingShown);
    // Where in the model it came from, when the debug folder's graph says so (fxgraph.h).
    for (std::size_t i = 0; i < source.modelLines.size(); ++i) {
        const ModelLine& m = source.modelLines[i];
        fused += (i ? QStringLiteral("<br/>&nbsp;&nbsp;") : tr("<br/><b>Model lines</b> "));
        fused += QStringLiteral("%1:%2 <code>%3</code>")
                     .arg(QString::fromStdString(m.file).toHtmlEscaped())
                     .arg(m.line)
                     .arg(QString::fromStdString(m.code).toHtmlEscaped());
    }
    m_fused->setToolTip(mapping);
    if (fused.isEmpty())
        fused =
            tr("<span style=\"color:#6b7280\">This file does not say what the kernel fused (a kernel file of "
               "the cache); the compiled module (output_code.py) does.</span>");
    m_fused->setText(fused);

    m_source->setPlainText(QString::fromUtf8(text.data(), qsizetype(text.size())));
    m_marked = {k.firstLine, k.lastLine};
    QList<QTextEdit::ExtraSelection> marks;
    QTextCursor cursor(m_source->document()->findBlockByNumber(k.firstLine - 1));
    cursor.movePosition(QTextCursor::Down, QTextCursor::KeepAnchor, k.lastLine - k.firstLine);
    cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    QTextEdit::ExtraSelection mark;
    mark.cursor = cursor;
    mark.format.setBackground(QColor(0xfe, 0xf9, 0xc3));
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    marks << mark;
    m_source->setExtraSelections(marks);
    // The kernel's first line at the top of the view.
    QTextCursor top(m_source->document()->findBlockByNumber(m_source->document()->blockCount() - 1));
    m_source->setTextCursor(top);
    m_source->ensureCursorVisible();
    m_source->setTextCursor(QTextCursor(m_source->document()->findBlockByNumber(k.firstLine - 1)));
    m_source->ensureCursorVisible();

    m_benchmark = benchmarkCommandFor(launch.kernelFile);
    m_copy->setVisible(!m_benchmark.isEmpty());
}

QString KernelSourceView::sourceText() const {
    return m_source->toPlainText();
}

int KernelSourceView::firstVisibleLine() const {
    return m_source->cursorForPosition(QPoint(2, 2)).blockNumber() + 1;
}

} // namespace kinetoscope
