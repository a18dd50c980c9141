#include "shell/mainwindow.h"

#include "model/textformat.h"

#include "import/jsonbackend.h"
#include "shell/attachdialog.h"
#include "shell/folderwatcher.h"
#include "shell/launchdialog.h"
#include "shell/loadedtrace.h"
#include "shell/runspanel.h"
#include "shell/singleinstance.h"
#include "snapshot/snapshotloader.h"
#include "tables/tableexport.h"
#include "timeline/timelineexport.h"
#include "timeline/timelinewidget.h"
#include "views/captureview.h"
#include "views/compareview.h"
#include "views/distributedview.h"
#include "views/snapshotview.h"
#include "views/traceview.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QUrl>

#include <functional>

#include <libdeflate.h>
#include <zlib.h>

namespace kinetoscope {

namespace {
const char* recentKey = "recentFiles";

template <typename Fn> void withTimeline(TraceView* view, Fn&& fn) {
    if (view && view->timeline()) fn(view->timeline());
}
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("Kinetoscope"));
    setAcceptDrops(true);
    m_stack = new QStackedWidget(this);
    auto* welcome = new QLabel(m_stack);
    welcome->setAlignment(Qt::AlignCenter);
    welcome->setText(tr(
        "<h2>Kinetoscope</h2><p>Open a PyTorch profiler trace (<code>*.pt.trace.json</code>, "
        "<code>*.json.gz</code>, <code>*.pftrace</code>), an Nsight Systems export (<code>*.sqlite</code>) "
        "or "
        "a ROCm database (<code>*.rpd</code>, rocpd):<br/>File › Open (Ctrl+O), File › Open Recent, or drop "
        "files here.</p>"));
    welcome->setStyleSheet(QStringLiteral("QLabel{color:#374151}"));
    m_tabs = new QTabWidget(m_stack);
    m_tabs->setTabsClosable(true);
    m_tabs->setDocumentMode(true);
    m_tabs->setMovable(true);
    m_stack->addWidget(welcome);
    m_stack->addWidget(m_tabs);
    setCentralWidget(m_stack);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { updateStatus(); });
    m_statusLabel = new QLabel(this);
    statusBar()->addWidget(m_statusLabel, 1);
    buildMenus();
    // Every table and tree copies and exports as CSV (a right click, Ctrl+C, the Edit menu).
    qApp->installEventFilter(new TableExportFilter(this));
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
        if (QAbstractItemView* view = itemViewOf(now); view && view->window() == this) m_lastTable = view;
    });
    // An explicit minimum: otherwise the layout raises the window's minimum to whatever a tab's content asks
    // for (eight ranks' timelines asked for 1605 px) and Qt grows the window past the screen.
    setMinimumSize(640, 480);
    resize(1400, 900);
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    setDetailsVisible(settings.value(QStringLiteral("window/detailsVisible"), true).toBool());
    updateEmptyState();
}

void MainWindow::attachSingleInstance(SingleInstance* instance) {
    connect(instance, &SingleInstance::filesReceived, this, [this](const QStringList& files) {
        for (const QString& f : files)
            openFile(f);
        if (isMinimized()) showNormal();
        raise();
        activateWindow();
    });
}

QString MainWindow::versionsText() {
    QString cupti = tr("not built in");
#ifdef KINETOSCOPE_HAVE_CUPTI
    cupti = QStringLiteral(KINETOSCOPE_HAVE_CUPTI);
#endif
    return tr("Qt %1 (built with %2) · simdjson %3 · zlib %4 · libdeflate %5 · CUPTI: %6")
        .arg(QLatin1String(qVersion()), QLatin1String(QT_VERSION_STR),
             QString::fromStdString(jsonLibraryVersion()), QLatin1String(zlibVersion()),
             QLatin1String(LIBDEFLATE_VERSION_STRING), cupti);
}

