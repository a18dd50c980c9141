#pragma once

#include "analysis/jobs/collectivecalls.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace kinetoscope {

// A collective's calls across the ranks of a job (issue 61 item 10): double-click a collective to list its
// calls (step, k-th run, the last rank, what the others waited); a call lists every rank in arrival order
// with its wait; double-click a rank to see its kernel on its timeline.
class CollectiveCallsPanel : public QWidget {
    Q_OBJECT
  public:
    CollectiveCallsPanel(const JobReport& job, QWidget* parent = nullptr);
    void showCollective(std::size_t collective);
    void showCall(std::size_t call);
    QTableWidget* callTable() const { return m_calls; }
    QTableWidget* rankTable() const { return m_ranks; }
    const std::vector<CollectiveCall>& calls() const { return m_callList; }

  signals:
    // A rank's kernel of the call shown: its rank index and its times on that rank's clock.
    void kernelRequested(std::size_t rank, TimeNs start, TimeNs end);

  private:
    const JobReport& m_job;
    QLabel* m_title;
    QTableWidget* m_calls;
    QTableWidget* m_ranks;
    std::vector<CollectiveCall> m_callList;
    std::size_t m_shownCall = 0;
};

} // namespace kinetoscope
