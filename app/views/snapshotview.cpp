#include "views/snapshotview.h"

#include "charts/memorytimelinewidget.h"
#include "charts/segmentmapwidget.h"
#include "model/textformat.h"
#include "model/timeconv.h"
#include "shell/loadedtrace.h"
#include "shell/snapshotloadjob.h"
#include "snapshot/snapshotloader.h"
#include "timeline/timelinewidget.h"
#include "timeline/viewkeyforwarder.h"
#include "views/traceview.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <map>

namespace kinetoscope {

namespace {

QString bytesText(std::int64_t b) {
    return QString::fromStdString(formatBytes(double(b)));
}

// A table row that sorts by the numbers behind its cells (UserRole), not by their text.
class SortedItem : public QTreeWidgetItem {
  public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override {
        const int c = treeWidget() ? treeWidget()->sortColumn() : 0;
        const QVariant a = data(c, Qt::UserRole), b = other.data(c, Qt::UserRole);
        if (a.isValid() && b.isValid()) return a.toLongLong() < b.toLongLong();
        return text(c) < other.text(c);
    }
};

// A row whose tooltip is a whole stack: written when it is asked for (on hover), not for each of the 500 rows
// at every refresh, which took the UI thread 40-140 ms per swap of a large snapshot's preview.
class StackTipItem : public SortedItem {
  public:
    StackTipItem(QTreeWidget* parent, std::function<QString(std::uint32_t)> text, int column,
                 std::uint32_t stack)
        : SortedItem(parent), m_text(std::move(text)), m_column(column), m_stack(stack) {}
    QVariant data(int column, int role) const override {
        if (role == Qt::ToolTipRole && column == m_column) return m_text(m_stack);
        return SortedItem::data(column, role);
    }

  private:
    std::function<QString(std::uint32_t)> m_text;
    int m_column;
    std::uint32_t m_stack;
};

constexpr int maxRows = 500;
constexpr int allocationRole = Qt::UserRole + 1;

} // namespace

SnapshotView::SnapshotView(QString path, QWidget* parent) : QWidget(parent), m_path(std::move(path)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack);
    m_status = new QLabel(tr("Reading %1…").arg(QFileInfo(m_path).fileName()), m_stack);
    m_status->setAlignment(Qt::AlignCenter);
    m_status->setWordWrap(true);
    m_stack->addWidget(m_status);

    m_job = new SnapshotLoadJob(m_path, this);
    connect(m_job, &SnapshotLoadJob::previewed, this, &SnapshotView::onPreview);
    connect(m_job, &SnapshotLoadJob::loaded, this, &SnapshotView::onLoaded);
    connect(m_job, &SnapshotLoadJob::failed, this, &SnapshotView::fail);
    m_job->start();
}

SnapshotView::~SnapshotView() = default;

void SnapshotView::fail(const QString& message) {
    m_state = State::Failed;
    m_error = message;
    m_status->setText(message);
    m_status->setStyleSheet(QStringLiteral("QLabel{color:#991b1b}"));
    m_stack->setCurrentWidget(m_status); // a preview shown meanwhile goes
    emit stateChanged(m_state);
}

void SnapshotView::onPreview(const LoadedSnapshot& preview) {
    if (m_state != State::Loading || preview.snapshot->devices.empty()) return;
    adopt(preview);
    emit previewShown();
}

void SnapshotView::onLoaded(const LoadedSnapshot& loaded) {
    if (loaded.snapshot->devices.empty()) {
        m_snapshot = loaded.snapshot;
        m_timelines.clear(); // a preview's go with it
        m_device = 0;
        m_status->setText(
            tr("%1: the snapshot holds no device with events or segments").arg(QFileInfo(m_path).fileName()));
        m_stack->setCurrentWidget(m_status);
        m_state = State::Ready;
        emit stateChanged(m_state);
        return;
    }
    m_state = State::Ready; // before adopting it: the tables say what a partial one can never show
    m_warning = loaded.warning;
    adopt(loaded);
    emit stateChanged(m_state);
}

void SnapshotView::showPartialBanner() {
    if (!m_snapshot->partial) {
        m_partialBanner->hide();
    } else if (m_state == State::Loading) {
        std::size_t events = 0;
        for (const DeviceHistory& h : m_snapshot->devices)
            events += h.size();
        m_partialBanner->setStyleSheet(
            QStringLiteral("QLabel{background:#fef3c7;color:#92400e;padding:3px 8px}"));
        m_partialBanner->setText(
            tr("Preview: the first %1 of %2 read (%3); the rest is being read. Allocations made before the "
               "trace that no event so far frees, and the allocator's state, come with the whole file.")
                .arg(bytesText(std::int64_t(m_snapshot->readBytes)), bytesText(std::int64_t(m_fileTextBytes)),
                     QString::fromStdString(countText(events, "event"))));
        m_partialBanner->show();
    } else {
        m_partialBanner->setStyleSheet(
            QStringLiteral("QLabel{background:#fee2e2;color:#991b1b;padding:3px 8px}"));
        m_partialBanner->setText(tr("%1. Shown: what came before it. Allocations made before the trace that "
                                    "no event read frees, and the allocator's state, are not known.")
                                     .arg(m_warning));
        m_partialBanner->show();
    }
    // Laid out now, so that the timeline is drawn once, at the height it keeps.
    if (QWidget* content = m_stack->widget(1); content && content->layout()) content->layout()->activate();
}

