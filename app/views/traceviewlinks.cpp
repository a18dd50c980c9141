// A trace tab as a saved view or a link (issue 64): what it shows now (currentViewFile), and a view or link
// applied to it (applyView), now or once the load finishes.
#include "views/traceview.h"

#include "panels/querypanel.h"
#include "query/lanelayout.h"
#include "timeline/timelinewidget.h"

#include <QFileInfo>

#include <map>

namespace kinetoscope {

ViewFile TraceView::currentViewFile() const {
    ViewFile view;
    view.view.files.push_back(QFileInfo(m_path).absoluteFilePath().toStdString());
    if (!m_trace || !m_timeline) return view;
    const TraceStore& store = *m_trace->store;
    const TimeAxis& axis = m_timeline->axis();
    if (axis.end > axis.start) view.view.range = std::pair{axis.start, axis.end};
    if (m_timeline->selected().isValid() && m_timeline->selected().track.value < store.tracks().size())
        view.view.select = sliceIdOf(store, m_timeline->selected());
    const LaneLayout& layout = m_timeline->layout();
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const TrackId id(t);
        if (layout.isPinned(id)) view.pinned.push_back(trackTitle(store, id));
        if (layout.isHidden(id)) view.hidden.push_back(trackTitle(store, id));
    }
    if (m_query && !m_query->sql().trimmed().isEmpty()) view.queries.push_back(m_query->sql().toStdString());
    return view;
}

void TraceView::applyView(const ViewFile& view) {
    m_pendingView = view;
    if (m_state == State::Ready) applyPendingView();
}

void TraceView::applyPendingView() {
    if (!m_pendingView || !m_trace || !m_timeline) return;
    const ViewFile view = std::move(*m_pendingView);
    m_pendingView.reset();
    const TraceStore& store = *m_trace->store;
    QStringList problems;
    // Tracks by their titles, as the view wrote them.
    std::map<std::string, TrackId> byTitle;
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t)
        byTitle.emplace(trackTitle(store, TrackId(t)), TrackId(t));
    const auto apply = [&](const std::vector<std::string>& titles, auto set) {
        for (const std::string& title : titles) {
            const auto it = byTitle.find(title);
            if (it == byTitle.end())
                problems << tr("no track \"%1\"").arg(QString::fromStdString(title));
            else
                set(it->second);
        }
    };
    apply(view.hidden, [&](TrackId t) { m_timeline->setTrackHidden(t, true); });
    apply(view.pinned, [&](TrackId t) { m_timeline->setTrackPinned(t, true); });
    if (view.view.select) {
        const auto ref = sliceOfId(store, *view.view.select);
        if (!ref)
            problems << tr("no slice with id %1").arg(*view.view.select);
        else if (view.view.range)
            m_timeline->setSelected(*ref); // the range below says what to show
        else
            m_timeline->revealEvent(*ref);
    }
    if (view.view.range) m_timeline->setVisibleRange(view.view.range->first, view.view.range->second);
    if (!view.queries.empty() && m_query) m_query->setSql(QString::fromStdString(view.queries.front()));
    m_viewProblems = problems.join(QStringLiteral("; "));
}

} // namespace kinetoscope
