#pragma once

#include <QAbstractItemView>
#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include "timeline/timelineframe.h"

class QActionGroup;
class QLabel;
class QMenu;
class QStackedWidget;
class QTabWidget;

namespace kinetoscope {

namespace live {
struct LaunchSpec;
}
class SingleInstance;
class TraceView;

// Tabs of traces, the menus, Open Recent, and drag-and-drop of files.
class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);

    TraceView* openTrace(const QString& path);
    // A CUDA memory snapshot (.pickle, .pickle.gz) in a tab of its own.
    class SnapshotView* openSnapshot(const QString& path);
    // Any file Kinetoscope reads: a snapshot by its content, TorchInductor's generated code (.py, attached to
    // the trace in front), else a trace.
    QWidget* openFile(const QString& path);
    // Opens a tab comparing two traces (A is the baseline).
    class CompareView* openComparison(const QString& a, const QString& b);
    // Lists the traces under a folder by run, worker and span (and opens them on request).
    void openFolder(const QString& dir);
    // Also opens every trace that a running job completes in the folder from now on.
    void watchFolder(const QString& dir);
    class DistributedView* openDistributed(const QStringList& files);
    // Capture > Launch: a tab that runs the program with the capture agent and shows its GPU work as it
    // arrives.
    class CaptureView* startCapture(const live::LaunchSpec& spec);
    class CaptureView* currentCapture() const;
    class RunsPanel* runsPanel() const {
        return m_runs;
    }
    class FolderWatcher* watcher() const {
        return m_watcher;
    }
    TraceView* currentView() const;
    QTabWidget* tabs() const { return m_tabs; }
    QStringList recentFiles() const;
    static constexpr int maxRecentFiles = 10;

    static QString fileDialogFilter();
    // Opens the files another `kinetoscope` process hands over, and comes to the front.
    void attachSingleInstance(SingleInstance* instance);
    // The versions shown in Help > About (Qt, simdjson, zlib, libdeflate, CUPTI).
    static QString versionsText();
    // Every shortcut, as shown by Help > Keyboard Shortcuts.
    QString shortcutsHtml() const;
    bool detailsVisible() const { return m_detailsVisible; }
    // File > Export Timeline Image: the current tab's timeline as PNG or SVG (by the suffix). An error naming
    // the file, or empty.
    QString exportTimeline(const QString& path);
    // Links and saved views (app/shell/viewlinks.cpp, issue 64). Each returns an error naming the link or
    // file, or empty; a missing trace opens as a tab that says so. kinetoscope://open?file=…: one file opens
    // with its range and selection, two compare, more a job.
    QString openLink(const QString& url);
    // A .kview file (File > Save View).
    QString openViewFile(const QString& path);
    // Edit > Copy Link to This View: the current tab's link, also put on the clipboard (empty without one).
    QString copyLinkToView();
    // File > Save View: the current tab as a .kview at `path`.
    QString saveView(const QString& path);
    // File > Export Range: the current tab's visible range (or its area selection) as a smaller trace.
    QString exportRange(const QString& path);
    // The table or tree the user last worked in (Edit > Copy Table, Export Table as CSV), or nullptr.
    class QAbstractItemView* lastTable() const;
    void setDetailsVisible(bool visible);

  protected:
    void dragEnterEvent(QDragEnterEvent*) override;
    void dropEvent(QDropEvent*) override;
    void closeEvent(QCloseEvent*) override;

  private:
    void buildMenus();
    void exportRangeDialog();
    void openDialog();
    void closeTab(int index);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void applyViewSettings(TraceView* view);
    void updateStatus();
    void updateEmptyState();

    QStackedWidget* m_stack;
    QTabWidget* m_tabs;
    QMenu* m_recentMenu = nullptr;
    QActionGroup* m_flowGroup = nullptr;
    QActionGroup* m_colorGroup = nullptr;
    QAction* m_zoomTool = nullptr;
    QLabel* m_statusLabel = nullptr;
    class RunsPanel* m_runs = nullptr;
    class QDockWidget* m_runsDock = nullptr;
    class FolderWatcher* m_watcher = nullptr;
    QString m_folder;
    QAction* m_detailsAction = nullptr;
    QAction* m_followAction = nullptr;
    bool m_detailsVisible = true;
    QPointer<QAbstractItemView> m_lastTable;
    FlowMode m_flowMode = FlowMode::Selected;
    ColorMode m_colorMode = ColorMode::Category;
};

} // namespace kinetoscope