namespace {

// The allocation of `timeline` that is `life` of another load of the same file (a preview's): the one made by
// the same event, or for one made before the trace, the one freed by the same event at the same address.
std::int32_t sameAllocation(const MemoryTimeline& timeline, const AllocationLifetime& life) {
    const auto& all = timeline.allocations();
    // Those made before the trace come first, then the others in the order of their alloc events.
    const auto made =
        std::partition_point(all.begin(), all.end(), [](const AllocationLifetime& a) { return a.begin < 0; });
    if (life.begin >= 0) {
        const auto it =
            std::lower_bound(made, all.end(), life.begin,
                             [](const AllocationLifetime& a, std::int64_t begin) { return a.begin < begin; });
        return it != all.end() && it->begin == life.begin ? std::int32_t(it - all.begin()) : -1;
    }
    for (auto it = all.begin(); it != made; ++it)
        if (it->addr == life.addr && it->end == life.end) return std::int32_t(it - all.begin());
    return -1;
}

} // namespace

void SnapshotView::adopt(const LoadedSnapshot& loaded) {
    const bool first = !m_timeline;
    std::optional<std::int64_t> deviceNumber;
    std::optional<std::pair<double, double>> view;
    std::optional<AllocationLifetime> selected;
    const std::optional<std::int64_t> stream = m_streamFilter;
    const std::int64_t moment = m_moment;
    if (!first) {
        deviceNumber = m_snapshot->devices[std::size_t(m_device)].device;
        const MemoryTimeline& shown = *m_timelines[std::size_t(m_device)];
        if (m_timeline->viewFrom() > -1 || m_timeline->viewTo() < double(shown.eventCount()))
            view = {m_timeline->viewFrom(), m_timeline->viewTo()}; // zoomed in: kept; else the whole new one
        if (m_selected >= 0 && std::size_t(m_selected) < shown.allocations().size())
            selected = shown.allocations()[std::size_t(m_selected)];
    }
    QWidget* const tab = first ? nullptr : m_tabs->currentWidget();
    m_snapshot = loaded.snapshot;
    m_timelines = loaded.timelines;
    m_fileTextBytes = loaded.fileTextBytes;
    m_device = 0;
    for (std::size_t d = 0; d < m_snapshot->devices.size(); ++d)
        if (deviceNumber && m_snapshot->devices[d].device == *deviceNumber) m_device = int(d);
    if (first) {
        buildContent();
    } else {
        fillDeviceBox();
        m_stack->setCurrentIndex(1);
    }
    showPartialBanner();
    showDevice(stream, m_momentClicked ? std::optional<std::int64_t>(moment) : std::nullopt);
    if (tab && m_tabs->indexOf(tab) >= 0) m_tabs->setCurrentWidget(tab); // the tab the user was reading
    if (view) m_timeline->setView(view->first, view->second);
    if (selected) {
        const std::int32_t a = sameAllocation(*m_timelines[std::size_t(m_device)], *selected);
        if (a >= 0) selectAllocation(a);
    }
}

void SnapshotView::fillDeviceBox() {
    const QSignalBlocker quiet(m_deviceBox);
    m_deviceBox->clear();
    for (const DeviceHistory& h : m_snapshot->devices)
        m_deviceBox->addItem(tr("GPU %1").arg(h.device));
    m_deviceBox->setCurrentIndex(m_device);
    m_deviceBox->setVisible(m_snapshot->devices.size() > 1);
}

