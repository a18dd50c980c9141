#include "panels/compiledpanel.h"

#include "analysis/report/sections.h"
#include "tables/rowsmodel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace kinetoscope {

namespace {
QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// The tree's columns are core's kernel columns (their titles, formats and tooltips); a category's row fills
// the ones its own columns share by title.
template <typename Row> void fillRow(QTreeWidgetItem* item, const Columns<Row>& columns, const Row& row) {
    const Columns<InductorKernelEntry>& tree = inductorKernelColumns();
    for (std::size_t t = 0; t < tree.size(); ++t)
        for (const Column<Row>& c : columns) {
            if (!(c.outputs & InTable) || (c.title != tree[t].title && !(t == 0 && c.title == "Category")))
                continue;
            item->setText(int(t), cellDisplay(c.format, c.decimals, c.value(row)));
            item->setTextAlignment(int(t), (cellIsLeftAligned(c.format) ? Qt::AlignLeft : Qt::AlignRight) |
                                               Qt::AlignVCenter);
        }
}
} // namespace

CompiledPanel::CompiledPanel(QWidget* parent) : AnalysisPanel(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("TorchInductor breakdown of"), this));
    m_choice = new QComboBox(this);
    m_choice->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_choice->setToolTip(tr("The whole scope, or one compiled graph"));
    bar->addWidget(m_choice);
    m_call = new QComboBox(this);
    m_call->setToolTip(tr("All the graph's calls summed, or one of them"));
    m_call->hide();
    bar->addWidget(m_call);
    m_showCall = new QPushButton(tr("Show call"), this);
    m_showCall->setToolTip(tr("Zoom the timeline to the chosen call (the first, for all calls)"));
    bar->addWidget(m_showCall);
    m_showSource = new QPushButton(tr("Show source"), this);
    m_showSource->setToolTip(
        tr("The selected Triton kernel's generated code, where it was found (Details of a "
           "kernel says where it was looked for)"));
    m_showSource->setEnabled(false);
    bar->addWidget(m_showSource);
    bar->addStretch(1);
    // What Inductor's script printed for a compiled_module_profile.json: the whole trace per run.
    const QString perRunTip = tr("For compiled_module_profile.json (python output_code.py -p): the runs it "
                                 "profiled and the wall time per run the script printed; the whole trace's "
                                 "breakdown then equals the script's table");
    bar->addWidget(new QLabel(tr("Per run of"), this));
    m_runs = new QSpinBox(this);
    m_runs->setRange(1, 1000000);
    m_runs->setSuffix(tr(" run(s)"));
    m_runs->setToolTip(perRunTip);
    bar->addWidget(m_runs);
    m_wallMs = new QDoubleSpinBox(this);
    m_wallMs->setRange(0, 1e9);
    m_wallMs->setDecimals(3);
    m_wallMs->setSuffix(tr(" ms wall"));
    m_wallMs->setSpecialValueText(tr("the trace's wall"));
    m_wallMs->setToolTip(perRunTip);
    bar->addWidget(m_wallMs);
    layout->addLayout(bar);
    m_summary = new QLabel(this);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_tree = new QTreeWidget(this);
    QStringList titles;
    const Columns<InductorKernelEntry>& columns = inductorKernelColumns();
    for (const auto& c : columns)
        titles << qs(c.title);
    m_tree->setHeaderLabels(titles);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    // The names take what the figures leave; the figures sit beside them, not at the far edge.
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < m_tree->columnCount(); ++c)
        m_tree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_tree->headerItem()->setToolTip(
        0, tr("Inductor's categories from the kernel's name (triton_poi, triton_red, triton_per, other "
              "triton_, and everything else); kernel names in full"));
    m_tree->headerItem()->setToolTip(2,
                                     tr("Summed durations: a GPU event's self device time is its duration"));
    m_tree->headerItem()->setToolTip(
        3, tr("Self device time over the wall time (docs/DEFINITIONS.md: the trace's "
              "span, or each call's start to the end of the GPU work it launched)"));
    m_tree->headerItem()->setToolTip(
        4, tr("Self device time over all the GPU work shown here: what the kernel costs where the wall is "
              "mostly compilation or the host"));
    layout->addWidget(m_tree, 1);

    connect(m_choice, &QComboBox::currentIndexChanged, this, [this] {
        // A graph: its calls to choose from, all of them first.
        const QSignalBlocker block(m_call);
        m_call->clear();
        const int graph = m_choice->currentIndex() - 1;
        if (m_result && graph >= 0 && graph < int(m_result->inductor.graphs.size())) {
            const CompiledGraph& g = m_result->inductor.graphs[std::size_t(graph)];
            m_call->addItem(tr("all %n call(s)", nullptr, int(g.calls)));
            for (std::size_t c = 0; c < g.callEvents.size(); ++c)
                m_call->addItem(tr("call %1").arg(c + 1));
        }
        m_call->setVisible(m_call->count() > 2);
        chooseBreakdown();
    });
    connect(m_call, &QComboBox::currentIndexChanged, this, &CompiledPanel::chooseBreakdown);
    connect(m_runs, &QSpinBox::valueChanged, this, &CompiledPanel::chooseBreakdown);
    connect(m_wallMs, &QDoubleSpinBox::valueChanged, this, &CompiledPanel::chooseBreakdown);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item && item->parent()) emit highlightRequested(item->data(0, NameRole).toString());
        updateSourceButton();
    });
    connect(m_showSource, &QPushButton::clicked, this, [this] {
        if (const QTreeWidgetItem* item = m_tree->currentItem(); item && item->parent())
            emit kernelSourceRequested(item->data(0, NameRole).toString(), QString());
    });
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        const EventRef ref = item->data(0, EventRole).value<EventRef>();
        if (ref.isValid()) emit jumpRequested(ref);
    });
    connect(m_showCall, &QPushButton::clicked, this, [this] {
        const int graph = m_choice->currentIndex() - 1;
        if (!m_result || graph < 0 || graph >= int(m_result->inductor.graphs.size())) return;
        const CompiledGraph& g = m_result->inductor.graphs[std::size_t(graph)];
        const std::size_t call = std::size_t(std::max(0, m_call->currentIndex() - 1));
        if (call < g.callEvents.size()) emit jumpRequested(g.callEvents[call]);
    });
}

