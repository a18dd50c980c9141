// Links, saved views and trimmed ranges of the main window (issue 64): kinetoscope://open links from a
// terminal, a browser or a chat, .kview files, Edit > Copy Link to This View, File > Save View and File >
// Export Range. The grammar and the file format are core's (model/viewlink.h, open/viewfile.h).
#include "shell/mainwindow.h"

#include "open/trimtrace.h"
#include "open/viewfile.h"
#include "timeline/timelinewidget.h"
#include "views/compareview.h"
#include "views/distributedview.h"
#include "views/traceview.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QStatusBar>
#include <QTabWidget>

#include <atomic>
#include <memory>
#include <thread>

namespace kinetoscope {

namespace {

// Opens what a view names: one trace with its view applied, two compared, more as a job.
QString openNamed(MainWindow& window, const ViewFile& view) {
    QStringList files;
    for (const std::string& f : view.view.files)
        files << QString::fromStdString(f);
    if (files.size() == 2) {
        window.openComparison(files[0], files[1]);
        return {};
    }
    if (files.size() > 2) {
        window.openDistributed(files);
        return {};
    }
    TraceView* trace = window.openTrace(files.front());
    if (!trace) return QObject::tr("%1: cannot open").arg(files.front());
    trace->applyView(view);
    return {};
}

} // namespace

QString MainWindow::openLink(const QString& url) {
    std::string error;
    const auto link = parseViewLink(url.toStdString(), error);
    if (!link) {
        const QString message = tr("%1: %2").arg(url, QString::fromStdString(error));
        statusBar()->showMessage(message, 15000);
        return message;
    }
    ViewFile view;
    view.view = *link;
    view.pinned = link->tracks;
    return openNamed(*this, view);
}

QString MainWindow::openViewFile(const QString& path) {
    std::string error;
    const auto view = readViewFile(QFileInfo(path).absoluteFilePath().toStdString(), error);
    if (!view) {
        const QString message = QString::fromStdString(error);
        statusBar()->showMessage(message, 15000);
        return message;
    }
    return openNamed(*this, *view);
}

QString MainWindow::copyLinkToView() {
    TraceView* v = currentView();
    if (!v || v->state() != TraceView::State::Ready) return {};
    const ViewFile view = v->currentViewFile();
    ViewLink link = view.view;
    link.tracks = view.pinned;
    const QString url = QString::fromStdString(viewLinkUrl(link));
    QApplication::clipboard()->setText(url);
    statusBar()->showMessage(tr("Copied a link to this view: %1").arg(url), 10000);
    return url;
}

QString MainWindow::saveView(const QString& path) {
    TraceView* v = currentView();
    if (!v || v->state() != TraceView::State::Ready)
        return tr("%1: no trace in this tab to save a view of").arg(path);
    const std::string text =
        viewFileJson(v->currentViewFile(), QFileInfo(path).absoluteFilePath().toStdString());
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        out.write(text.data(), qint64(text.size())) != qint64(text.size()))
        return tr("%1: cannot write the view").arg(path);
    return {};
}

// The range File > Export Range takes: the area selection when there is one, else what the timeline shows.
static std::optional<std::pair<TimeNs, TimeNs>> exportedRange(TraceView* v) {
    if (!v || v->state() != TraceView::State::Ready || !v->timeline()) return std::nullopt;
    const TimelineWidget* timeline = v->timeline();
    if (const auto area = timeline->areaSelection()) return std::pair{area->range.from, area->range.to};
    return std::pair{timeline->axis().start, timeline->axis().end};
}

QString MainWindow::exportRange(const QString& path) {
    TraceView* v = currentView();
    const auto range = exportedRange(v);
    if (!range) return tr("%1: no trace in this tab to export a range of").arg(path);
    const TrimResult r = trimTrace(QFileInfo(v->path()).absoluteFilePath().toStdString(), path.toStdString(),
                                   {range->first, range->second, {}, nullptr});
    if (!r.ok()) return QString::fromStdString(r.error);
    statusBar()->showMessage(
        tr("Exported %1 of %2 events to %3").arg(r.eventsKept).arg(r.eventsRead).arg(path), 10000);
    return {};
}

void MainWindow::exportRangeDialog() {
    TraceView* v = currentView();
    const auto range = exportedRange(v);
    if (!range) {
        QMessageBox::information(this, tr("Export Range"),
                                 tr("Open a trace first: there is no timeline in this tab."));
        return;
    }
    const QFileInfo source(v->path());
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Range"),
        source.absolutePath() + QStringLiteral("/") + source.completeBaseName().section('.', 0, 0) +
            QStringLiteral(".range.json.gz"),
        tr("Kineto trace, compressed (*.json.gz);;Kineto trace (*.json)"));
    if (path.isEmpty()) return;
    // Off the UI thread, with Cancel: a large trace takes seconds to read through.
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto* progress = new QProgressDialog(tr("Exporting the range to %1…").arg(QFileInfo(path).fileName()),
                                         tr("Cancel"), 0, 0, this);
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(300);
    connect(progress, &QProgressDialog::canceled, this, [cancel] { cancel->store(true); });
    const std::string input = source.absoluteFilePath().toStdString();
    QPointer<MainWindow> self(this);
    std::thread([self, progress, cancel, input, path, range] {
        TrimOptions options{range->first, range->second, {}, cancel.get()};
        const TrimResult r = trimTrace(input, path.toStdString(), options);
        QMetaObject::invokeMethod(qApp, [self, progress, r, path, cancel] {
            progress->deleteLater();
            if (!self) return;
            if (!r.ok() && !cancel->load())
                QMessageBox::warning(self, tr("Export Range"), QString::fromStdString(r.error));
            else if (r.ok())
                self->statusBar()->showMessage(
                    tr("Exported %1 of %2 events to %3").arg(r.eventsKept).arg(r.eventsRead).arg(path),
                    10000);
        });
    }).detach();
}

} // namespace kinetoscope