void SnapshotView::buildContent() {
    auto* content = new QWidget(m_stack);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);

    auto* bar = new QHBoxLayout;
    m_deviceBox = new QComboBox(content);
    fillDeviceBox();
    connect(m_deviceBox, &QComboBox::currentIndexChanged, this, [this](int i) { setDevice(i); });
    bar->addWidget(m_deviceBox);
    m_summary = new QLabel(content);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_summary, 1);
    m_streamBox = new QComboBox(content);
    m_streamBox->setSizeAdjustPolicy(
        QComboBox::AdjustToContents); // "all streams" was clipped beside a long summary
    m_streamBox->setToolTip(tr("Show the allocations of one stream; the others are drawn pale"));
    bar->addWidget(m_streamBox);
    m_sizeBox = new QComboBox(content);
    m_sizeBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_sizeBox->setToolTip(tr("Show allocations of at least this size; the others are drawn pale"));
    for (const auto& [label, bytes] :
         std::initializer_list<std::pair<const char*, qint64>>{{"any size", 0},
                                                               {"≥ 1 KiB", 1LL << 10},
                                                               {"≥ 1 MiB", 1LL << 20},
                                                               {"≥ 16 MiB", 16LL << 20},
                                                               {"≥ 256 MiB", 256LL << 20},
                                                               {"≥ 1 GiB", 1LL << 30}})
        m_sizeBox->addItem(tr(label), bytes);
    bar->addWidget(m_sizeBox);
    m_search = new QLineEdit(content);
    m_search->setPlaceholderText(tr("Search frames…"));
    m_search->setClearButtonEnabled(true);
    m_search->setToolTip(
        tr("Show allocations whose stack has a frame (function or file) containing this text"));
    bar->addWidget(m_search, 1);
    layout->addLayout(bar);
    const auto applyFilters = [this] {
        const QVariant stream = m_streamBox->currentData();
        setFilters(stream.isValid() ? std::optional<std::int64_t>(stream.toLongLong()) : std::nullopt,
                   m_sizeBox->currentData().toLongLong(), m_search->text());
    };
    connect(m_streamBox, &QComboBox::currentIndexChanged, this, applyFilters);
    connect(m_sizeBox, &QComboBox::currentIndexChanged, this, applyFilters);
    connect(m_search, &QLineEdit::editingFinished, this, applyFilters);

    m_linkLabel = new QLabel(content);
    m_linkLabel->setStyleSheet(QStringLiteral("QLabel{background:#e0f2fe;color:#075985;padding:3px 8px}"));
    m_linkLabel->setWordWrap(true);
    m_linkLabel->hide();
    layout->addWidget(m_linkLabel);

    m_oomBanner = new QLabel(content);
    m_oomBanner->setStyleSheet(QStringLiteral("QLabel{background:#fee2e2;color:#991b1b;padding:4px 8px}"));
    m_oomBanner->setWordWrap(true);
    m_oomBanner->hide();
    layout->addWidget(m_oomBanner);

    m_partialBanner = new QLabel(content);
    m_partialBanner->setWordWrap(true);
    m_partialBanner->hide();
    layout->addWidget(m_partialBanner);

    auto* split = new QSplitter(Qt::Vertical, content);
    m_timeline = new MemoryTimelineWidget(split);
    new ViewKeyForwarder(this, m_timeline); // the zoom keys after a click on a table too
    split->addWidget(m_timeline);
    m_tabs = new QTabWidget(split);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    split->setSizes({640, 320}); // the timeline first: two thirds of the height
    layout->addWidget(split, 1);

    m_allocationText = new QTextBrowser(m_tabs);
    m_allocationText->setOpenLinks(false);
    connect(m_allocationText, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        // trace:TRACK:ROW, the operator of an allocation in the linked trace.
        const QStringList parts = url.toString().split(QLatin1Char(':'));
        if (parts.size() == 3 && parts[0] == QLatin1String("trace") && m_linked)
            emit showInTrace(m_linked, EventRef{TrackId(parts[1].toUInt()), EventIndex(parts[2].toUInt())});
    });
    m_allocationText->setPlaceholderText(tr("Click a band or a table row to see its allocation and stack."));
    m_tabs->addTab(m_allocationText, tr("Allocation"));

    const auto table = [this](const QStringList& headers) {
        auto* t = new QTreeWidget(m_tabs);
        t->setRootIsDecorated(false);
        t->setUniformRowHeights(true);
        t->setSortingEnabled(true);
        t->setHeaderLabels(headers);
        t->header()->setStretchLastSection(true);
        connect(t, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
            if (item && item->data(0, allocationRole).isValid()) {
                const auto a = std::int32_t(item->data(0, allocationRole).toInt());
                m_timeline->setSelectedAllocation(a);
                showAllocation(a);
            }
        });
        return t;
    };
    m_alive =
        table({tr("Size"), tr("Stream"), tr("Allocated"), tr("Freed"), tr("Where"), tr("Operator (trace)")});
    m_alive->setColumnHidden(5, true);
    m_tabs->addTab(m_alive, tr("Alive"));
    m_stacks = table({tr("Bytes"), tr("Allocations"), tr("Largest"), tr("Where (innermost Python frames)")});
    m_tabs->addTab(m_stacks, tr("By stack"));

    auto* statePage = new QWidget(m_tabs);
    auto* stateLayout = new QVBoxLayout(statePage);
    stateLayout->setContentsMargins(0, 0, 0, 0);
    m_stateFigures = new QLabel(statePage);
    m_stateFigures->setWordWrap(true);
    m_stateFigures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stateLayout->addWidget(m_stateFigures);
    auto* scroll = new QScrollArea(statePage);
    m_segments = new SegmentMapWidget(scroll);
    scroll->setWidget(m_segments);
    scroll->setWidgetResizable(true);
    stateLayout->addWidget(scroll, 1);
    m_tabs->addTab(statePage, tr("Allocator state"));

    m_oomPage = new QWidget(this); // a tab only when the device ran out of memory
    m_oomPage->hide();
    auto* oomLayout = new QVBoxLayout(m_oomPage);
    oomLayout->setContentsMargins(0, 0, 0, 0);
    m_oomText = new QTextBrowser(m_oomPage);
    oomLayout->addWidget(m_oomText);

    m_timeline->setAllocationLabel([this](std::int32_t a) {
        const auto& allocations = m_timelines[std::size_t(m_device)]->allocations();
        return QString::fromStdString(allocationSite(*m_snapshot, allocations[std::size_t(a)].stack));
    });
    connect(m_timeline, &MemoryTimelineWidget::momentClicked, this, [this](std::int64_t m) {
        m_momentClicked = true;
        setMoment(m);
    });
    connect(m_timeline, &MemoryTimelineWidget::allocationClicked, this, [this](std::int32_t a, std::int64_t) {
        selectAllocation(a);
        m_tabs->setCurrentWidget(m_allocationText);
    });
    m_stack->addWidget(content);
    m_stack->setCurrentWidget(content);
}

