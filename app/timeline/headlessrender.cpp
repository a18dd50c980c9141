#include "timeline/headlessrender.h"

#include "analysis/gpu/criticalpath.h"

#include "open/opentrace.h"
#include "shell/loadedtrace.h"
#include "timeline/timelinewidget.h"

#include <QImage>
#include <QPainter>
#include <QRegularExpression>

namespace kinetoscope {

std::optional<QSize> parseSize(const QString& text) {
    static const QRegularExpression re(QStringLiteral("^(\\d{1,5})[xX](\\d{1,5})$"));
    const auto m = re.match(text.trimmed());
    if (!m.hasMatch()) return std::nullopt;
    const int w = m.captured(1).toInt();
    const int h = m.captured(2).toInt();
    if (w < 320 || h < 120 || w > 16384 || h > 16384) return std::nullopt;
    return QSize(w, h);
}

std::optional<TimeRange> parseRange(const QString& text) {
    const QStringList parts = text.split(QLatin1Char(':'));
    if (parts.size() != 2) return std::nullopt;
    const auto from = parseMicrosecondsText(parts[0].trimmed().toStdString());
    const auto to = parseMicrosecondsText(parts[1].trimmed().toStdString());
    if (!from || !to || *to <= *from) return std::nullopt;
    return TimeRange{*from, *to};
}

QString renderTimeline(const RenderRequest& request) {
    const std::string path = request.tracePath.toStdString();
    LoadResult result = loadTrace(path);
    if (!result.ok()) return QString::fromStdString(result.message(path));
    std::shared_ptr<const LoadedTrace> trace = prepareLoadedTrace(std::move(result.store), result.seconds);
    TimelineWidget widget(trace);
    widget.resize(request.size);
    widget.setFlowMode(request.flows);
    widget.setColorMode(request.colors);
    if (request.rangeFromStart) {
        const TimeNs origin = trace->store->minTime();
        widget.setVisibleRange(origin + request.rangeFromStart->from, origin + request.rangeFromStart->to);
    } else {
        widget.fitAll();
    }
    if (request.criticalPath)
        widget.setCriticalPath(std::make_shared<const StepCriticalPath>(
            criticalPathAt(*trace->store, widget.axis().start, widget.axis().end)));
    QImage image(request.size, QImage::Format_RGB32);
    image.fill(Qt::white);
    widget.render(&image);
    if (!image.save(request.outputPath, "PNG"))
        return request.outputPath + QStringLiteral(": cannot write the image");
    return {};
}

} // namespace kinetoscope