QString MainWindow::shortcutsHtml() const {
    QString html =
        QStringLiteral("<table cellspacing=4><tr><td colspan=2><b>%1</b></td></tr>").arg(tr("Menus"));
    // Straight from the menus, so the list cannot go stale.
    std::function<void(const QList<QAction*>&)> walk = [&](const QList<QAction*>& actions) {
        for (QAction* a : actions) {
            if (a->menu()) walk(a->menu()->actions());
            if (a->shortcut().isEmpty()) continue;
            QString text = a->text().section(QLatin1Char('\t'), 0, 0);
            text.remove(QLatin1Char('&'));
            html += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>")
                        .arg(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
                             text.toHtmlEscaped());
        }
    };
    walk(menuBar()->actions());
    html += QStringLiteral("<tr><td colspan=2><b>%1</b></td></tr>").arg(tr("Timeline"));
    const std::pair<const char*, const char*> timeline[] = {
        {"W / S, Ctrl+Wheel", "Zoom in / out at the cursor"},
        {"A / D, Shift+Wheel", "Pan left / right"},
        {"Wheel", "Scroll lanes"},
        {"Drag on the ruler", "Zoom to the dragged range"},
        {"Drag, middle-drag", "Pan"},
        {"Shift+drag", "Measure a range"},
        {"Ctrl+drag", "Select an area (summary in the Area Selection tab)"},
        {"Click / double-click", "Select a slice / zoom to it"},
        {"F", "Zoom to the selection"},
        {"0, Home", "Fit the whole trace"},
        {"Alt+Left / Alt+Right", "Back / forward in the view history"},
        {"Esc", "Clear the selection"},
        {"Right-click", "Hide a lane, collapse or expand groups"},
    };
    for (const auto& [keys, what] : timeline) {
        html += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(QLatin1String(keys), tr(what));
    }
    return html + QStringLiteral("</table>");
}

QString MainWindow::exportTimeline(const QString& path) {
    TraceView* v = currentView();
    if (!v || !v->timeline()) return tr("%1: there is no timeline in this tab").arg(path);
    return exportTimelineImage(*v->timeline(), path, m_tabs->tabText(m_tabs->currentIndex()));
}

QAbstractItemView* MainWindow::lastTable() const {
    // Only a table still shown: one on a closed tab, or hidden behind another, is not the one meant.
    return m_lastTable && m_lastTable->isVisible() ? m_lastTable.data() : nullptr;
}

void MainWindow::setDetailsVisible(bool visible) {
    m_detailsVisible = visible;
    if (m_detailsAction) m_detailsAction->setChecked(visible);
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (auto* v = qobject_cast<TraceView*>(m_tabs->widget(i))) v->setPanelsVisible(visible);
    }
    QSettings().setValue(QStringLiteral("window/detailsVisible"), visible);
}