std::int64_t SnapshotView::peakMoment() const {
    const auto curve = m_timelines[std::size_t(m_device)]->curve();
    return std::int64_t(std::max_element(curve.begin(), curve.end()) - curve.begin()) - 1;
}

std::optional<std::int64_t> SnapshotView::oomMoment() const {
    const DeviceHistory& h = m_snapshot->devices[std::size_t(m_device)];
    for (std::size_t i = 0; i < h.size(); ++i)
        if (h.actions[i] == AllocatorAction::Oom) return std::int64_t(i);
    return std::nullopt;
}

void SnapshotView::setDevice(int index) {
    if (!m_snapshot || index < 0 || index >= int(m_snapshot->devices.size())) return;
    m_device = index;
    if (m_deviceBox->currentIndex() != index) m_deviceBox->setCurrentIndex(index);
    showDevice();
}

void SnapshotView::showDevice(std::optional<std::int64_t> stream, std::optional<std::int64_t> moment) {
    // What was selected belonged to another device's (or another load's) allocations.
    m_selected = -1;
    if (m_allocationText) m_allocationText->clear();
    const DeviceHistory& h = m_snapshot->devices[std::size_t(m_device)];
    const MemoryTimeline& t = *m_timelines[std::size_t(m_device)];
    std::vector<std::uint8_t> colors(t.allocations().size());
    for (std::size_t a = 0; a < colors.size(); ++a)
        colors[a] = MemoryTimelineWidget::colorIndexOfStack(t.allocations()[a].stack);
    m_timeline->setTimeline(m_timelines[std::size_t(m_device)], std::move(colors));
    std::int64_t reserved = 0;
    std::uint64_t segments = 0;
    for (const SnapshotSegment& s : m_snapshot->segments)
        if (s.device == h.device) {
            reserved += s.totalSize;
            ++segments;
        }
    const auto curve = t.curve();
    // Without events (dumped without _record_memory_history, or the old bare list) there is no time axis to
    // draw: the snapshot's own moment is all there is, and the tables below show it.
    const bool historyRecorded = m_snapshot->hasTrace && h.size() > 0;
    m_timeline->setVisible(historyRecorded || m_snapshot->partial);
    if (historyRecorded)
        m_summary->setText(
            tr("%1 events · peak %2 active after event %3 · %4 reserved in %5 at snapshot time")
                .arg(h.size())
                .arg(bytesText(*std::max_element(curve.begin(), curve.end())))
                .arg(peakMoment() + 1)
                .arg(bytesText(reserved), QString::fromStdString(countText(segments, "segment"))));
    else
        m_summary->setText((m_snapshot->hasTrace
                                ? tr("No allocation history was recorded (the snapshot was dumped without "
                                     "_record_memory_history)")
                                : tr("Old snapshot layout (a bare list of segments): no allocator trace")) +
                           tr(" · what was allocated at snapshot time, the only moment known: %1 allocated, "
                              "%2 reserved in %3")
                               .arg(bytesText(curve.empty() ? 0 : curve.back()), bytesText(reserved),
                                    QString::fromStdString(countText(segments, "segment"))));
    // Streams for the filter: those of the device's events and segments.
    std::map<std::int64_t, bool> streams;
    for (std::int64_t s : h.streams)
        streams[s] = true;
    for (const SnapshotSegment& s : m_snapshot->segments)
        if (s.device == h.device) streams[s.stream] = true;
    m_streamBox->blockSignals(true);
    m_streamBox->clear();
    m_streamBox->addItem(tr("all streams"));
    for (const auto& [s, _] : streams)
        m_streamBox->addItem(tr("stream %1").arg(s), qlonglong(s));
    const int kept = stream ? m_streamBox->findData(qlonglong(*stream)) : -1;
    m_streamBox->setCurrentIndex(std::max(kept, 0));
    m_streamBox->blockSignals(false);
    m_streamFilter = kept > 0 ? stream : std::nullopt;
    fillOom();
    updateLink();
    refreshFilters();
    setMoment(moment ? std::min(*moment, t.eventCount() - 1) : oomMoment().value_or(peakMoment()));
}