void CompiledPanel::setKernelSources(std::shared_ptr<const KernelSourceSearch> sources) {
    m_sources = std::move(sources);
    updateSourceButton();
}

void CompiledPanel::updateSourceButton() {
    const QTreeWidgetItem* item = m_tree->currentItem();
    bool found = false;
    if (m_sources && item && item->parent()) {
        const std::string name = item->data(0, NameRole).toString().toStdString();
        found = m_sources->find(name) != nullptr;
    }
    m_showSource->setEnabled(found);
}

bool CompiledPanel::hasContent() const {
    return m_result && m_result->inductor.hasTriton;
}

void CompiledPanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    m_result = std::move(result);
    const QSignalBlocker block(m_choice);
    m_choice->clear();
    if (hasContent()) {
        m_choice->addItem(m_result->scope ? tr("the selected range") : tr("the whole trace"));
        for (const CompiledGraph& g : m_result->inductor.graphs)
            m_choice->addItem(
                tr("graph %1 (%n call(s))", nullptr, int(g.calls)).arg(QString::fromStdString(g.name)));
    }
    m_call->clear();
    m_call->hide();
    chooseBreakdown();
}

void CompiledPanel::chooseBreakdown() {
    m_tree->clear();
    m_showCall->setEnabled(false);
    if (!hasContent()) {
        m_summary->setText(tr("No Triton kernel in this scope: nothing was compiled by TorchInductor."));
        return;
    }
    const InductorReport& r = m_result->inductor;
    const int graph = m_choice->currentIndex() - 1;
    if (graph < 0 || graph >= int(r.graphs.size())) {
        if (m_runs->value() == 1 && m_wallMs->value() == 0) return showBreakdown(r.trace);
        return showBreakdown(
            inductorPerRun(r.trace, std::uint64_t(m_runs->value()), TimeNs(m_wallMs->value() * 1e6)));
    }
    const CompiledGraph& g = r.graphs[std::size_t(graph)];
    m_showCall->setEnabled(!g.callEvents.empty());
    const int call = m_call->currentIndex() - 1;
    showBreakdown(call >= 0 && call < int(g.callBreakdowns.size()) ? g.callBreakdowns[std::size_t(call)]
                                                                   : g.breakdown);
}

void CompiledPanel::showBreakdown(const InductorBreakdown& b) {
    m_summary->setText(tr("Wall time <b>%1</b>; the GPU's work is <b>%2%</b> of it (over 100% when streams "
                          "overlap).")
                           .arg(durationText(b.wall))
                           .arg(b.busyPercent(), 0, 'f', 2));
    for (const InductorCategoryRow& row : b.categories) {
        auto* category = new QTreeWidgetItem(m_tree);
        fillRow(category, inductorCategoryColumns(), InductorCategoryEntry{&row, &b});
        QFont bold = category->font(0);
        bold.setBold(true);
        for (int c = 0; c < m_tree->columnCount(); ++c)
            category->setFont(c, bold);
        for (const InductorKernel& k : row.kernels) {
            auto* item = new QTreeWidgetItem(category);
            fillRow(item, inductorKernelColumns(), InductorKernelEntry{&k, &b});
            item->setToolTip(0, QString::fromStdString(k.name));
            item->setData(0, NameRole, QString::fromStdString(k.name));
            item->setData(0, EventRole, QVariant::fromValue(k.longest));
        }
        category->setExpanded(true);
    }
}

} // namespace kinetoscope
