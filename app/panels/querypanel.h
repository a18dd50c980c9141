#pragma once

// The Query tab (issue 62): SQL over the trace in the viewer. An editor with the stored example queries and a
// history of the queries run; Ctrl+Enter runs the query off the UI thread (a busy bar and the time it has
// run, Cancel interrupts it); the rows in a sortable table. A row that names a slice selects it on the
// timeline; a result with `ts` and `dur` can be pinned as a track.

#include "shell/loadedtrace.h"
#include "sql/tracedatabase.h"

#include <QElapsedTimer>
#include <QWidget>

#include <functional>
#include <memory>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace kinetoscope {

class QueryResultModel;

class QueryPanel : public QWidget {
    Q_OBJECT
  public:
    using Parameters = std::vector<std::pair<std::string, sql::Value>>;
    explicit QueryPanel(std::shared_ptr<const LoadedTrace> trace, QWidget* parent = nullptr);
    ~QueryPanel() override;

    // What `:from`, `:to` and `:selected_id` read when a query runs (the selection, the view).
    void setParameterSource(std::function<Parameters()> source) { m_parameters = std::move(source); }
    void setSql(const QString& sql);
    QString sql() const;
    // Runs the editor's SQL (Ctrl+Enter); a query still running is interrupted first.
    void run();
    void cancel();
    bool running() const { return m_running; }
    const std::shared_ptr<const sql::QueryResult>& result() const;
    const std::shared_ptr<sql::TraceDatabase>& database() const { return m_database; }

    QPlainTextEdit* editor() const { return m_editor; }
    QTableView* view() const { return m_view; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QLabel* status() const { return m_status; }
    QComboBox* examples() const { return m_examples; }
    QComboBox* history() const { return m_history; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* pinButton() const { return m_pin; }

  signals:
    void finished();
    // A row that names a slice was clicked.
    void sliceRequested(kinetoscope::EventRef ref);
    // "Pin as track": the result's rows as a lane of slices.
    void trackRequested(std::shared_ptr<const DerivedTrack> track);

  private:
    void onFinished(std::shared_ptr<const sql::QueryResult> result, qint64 ms);
    void onRowActivated(const QModelIndex& index);
    void pin();
    void remember(const QString& sql);
    void updateButtons();

    std::shared_ptr<const LoadedTrace> m_trace;
    std::shared_ptr<sql::TraceDatabase> m_database;
    std::function<Parameters()> m_parameters;
    QComboBox* m_examples;
    QComboBox* m_history;
    QPlainTextEdit* m_editor;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QPushButton* m_pin;
    QProgressBar* m_busy;
    QLabel* m_status;
    QTableView* m_view;
    QueryResultModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTimer* m_clock;
    QElapsedTimer m_elapsed;
    bool m_running = false;
    std::uint64_t m_generation = 0;
    int m_pinned = 0;
};

} // namespace kinetoscope