std::int64_t SnapshotView::streamOf(const AllocationLifetime& a) const {
    const DeviceHistory& h = m_snapshot->devices[std::size_t(m_device)];
    if (a.begin >= 0) return h.streams[std::size_t(a.begin)];
    if (a.end < std::int64_t(h.size())) return h.streams[std::size_t(a.end)];
    for (const SnapshotSegment& s : m_snapshot->segments)
        if (s.device == h.device && a.addr >= s.address && a.addr < s.address + std::uint64_t(s.totalSize))
            return s.stream;
    return 0;
}

bool SnapshotView::passes(std::size_t allocation) const {
    const AllocationLifetime& a = m_timelines[std::size_t(m_device)]->allocations()[allocation];
    if (a.size < m_minBytes) return false;
    if (!m_stackMatches.empty() && !m_stackMatches[a.stack]) return false;
    if (m_streamFilter && streamOf(a) != *m_streamFilter) return false;
    return true;
}

void SnapshotView::setFilters(std::optional<std::int64_t> stream, std::int64_t minBytes,
                              const QString& frameText) {
    m_streamFilter = stream;
    m_minBytes = minBytes;
    m_frameText = frameText.trimmed();
    refreshFilters();
    refreshMoment();
}

void SnapshotView::refreshFilters() {
    m_stackMatches.clear();
    if (!m_frameText.isEmpty()) {
        const std::string needle = m_frameText.toLower().toStdString();
        const auto contains = [&](std::string_view text) {
            return std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
                       return std::tolower(static_cast<unsigned char>(a)) == b;
                   }) != text.end();
        };
        m_stackMatches.assign(m_snapshot->stackCount(), false);
        for (std::uint32_t s = 0; s < m_snapshot->stackCount(); ++s)
            for (std::uint32_t f : m_snapshot->stack(s)) {
                const SnapshotFrame& frame = m_snapshot->frames[f];
                if (contains(m_snapshot->strings.view(frame.name)) ||
                    contains(m_snapshot->strings.view(frame.filename))) {
                    m_stackMatches[s] = true;
                    break;
                }
            }
    }
    const auto& allocations = m_timelines[std::size_t(m_device)]->allocations();
    std::vector<bool> dimmed;
    if (m_streamFilter || m_minBytes > 0 || !m_stackMatches.empty()) {
        dimmed.resize(allocations.size());
        for (std::size_t a = 0; a < allocations.size(); ++a)
            dimmed[a] = !passes(a);
    }
    m_timeline->setDimmed(std::move(dimmed));
}

void SnapshotView::setMoment(std::int64_t moment) {
    m_moment = moment;
    m_timeline->setMarker(moment);
    refreshMoment();
}

