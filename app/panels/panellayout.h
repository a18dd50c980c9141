#pragma once

#include <QByteArray>
#include <QList>
#include <QMargins>
#include <QRect>
#include <QString>

class QSplitter;
class QWidget;

namespace kinetoscope {

// The split between a timeline (first) and the panels under it (second), in every view that has one. The
// panels never grow to fit their content: their minimum height is fixed, so a long table, a deep call chain
// or a module tree scrolls inside its panel instead of pushing the timeline up; the timeline keeps a minimum
// of its own; neither can be collapsed to nothing by a drag.
namespace panellayout {

constexpr int timelineMinimumHeight = 220;
constexpr int panelsMinimumHeight = 120;
// A restored split must leave the timeline at least this share of the height: a layout saved while the panels
// were enlarged must not give every later trace a short timeline.
constexpr double timelineMinimumShare = 0.5;
// The split at first launch and after View > Reset Layout: the panels tall enough for ten table rows under
// their tabs, filter and header (and never less than a quarter), the timeline the rest, which at 1400x900
// still holds the first screen of a with_stack trace (its steps, operators and GPU streams). Growing, both
// share 3:1.
constexpr int panelsTenRows = 360;
constexpr double panelsMostShare = 0.45; // in a small window the timeline keeps the larger part
constexpr int timelineStretch = 3;
constexpr int panelsStretch = 1;

// Whether sizes (timeline, panels) show the timeline well enough to be kept.
bool showsTimeline(const QList<int>& sizes);
// The sizes (timeline, panels) in a state saved by QSplitter::saveState; empty when it is not one.
QList<int> savedSizes(const QByteArray& state);
// The default sizes for a total height.
QList<int> defaultSizes(int total);

// Sets the bounds above on a splitter holding (timeline, panels), restores its state from setting `key`
// unless that state would hide the timeline (then the setting is dropped), and saves it on every drag.
void install(QSplitter* splitter, const QString& key);
// Back to the default split; the saved state is dropped.
void reset(QSplitter* splitter, const QString& key);

// A window's client rectangle `want`, shrunk and moved so that it and its frame lie inside `available` (a
// screen's available geometry).
QRect fittedToScreen(QRect want, const QRect& available, const QMargins& frame);
// Fits a top-level window onto its screen (restored geometry saved on a larger screen, a default larger than
// a small screen). Only where a window is first placed: a later resize is the user's.
void keepOnScreen(QWidget* window);

} // namespace panellayout
} // namespace kinetoscope
