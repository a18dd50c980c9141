#pragma once

#include "open/viewfile.h"
#include "shell/loadedtrace.h"
#include "timeline/timelineframe.h"

#include <QElapsedTimer>
#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTimer;
class QSplitter;

namespace kinetoscope {

class AreaSummaryPanel;
class CriticalPathBar;
class KernelPanel;
class MemoryPanel;
class ModulePanel;
class CompiledPanel;
class RooflinePanel;
class OperatorPanel;
class OverviewPanel;
class QueryPanel;
struct AnalysisResult;
class DetailsPanel;
class KernelSourceView;
struct KernelSourceSearch;
class LoadJob;
class SearchBar;
class TimelineWidget;

// One tab: loads a trace in the background (progress, Cancel), then shows its timeline with the details and
// area-selection panels, a search bar and a banner about anything the loader skipped. A failed load shows its
// one-line error in this tab only.
class TraceView : public QWidget {
    Q_OBJECT
  public:
    enum class State { Loading, Failed, Cancelled, Ready };

    explicit TraceView(QString path, QWidget* parent = nullptr);
    // A trace already in memory (a live capture's latest snapshot); `title` stands in for the path.
    TraceView(std::shared_ptr<LoadedTrace> trace, QString title, QWidget* parent = nullptr);
    ~TraceView() override;

    const QString& path() const { return m_path; }
    State state() const { return m_state; }
    QString errorMessage() const { return m_error; }
    QString bannerText() const;

    void cancelLoad();
    // A saved view or a link's range, selection, pinned and hidden tracks and queries: applied now, or when
    // the load finishes (app/views/traceviewlinks.cpp). What the trace lacks (a slice id past its end, a
    // track title it has not) is said in the status text, not applied.
    void applyView(const ViewFile& view);
    // This tab as a view: its trace, the visible range, the selection, pinned and hidden tracks, the query.
    ViewFile currentViewFile() const;
    // What the last applied view could not restore (empty when everything was).
    QString viewProblems() const { return m_viewProblems; }
    // Set before the load finishes to apply once it does (e.g. from the command line).
    TimelineWidget* timeline() const { return m_timeline; }
    DetailsPanel* details() const { return m_details; }
    AreaSummaryPanel* areaPanel() const { return m_areaPanel; }
    SearchBar* searchBar() const { return m_searchBar; }
    const std::shared_ptr<const LoadedTrace>& trace() const { return m_trace; }

    // Shows or hides the details / area-selection panels under the timeline.
    void setPanelsVisible(bool visible);
    // Scopes every analysis panel to [from, to] (none: the whole trace) and recomputes them off the UI
    // thread.
    void setAnalysisScope(std::optional<std::pair<qint64, qint64>> scope);
    std::optional<std::pair<qint64, qint64>> analysisScope() const { return m_scope; }
    const std::shared_ptr<const AnalysisResult>& analysis() const { return m_analysis; }
    OverviewPanel* overviewPanel() const { return m_overview; }
    OperatorPanel* operatorPanel() const { return m_operators; }
    KernelPanel* kernelPanel() const { return m_kernels; }
    MemoryPanel* memoryPanel() const { return m_memory; }
    ModulePanel* modulePanel() const { return m_modules; }
    RooflinePanel* rooflinePanel() const { return m_roofline; }
    CompiledPanel* compiledPanel() const { return m_compiled; }
    QueryPanel* queryPanel() const { return m_query; }
    // The Query tab (traceviewquery.cpp): `sql` in its editor, run; the SQL behind a panel's numbers ("Show
    // as query"; empty for a panel without); the area selection's slices as SQL.
    void openQuery(const QString& sql);
    QString queryOfPanel(QWidget* panel) const;
    void queryArea();
    QTabWidget* bottomTabs() const { return m_bottomTabs; }
    QSplitter* splitter() const { return m_splitter; }
    // View > Reset Layout: the default split between timeline and panels.
    void resetLayout();
    // Marks every slice named exactly `name` on the timeline, with next/previous in the search bar.
    void highlightName(const QString& name);
    // Computes the critical path of the step at `at` (none: the step most in view) off the UI thread, then
    // outlines it on the timeline with its breakdown in a strip above; clearCriticalPath removes both.
    void showCriticalPath(std::optional<qint64> at = std::nullopt);
    void clearCriticalPath();
    CriticalPathBar* criticalPathBar() const { return m_pathBar; }
    void showSearch();
    // Runs the search in the bar now (tests call it instead of waiting for the typing pause).
    void runSearch();
    void nextMatch();
    void previousMatch();
    std::size_t matchCount() const;
    int currentMatchIndex() const { return m_currentMatch; }
    bool searchRunning() const { return m_searchRunning; }