void SnapshotView::refreshMoment() {
    if (!m_timeline) return;
    const auto stackTip = [this](std::uint32_t stack) { return stackText(stack); };
    const DeviceHistory& h = m_snapshot->devices[std::size_t(m_device)];
    const MemoryTimeline& t = *m_timelines[std::size_t(m_device)];
    const auto& allocations = t.allocations();
    const QString when = m_moment < 0 ? tr("before the first event") : tr("after event %1").arg(m_moment + 1);
    std::vector<const AllocationLifetime*> alive;
    std::vector<std::int32_t> aliveIndex;
    std::int64_t aliveBytes = 0;
    for (std::size_t a = 0; a < allocations.size(); ++a)
        if (allocations[a].aliveAfter(m_moment) && passes(a)) {
            alive.push_back(&allocations[a]);
            aliveIndex.push_back(std::int32_t(a));
            aliveBytes += allocations[a].size;
        }
    // Largest first; the table shows the first maxRows.
    std::vector<std::size_t> order(alive.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return alive[a]->size > alive[b]->size; });
    m_alive->setSortingEnabled(false);
    m_alive->clear();
    const auto eventText = [&](std::int64_t e, bool isEnd) {
        if (!isEnd && e < 0) return tr("before the trace");
        if (isEnd && e >= std::int64_t(h.size())) return tr("never");
        return tr("event %1").arg(e + 1);
    };
    for (std::size_t i = 0; i < order.size() && i < std::size_t(maxRows); ++i) {
        const AllocationLifetime& a = *alive[order[i]];
        auto* item = new StackTipItem(m_alive, stackTip, 4, a.stack);
        item->setText(0, bytesText(a.size));
        item->setData(0, Qt::UserRole, qlonglong(a.size));
        item->setData(0, allocationRole, aliveIndex[order[i]]);
        item->setText(1, QString::number(streamOf(a)));
        item->setText(2, eventText(a.begin, false));
        item->setData(2, Qt::UserRole, qlonglong(a.begin));
        item->setText(3, eventText(a.end, true));
        item->setData(3, Qt::UserRole, qlonglong(a.end));
        item->setText(4, QString::fromStdString(allocationSite(*m_snapshot, a.stack)));
        if (m_link) {
            const std::optional<EventRef> op = operatorOf(a);
            const TraceStore& store = *m_linked->trace()->store;
            item->setText(5, op ? QString::fromStdString(std::string(
                                      store.strings().view(store.track(op->track).names[op->index.value])))
                                : QString());
        }
    }
    m_alive->setColumnHidden(5, !m_link);
    m_alive->setSortingEnabled(true);
    m_alive->sortByColumn(0, Qt::DescendingOrder);
    m_tabs->setTabText(m_tabs->indexOf(m_alive),
                       tr("Alive %1 (%2 in %3)").arg(when, bytesText(aliveBytes)).arg(alive.size()));
    m_stacks->setSortingEnabled(false);
    m_stacks->clear();
    const std::vector<StackGroup> groups = groupByStack(*m_snapshot, alive, 3);
    for (std::size_t i = 0; i < groups.size() && i < std::size_t(maxRows); ++i) {
        const StackGroup& g = groups[i];
        auto* item = new StackTipItem(m_stacks, stackTip, 3, g.exampleStack);
        item->setText(0, bytesText(g.bytes));
        item->setData(0, Qt::UserRole, qlonglong(g.bytes));
        item->setText(1, QString::number(g.count));
        item->setData(1, Qt::UserRole, qlonglong(g.count));
        item->setText(2, bytesText(g.largest));
        item->setData(2, Qt::UserRole, qlonglong(g.largest));
        QStringList frames;
        for (std::uint32_t f : g.frames) {
            const SnapshotFrame& frame = m_snapshot->frames[f];
            frames << QStringLiteral("%1 (%2:%3)")
                          .arg(QString::fromUtf8(m_snapshot->strings.view(frame.name).data(),
                                                 qsizetype(m_snapshot->strings.view(frame.name).size())),
                               QFileInfo(QString::fromStdString(
                                             std::string(m_snapshot->strings.view(frame.filename))))
                                   .fileName())
                          .arg(frame.line);
        }
        item->setText(3, frames.isEmpty() ? tr("(no stack)") : frames.join(QStringLiteral("  ←  ")));
    }
    m_stacks->setSortingEnabled(true);
    m_stacks->sortByColumn(0, Qt::DescendingOrder);
    m_tabs->setTabText(m_tabs->indexOf(m_stacks), tr("By stack (%1)").arg(groups.size()));

    if (m_snapshot->partial) {
        // The state is replayed back from the segments at the end of the file, which this read did not reach.
        m_stateFigures->setText(
            (m_state == State::Loading
                 ? tr("<b>%1</b>: the allocator's state is worked back from the end of the file, not read "
                      "yet.")
                 : tr("<b>%1</b>: the allocator's state is worked back from the end of the file, which this "
                      "file does not reach."))
                .arg(when));
        m_segments->setState(AllocatorState{}, [this](std::uint32_t stack) { return colorOfStack(stack); });
        return;
    }
    const AllocatorState state = allocatorStateAfter(*m_snapshot, h, m_moment);
    // Idle cached segments apart from the gaps inside segments in use: only the gaps are fragmentation.
    m_stateFigures->setText(
        tr("<b>%1</b>: %2 reserved in %3 · %4 active (%5 freed, waiting for their streams) · %6 free: %7 "
           "cached in %8 holding nothing (releasable by <tt>empty_cache()</tt>), %9 inside segments in use, "
           "the largest free block there %10 · fragmentation %11 % (1 − largest free block / free, inside "
           "segments in use)%12")
            .arg(when, bytesText(state.reservedBytes),
                 QString::fromStdString(countText(state.segments.size(), "segment")),
                 bytesText(state.activeBytes), bytesText(state.pendingBytes), bytesText(state.freeBytes),
                 bytesText(state.cachedIdleBytes),
                 QString::fromStdString(countText(state.cachedIdleSegments, "segment")),
                 bytesText(state.freeInUseBytes))
            .arg(bytesText(state.largestFreeInUse))
            .arg(state.fragmentation * 100, 0, 'f', 1)
            .arg(state.unplacedBlocks
                     ? tr(" · %1 in no known segment")
                           .arg(QString::fromStdString(countText(state.unplacedBlocks, "block")))
                     : QString()));
    m_segments->setState(state, [this](std::uint32_t stack) { return colorOfStack(stack); });
}

