#pragma once

// Qt's headers first: moc cannot parse some of the standard library's C++20 headers when they come first.
#include <QWidget>

#include "analysis/memory/memorytimeline.h"
#include "analysis/memory/snapshotlink.h"
#include "snapshot/memorysnapshot.h"

#include <QPointer>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTabWidget;
class QTextBrowser;
class QTreeWidget;

namespace kinetoscope {

class MemoryTimelineWidget;
class SegmentMapWidget;
class SnapshotLoadJob;
class TraceView;
struct LoadedSnapshot;

// One tab for a CUDA memory snapshot: loads it in the background, then shows per device the active-memory
// timeline (every allocation a band), and below it the chosen allocation with its stack, what is alive at the
// chosen moment (the peak until one is clicked) largest first and grouped by stack, the allocator's segments
// at that moment with their fragmentation, and the out-of-memory event when there is one. Filters by stream,
// size and frame text dim the bands and the tables that do not match. A large file shows previews of its
// beginning while it loads (SnapshotLoadJob); each replaces the last keeping the device, the zoom, the chosen
// moment and allocation and the filters.
class SnapshotView : public QWidget {
    Q_OBJECT
  public:
    enum class State { Loading, Failed, Ready };

    explicit SnapshotView(QString path, QWidget* parent = nullptr);
    ~SnapshotView() override;

    const QString& path() const { return m_path; }
    State state() const { return m_state; }
    QString errorMessage() const { return m_error; }
    const std::shared_ptr<const MemorySnapshot>& snapshot() const { return m_snapshot; }

    MemoryTimelineWidget* timeline() const { return m_timeline; }
    QTabWidget* tabs() const { return m_tabs; }
    QTreeWidget* aliveTable() const { return m_alive; }
    QTreeWidget* stackTable() const { return m_stacks; }
    QTextBrowser* allocationText() const { return m_allocationText; }
    SegmentMapWidget* segmentMap() const { return m_segments; }
    QLabel* stateFigures() const { return m_stateFigures; }
    QWidget* oomPage() const { return m_oomPage; }
    QLabel* summary() const { return m_summary; }
    // Says what a partial snapshot leaves out: a preview's, or a file cut short's.
    QLabel* partialBanner() const { return m_partialBanner; }

    // The moment the tables and the allocator state show (after that event; -1 before the first).
    std::int64_t moment() const { return m_moment; }
    void setMoment(std::int64_t moment);
    void selectAllocation(std::int32_t allocation);
    void setDevice(int index);
    // Filters (also through the bar's widgets): streams (nullopt: all), a minimum size, frame text.
    void setFilters(std::optional<std::int64_t> stream, std::int64_t minBytes, const QString& frameText);
    std::int64_t peakMoment() const;
    std::optional<std::int64_t> oomMoment() const;

    // Aligns the snapshot with a trace of the same run by wall clock: the trace's timeline gains each
    // device's active-memory lane, and allocations name the operator running when they were made. False,
    // linking nothing, when the two share no time (or either has no clock).
    bool linkTrace(TraceView* trace);
    TraceView* linkedTrace() const { return m_linked; }
    // The link of the device shown, when linked.
    const std::optional<SnapshotTraceLink>& link() const { return m_link; }
    QLabel* linkLabel() const { return m_linkLabel; }

  signals:
    void stateChanged(SnapshotView::State state);
    // A preview of a large file's beginning is on screen (each one; `stateChanged` to Ready ends them).
    void previewShown();
    // "Show in trace" on an allocation's operator.
    void showInTrace(kinetoscope::TraceView* trace, kinetoscope::EventRef event);

  private:
    void onPreview(const LoadedSnapshot& preview);
    void onLoaded(const LoadedSnapshot& loaded);
    // Shows `loaded` in place of what is shown, keeping what the user chose.
    void adopt(const LoadedSnapshot& loaded);
    // Says what a partial snapshot shown leaves out (hidden for a whole one).
    void showPartialBanner();
    void fail(const QString& message);
    void buildContent();
    void fillDeviceBox();
    // Shows device m_device, filtered by `stream` when it has one, at `moment` (else the oom, else the peak).
    void showDevice(std::optional<std::int64_t> stream = std::nullopt,
                    std::optional<std::int64_t> moment = std::nullopt);
    void refreshMoment();
    void refreshFilters();
    void showAllocation(std::int32_t allocation);
    bool passes(std::size_t allocation) const;
    std::int64_t streamOf(const AllocationLifetime& a) const;
    QString stackText(std::uint32_t stack) const;
    QColor colorOfStack(std::uint32_t stack) const;
    void fillOom();
    void updateLink();
    std::optional<EventRef> operatorOf(const AllocationLifetime& a) const;

    QString m_path;
    State m_state = State::Loading;
    QString m_error;
    QString m_warning;                 // why a file read in part stopped where it did
    std::uint64_t m_fileTextBytes = 0; // the whole pickle's size, for the preview's strip
    SnapshotLoadJob* m_job = nullptr;
    std::shared_ptr<const MemorySnapshot> m_snapshot;
    std::vector<std::shared_ptr<const MemoryTimeline>> m_timelines; // per device of m_snapshot->devices
    int m_device = 0;
    std::int64_t m_moment = -1;
    bool m_momentClicked = false; // else the default moment (the peak, or the oom) follows each preview
    std::int32_t m_selected = -1;
    std::optional<std::int64_t> m_streamFilter;
    std::int64_t m_minBytes = 0;
    QString m_frameText;
    std::vector<bool> m_stackMatches; // per stack, for the frame text
    QPointer<TraceView> m_linked;
    std::optional<SnapshotTraceLink> m_link;

    QStackedWidget* m_stack = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_oomBanner = nullptr;
    QLabel* m_linkLabel = nullptr;
    QLabel* m_partialBanner = nullptr;
    QComboBox* m_deviceBox = nullptr;
    QComboBox* m_streamBox = nullptr;
    QComboBox* m_sizeBox = nullptr;
    QLineEdit* m_search = nullptr;
    MemoryTimelineWidget* m_timeline = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTextBrowser* m_allocationText = nullptr;
    QTreeWidget* m_alive = nullptr;
    QTreeWidget* m_stacks = nullptr;
    SegmentMapWidget* m_segments = nullptr;
    QLabel* m_stateFigures = nullptr;
    QWidget* m_oomPage = nullptr;
    QTextBrowser* m_oomText = nullptr;
};

} // namespace kinetoscope