QString MainWindow::fileDialogFilter() {
    // Everything the viewer opens first: the dialog shows its first filter, and a trace-only one hid
    // memory snapshots.
    return tr(
        "All supported files (*.json *.json.gz *.pt.trace.json* *.pftrace *.pftrace.gz *.perfetto-trace "
        "*.sqlite "
        "*.rpd *.db *.pickle *.pickle.gz *.kscw *.kscw.gz *.py);;"
        "Trace files (*.json *.json.gz *.pt.trace.json*);;Perfetto traces (*.pftrace *.pftrace.gz "
        "*.perfetto-trace);;Nsight Systems exports and ROCm databases (*.sqlite *.rpd *.db);;"
        "CUDA memory snapshots (*.pickle *.pickle.gz);;"
        "Capture spools (*.kscw *.kscw.gz);;TorchInductor generated code, attached to the trace in front "
        "(*.py);;"
        "All files (*)");
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Folder of Traces"));
        if (!dir.isEmpty()) openFolder(dir);
    });
    file->addAction(tr("&Watch Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Watch Folder for New Traces"));
        if (!dir.isEmpty()) watchFolder(dir);
    });
    file->addAction(tr("&Compare Two Traces…"), this, [this] {
        const QString a =
            QFileDialog::getOpenFileName(this, tr("Baseline Trace (A)"), QString(), fileDialogFilter());
        if (a.isEmpty()) return;
        const QString b = QFileDialog::getOpenFileName(this, tr("Trace to Compare (B)"),
                                                       QFileInfo(a).absolutePath(), fileDialogFilter());
        if (!b.isEmpty()) openComparison(a, b);
    });
    // Trace a running PyTorch job with its own profiler (Kineto's on-demand daemon): its traces open here.
    file->addAction(tr("&Attach to a Running PyTorch Process…"), this, [this] {
        auto* dialog = new AttachDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &AttachDialog::tracesReady, this, [this](const QStringList& paths) {
            if (paths.size() == 1)
                openFile(paths.front());
            else
                openDistributed(paths);
        });
        dialog->show();
    });
    rebuildRecentMenu();
    file->addSeparator();
    file->addAction(tr("&Export Timeline Image…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this,
                    [this] {
                        TraceView* v = currentView();
                        if (!v || !v->timeline()) {
                            QMessageBox::information(this, tr("Export Timeline Image"),
                                                     tr("Open a trace first: there is no "
                                                        "timeline in this tab."));
                            return;
                        }
                        const QString path = QFileDialog::getSaveFileName(
                            this, tr("Export Timeline Image"), QStringLiteral("timeline.png"),
                            tr("PNG image (*.png);;SVG drawing, every box and label a shape (*.svg)"));
                        if (path.isEmpty()) return;
                        if (const QString error = exportTimeline(path); !error.isEmpty())
                            QMessageBox::warning(this, tr("Export Timeline Image"), error);
                        else
                            statusBar()->showMessage(tr("Saved the timeline to %1").arg(path), 8000);
                    });
    file->addAction(tr("Export &Range…"), this, &MainWindow::exportRangeDialog);
    file->addAction(tr("Save &View…"), this, [this] {
        TraceView* v = currentView();
        if (!v || v->state() != TraceView::State::Ready) {
            QMessageBox::information(this, tr("Save View"),
                                     tr("Open a trace first: there is no view in this tab."));
            return;
        }
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save View"), QFileInfo(v->path()).absolutePath() + QStringLiteral("/view.kview"),
            tr("Kinetoscope view (*.kview)"));
        if (path.isEmpty()) return;
        if (const QString error = saveView(path); !error.isEmpty())
            QMessageBox::warning(this, tr("Save View"), error);
        else
            statusBar()->showMessage(tr("Saved the view to %1").arg(path), 8000);
    });
    file->addSeparator();
    file->addAction(tr("&Close Tab"), QKeySequence::Close, this,
                    [this] { closeTab(m_tabs->currentIndex()); });
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* capture = menuBar()->addMenu(tr("&Capture"));
    capture->addAction(tr("&Launch…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L), this, [this] {
        LaunchDialog dialog(this);
        if (dialog.exec() == QDialog::Accepted) startCapture(dialog.spec());
    });
    QAction* stopCapture = capture->addAction(tr("&Stop Capture"), this, [this] {
        if (CaptureView* c = currentCapture()) c->stop();
    });
    QAction* terminate = capture->addAction(tr("&Terminate Program"), this, [this] {
        if (CaptureView* c = currentCapture()) c->terminateTarget();
    });
    m_followAction = capture->addAction(tr("&Follow Newest Data"));
    m_followAction->setCheckable(true);
    m_followAction->setChecked(true);
    connect(m_followAction, &QAction::toggled, this, [this](bool on) {
        if (CaptureView* c = currentCapture()) c->setFollow(on);
    });
    QAction* saveCapture = capture->addAction(
        tr("S&ave Capture…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, [this] {
            CaptureView* c = currentCapture();
            if (!c) return;
            if (c->status().counts.records == 0) {
                // Nothing to save: say so before asking where (the shortcut works with the menu closed).
                QString error;
                c->save(QString(), &error);
                QMessageBox::information(this, tr("Save Capture"), error);
                return;
            }
            const QString path = QFileDialog::getSaveFileName(this, tr("Save Capture"),
                                                              QStringLiteral("capture.pt.trace.json"),
                                                              tr("Kineto trace (*.json)"));
            QString error;
            if (path.isEmpty()) return;
            if (!c->save(path, &error))
                QMessageBox::warning(this, tr("Save Capture"), error);
            else
                statusBar()->showMessage(c->lastSaveText(), 15000);
        });
    connect(capture, &QMenu::aboutToShow, this, [this, stopCapture, terminate, saveCapture] {
        CaptureView* c = currentCapture();
        stopCapture->setEnabled(c && c->capturing());
        terminate->setEnabled(c && c->status().targetRunning);
        saveCapture->setEnabled(c && c->status().counts.records > 0);
        m_followAction->setEnabled(c);
        if (c) m_followAction->setChecked(c->follow());
    });

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    // In a trace's tab, or in a job's Timelines tab (every rank).
    const auto job = [this] { return qobject_cast<DistributedView*>(m_tabs->currentWidget()); };
    edit->addAction(tr("&Find…"), QKeySequence::Find, this, [this, job] {
        if (TraceView* v = currentView()) v->showSearch();
        if (DistributedView* d = job()) d->showSearch();
    });
    edit->addAction(tr("Find &Next"), QKeySequence::FindNext, this, [this, job] {
        if (TraceView* v = currentView()) v->nextMatch();
        if (DistributedView* d = job()) d->nextMatch();
    });
    edit->addAction(tr("Find &Previous"), QKeySequence::FindPrevious, this, [this, job] {
        if (TraceView* v = currentView()) v->previousMatch();
        if (DistributedView* d = job()) d->previousMatch();
    });
    edit->addSeparator();
    edit->addAction(tr("Copy &Link to This View"), this, [this] {
        if (copyLinkToView().isEmpty())
            statusBar()->showMessage(tr("Open a trace first: there is no view in this tab to link to"), 8000);
    });
    QAction* copyTable = edit->addAction(tr("Copy &Table"), this, [this] {
        if (QAbstractItemView* t = lastTable()) TableExportFilter::copyRows(*t, TableRows::All);
    });
    QAction* exportTable = edit->addAction(tr("&Export Table as CSV…"), this,
                                           [this] { TableExportFilter::exportWithDialog(lastTable()); });
    connect(edit, &QMenu::aboutToShow, this, [this, copyTable, exportTable] {
        copyTable->setEnabled(lastTable());
        exportTable->setEnabled(lastTable());
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QMenu* flows = view->addMenu(tr("&Flows"));
    m_flowGroup = new QActionGroup(this);
    const std::pair<QString, FlowMode> flowModes[] = {{tr("&None"), FlowMode::None},
                                                      {tr("&Selected Event"), FlowMode::Selected},
                                                      {tr("&All Visible"), FlowMode::All}};
    for (const auto& [label, mode] : flowModes) {
        QAction* a = flows->addAction(label);
        a->setCheckable(true);
        a->setChecked(mode == m_flowMode);
        a->setActionGroup(m_flowGroup);
        connect(a, &QAction::triggered, this, [this, mode = mode] {
            m_flowMode = mode;
            applyViewSettings(currentView());
        });
    }
    QMenu* colors = view->addMenu(tr("&Colour By"));
    m_colorGroup = new QActionGroup(this);
    const std::pair<QString, ColorMode> colorModes[] = {{tr("&Category"), ColorMode::Category},
                                                        {tr("&Name"), ColorMode::Name}};
    for (const auto& [label, mode] : colorModes) {
        QAction* a = colors->addAction(label);
        a->setCheckable(true);
        a->setChecked(mode == m_colorMode);
        a->setActionGroup(m_colorGroup);
        connect(a, &QAction::triggered, this, [this, mode = mode] {
            m_colorMode = mode;
            applyViewSettings(currentView());
        });
    }
    view->addSeparator();
    m_zoomTool = view->addAction(tr("&Zoom Tool (drag zooms to the range)"));
    m_zoomTool->setCheckable(true);
    m_zoomTool->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    connect(m_zoomTool, &QAction::toggled, this, [this] { applyViewSettings(currentView()); });
    // W/S/A/D, F and 0 are handled by the timeline itself (as in Perfetto); the menu shows them for
    // discovery.
    view->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, this,
                    [this] { withTimeline(currentView(), [](TimelineWidget* t) { t->zoomBy(0.8); }); });
    view->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, this,
                    [this] { withTimeline(currentView(), [](TimelineWidget* t) { t->zoomBy(1.25); }); });
    view->addAction(tr("Zoom to &Selection\tF"), this,
                    [this] { withTimeline(currentView(), [](TimelineWidget* t) { t->zoomToSelection(); }); });
    view->addAction(tr("&Fit Trace\t0"), this,
                    [this] { withTimeline(currentView(), [](TimelineWidget* t) { t->fitAll(); }); });
    view->addAction(tr("&Back"), QKeySequence::Back, this,
                    [this] { withTimeline(currentView(), [](TimelineWidget* t) { t->back(); }); });
    view->addAction(tr("&Forward"), QKeySequence::Forward, this,
                    [this] { withTimeline(currentView(), [](TimelineWidget* t) { t->forward(); }); });

    view->addSeparator();
    view->addAction(tr("&Critical Path of the Step in View"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
                    this, [this] {
                        if (TraceView* v = currentView()) v->showCriticalPath();
                    });
    view->addAction(tr("C&lear Critical Path"), this, [this] {
        if (TraceView* v = currentView()) v->clearCriticalPath();
    });
    view->addSeparator();
    m_detailsAction = view->addAction(tr("&Details Panel"));
    m_detailsAction->setCheckable(true);
    m_detailsAction->setChecked(m_detailsVisible);
    m_detailsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    connect(m_detailsAction, &QAction::toggled, this, &MainWindow::setDetailsVisible);
    view->addAction(tr("&Reset Layout"), this, [this] {
        for (int i = 0; i < m_tabs->count(); ++i)
            if (auto* v = qobject_cast<TraceView*>(m_tabs->widget(i))) v->resetLayout();
    });
    QAction* fullScreen = view->addAction(tr("F&ull Screen"));
    fullScreen->setCheckable(true);
    fullScreen->setShortcut(QKeySequence::FullScreen);
    connect(fullScreen, &QAction::toggled, this, [this](bool on) { on ? showFullScreen() : showNormal(); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this,
                    [this] { QMessageBox::information(this, tr("Keyboard Shortcuts"), shortcutsHtml()); });
    help->addAction(tr("&About Kinetoscope"), this, [this] {
        QMessageBox::about(
            this, tr("About Kinetoscope"),
            tr("<b>Kinetoscope %1</b><p>A native viewer for PyTorch profiler traces.</p><p>%2</p>")
                .arg(QStringLiteral(KINETOSCOPE_VERSION), versionsText()));
    });
}

TraceView* MainWindow::openTrace(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    auto* view = new TraceView(absolute, m_tabs);
    const int index = m_tabs->addTab(view, QFileInfo(absolute).fileName());
    m_tabs->setTabToolTip(index, absolute);
    m_tabs->setCurrentIndex(index);
    connect(view, &TraceView::stateChanged, this, [this, view](TraceView::State state) {
        const int i = m_tabs->indexOf(view);
        if (state == TraceView::State::Ready) {
            addRecent(view->path());
            applyViewSettings(view);
            // A snapshot of the same run already open (or dropped on beside it): align the two.
            for (int i = 0; i < m_tabs->count(); ++i)
                if (auto* s = qobject_cast<SnapshotView*>(m_tabs->widget(i));
                    s && s->state() == SnapshotView::State::Ready && !s->linkedTrace())
                    s->linkTrace(view);
            view->setPanelsVisible(m_detailsVisible);
            if (!QSettings().value(QStringLiteral("hints/timelineUsed"), false).toBool()) {
                view->timeline()->setShowHint(true);
                connect(view->timeline(), &TimelineWidget::firstUsed, this, [this] {
                    QSettings().setValue(QStringLiteral("hints/timelineUsed"), true);
                    for (int i = 0; i < m_tabs->count(); ++i) {
                        auto* v = qobject_cast<TraceView*>(m_tabs->widget(i));
                        if (v && v->timeline()) v->timeline()->setShowHint(false);
                    }
                });
            }
        } else if (i >= 0 && state == TraceView::State::Failed) {
            m_tabs->setTabText(i, QStringLiteral("⚠ ") + QFileInfo(view->path()).fileName());
        }
        updateStatus();
    });
    updateEmptyState();
    return view;
}

SnapshotView* MainWindow::openSnapshot(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    auto* view = new SnapshotView(absolute, m_tabs);
    const int index = m_tabs->addTab(view, QFileInfo(absolute).fileName());
    m_tabs->setTabToolTip(index, absolute);
    m_tabs->setCurrentIndex(index);
    connect(view, &SnapshotView::showInTrace, this, [this](TraceView* trace, EventRef event) {
        m_tabs->setCurrentWidget(trace);
        trace->timeline()->setSelected(event);
        trace->timeline()->revealEvent(event);
    });
    connect(view, &SnapshotView::stateChanged, this, [this, view](SnapshotView::State state) {
        const int i = m_tabs->indexOf(view);
        if (state == SnapshotView::State::Ready) {
            addRecent(view->path());
            // A trace of the same run already open: align the two.
            for (int t = 0; t < m_tabs->count(); ++t)
                if (auto* trace = qobject_cast<TraceView*>(m_tabs->widget(t));
                    trace && view->linkTrace(trace))
                    break;
        } else if (i >= 0 && state == SnapshotView::State::Failed)
            m_tabs->setTabText(i, QStringLiteral("⚠ ") + QFileInfo(view->path()).fileName());
        updateStatus();
    });
    updateEmptyState();
    return view;
}

QWidget* MainWindow::openFile(const QString& path) {
    // A link (kinetoscope://open?…), a file:// URL as launchers hand over %U, or a saved view.
    if (path.startsWith(QLatin1String("kinetoscope:"))) {
        openLink(path);
        return m_tabs->currentWidget();
    }
    if (path.startsWith(QLatin1String("file://"))) return openFile(QUrl(path).toLocalFile());
    if (path.endsWith(QLatin1String(".kview"))) {
        openViewFile(path);
        return m_tabs->currentWidget();
    }
    if (isPickleFile(QFileInfo(path).absoluteFilePath().toStdString())) return openSnapshot(path);
    // Generated code (output_code.py) attaches to the trace in front: its kernels' source comes from it.
    if (path.endsWith(QLatin1String(".py"))) {
        auto* trace = qobject_cast<TraceView*>(m_tabs->currentWidget());
        if (!trace) {
            statusBar()->showMessage(tr("%1 is generated code: open the trace of the same run first, then "
                                        "this file attaches to it")
                                         .arg(QFileInfo(path).fileName()),
                                     10000);
            return nullptr;
        }
        trace->attachCompiledModule(QFileInfo(path).absoluteFilePath());
        statusBar()->showMessage(tr("%1 attached to %2: select a Triton kernel to see its source")
                                     .arg(QFileInfo(path).fileName(), QFileInfo(trace->path()).fileName()),
                                 10000);
        return trace;
    }
    return openTrace(path);
}

CaptureView* MainWindow::startCapture(const live::LaunchSpec& spec) {
    auto* view = new CaptureView(spec, m_tabs);
    const int index = m_tabs->addTab(view, QStringLiteral("● ") + view->title());
    m_tabs->setCurrentIndex(index);
    connect(view, &CaptureView::statusChanged, this, [this, view] {
        if (view == currentCapture()) updateStatus();
    });
    connect(view, &CaptureView::refreshed, this, [this, view] {
        if (TraceView* v = view->traceView()) {
            applyViewSettings(v);
            v->setPanelsVisible(m_detailsVisible);
        }
        if (view == currentCapture()) updateStatus();
    });
    connect(view, &CaptureView::captureEnded, this, [this, view] {
        if (const int i = m_tabs->indexOf(view); i >= 0) m_tabs->setTabText(i, view->title());
    });
    updateEmptyState();
    view->start();
    return view;
}

CaptureView* MainWindow::currentCapture() const {
    return qobject_cast<CaptureView*>(m_tabs->currentWidget());
}

void MainWindow::openFolder(const QString& dir) {
    if (!m_runs) {
        m_runs = new RunsPanel(this);
        m_runsDock = new QDockWidget(tr("Runs"), this);
        m_runsDock->setObjectName(QStringLiteral("runsDock"));
        m_runsDock->setWidget(m_runs);
        addDockWidget(Qt::LeftDockWidgetArea, m_runsDock);
        connect(m_runs, &RunsPanel::openRequested, this, [this](const QString& path) { openTrace(path); });
        connect(m_runs, &RunsPanel::distributedRequested, this,
                [this](const QStringList& files) { openDistributed(files); });
    }
    m_folder = QFileInfo(dir).absoluteFilePath();
    std::string error;
    const auto runs = scanRuns(m_folder.toStdString(), &error);
    if (!error.empty()) statusBar()->showMessage(QString::fromStdString(error), 10000);
    m_runs->setFolder(m_folder, runs, m_watcher && m_watcher->dir() == m_folder);
    m_runsDock->show();
    updateEmptyState();
}

void MainWindow::watchFolder(const QString& dir) {
    delete m_watcher;
    m_watcher = new FolderWatcher(QFileInfo(dir).absoluteFilePath(), this);
    // Traces already there are listed; new ones open as they complete.
    openFolder(dir);
    connect(m_watcher, &FolderWatcher::traceReady, this, [this](const QString& path) {
        openTrace(path);
        openFolder(m_folder); // refresh the runs
    });
    m_watcher->start(false);
}

DistributedView* MainWindow::openDistributed(const QStringList& files) {
    auto* view = new DistributedView(files, m_tabs);
    connect(view, &DistributedView::openRanksRequested, this,
            [this](const QStringList& pair, const QString& step) {
                openDistributed(pair)->showStep(step.toStdString());
            });
    const int index =
        m_tabs->addTab(view, QString::fromStdString(countText(std::uint64_t(files.size()), "rank")));
    m_tabs->setTabToolTip(index, files.join(QLatin1Char('\n')));
    // Named by what was read once it is (a folder is one argument and many ranks; unreadable files are none).
    connect(view, &DistributedView::ready, this, [this, view] {
        const int at = m_tabs->indexOf(view);
        if (at >= 0) m_tabs->setTabText(at, QString::fromStdString(countText(view->ranks().size(), "rank")));
    });
    m_tabs->setCurrentIndex(index);
    updateEmptyState();
    return view;
}

CompareView* MainWindow::openComparison(const QString& a, const QString& b) {
    auto* view = new CompareView(QFileInfo(a).absoluteFilePath(), QFileInfo(b).absoluteFilePath(), m_tabs);
    const int index =
        m_tabs->addTab(view, tr("%1 ↔ %2").arg(QFileInfo(a).fileName(), QFileInfo(b).fileName()));
    m_tabs->setTabToolTip(index, a + QStringLiteral("\n") + b);
    m_tabs->setCurrentIndex(index);
    updateEmptyState();
    return view;
}

TraceView* MainWindow::currentView() const {
    if (CaptureView* c = currentCapture()) return c->traceView();
    return qobject_cast<TraceView*>(m_tabs->currentWidget());
}

void MainWindow::openDialog() {
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Open Trace"), QString(), fileDialogFilter());
    for (const QString& f : files)
        openFile(f);
}

void MainWindow::closeTab(int index) {
    if (index < 0) return;
    QWidget* w = m_tabs->widget(index);
    if (auto* view = qobject_cast<TraceView*>(w)) view->cancelLoad();
    m_tabs->removeTab(index);
    delete w;
    updateEmptyState();
    updateStatus();
}

QStringList MainWindow::recentFiles() const {
    return QSettings().value(QLatin1String(recentKey)).toStringList();
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList files = settings.value(QLatin1String(recentKey)).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > maxRecentFiles)
        files.removeLast();
    settings.setValue(QLatin1String(recentKey), files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString& f : files) {
        m_recentMenu->addAction(QFileInfo(f).fileName() + QStringLiteral("  —  ") +
                                    QFileInfo(f).absolutePath(),
                                this, [this, f] { openFile(f); });
    }
    if (files.isEmpty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear"), this, [this] {
            QSettings().remove(QLatin1String(recentKey));
            rebuildRecentMenu();
        });
    }
}