QColor SnapshotView::colorOfStack(std::uint32_t stack) const {
    return QColor(MemoryTimelineWidget::bandColor(MemoryTimelineWidget::colorIndexOfStack(stack)));
}

QString SnapshotView::stackText(std::uint32_t stack) const {
    // The Python frames first (what the program's author wrote), then the native ones that the unwinder
    // recorded around them (the allocator's own frames come first in the file and say little).
    QStringList python, native;
    for (std::uint32_t f : m_snapshot->stack(stack)) {
        const SnapshotFrame& frame = m_snapshot->frames[f];
        const std::string_view file = m_snapshot->strings.view(frame.filename);
        const QString line =
            QStringLiteral("%1  %2:%3")
                .arg(QString::fromStdString(std::string(m_snapshot->strings.view(frame.name))),
                     QString::fromStdString(std::string(file)))
                .arg(frame.line);
        (file.size() > 3 && file.substr(file.size() - 3) == ".py" ? python : native) << line;
    }
    if (python.isEmpty() && native.isEmpty()) return tr("(no stack recorded)");
    if (python.isEmpty() || native.isEmpty()) return (python.isEmpty() ? native : python).join('\n');
    return python.join('\n') + tr("\n\nNative frames (%1):\n").arg(native.size()) + native.join('\n');
}

void SnapshotView::selectAllocation(std::int32_t allocation) {
    if (!m_timeline || m_timelines.empty()) return; // nothing shown
    m_timeline->setSelectedAllocation(allocation);
    showAllocation(allocation);
}

void SnapshotView::showAllocation(std::int32_t allocation) {
    m_selected = allocation;
    const auto& allocations = m_timelines[std::size_t(m_device)]->allocations();
    if (allocation < 0 || std::size_t(allocation) >= allocations.size()) {
        m_allocationText->clear();
        return;
    }
    const DeviceHistory& h = m_snapshot->devices[std::size_t(m_device)];
    const AllocationLifetime& a = allocations[std::size_t(allocation)];
    const auto timeOf = [&](std::int64_t e) -> QString {
        if (e < 0 || e >= std::int64_t(h.size()) || h.timesUs[std::size_t(e)] == noTimeUs) return {};
        const std::int64_t first = h.timesUs.front() == noTimeUs ? 0 : h.timesUs.front();
        return tr(" (%1 after the first event)")
            .arg(QString::fromStdString(formatDuration((h.timesUs[std::size_t(e)] - first) * 1000)));
    };
    QString html = tr("<p><b>%1</b> at 0x%2 on stream %3</p>")
                       .arg(bytesText(a.size), QString::number(a.addr, 16))
                       .arg(streamOf(a));
    html += tr("<p>Allocated: %1%2<br/>Freed: %3%4</p>")
                .arg(a.begin < 0 ? tr("before the trace began") : tr("event %1").arg(a.begin + 1),
                     timeOf(a.begin),
                     a.end >= std::int64_t(h.size()) ? tr("never (alive at snapshot time)")
                                                     : tr("event %1").arg(a.end + 1),
                     timeOf(a.end));
    if (a.begin >= 0 && a.end < std::int64_t(h.size()) && h.timesUs[std::size_t(a.begin)] != noTimeUs &&
        h.timesUs[std::size_t(a.end)] != noTimeUs)
        html += tr("<p>Lifetime: %1</p>")
                    .arg(QString::fromStdString(formatDuration(
                        (h.timesUs[std::size_t(a.end)] - h.timesUs[std::size_t(a.begin)]) * 1000)));
    if (a.begin < 0)
        html += tr("<p><i>Its alloc is not in the trace: the stack is the one its free or its block "
                   "recorded.</i></p>");
    if (a.begin >= 0 && h.timesUs[std::size_t(a.begin)] != noTimeUs) {
        const std::vector<std::string_view> open =
            openAnnotations(*m_snapshot, h.device, h.timesUs[std::size_t(a.begin)]);
        if (!open.empty()) {
            QStringList names;
            for (std::string_view n : open)
                names << QString::fromUtf8(n.data(), qsizetype(n.size())).toHtmlEscaped();
            html += tr("<p>Inside the annotations: %1</p>").arg(names.join(QStringLiteral(" › ")));
        }
    }
    if (m_link) {
        if (const std::optional<EventRef> op = operatorOf(a)) {
            const TraceStore& store = *m_linked->trace()->store;
            const Track& track = store.track(op->track);
            html +=
                tr("<p>Operator running in the trace: <b>%1</b> (thread %2) <a href=\"trace:%3:%4\">Show in "
                   "trace</a></p>")
                    .arg(QString::fromStdString(
                             std::string(store.strings().view(track.names[op->index.value])))
                             .toHtmlEscaped())
                    .arg(track.tid)
                    .arg(op->track.value)
                    .arg(op->index.value);
        } else if (a.begin >= 0) {
            html += tr("<p>No operator of the linked trace was running when it was made.</p>");
        }
    }
    html += QStringLiteral("<pre>") + stackText(a.stack).toHtmlEscaped() + QStringLiteral("</pre>");
    m_allocationText->setHtml(html);
}

