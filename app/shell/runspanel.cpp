#include "shell/runspanel.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace kinetoscope {

namespace {
enum { PathRole = Qt::UserRole + 1, RunFilesRole };
}

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    m_tree = new QTreeWidget(this);
    m_tree->setHeaderLabels({tr("Run / worker / span"), tr("Size")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_distributed = new QPushButton(tr("Open Run as Distributed Job"), this);
    m_distributed->setEnabled(false);
    layout->addWidget(m_title);
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_distributed);
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        const QString path = item->data(0, PathRole).toString();
        if (!path.isEmpty()) emit openRequested(path);
    });
    connect(m_tree, &QTreeWidget::currentItemChanged, this,
            [this] { m_distributed->setEnabled(selectedRunFiles().size() >= 2); });
    connect(m_distributed, &QPushButton::clicked, this, [this] {
        const QStringList files = selectedRunFiles();
        if (files.size() >= 2) emit distributedRequested(files);
    });
}

void RunsPanel::setFolder(const QString& dir, const std::vector<TraceRun>& runs, bool watching) {
    m_title->setText((watching ? tr("<b>Watching</b> %1") : tr("<b>Folder</b> %1")).arg(dir.toHtmlEscaped()));
    m_tree->clear();
    for (const TraceRun& run : runs) {
        auto* runItem = new QTreeWidgetItem(m_tree, {QString::fromStdString(run.name)});
        QStringList latest;
        for (const TraceWorker& worker : run.workers) {
            auto* workerItem = new QTreeWidgetItem(runItem, {QString::fromStdString(worker.name)});
            for (const TraceFile& span : worker.spans) {
                const QString label = span.span.empty()
                                          ? QFileInfo(QString::fromStdString(span.path)).fileName()
                                          : tr("span %1").arg(QString::fromStdString(span.span));
                auto* spanItem = new QTreeWidgetItem(
                    workerItem, {label, QStringLiteral("%1 MB").arg(double(span.size) / 1e6, 0, 'f', 1)});
                spanItem->setData(0, PathRole, QString::fromStdString(span.path));
                spanItem->setToolTip(0, QString::fromStdString(span.path));
            }
            if (!worker.spans.empty()) latest << QString::fromStdString(worker.spans.back().path);
            // A worker with a single span opens on double-click too.
            if (worker.spans.size() == 1)
                workerItem->setData(0, PathRole, QString::fromStdString(worker.spans.front().path));
        }
        runItem->setData(0, RunFilesRole, latest);
        runItem->setExpanded(true);
    }
}

QStringList RunsPanel::selectedRunFiles() const {
    QTreeWidgetItem* item = m_tree->currentItem();
    while (item && item->parent())
        item = item->parent();
    return item ? item->data(0, RunFilesRole).toStringList() : QStringList();
}

} // namespace kinetoscope