void MainWindow::applyViewSettings(TraceView* view) {
    withTimeline(view, [this](TimelineWidget* t) {
        t->setFlowMode(m_flowMode);
        t->setColorMode(m_colorMode);
        t->setZoomTool(m_zoomTool->isChecked());
    });
}

void MainWindow::updateStatus() {
    TraceView* view = currentView();
    applyViewSettings(view);
    if (CaptureView* c = currentCapture()) {
        m_statusLabel->setText(c->statusText());
        setWindowTitle(c->title() + QStringLiteral(" — Kinetoscope"));
        return;
    }
    if (auto* snapshot = qobject_cast<SnapshotView*>(m_tabs->currentWidget())) {
        m_statusLabel->setText(snapshot->state() == SnapshotView::State::Failed ? snapshot->errorMessage()
                               : snapshot->state() == SnapshotView::State::Loading
                                   ? tr("Loading %1…").arg(snapshot->path())
                                   : tr("CUDA memory snapshot · %1")
                                         .arg(QString::fromStdString(formatBytes(double(
                                             snapshot->snapshot() ? snapshot->snapshot()->fileBytes : 0)))));
        setWindowTitle(QFileInfo(snapshot->path()).fileName() + QStringLiteral(" — Kinetoscope"));
        return;
    }
    if (!view) {
        m_statusLabel->clear();
        return;
    }
    switch (view->state()) {
    case TraceView::State::Loading:
        m_statusLabel->setText(tr("Loading %1…").arg(view->path()));
        break;
    case TraceView::State::Failed:
        m_statusLabel->setText(view->errorMessage());
        break;
    case TraceView::State::Cancelled:
        m_statusLabel->setText(tr("Cancelled"));
        break;
    case TraceView::State::Ready: {
        const LoadedTrace& t = *view->trace();
        auto counted = [](std::size_t n, const char* one, const char* many) {
            return QLocale().toString(qulonglong(n)) + QLatin1Char(' ') + QLatin1String(n == 1 ? one : many);
        };
        m_statusLabel->setText(tr("%1 · %2 · %3 · %4 · loaded in %5 s")
                                   .arg(counted(t.store->sliceCount(), "slice", "slices"),
                                        counted(t.store->flows().size(), "flow", "flows"),
                                        counted(t.store->tracks().size(), "track", "tracks"),
                                        counted(t.steps.size(), "step", "steps"))
                                   .arg(t.loadSeconds, 0, 'f', 2));
        break;
    }
    }
    setWindowTitle(QFileInfo(view->path()).fileName() + QStringLiteral(" — Kinetoscope"));
}

void MainWindow::updateEmptyState() {
    m_stack->setCurrentIndex(m_tabs->count() > 0 || m_runs ? 1 : 0);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    for (const QUrl& url : e->mimeData()->urls()) {
        if (!url.isLocalFile()) continue;
        if (QFileInfo(url.toLocalFile()).isDir())
            openFolder(url.toLocalFile());
        else
            openFile(url.toLocalFile());
    }
    e->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings().setValue(QStringLiteral("window/geometry"), saveGeometry());
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (auto* v = qobject_cast<TraceView*>(m_tabs->widget(i))) v->cancelLoad();
    }
    e->accept();
}

} // namespace kinetoscope
