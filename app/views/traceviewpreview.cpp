// TraceView's first screen of a large file: while the whole file is parsed, a timeline of a sample of its
// events spread over its whole span (LoadOptions::preview) that can be zoomed, panned and clicked, under a
// strip with the load's progress and Cancel. When the full store is sealed it replaces the sample in place:
// the time range the user chose and the track at the top of the view stay where they were, and the panels and
// their analyses start then.
#include "views/traceview.h"

#include "panels/detailspanel.h"
#include "shell/loadjob.h"
#include "timeline/timelinewidget.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <optional>

namespace kinetoscope {

namespace {
// What names a track in both stores: its kind and ids, and its name for tracks without ids (counters, async
// spans). A thread's name is not part of it: the metadata that names it may be missing from a sample.
struct TrackKey {
    TrackKind kind;
    std::int64_t pid, tid;
    std::string pidText, tidText, name;
    bool operator==(const TrackKey&) const = default;
};
// Derived lanes (GPU utilisation, queues: ids past the store's tracks) have no key: never matched.
std::optional<TrackKey> keyOf(const TraceStore& store, TrackId id) {
    if (!id.isValid() || id.value >= store.tracks().size()) return std::nullopt;
    const Track& t = store.track(id);
    const bool byName = t.kind == TrackKind::Counter || t.kind == TrackKind::Async;
    return TrackKey{t.kind,
                    t.pid,
                    t.tid,
                    std::string(store.strings().view(t.pidText)),
                    std::string(store.strings().view(t.tidText)),
                    byName ? std::string(store.strings().view(t.name)) : std::string()};
}

// The slice of `after` that is `picked` of `before`: on the track of the same key, with the same start,
// duration and name.
std::optional<EventRef> sameSlice(const TraceStore& before, EventRef picked, const TraceStore& after) {
    const auto key = keyOf(before, picked.track);
    if (!key || !picked.isValid()) return std::nullopt;
    const Track& pt = before.track(picked.track);
    const std::uint32_t prow = picked.index.value;
    const std::string_view name = before.strings().view(pt.names[prow]);
    for (std::uint32_t ti = 0; ti < after.tracks().size(); ++ti) {
        if (keyOf(after, TrackId(ti)) != key) continue;
        const Track& t = after.tracks()[ti];
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            const auto [lo, hi] = t.rowsInRange(d, pt.starts[prow], pt.starts[prow]);
            for (std::uint32_t r = lo; r < hi; ++r)
                if (t.starts[r] == pt.starts[prow] && t.durations[r] == pt.durations[prow] &&
                    after.strings().view(t.names[r]) == name)
                    return EventRef{TrackId(ti), EventIndex(r)};
        }
        return std::nullopt;
    }
    return std::nullopt;
}

// What the user set on the timeline `from` (of a preview), onto `to` (a later preview's, or the full
// trace's).
void carryView(TimelineWidget& from, TimelineWidget& to) {
    // The time range, when the user chose it: an untouched view fits its whole sample, and the next sample
    // (or the full trace) may span much more (a 1 GB gzip stayed on its first 1.2 s of 38.7 s when the fit of
    // an early sample was carried as if chosen).
    if (from.viewChosen()) to.setVisibleRange(from.axis().start, from.axis().end, false);
    // The track at the top of the view (or the first below a group's header there), at the same height:
    // tracks and lanes the sample lacked appear where the full trace puts them.
    const auto& rows = from.layout().rows();
    int row = from.layout().rowAt(from.scrollY());
    const auto keyOfRow = [](TimelineWidget& w, const LaneRow& r) {
        return r.track.isValid() ? keyOf(w.store(), w.layout().sourceTrackOf(r.track)) : std::nullopt;
    };
    while (row >= 0 && std::size_t(row) < rows.size() && !keyOfRow(from, rows[std::size_t(row)]))
        ++row;
    if (row >= 0 && std::size_t(row) < rows.size()) {
        const LaneRow& top = rows[std::size_t(row)];
        const auto key = keyOfRow(from, top);
        for (const LaneRow& r : to.layout().rows())
            if (r.depth == top.depth && keyOfRow(to, r) == key) {
                to.setScrollY(r.y + (from.scrollY() - top.y));
                break;
            }
    }
}
} // namespace

