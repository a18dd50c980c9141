#pragma once

#include "analysis/jobs/diff.h"
#include "shell/loadedtrace.h"

#include <QWidget>

#include <memory>

class QLabel;
class QStackedWidget;
class QTabWidget;
class QTableWidget;

namespace kinetoscope {

class DetailsPanel;
class LoadJob;
class TimelineWidget;

// Two traces compared: their timelines one above the other, aligned by their first step and zoomed together,
// and the operator and kernel tables side by side with deltas (B − A), sortable by delta.
class CompareView : public QWidget {
    Q_OBJECT
  public:
    CompareView(QString pathA, QString pathB, QWidget* parent = nullptr);
    ~CompareView() override;

    bool isReady() const { return m_diff != nullptr; }
    QString errorMessage() const { return m_error; }
    TimelineWidget* timelineA() const { return m_timelineA; }
    TimelineWidget* timelineB() const { return m_timelineB; }
    QTableWidget* operatorTable() const { return m_operators; }
    QTableWidget* kernelTable() const { return m_kernels; }
    QLabel* summary() const { return m_summary; }
    QTabWidget* tabs() const { return m_tabs; }
    // The Details of the slice last selected on either timeline (one panel per side, the side's in front).
    DetailsPanel* detailsA() const { return m_details[0]; }
    DetailsPanel* detailsB() const { return m_details[1]; }
    // Marks every slice named exactly `name` on both timelines, selects the first on each and shows it (a
    // delta row's double-click). The tables stay in front.
    void markName(const QString& name);
    const TraceDiff* diff() const { return m_diff.get(); }
    // B's time minus A's time at the same point of the run (first step starts, or trace starts without
    // steps).
    TimeNs alignmentOffset() const { return m_offset; }
    // Aligns the two timelines on a slice of one side (0: A, 1: B) and its counterpart in the other: the
    // slice of the same name, the same call of it (its k-th by start, else the other's last), which is
    // selected. A slice double-clicked on either timeline does this before its side zooms, so the other shows
    // the counterpart, not the same offset (without ProfilerSteps, only the traces' starts line up). False
    // when the other side has no slice of that name.
    bool alignOn(int side, EventRef ref);
    // Back to the first steps (or the traces' starts).
    void alignAtFirstStep();
    QLabel* alignmentLabel() const { return m_alignment; }
    // An area selected on one side (0: A, 1: B) is compared with the same time on the other, by the
    // alignment: the tables and the summary show that scope until compareWhole.
    void compareArea(int side);
    void compareWhole();
    const DiffScope& scope() const { return m_scope; }
    QLabel* scopeLabel() const { return m_scopeLabel; }

  signals:
    void ready();
    void failed(const QString& message);
    void rescoped(); // the tables and summary show a new scope

  private:
    void onLoaded(int which, std::shared_ptr<LoadedTrace> trace);
    void onFailed(const QString& message);
    void build();
    void showDiff();
    void rediff(DiffScope scope, const QString& said);
    void syncFrom(TimelineWidget* source);
    void applyOffset(TimeNs offset, const QString& how);
    QString firstStepAlignment() const;

    QString m_paths[2];
    LoadJob* m_jobs[2] = {nullptr, nullptr};
    std::shared_ptr<const LoadedTrace> m_traces[2];
    std::shared_ptr<const TraceDiff> m_diff;
    QString m_error;
    TimeNs m_offset = 0;
    bool m_syncing = false;
    QStackedWidget* m_stack;
    QLabel* m_status;
    QLabel* m_summary = nullptr;
    QLabel* m_alignment = nullptr;
    TimelineWidget* m_timelineA = nullptr;
    TimelineWidget* m_timelineB = nullptr;
    QTableWidget* m_operators = nullptr;
    QTableWidget* m_kernels = nullptr;
    QTabWidget* m_tabs = nullptr;
    QStackedWidget* m_detailsStack = nullptr;
    DetailsPanel* m_details[2] = {nullptr, nullptr};
    bool m_marking = false; // markName is selecting: keep the table in front
    DiffScope m_scope;
    QLabel* m_scopeLabel = nullptr;
    std::uint64_t m_diffGeneration = 0;
};

} // namespace kinetoscope
