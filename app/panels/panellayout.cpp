#include "panels/panellayout.h"

#include <QDataStream>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QWidget>

#include <algorithm>

namespace kinetoscope::panellayout {

bool showsTimeline(const QList<int>& sizes) {
    if (sizes.size() != 2) return false;
    const int total = sizes[0] + sizes[1];
    return total > 0 && sizes[0] >= timelineMinimumHeight && double(sizes[0]) >= timelineMinimumShare * total;
}

QList<int> defaultSizes(int total) {
    const int quarter = total * panelsStretch / (timelineStretch + panelsStretch);
    const int tenRows = std::min(panelsTenRows, int(total * panelsMostShare));
    const int panels = std::max({panelsMinimumHeight, quarter, tenRows});
    return {std::max(0, total - panels), panels};
}

namespace {
// The splitter's height to share out: its own once laid out, else its children's size hints (before the first
// show, when restoring) so that the proportions hold.
int totalHeight(const QSplitter* splitter) {
    int total = 0;
    for (int s : splitter->sizes())
        total += s;
    return total > 0 ? total : splitter->height();
}
} // namespace

QList<int> savedSizes(const QByteArray& state) {
    // QSplitter::saveState writes a marker (0xff), a version (0 or 1 so far), then the sizes.
    QDataStream in(state);
    in.setVersion(QDataStream::Qt_5_0);
    qint32 marker = 0, version = 0;
    QList<int> sizes;
    in >> marker >> version;
    if (marker != 0xff || version < 0 || version > 1) return {};
    in >> sizes;
    return in.status() == QDataStream::Ok ? sizes : QList<int>();
}

void install(QSplitter* splitter, const QString& key) {
    // (The bounds first: restoring and defaulting below respect them.)
    splitter->widget(0)->setMinimumHeight(timelineMinimumHeight);
    // An explicit minimum overrides the minimum size hint that the panels' content would impose.
    splitter->widget(1)->setMinimumHeight(panelsMinimumHeight);
    splitter->setChildrenCollapsible(false);
    splitter->setStretchFactor(0, timelineStretch);
    splitter->setStretchFactor(1, panelsStretch);
    const QByteArray state = QSettings().value(key).toByteArray();
    const bool restore = !state.isEmpty() && showsTimeline(savedSizes(state));
    if (!state.isEmpty() && !restore) QSettings().remove(key);
    // Sizes set explicitly, saved or default: a splitter left to its children's size hints would share the
    // height out again whenever the panels' content changes.
    if (restore)
        splitter->restoreState(state);
    else
        splitter->setSizes(defaultSizes(std::max(totalHeight(splitter), 800)));
    QObject::connect(splitter, &QSplitter::splitterMoved, splitter,
                     [splitter, key] { QSettings().setValue(key, splitter->saveState()); });
}

void reset(QSplitter* splitter, const QString& key) {
    QSettings().remove(key);
    splitter->setSizes(defaultSizes(totalHeight(splitter)));
}

QRect fittedToScreen(QRect want, const QRect& available, const QMargins& frame) {
    const QRect inside = available.marginsRemoved(frame);
    if (inside.isEmpty()) return want;
    want.setSize(want.size().boundedTo(inside.size()));
    want.moveLeft(std::clamp(want.left(), inside.left(), inside.right() - want.width() + 1));
    want.moveTop(std::clamp(want.top(), inside.top(), inside.bottom() - want.height() + 1));
    return want;
}

void keepOnScreen(QWidget* window) {
    const QScreen* screen = window->screen();
    if (!screen) return;
    const QRect client = window->geometry(), framed = window->frameGeometry();
    QMargins frame(client.left() - framed.left(), client.top() - framed.top(),
                   framed.right() - client.right(), framed.bottom() - client.bottom());
    // Before the first show the window manager has not framed it yet: leave room for a title bar.
    if (frame.isNull()) frame = QMargins(0, 32, 0, 0);
    const QRect fitted = fittedToScreen(client, screen->availableGeometry(), frame);
    if (fitted != client) window->setGeometry(fitted);
}

} // namespace kinetoscope::panellayout