void TraceView::onPreview(std::shared_ptr<LoadedTrace> preview) {
    // (A preview queued before Cancel was pressed is not shown: the load is ending.)
    if (m_state != State::Loading || !preview || !m_cancel->isEnabled()) return;
    // A later preview replaces the one on screen, keeping what the user set on it: a gzip file's grows as it
    // inflates, and then comes one spread over the whole file.
    QWidget* const oldPage = m_previewPage;
    TimelineWidget* const oldTimeline = m_previewTimeline;
    const std::shared_ptr<const LoadedTrace> oldPreview = m_preview; // read by carryView below
    m_preview = preview;
    m_previewPage = new QWidget(m_stack);
    auto* pl = new QVBoxLayout(m_previewPage);
    pl->setContentsMargins(0, 0, 0, 0);
    pl->setSpacing(0);
    auto* strip = new QWidget(m_previewPage);
    strip->setStyleSheet(QStringLiteral("background:#e0f2fe;color:#0c4a6e"));
    auto* sl = new QHBoxLayout(strip);
    sl->setContentsMargins(8, 3, 8, 3);
    m_previewLabel = new QLabel(strip);
    m_previewProgress = new QProgressBar(strip);
    m_previewProgress->setRange(0, 1000);
    m_previewProgress->setMaximumWidth(240);
    m_previewProgress->setMaximumHeight(12);
    m_previewProgress->setTextVisible(false);
    m_previewCancel = new QPushButton(tr("Cancel"), strip);
    m_previewCancel->setFlat(true);
    sl->addWidget(m_previewLabel, 1);
    sl->addWidget(m_previewProgress);
    sl->addWidget(m_previewCancel);
    pl->addWidget(strip);
    // The timeline, and Details for what is clicked on it.
    auto* split = new QSplitter(Qt::Vertical, m_previewPage);
    m_previewTimeline = new TimelineWidget(preview, split);
    auto* details = new DetailsPanel(*preview->store, split);
    split->addWidget(m_previewTimeline);
    split->addWidget(details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    pl->addWidget(split, 1);
    connect(m_previewTimeline, &TimelineWidget::selectionChanged, details, &DetailsPanel::showEvent);
    connect(m_previewTimeline, &TimelineWidget::selectionChanged, this,
            [this, trace = preview](EventRef ref) {
                if (ref.isValid())
                    m_carriedSelection = CarriedSelection{trace, ref};
                else
                    m_carriedSelection.reset(); // deselected
            });
    // The panel reads the sample's store until it is destroyed (after m_preview lets go of it).
    connect(details, &QObject::destroyed, [keep = preview] {});
    m_stack->addWidget(m_previewPage);
    m_stack->setCurrentWidget(m_previewPage);
    connect(m_previewCancel, &QPushButton::clicked, this, &TraceView::cancelLoad);
    if (oldPage) {
        m_previewPage->layout()->activate(); // sized as the page it replaces, before the view is carried
        carryView(*oldTimeline, *m_previewTimeline);
        carrySelection(*m_previewTimeline);
        m_stack->removeWidget(oldPage);
        oldPage->deleteLater();
    }
    updateProgress();
    m_previewTimeline->setFocus();
    emit previewShown();
}

void TraceView::updatePreviewStrip(const QString& progressText, int permille) {
    if (!m_previewPage) return;
    // -1: no figure to show (a gzip member inflating): a busy bar.
    m_previewProgress->setRange(0, permille < 0 ? 0 : 1000);
    if (permille >= 0) m_previewProgress->setValue(permille);
    const std::uint64_t inflated = m_preview->store->stats().previewInflatedBytes;
    if (!m_previewCancel->isEnabled())
        m_previewLabel->setText(tr("Cancelling…"));
    else if (inflated > 0)
        m_previewLabel->setText(tr("A sample of the first %1 MB of %2, as it inflates: %3")
                                    .arg(double(inflated) / 1e6, 0, 'f', 0)
                                    .arg(QFileInfo(m_path).fileName(), progressText));
    else
        m_previewLabel->setText(tr("A sample of %1 spread over the whole trace, while the rest loads: %2")
                                    .arg(QFileInfo(m_path).fileName(), progressText));
}

void TraceView::takeViewFromPreview() {
    if (!m_previewPage) return;
    carryView(*m_previewTimeline, *m_timeline);
    carrySelection(*m_timeline);
    dropPreview();
}

void TraceView::carrySelection(TimelineWidget& to) {
    if (!m_carriedSelection) return;
    // (Selecting it on a later preview makes that preview's slice the one remembered.)
    if (const auto same = sameSlice(*m_carriedSelection->trace->store, m_carriedSelection->slice, to.store()))
        to.setSelected(*same);
}

void TraceView::dropPreview() {
    if (!m_previewPage) return;
    m_stack->removeWidget(m_previewPage);
    m_previewPage->deleteLater();
    m_previewPage = nullptr;
    m_previewTimeline = nullptr;
    m_previewLabel = nullptr;
    m_previewProgress = nullptr;
    m_previewCancel = nullptr;
    m_preview.reset();
    m_carriedSelection.reset();
}

} // namespace kinetoscope