bool SnapshotView::linkTrace(TraceView* trace) {
    if (!m_snapshot || !trace || trace->state() != TraceView::State::Ready || !trace->trace()) return false;
    const TraceStore& store = *trace->trace()->store;
    bool any = false;
    for (std::size_t d = 0; d < m_snapshot->devices.size(); ++d) {
        const DeviceHistory& h = m_snapshot->devices[d];
        const std::optional<SnapshotTraceLink> link = linkSnapshotToTrace(h, store);
        if (!link) continue;
        // The lane lives beside the trace's store, in its timeline's derived tracks.
        trace->timeline()->addDerivedTrack(activeMemoryLane(*m_timelines[d], h, *link));
        any = true;
    }
    if (!any) return false;
    m_linked = trace;
    updateLink();
    refreshMoment();
    if (m_selected >= 0) showAllocation(m_selected);
    return true;
}

void SnapshotView::updateLink() {
    m_link.reset();
    if (m_linked && m_linked->trace())
        m_link = linkSnapshotToTrace(m_snapshot->devices[std::size_t(m_device)], *m_linked->trace()->store);
    if (!m_linkLabel) return;
    m_linkLabel->setVisible(m_link.has_value());
    if (m_link)
        m_linkLabel->setText(
            tr("Linked by wall clock to %1: %2 of this device's %3 timed events fall in its span. "
               "Its timeline shows the active memory as a lane; allocations name the operator that "
               "made them.")
                .arg(QFileInfo(m_linked->path()).fileName())
                .arg(m_link->eventsInTrace)
                .arg(m_link->timedEvents));
}

std::optional<EventRef> SnapshotView::operatorOf(const AllocationLifetime& a) const {
    const DeviceHistory& h = m_snapshot->devices[std::size_t(m_device)];
    if (!m_link || !m_linked || a.begin < 0 || h.timesUs[std::size_t(a.begin)] == noTimeUs)
        return std::nullopt;
    return operatorAt(*m_linked->trace()->store, m_link->traceTime(h.timesUs[std::size_t(a.begin)]));
}

void SnapshotView::fillOom() {
    const int index = m_tabs->indexOf(m_oomPage);
    const std::optional<std::int64_t> oom = oomMoment();
    if (!oom) {
        if (index >= 0) m_tabs->removeTab(index);
        m_oomBanner->hide();
        return;
    }
    if (index < 0) m_tabs->addTab(m_oomPage, tr("Out of memory"));
    m_tabs->setCurrentWidget(m_oomPage); // what a user who ran out of memory opened the file for
    const DeviceHistory& h = m_snapshot->devices[std::size_t(m_device)];
    const auto e = std::size_t(*oom);
    QString headline = tr("Out of memory at event %1: a request for %2 failed with %3 free on the device.")
                           .arg(*oom + 1)
                           .arg(bytesText(h.sizes[e]), bytesText(std::int64_t(h.addrs[e])));
    if (!m_snapshot->partial) { // else the allocator's state is not known (refreshMoment)
        const AllocatorState state = allocatorStateAfter(*m_snapshot, h, *oom);
        headline += tr(" The allocator held %1 active and %2 reserved, %3 of it free in its segments (%4 "
                       "of that in cached segments holding nothing; the largest free block %5).")
                        .arg(bytesText(m_timelines[std::size_t(m_device)]->curve()[e]),
                             bytesText(state.reservedBytes), bytesText(state.freeBytes),
                             bytesText(state.cachedIdleBytes), bytesText(state.largestFree));
    }
    m_oomBanner->setText(headline + tr(" The tables below show that moment."));
    m_oomBanner->show();
    QString html = QStringLiteral("<p><b>") + headline.toHtmlEscaped() + QStringLiteral("</b></p>");
    html += tr("<p>Where the failed request was made:</p><pre>") + stackText(h.stacks[e]).toHtmlEscaped() +
            QStringLiteral("</pre>");
    html += tr("<p>The <b>Alive</b> and <b>By stack</b> tabs list what held the memory then, largest first; "
               "<b>Allocator state</b> shows its segments.</p>");
    m_oomText->setHtml(html);
}

} // namespace kinetoscope
