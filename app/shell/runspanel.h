#pragma once

#include "import/runscan.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace kinetoscope {

// Runs → workers → spans found in an opened or watched folder, like the TensorBoard plugin's selectors.
// Double-click a span to open it; "Open as distributed job" opens a run's workers (their latest spans)
// together.
class RunsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RunsPanel(QWidget* parent = nullptr);
    void setFolder(const QString& dir, const std::vector<TraceRun>& runs, bool watching);
    QTreeWidget* tree() const { return m_tree; }
    // The files of the selected run's workers (latest span each), for a distributed view.
    QStringList selectedRunFiles() const;

  signals:
    void openRequested(const QString& path);
    void distributedRequested(const QStringList& files);

  private:
    QLabel* m_title;
    QTreeWidget* m_tree;
    QPushButton* m_distributed;
};

} // namespace kinetoscope
