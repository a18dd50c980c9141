#include "panels/modulepanel.h"

#include "query/enclosing.h"

#include "charts/barchart.h"
#include "charts/memorycurve.h"
#include "charts/moduleflame.h"
#include "charts/stackedcolumnchart.h"
#include "panels/detailspanel.h"
#include "panels/panelparts.h"
#include "tables/tablemodels.h"
#include "timeline/timelinepalette.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace kinetoscope {

using namespace panel;

ModulePanel::ModulePanel(const TraceStore& store, QWidget* parent) : AnalysisPanel(parent), m_store(store) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_empty = new QLabel(
        tr("This trace has no nn.Module frames (profile with with_stack=True and with_modules=True)."), this);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(6);
    m_tree->setHeaderLabels({tr("Module"), tr("Calls"), tr("Host total"), tr("Host self"), tr("Device total"),
                             tr("Device self")});
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 6; ++c)
        m_tree->header()->resizeSection(c, 100);
    m_tree->setSortingEnabled(false);
    m_flame = new ModuleFlame(this);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(m_flame);
    layout->addWidget(m_empty);
    layout->addWidget(split, 1);
    auto select = [this](int node) {
        if (!m_result || node < 0) return;
        const EventRef ref = m_result->modules.nodes[std::size_t(node)].example;
        if (ref.isValid()) emit jumpRequested(ref);
    };
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [select](QTreeWidgetItem* item) {
        if (item) select(item->data(0, Qt::UserRole).toInt());
    });
    connect(m_flame, &ModuleFlame::nodeClicked, this, [this](int node) {
        // Keep the tree in step with the flame graph; selecting the tree item jumps the timeline.
        for (QTreeWidgetItemIterator it(m_tree); *it; ++it) {
            if ((*it)->data(0, Qt::UserRole).toInt() == node) {
                m_tree->setCurrentItem(*it);
                break;
            }
        }
    });
}

void ModulePanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    m_result = result;
    const ModuleTree& tree = result->modules;
    m_empty->setVisible(tree.nodes.empty());
    m_tree->clear();
    std::function<void(QTreeWidgetItem*, int)> add = [&](QTreeWidgetItem* parent, int n) {
        const ModuleNode& node = tree.nodes[std::size_t(n)];
        QStringList cols{QString::fromStdString(node.name), QString::number(node.occurrences),
                         durationText(node.hostTotal),      durationText(node.hostSelf),
                         durationText(node.deviceTotal),    durationText(node.deviceSelf)};
        auto* item = parent ? new QTreeWidgetItem(parent, cols) : new QTreeWidgetItem(m_tree, cols);
        item->setData(0, Qt::UserRole, n);
        for (int c = 1; c < 6; ++c)
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        for (int child : node.children)
            add(item, child);
    };
    for (int r : tree.roots)
        add(nullptr, r);
    m_tree->expandToDepth(1);
    m_flame->setTree(&result->modules);
}

} // namespace kinetoscope
