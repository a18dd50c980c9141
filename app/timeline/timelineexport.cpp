#include "timeline/timelineexport.h"

#include "timeline/timelinewidget.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace kinetoscope {

QString exportTimelineImage(TimelineWidget& timeline, const QString& path, const QString& title) {
    const TimelineFrame& frame = timeline.frame();
    const QSize size = frame.size;
    if (size.isEmpty()) return QStringLiteral("%1: the timeline has no size to draw").arg(path);
    const QString suffix = QFileInfo(path).suffix().toLower();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setResolution(timeline.logicalDpiX()); // printed at the size it has on screen
        svg.setTitle(title.isEmpty() ? QStringLiteral("Kinetoscope timeline") : title);
        svg.setDescription(QStringLiteral("Timeline drawn by Kinetoscope"));
        QPainter p(&svg);
        timeline.renderer().paint(p, frame);
    } else {
        const QByteArray format = suffix.isEmpty() ? QByteArray("png") : suffix.toLatin1();
        if (!QImageWriter::supportedImageFormats().contains(format))
            return QStringLiteral("%1: cannot write .%2 images (use .png or .svg)").arg(path, suffix);
        const qreal ratio = std::max<qreal>(1, timeline.devicePixelRatioF());
        QImage image(size * ratio, QImage::Format_RGB32);
        image.setDevicePixelRatio(ratio);
        image.fill(Qt::white);
        {
            QPainter p(&image);
            timeline.renderer().paint(p, frame);
        }
        if (!image.save(&buffer, format.constData()))
            return QStringLiteral("%1: cannot encode the image").arg(path);
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return QStringLiteral("%1: %2").arg(path, file.errorString());
    return {};
}

} // namespace kinetoscope
