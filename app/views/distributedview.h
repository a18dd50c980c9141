#pragma once

#include "analysis/jobs/job.h"
#include "shell/loadedtrace.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QStackedWidget;
class QTableWidget;
class QTabWidget;

namespace kinetoscope {

class DetailsPanel;
class JobFigures;
class TimelineWidget;

// The ranks of one job, from 2 to 10,000+: what was read, a rank × step heat map and the stragglers
// (JobFigures), each step's spread across ranks, collectives' spread (and per rank, with their
// synchronisation and transfer time, for small jobs), and for up to 64 ranks of traces their timelines one
// above the other, aligned by clock or by first step and zoomed together. Accepts traces, rank files
// (`kinetoscope-cli rank`) and `summary --json` files, mixed, recognised by content; a file that cannot be
// read is listed and the job opens without it.
class DistributedView : public QWidget {
    Q_OBJECT
  public:
    explicit DistributedView(QStringList files, QWidget* parent = nullptr);

    bool isReady() const { return m_ready; }
    const std::vector<RankFigures>& ranks() const { return m_job.ranks; }
    const JobReport& job() const { return m_job; }
    const std::vector<StragglerRow>& stragglers() const { return m_job.stragglers; }
    QTableWidget* rankTable() const { return m_rankTable; }
    QTableWidget* collectiveTable() const { return m_collectives; } // per rank; small jobs only
    QTableWidget* collectiveSpreadTable() const { return m_collectiveSpread; }
    class CollectiveCallsPanel* collectiveCalls() const {
        return m_calls;
    }
    // Shows rank `rank`'s GPU slice [start, end) (its own clock) on its timeline, selected; false when its
    // trace is not loaded or holds no such slice.
    bool revealKernel(std::size_t rank, TimeNs start, TimeNs end);
    JobFigures* figures() const { return m_figures; }
    QLabel* stragglerLabel() const { return m_stragglerLabel; }
    const std::vector<TimelineWidget*>& timelines() const { return m_timelines; }
    QComboBox* alignment() const { return m_alignment; }
    // The Details panel of the rank whose timeline was clicked last (null before the first click), and its
    // title.
    DetailsPanel* details() const;
    QLabel* detailsTitle() const { return m_detailsTitle; }
    // Shift applied to rank i's timeline so that all line up (by clock or by first step).
    TimeNs shiftOf(std::size_t rank) const { return m_shifts.at(rank); }
    QString errorMessage() const { return m_error; }

    // A rank in a step beside the step's median rank, in a view of their own: asks for it when both traces
    // are reachable, else says where the missing one is expected.
    void openBesideMedian(std::size_t rank, std::size_t step);
    // Shows the Timelines tab with each rank zoomed to its own range of the step so named (once loaded, if
    // asked before): a straggler opened beside its median rank lands on the step it was found in.
    void showStep(const std::string& step);
    QTabWidget* tabs() const { return m_tabs; }

    // Find in the Timelines tab (Edit > Find): every rank's slices whose name matches are highlighted; Next
    // and Previous walk the matches rank by rank, each in time order, revealing and selecting it.
    void showSearch();
    void runSearch();
    void nextMatch() { goToMatch(m_currentMatch + 1); }
    void previousMatch() { goToMatch(m_currentMatch - 1); }
    std::size_t matchCount() const { return m_matches.size(); }
    // The match shown (rank, slice); an invalid slice before the first Next.
    std::pair<std::size_t, EventRef> currentMatch() const;
    class SearchBar* searchBar() const {
        return m_searchBar;
    }

  signals:
    void ready();
    void searchFinished();
    void failed(const QString& message);
    // The traces to open as a job of their own (a straggler beside its step's median rank).
    void openRanksRequested(const QStringList& files, const QString& step);

  private:
    struct Loaded;
    void build(std::shared_ptr<Loaded> loaded);
    void applyAlignment();
    void syncFrom(std::size_t source);
    void showDetails(std::size_t rank, EventRef ref);
    void goToMatch(int index);
    // The collective run a rank's GPU slice is (JobReport::collectives index, the rank's instance index), if
    // any.
    std::optional<std::pair<std::size_t, std::uint32_t>> collectiveRunOfKernel(std::size_t rank,
                                                                               EventRef ref) const;

    QStringList m_files;
    bool m_ready = false;
    QString m_error;
    JobReport m_job;
    const std::vector<RankFigures>& m_ranks = m_job.ranks;
    std::vector<std::shared_ptr<const LoadedTrace>> m_traces;
    std::vector<TimeNs> m_clockShift, m_stepShift, m_shifts;
    std::vector<TimelineWidget*> m_timelines;
    bool m_syncing = false;
    QTabWidget* m_tabs = nullptr;
    QWidget* m_timelinesPage = nullptr;
    std::string m_pendingStep;
    QStackedWidget* m_stack;
    QLabel* m_status;
    QTableWidget* m_rankTable = nullptr;
    QTableWidget* m_collectives = nullptr;
    QTableWidget* m_collectiveSpread = nullptr;
    QLabel* m_stragglerLabel = nullptr;
    JobFigures* m_figures = nullptr;
    QComboBox* m_alignment = nullptr;
    std::vector<DetailsPanel*> m_details; // one per timeline, made on its first selection
    QStackedWidget* m_detailsStack = nullptr;
    QLabel* m_detailsTitle = nullptr;
    SearchBar* m_searchBar = nullptr;
    CollectiveCallsPanel* m_calls = nullptr;
    std::vector<std::pair<std::size_t, EventRef>> m_matches; // (rank, slice), rank by rank in time order
    std::vector<std::shared_ptr<const std::vector<bool>>> m_matchNames; // per rank, by name id
    int m_currentMatch = -1;
    std::uint64_t m_searchGeneration = 0;
};

} // namespace kinetoscope
