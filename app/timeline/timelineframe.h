#pragma once

// Qt first: moc (Qt 6.4) cannot parse <concepts>, pulled in by <compare>, unless Qt headers came before.
#include <QSize>
#include <QString>

#include "model/ids.h"
#include "query/timeaxis.h"

#include <optional>
#include <vector>

namespace kinetoscope {

struct StepCriticalPath;

enum class FlowMode { None, Selected, All };
enum class ColorMode { Category, Name };

struct TimeRange {
    TimeNs from = 0;
    TimeNs to = 0;
    TimeNs span() const { return to > from ? to - from : from - to; }
    bool operator==(const TimeRange&) const = default;
};

// An area selection: a time range over a band of rows.
struct AreaSelection {
    TimeRange range;
    int firstRow = 0;
    int lastRow = 0; // inclusive
    bool operator==(const AreaSelection&) const = default;
};

// Everything that decides what one frame shows. The widget, `--render` and the frame benchmark fill it in and
// hand it to TimelineRenderer, so all three draw the same picture.
struct TimelineFrame {
    static constexpr double defaultRulerHeight = 42;
    static constexpr double defaultStepBandHeight = 16;
    QSize size; // of the whole timeline, header column and ruler included
    // The ruler at the top: the steps' band, then the ticks and their labels. A compact one (a job's rank
    // panes, eight to a screen) is lower and leaves out the "View:" span and the track filter beside it.
    double rulerHeight = defaultRulerHeight;
    double stepBandHeight = defaultStepBandHeight;
    bool compactRuler = false;
    QString cornerTitle; // shown in the ruler's corner instead of "View: <span>" when set
    TimeAxis axis;       // its width is the width of the lanes area
    double scrollY = 0;  // content y at the top of the lanes area
    FlowMode flows = FlowMode::Selected;
    ColorMode colors = ColorMode::Category;
    EventRef selected;
    EventRef hovered;
    std::optional<TimeNs> cursor;                   // the time under the mouse
    std::optional<TimeRange> measure;               // Shift+drag
    std::optional<TimeRange> zoomDrag;              // drag on the ruler or with the zoom tool
    std::optional<AreaSelection> area;              // Ctrl+drag
    const std::vector<bool>* searchNames = nullptr; // by StringId; null when no search is active
    EventRef currentMatch;
    const StepCriticalPath* criticalPath = nullptr; // outlined with its links; null when none is shown
};

} // namespace kinetoscope