    // The Triton kernels' generated code (traceviewsources.cpp): looked for off the UI thread in `folder`
    // (and at each launch event's kernel_file), the folder remembered for this trace.
    void findKernelSources(const QString& folder);
    void chooseKernelFolder();
    void showKernelSource(const QString& kernel, const QString& hash);
    // A compiled module (output_code.py) of this trace's run: its kernels' code, what they fused. Remembered
    // for the trace; looked in as soon as the trace is loaded.
    void attachCompiledModule(const QString& path);
    KernelSourceView* kernelSourceView() const { return m_sourceView; }
    // While a large file loads: its first screen, a timeline of a sample of its events spread over the whole
    // trace (traceviewpreview.cpp); null before it comes and once the full trace replaces it.
    TimelineWidget* previewTimeline() const { return m_previewTimeline; }

  signals:
    void previewShown();
    void stateChanged(kinetoscope::TraceView::State state);
    void titleChanged(const QString& title);
    void searchFinished();
    void areaSummaryReady();
    void analysisReady();
    void criticalPathReady();
    void kernelSourcesReady();

  private:
    // After a table's selection: when no match lies in the visible range, go to the nearest one.
    void revealNearestMatch();
    QString kernelFolderKey() const;
    QString compiledModulesKey() const;
    void buildPages();
    void buildQueryTab();
    void onLoaded(std::shared_ptr<LoadedTrace> trace);
    void onFailed(const QString& message, bool cancelled);
    void onPreview(std::shared_ptr<LoadedTrace> preview);
    void updatePreviewStrip(const QString& progressText, int permille);
    // The full trace's timeline takes the preview's view (its time range when the user moved it, the track
    // at the top at the same height), and the preview goes.
    void takeViewFromPreview();
    void applyPendingView();
    // The slice the user last selected on a preview, onto the next timeline (a later preview's or the full
    // trace's): remembered through a preview that lacks it (each is another sample), forgotten once
    // deselected.
    void carrySelection(TimelineWidget& to);
    void dropPreview();
    void updateProgress();
    void updateArea();
    void goToMatch(int index);
    void runAnalysis();
    void fillPanel(std::shared_ptr<const AnalysisResult> result, std::uint64_t generation, std::size_t index);

    QString m_path;
    State m_state = State::Loading;
    QString m_error;
    std::shared_ptr<const LoadedTrace> m_trace;
    LoadJob* m_job = nullptr;
    QStackedWidget* m_stack;
    QLabel* m_loadingLabel;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QLabel* m_errorLabel;
    QTimer* m_progressTimer;
    QElapsedTimer m_loadClock;
    QLabel* m_banner = nullptr;
    TimelineWidget* m_timeline = nullptr;
    DetailsPanel* m_details = nullptr;
    AreaSummaryPanel* m_areaPanel = nullptr;
    SearchBar* m_searchBar = nullptr;
    QTabWidget* m_bottomTabs = nullptr;
    QSplitter* m_splitter = nullptr;
    // Set while a panel reveals an event on the timeline: the selection it makes then leaves the panel's tab
    // in front (a click in a module tree must not lose the tree), where a click on the timeline shows
    // Details.
    bool m_revealingFromPanel = false;

    struct SearchState;
    std::shared_ptr<SearchState> m_search;
    std::uint64_t m_searchGeneration = 0;
    std::shared_ptr<std::atomic<bool>> m_searchCancel;
    bool m_searchRunning = false;
    int m_currentMatch = -1;
    bool m_revealAfterSearch = false;
    std::uint64_t m_areaGeneration = 0;
    std::optional<std::pair<qint64, qint64>> m_scope;
    std::optional<ViewFile> m_pendingView;
    QString m_viewProblems;
    std::shared_ptr<const AnalysisResult> m_analysis;
    std::uint64_t m_analysisGeneration = 0;
    QLabel* m_scopeLabel = nullptr;
    CriticalPathBar* m_pathBar = nullptr;
    std::uint64_t m_pathGeneration = 0;
    OverviewPanel* m_overview = nullptr;
    OperatorPanel* m_operators = nullptr;
    KernelPanel* m_kernels = nullptr;
    MemoryPanel* m_memory = nullptr;
    ModulePanel* m_modules = nullptr;
    RooflinePanel* m_roofline = nullptr;
    CompiledPanel* m_compiled = nullptr; // its tab shows only for a compiled model
    QueryPanel* m_query = nullptr;
    QPushButton* m_showAsQuery = nullptr;
    std::shared_ptr<const KernelSourceSearch> m_kernelSources;
    std::uint64_t m_kernelSourceGeneration = 0;
    QStringList m_compiledModules;
    KernelSourceView* m_sourceView = nullptr;
    std::shared_ptr<const LoadedTrace> m_preview;
    QWidget* m_previewPage = nullptr;
    TimelineWidget* m_previewTimeline = nullptr;
    QLabel* m_previewLabel = nullptr;
    QProgressBar* m_previewProgress = nullptr;
    QPushButton* m_previewCancel = nullptr;
    struct CarriedSelection {
        std::shared_ptr<const LoadedTrace> trace; // the preview it was made on
        EventRef slice;
    };
    std::optional<CarriedSelection> m_carriedSelection;
};

} // namespace kinetoscope
