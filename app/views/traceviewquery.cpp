// The Query tab's place in a trace's view (issue 62): the parameters its queries read from the timeline, a
// result row's slice revealed, a result pinned as a track, the area's slices and each panel's numbers opened
// as SQL ("Query these slices", "Show as query").

#include "views/traceview.h"

#include "panels/areasummarypanel.h"
#include "panels/detailspanel.h"
#include "panels/kernelpanel.h"
#include "panels/memorypanel.h"
#include "panels/operatorpanel.h"
#include "panels/overviewpanel.h"
#include "panels/querypanel.h"
#include "panels/rooflinepanel.h"
#include "timeline/timelinewidget.h"

#include <QHeaderView>
#include <QMenu>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>

namespace kinetoscope {

void TraceView::buildQueryTab() {
    m_query = new QueryPanel(m_trace, m_bottomTabs);
    m_bottomTabs->addTab(m_query, tr("Query"));
    m_query->setParameterSource([this] {
        QueryPanel::Parameters p;
        TimeNs from = m_timeline->axis().start, to = m_timeline->axis().end;
        if (const auto area = m_timeline->areaSelection()) {
            from = area->range.from;
            to = area->range.to;
        }
        p.emplace_back("from", std::int64_t(from));
        p.emplace_back("to", std::int64_t(to));
        if (const EventRef selected = m_timeline->selected(); selected.isValid())
            p.emplace_back("selected_id", m_query->database()->sliceId(selected));
        return p;
    });
    connect(m_query, &QueryPanel::sliceRequested, this, [this](EventRef ref) {
        m_revealingFromPanel = true;
        m_timeline->revealEvent(ref);
        m_revealingFromPanel = false;
    });
    connect(m_query, &QueryPanel::trackRequested, this, [this](std::shared_ptr<const DerivedTrack> track) {
        // Pinned at the top, where Perfetto puts its debug tracks.
        m_timeline->addDerivedTrack(*track);
        const TrackId id(
            std::uint32_t(m_trace->store->tracks().size() + m_timeline->derivedTracks().size() - 1));
        m_timeline->setTrackPinned(id, true);
        m_timeline->setScrollY(0);
    });
    connect(m_areaPanel, &AreaSummaryPanel::queryRequested, this, &TraceView::queryArea);
    // The tables' headers, and a button beside the tabs for the panel in front.
    const auto offerOnHeader = [this](QTableView* view, QString sql) {
        QHeaderView* header = view->horizontalHeader();
        header->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(header, &QHeaderView::customContextMenuRequested, this,
                [this, header, sql](const QPoint& at) {
                    QMenu menu;
                    menu.addAction(tr("Show as query"), this, [this, sql] { openQuery(sql); });
                    menu.exec(header->mapToGlobal(at));
                });
    };
    offerOnHeader(m_operators->view(), queryOfPanel(m_operators));
    offerOnHeader(m_kernels->view(), queryOfPanel(m_kernels));
    m_showAsQuery = new QPushButton(tr("Show as query"), m_bottomTabs);
    m_showAsQuery->setFlat(true);
    m_showAsQuery->setToolTip(tr("The numbers of this panel as SQL in the Query tab"));
    connect(m_showAsQuery, &QPushButton::clicked, this,
            [this] { openQuery(queryOfPanel(m_bottomTabs->currentWidget())); });
    const auto update = [this] {
        m_showAsQuery->setVisible(!queryOfPanel(m_bottomTabs->currentWidget()).isEmpty());
    };
    connect(m_bottomTabs, &QTabWidget::currentChanged, this, update);
    update();
}

QString TraceView::queryOfPanel(QWidget* panel) const {
    const QString note =
        m_scope ? QStringLiteral("-- The report's tables are the whole trace's (the panels show the "
                                 "selected range).\n")
                : QString();
    if (panel == m_overview)
        return note +
               QStringLiteral("-- The Overview's figures: every single number of the report by its path.\n"
                              "SELECT key, value FROM summary\n"
                              "WHERE key LIKE 'breakdown_us.%' OR key LIKE 'gpu_utilization.%'\n"
                              "   OR key LIKE 'gpu_metrics.%' OR key IN ('warm_up_us', "
                              "'communication_overlapped_us')");
    if (panel == m_operators)
        return note + QStringLiteral("SELECT * FROM operators ORDER BY device_self_us DESC");
    if (panel == m_kernels) return note + QStringLiteral("SELECT * FROM kernels ORDER BY total_us DESC");
    if (panel == m_roofline)
        return note + QStringLiteral("SELECT * FROM roofline ORDER BY device_union_us DESC");
    if (panel == m_memory)
        return QStringLiteral("SELECT s.name AS step, m.device_id AS device,\n"
                              "       max(m.total_allocated) / 1048576.0 AS peak_mib\n"
                              "FROM step s JOIN memory_event m ON m.ts >= s.ts AND m.ts < s.ts + s.dur\n"
                              "GROUP BY s.id, m.device_id ORDER BY s.id");
    if (panel == m_details)
        return QStringLiteral("SELECT s.*, a.key, a.int_value, a.string_value, a.real_value\n"
                              "FROM slice s LEFT JOIN args a USING (arg_set_id)\n"
                              "WHERE s.id = :selected_id");
    return {};
}

void TraceView::openQuery(const QString& sql) {
    m_bottomTabs->setCurrentWidget(m_query);
    m_query->setSql(sql);
    m_query->run();
}

void TraceView::queryArea() {
    const auto area = m_timeline->areaSelection();
    if (!area) return;
    std::vector<TrackId> tracks = m_timeline->tracksOf(*area);
    QStringList ids;
    for (TrackId t : tracks)
        if (t.value < m_trace->store->tracks().size()) ids << QString::number(t.value);
    if (ids.isEmpty()) return;
    openQuery(QStringLiteral(
                  "-- The area's slices: its tracks, and what overlaps :from .. :to (the selected range).\n"
                  "SELECT s.id, s.ts, s.dur, s.name, s.category, s.depth, t.name AS track\n"
                  "FROM slice s JOIN track t ON t.id = s.track_id\n"
                  "WHERE s.track_id IN (%1)\n"
                  "  AND s.ts < :to AND s.ts + s.dur > :from\n"
                  "ORDER BY s.dur DESC")
                  .arg(ids.join(QStringLiteral(", "))));
}

} // namespace kinetoscope
