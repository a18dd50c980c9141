#include "timeline/timelinerenderer.h"

#include "timeline/criticalpathoverlay.h"

#include "model/textformat.h"
#include "query/kernelshortname.h"

#include <QGuiApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kinetoscope {

TimelineTheme TimelineTheme::forPalette(const QPalette& palette) {
    TimelineTheme t;
    t.dark = palette.color(QPalette::Window).lightness() < 128;
    if (!t.dark) return t;
    t.laneBackground = QColor(0x1e, 0x21, 0x26);
    t.laneBackgroundAlt = QColor(0x24, 0x28, 0x2e);
    t.headerBackground = QColor(0x2b, 0x2f, 0x36);
    t.groupBackground = QColor(0x35, 0x3a, 0x42);
    t.gridLine = QColor(0x33, 0x38, 0x40);
    t.text = QColor(0xe5, 0xe7, 0xeb);
    t.mutedText = QColor(0xa0, 0xa6, 0xb0);
    t.selection = QColor(0xf9, 0xfa, 0xfb);
    t.border = QColor(0x44, 0x4a, 0x53);
    t.groupSummary = QColor(0x94, 0xa3, 0xb8, 150);
    return t;
}

QString formatCounterValue(double value, CounterUnit unit) {
    if (unit == CounterUnit::Ratio) return QString::number(value * 100, 'f', 1) + QStringLiteral(" %");
    if (unit == CounterUnit::Bytes) return QString::fromStdString(formatBytes(value));
    if (unit == CounterUnit::BytesPerSecond)
        return QString::fromStdString(formatBytes(value)) + QStringLiteral("/s");
    return QString::number(value, 'g', 6);
}

TimelineRenderer::TimelineRenderer(std::shared_ptr<const LoadedTrace> trace, LaneLayout* layout)
    : m_trace(std::move(trace)), m_layout(layout), m_font(QStringLiteral("DejaVu Sans"), 8),
      m_boldFont(QStringLiteral("DejaVu Sans"), 8, QFont::Bold), m_metrics(m_font) {
    setPalette(QGuiApplication::palette());
    m_font.setStyleHint(QFont::SansSerif);
    m_boldFont.setStyleHint(QFont::SansSerif);
    m_metrics = QFontMetricsF(m_font);
    const std::size_t strings = store().strings().size();
    m_nameText.resize(strings);
    m_nameWidth.assign(strings, -1.0f);
    m_nameColor.assign(strings, -1);
    m_counterMax.assign(m_layout->trackCount(), std::numeric_limits<double>::quiet_NaN());
}

void TimelineRenderer::setPalette(const QPalette& palette) {
    m_theme = TimelineTheme::forPalette(palette);
    m_palette = TimelinePalette(m_theme.laneBackground);
    m_cacheValid = false;
}

QString TimelineRenderer::lanesFoldText(TrackId source) const {
    if (const std::uint32_t capped = m_layout->cappedLanes(source); capped > 0)
        return QStringLiteral("▸ +%1 lanes").arg(capped);
    if (m_layout->isUncapped(source)) return QStringLiteral("▾ lanes");
    return {};
}

double TimelineRenderer::lanesFoldWidth(TrackId source) const {
    const QString text = lanesFoldText(source);
    return text.isEmpty() ? 0 : m_metrics.horizontalAdvance(text) + 6;
}

const QString& TimelineRenderer::nameText(StringId id) {
    static const QString none(""); // a pinned query's row the trace has no name for
    if (id.value >= m_nameText.size()) return none;
    QString& text = m_nameText[id.value];
    if (text.isNull()) {
        const std::string_view v = store().strings().view(id);
        // A kernel's C++ signature by its short name: the label has room for a few words, and the ones that
        // say what it is sit hundreds of characters in. Tooltips, Details and search keep the full name.
        if (const std::optional<std::string> shortName = shortSignatureName(v))
            text = QString::fromStdString(*shortName);
        else
            text = QString::fromUtf8(v.data(), qsizetype(v.size()));
        if (text.isNull()) text = QString(""); // non-null empty: computed
    }
    return text;
}

int TimelineRenderer::colorOf(const Track& track, std::uint32_t row, ColorMode mode) {
    // A slice of no known category (a trace without "cat", a category we do not know) by its name: one grey
    // for all of them hid every structure (issue 52 item 6).
    const std::uint16_t category = track.categories[row];
    if (mode == ColorMode::Name || category >= store().categories().size() ||
        store().categories()[category].kind == CategoryKind::Other) {
        const StringId name = track.names[row];
        if (name.value >= m_nameColor.size()) return TimelinePalette::indexOf(CategoryKind::Other);
        std::int16_t& c = m_nameColor[name.value];
        if (c < 0) c = std::int16_t(TimelinePalette::indexOfName(store().strings().view(name)));
        return c;
    }
    return TimelinePalette::indexOf(store().categories()[track.categories[row]].kind);
}

double TimelineRenderer::counterMax(TrackId id) {
    double& m = m_counterMax[id.value];
    if (std::isnan(m)) {
        m = 0;
        if (const DerivedTrack* d = m_layout->derived(id); d && d->fullScale > 0) return m = d->fullScale;
        for (double v : m_layout->track(id).counterValues) {
            if (std::isfinite(v)) m = std::max(m, v);
        }
    }
    return m;
}

QRectF TimelineRenderer::lanesRect(const TimelineFrame& frame) const {
    return QRectF(headerWidth, frame.rulerHeight, frame.axis.width,
                  std::max(0.0, frame.size.height() - frame.rulerHeight));
}

const TimelineGeometry& TimelineRenderer::geometry(const TimelineFrame& frame) {
    if (!m_cacheValid || m_cacheAxis != frame.axis || m_cacheSize != frame.size ||
        m_cacheScroll != frame.scrollY || m_cacheColors != frame.colors ||
        m_cacheSearch != frame.searchNames || m_cacheLayoutGeneration != m_layout->generation()) {
        buildGeometry(frame);
        m_cacheValid = true;
        m_cacheAxis = frame.axis;
        m_cacheSize = frame.size;
        m_cacheScroll = frame.scrollY;
        m_cacheColors = frame.colors;
        m_cacheSearch = frame.searchNames;
        m_cacheLayoutGeneration = m_layout->generation();
    }
    return m_geometry;
}

void TimelineRenderer::buildGeometry(const TimelineFrame& frame) {
    TimelineGeometry& g = m_geometry;
    for (auto& v : g.rects)
        v.clear();
    for (auto& v : g.fadedRects)
        v.clear();
    g.labels.clear();
    g.instants.clear();
    g.groupSummaries.clear();
    g.counters.clear();
    g.boxCount = 0;
    g.foldedSlices = 0;
    const double lanesHeight = frame.size.height() - frame.rulerHeight;
    const auto [firstRow, lastRow] = m_layout->rowsBetween(frame.scrollY, frame.scrollY + lanesHeight);
    const auto& rows = m_layout->rows();
    const std::vector<bool>* search = frame.searchNames;
    for (std::size_t ri = firstRow; ri < lastRow; ++ri) {
        const LaneRow& row = rows[ri];
        const double top = viewY(frame, row.y);
        if (row.kind == LaneRow::Kind::GroupHeader) {
            // A collapsed group is not a blank row: it shows when any of its tracks is busy (their top lanes,
            // merged, folded to pixels like any lane).
            const LaneGroup& group = m_layout->groups()[row.group];
            if (!group.collapsed) continue;
            for (TrackId id : group.tracks) {
                const Track& t = m_layout->track(id);
                if (t.kind == TrackKind::Counter || t.laneCount() == 0) continue;
                m_boxes.clear();
                collectLaneBoxes(t, 0, frame.axis, foldPx, m_boxes);
                for (const SliceBox& b : m_boxes)
                    g.groupSummaries.push_back(QRectF(headerWidth + b.x0, top + 5,
                                                      std::max(1.0, double(b.x1 - b.x0)), row.height - 10));
            }
            continue;
        }
        const Track& track = m_layout->track(row.track);
        if (row.kind == LaneRow::Kind::Counter) {
            m_columns.clear();
            m_layout->collectColumns(row.track, frame.axis, m_columns);
            const CounterUnit unit = m_layout->counterUnit(row.track);
            const DerivedTrack* derived = m_layout->derived(row.track);
            // A mean-folded lane without a fixed scale (a copy bandwidth) is scaled to its columns in view:
            // its instantaneous peak, a short copy at full speed, would flatten the means of a zoomed-out
            // view.
            const bool scaledToView =
                derived && derived->fold() == CounterFold::Mean && derived->fullScale <= 0;
            double maxValue = scaledToView ? 0 : counterMax(row.track);
            if (scaledToView)
                for (const CounterColumn& c : m_columns)
                    maxValue = std::max({maxValue, c.maxValue, c.lastValue});
            TimelineGeometry::CounterArea area;
            area.rowRect = QRectF(headerWidth, top, frame.axis.width, row.height);
            area.maxValue = maxValue;
            if (store().stats().preview) {
                // A sample's figures are not the trace's (its GPU utilisation read 1.4 % for a trace of
                // 42.2 %): none until the whole trace is here.
                area.label = derived ? QStringLiteral("figures after the full load (this is a sample)")
                                     : QStringLiteral("max ") + formatCounterValue(maxValue, unit) +
                                           QStringLiteral(" in the sample");
            } else if (derived && derived->fold() == CounterFold::Mean && unit == CounterUnit::Ratio &&
                       !track.counterTimes.empty()) {
                // A busy share reads best as its mean over what the user is looking at.
                const TimeNs from = std::max(frame.axis.start, track.counterTimes.front());
                const TimeNs to = std::min(frame.axis.end, track.counterTimes.back());
                area.label = formatCounterValue(derived->meanBetween(from, to), unit) +
                             QStringLiteral(" (mean over the view)");
            } else {
                area.label = QStringLiteral("max ") + formatCounterValue(maxValue, unit) +
                             (scaledToView ? QStringLiteral(" in view") : QString());
            }
            const double base = top + row.height - 1;
            const double scale = maxValue > 0 ? (row.height - 4) / maxValue : 0;
            auto yOf = [&](double v) { return base - std::max(0.0, v) * scale; };
            if (!m_columns.empty()) {
                area.polygon.reserve(qsizetype(m_columns.size() * 2 + 4));
                area.polygon << QPointF(headerWidth + m_columns.front().x, base);
                const double right = headerWidth + frame.axis.width;
                double previous = m_columns.front().lastValue;
                // Runs on whole pixels, a run that continues the previous one at the same height joining it.
                const auto fillRun = [&](double x0, double x1, double value) {
                    const double left = std::round(x0), right = std::round(x1), y = std::round(yOf(value));
                    if (right <= left || y >= base) return;
                    if (!area.fill.empty() && area.fill.back().right() == left && area.fill.back().top() == y)
                        area.fill.back().setRight(right);
                    else
                        area.fill.emplace_back(QPointF(left, y), QPointF(right, base));
                };
                struct Held {
                    double from = 0, value = 0;
                    bool any = false;
                } held;
                const auto holdUntil = [&](double x) {
                    if (held.any) fillRun(held.from, x, held.value);
                    held.any = false;
                };
                for (const CounterColumn& c : m_columns) {
                    const double x = headerWidth + c.x;
                    // A step chart: hold the previous value up to this column, jump to the column's peak (so
                    // short spikes stay visible at any zoom), and leave the column at its last value. A peak
                    // the column did not end on is drawn one pixel wide: joined straight to the next sample
                    // it was a slope, read as a queue or a memory held for as long as the gap between
                    // samples.
                    area.polygon << QPointF(x, yOf(previous)) << QPointF(x, yOf(c.maxValue));
                    // What the previous column kept, up to here; then this one's peak, from here.
                    holdUntil(x);
                    double heldFrom = x;
                    if (c.lastValue != c.maxValue) {
                        const double end = std::min(x + 1, right);
                        area.polygon << QPointF(end, yOf(c.maxValue)) << QPointF(end, yOf(c.lastValue));
                        fillRun(x, end, c.maxValue);
                        heldFrom = end;
                    }
                    previous = c.lastValue;
                    held = {heldFrom, previous, true};
                }
                area.polygon << QPointF(right, yOf(previous)) << QPointF(right, base);
                holdUntil(right);
            }
            g.counters.push_back(std::move(area));
            continue;
        }
        m_boxes.clear();
        collectLaneBoxes(track, row.depth, frame.axis, foldPx, m_boxes);
        g.boxCount += m_boxes.size();
        const double h = row.height - 2;
        for (const SliceBox& b : m_boxes) {
            const int color = colorOf(track, b.row, frame.colors);
            const StringId name = track.names[b.row];
            const bool faded = search && !(name.value < search->size() && (*search)[name.value]);
            double x0 = headerWidth + b.x0;
            double w = b.x1 - b.x0;
            if (b.folded > 1) g.foldedSlices += b.folded;
            if (track.flags[b.row] & SliceFlag::Instant && b.folded == 1) {
                g.instants.push_back(QRectF(x0, top + h * 0.3, 1, h * 0.7));
                continue;
            }
            // Leave a hairline between neighbours of the same colour.
            if (w > 3) w -= 1;
            (faded ? g.fadedRects : g.rects)[std::size_t(color)].push_back(QRectF(x0, top + 1, w, h));
            if (b.folded == 1 && w >= 24)
                g.labels.push_back({QRectF(x0, top + 1, w, h), track.names[b.row], std::uint8_t(color)});
        }
    }
}

void TimelineRenderer::paint(QPainter& p, const TimelineFrame& frame) {
    p.save();
    p.setFont(m_font);
    p.fillRect(QRectF(0, 0, frame.size.width(), frame.size.height()), m_theme.laneBackground);
    p.setClipRect(lanesRect(frame));
    paintLanes(p, frame);
    paintLabels(p, frame);
    paintOverlays(p, frame);
    paintFlows(p, frame);
    paintCriticalPath(p, *this, frame);
    p.setClipping(false);
    paintRuler(p, frame);
    paintHeaders(p, frame);
    p.restore();
}

void TimelineRenderer::paintLanes(QPainter& p, const TimelineFrame& frame) {
    const TimelineGeometry& g = geometry(frame);
    const double lanesHeight = frame.size.height() - frame.rulerHeight;
    const auto [firstRow, lastRow] = m_layout->rowsBetween(frame.scrollY, frame.scrollY + lanesHeight);
    const auto& rows = m_layout->rows();
    // Alternate the background per track, and shade group header rows, so lanes of one thread read as one.
    for (std::size_t ri = firstRow; ri < lastRow; ++ri) {
        const LaneRow& row = rows[ri];
        const QRectF band(headerWidth, viewY(frame, row.y), frame.axis.width, row.height);
        if (row.kind == LaneRow::Kind::GroupHeader)
            p.fillRect(band, m_theme.groupBackground);
        else if (m_layout->sourceTrackOf(row.track).value % 2)
            p.fillRect(band, m_theme.laneBackgroundAlt);
        if (isFirstOverflowLane(row)) {
            p.setPen(QPen(m_theme.mutedText, 1, Qt::DashLine));
            p.drawLine(QPointF(band.left(), band.top() + 0.5), QPointF(band.right(), band.top() + 0.5));
        }
    }
    // Vertical grid at the ruler's ticks.
    const TimeNs step = niceTickStep(frame.axis, 90);
    p.setPen(QPen(m_theme.gridLine, 1));
    for (const RulerTick& tick : rulerTicks(frame.axis, store().minTime(), step)) {
        if (!tick.major) continue;
        const double x = std::round(headerWidth + frame.axis.xOf(tick.time)) + 0.5;
        p.drawLine(QPointF(x, frame.rulerHeight), QPointF(x, frame.size.height()));
    }
    p.setPen(Qt::NoPen);
    // On a high-DPI screen the QRectF keeps its edges between logical pixels.
    const bool wholePixels =
        p.device()->devicePixelRatioF() == 1.0 && p.transform().type() <= QTransform::TxTranslate;
    const auto fillPixels = [&](const std::vector<QRectF>& rects, const QColor& color) {
        if (rects.empty()) return;
        if (!wholePixels) {
            p.setBrush(color);
            p.drawRects(rects.data(), int(rects.size()));
            return;
        }
        m_pixelRects.clear();
        for (const QRectF& r : rects)
            m_pixelRects.push_back(pixelRect(r));
        p.setBrush(color);
        p.drawRects(m_pixelRects.data(), int(m_pixelRects.size()));
    };
    for (int c = 0; c < TimelinePalette::size; ++c) {
        fillPixels(g.fadedRects[std::size_t(c)], m_palette.faded(c));
        fillPixels(g.rects[std::size_t(c)], m_palette.color(c));
    }
    fillPixels(g.instants, QColor(0x47, 0x55, 0x69, 170));
    fillPixels(g.groupSummaries, m_theme.groupSummary);
    for (const auto& area : g.counters) {
        p.setPen(Qt::NoPen);
        fillPixels(area.fill, QColor(0x3b, 0x82, 0xf6, 90)); // already whole pixels
        p.setPen(QPen(QColor(0x25, 0x63, 0xeb), 1));
        p.setBrush(Qt::NoBrush);
        if (area.polygon.size() > 2)
            p.drawPolyline(area.polygon.constData() + 1, int(area.polygon.size()) - 2);
        // On a backing of the lane's colour, so the label stays readable over a lane drawn to full scale.
        const QRectF labelRect = m_metrics.boundingRect(area.rowRect.adjusted(4, 1, -4, 0),
                                                        Qt::AlignLeft | Qt::AlignTop, area.label);
        QColor backing = m_theme.laneBackground;
        backing.setAlpha(210);
        p.fillRect(labelRect.adjusted(-2, 0, 2, 0), backing);
        p.setPen(m_theme.mutedText);
        p.drawText(labelRect, Qt::AlignLeft | Qt::AlignTop, area.label);
    }
    p.setBrush(Qt::NoBrush);
}

void TimelineRenderer::paintLabels(QPainter& p, const TimelineFrame& frame) {
    const TimelineGeometry& g = geometry(frame);
    const double lanesRight = headerWidth + frame.axis.width;
    const double ellipsis = m_metrics.horizontalAdvance(QChar(0x2026));
    const double textHeight = m_metrics.height();
    // Shaping text is the dearest part of a frame, so each (name, width rounded down to 8 px) is laid out
    // once as a QStaticText and replayed; the cache is dropped when it grows past a bound.
    if (m_labelCache.size() > 50000) m_labelCache.clear();
    for (const TimelineGeometry::Label& label : g.labels) {
        // Keep labels of slices that start off screen readable: start the text at the visible left edge.
        const double left = std::max(label.rect.left(), headerWidth) + 3;
        const double right = std::min(label.rect.right(), lanesRight) - 2;
        const double avail = right - left;
        if (avail < ellipsis + 8) continue;
        float& width = m_nameWidth[label.name.value];
        if (width < 0) width = float(m_metrics.horizontalAdvance(nameText(label.name)));
        const bool fits = width <= avail;
        const int bucket = fits ? 0xffff : std::min(0xfffe, int(avail / 8));
        const quint64 key = (quint64(label.name.value) << 16) | quint64(bucket);
        auto it = m_labelCache.find(key);
        if (it == m_labelCache.end()) {
            const QString& text = nameText(label.name);
            QStaticText st(fits ? text : m_metrics.elidedText(text, Qt::ElideRight, bucket * 8.0));
            st.setTextFormat(Qt::PlainText);
            st.prepare(QTransform(), m_font);
            it = m_labelCache.insert(key, st);
        }
        const bool faded = frame.searchNames && !(*frame.searchNames)[label.name.value];
        p.setPen(faded ? m_theme.mutedText : m_palette.text(label.color));
        p.drawStaticText(QPointF(left, label.rect.top() + (label.rect.height() - textHeight) / 2), *it);
    }
}

QRectF TimelineRenderer::sliceRect(const TimelineFrame& frame, EventRef ref) const {
    const int ri = m_layout->rowOf(ref);
    if (ri < 0) return {};
    const LaneRow& row = m_layout->rows()[std::size_t(ri)];
    const Track& t = store().track(ref.track);
    const double x0 = headerWidth + frame.axis.xOf(t.starts[ref.index.value]);
    const double x1 = headerWidth + frame.axis.xOf(t.endOf(ref.index.value));
    return QRectF(x0, viewY(frame, row.y) + 1, std::max(1.0, x1 - x0), row.height - 2);
}

void TimelineRenderer::paintOverlays(QPainter& p, const TimelineFrame& frame) {
    const QRectF lanes = lanesRect(frame);
    auto band = [&](const TimeRange& r) {
        const double x0 = headerWidth + frame.axis.xOf(std::min(r.from, r.to));
        const double x1 = headerWidth + frame.axis.xOf(std::max(r.from, r.to));
        return QRectF(x0, lanes.top(), std::max(1.0, x1 - x0), lanes.height());
    };
    if (frame.area) {
        const auto& rows = m_layout->rows();
        if (frame.area->firstRow >= 0 && frame.area->lastRow < int(rows.size())) {
            const LaneRow& a = rows[std::size_t(frame.area->firstRow)];
            const LaneRow& b = rows[std::size_t(frame.area->lastRow)];
            QRectF r = band(frame.area->range);
            r.setTop(viewY(frame, a.y));
            r.setBottom(viewY(frame, b.y + b.height));
            p.fillRect(r, QColor(0x3b, 0x82, 0xf6, 40));
            p.setPen(QPen(QColor(0x25, 0x63, 0xeb), 1, Qt::DashLine));
            p.drawRect(r);
        }
    }
    for (const auto* r : {&frame.measure, &frame.zoomDrag}) {
        if (!*r) continue;
        const QRectF b = band(**r);
        p.fillRect(b, r == &frame.measure ? QColor(0x10, 0xb9, 0x81, 40) : QColor(0x63, 0x66, 0xf1, 45));
        p.setPen(QPen(r == &frame.measure ? QColor(0x05, 0x96, 0x69) : QColor(0x4f, 0x46, 0xe5), 1));
        p.drawLine(b.topLeft(), b.bottomLeft());
        p.drawLine(b.topRight(), b.bottomRight());
        const QString text = QString::fromStdString(formatDuration((*r)->span()));
        const double tw = m_metrics.horizontalAdvance(text) + 10;
        const QRectF tag(b.center().x() - tw / 2, lanes.top() + 4, tw, 16);
        p.fillRect(tag, QColor(0x11, 0x18, 0x27, 220));
        p.setPen(Qt::white);
        p.drawText(tag, Qt::AlignCenter, text);
    }
    if (frame.currentMatch.isValid()) {
        p.setPen(QPen(QColor(0xf5, 0x9e, 0x0b), 2));
        p.drawRect(sliceRect(frame, frame.currentMatch).adjusted(-1, -1, 1, 1));
    }
    if (frame.hovered.isValid() && frame.hovered != frame.selected) {
        p.setPen(QPen(QColor(0x11, 0x18, 0x27, 120), 1));
        p.drawRect(sliceRect(frame, frame.hovered));
    }
    if (frame.selected.isValid()) {
        p.setPen(QPen(m_theme.selection, 2));
        p.drawRect(sliceRect(frame, frame.selected).adjusted(-1, -1, 1, 1));
    }
    if (frame.cursor) {
        const double x = std::round(headerWidth + frame.axis.xOf(*frame.cursor)) + 0.5;
        p.setPen(QPen(QColor(0x11, 0x18, 0x27, 110), 1));
        p.drawLine(QPointF(x, lanes.top()), QPointF(x, lanes.bottom()));
    }
}

void TimelineRenderer::paintRuler(QPainter& p, const TimelineFrame& frame) {
    const QRectF ruler(headerWidth, 0, frame.axis.width, frame.rulerHeight);
    p.fillRect(QRectF(0, 0, frame.size.width(), frame.rulerHeight), m_theme.headerBackground);
    // ProfilerStep ranges along the top.
    const auto& steps = trace().steps;
    p.save();
    p.setClipRect(ruler);
    auto firstStep = std::lower_bound(steps.begin(), steps.end(), frame.axis.start,
                                      [](const StepRange& s, TimeNs t) { return s.end < t; });
    int drawn = 0;
    for (auto it = firstStep; it != steps.end() && it->start <= frame.axis.end && drawn < 2000;
         ++it, ++drawn) {
        const double x0 = headerWidth + frame.axis.xOf(it->start);
        const double x1 = headerWidth + frame.axis.xOf(it->end);
        const QRectF r(x0, 1, std::max(1.0, x1 - x0 - 1), frame.stepBandHeight - 2);
        const bool odd = (it - steps.begin()) % 2;
        p.fillRect(r, odd ? QColor(0xc7, 0xd2, 0xfe) : QColor(0xa5, 0xb4, 0xfc));
        if (r.width() > 40) {
            p.setPen(QColor(0x31, 0x2e, 0x81));
            const QString label = m_metrics.elidedText(nameText(it->name), Qt::ElideRight, r.width() - 6);
            p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignLeft | Qt::AlignVCenter, label);
        }
    }
    // Ticks and labels, relative to the trace start.
    const TimeNs step = niceTickStep(frame.axis, 90);
    const TimeNs origin = store().minTime();
    for (const RulerTick& tick : rulerTicks(frame.axis, origin, niceTickStep(frame.axis, 18))) {
        const double x = std::round(headerWidth + frame.axis.xOf(tick.time)) + 0.5;
        p.setPen(QPen(m_theme.mutedText, 1));
        p.drawLine(QPointF(x, frame.rulerHeight - 4), QPointF(x, frame.rulerHeight));
    }
    const std::vector<RulerTick> labelled = rulerTicks(frame.axis, origin, step);
    const std::vector<std::string> labels = rulerLabels(labelled, origin, step);
    for (std::size_t i = 0; i < labelled.size(); ++i) {
        const double x = std::round(headerWidth + frame.axis.xOf(labelled[i].time)) + 0.5;
        p.setPen(QPen(m_theme.mutedText, 1));
        p.drawLine(QPointF(x, frame.rulerHeight - 10), QPointF(x, frame.rulerHeight));
        p.setPen(m_theme.text);
        p.drawText(QRectF(x + 3, frame.stepBandHeight, 120,
                          frame.rulerHeight - frame.stepBandHeight - (frame.compactRuler ? 2 : 6)),
                   Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(labels[i]));
    }
    if (frame.cursor) {
        const double x = headerWidth + frame.axis.xOf(*frame.cursor);
        const QString text = QString::fromStdString(
            formatTimeOffset(*frame.cursor - origin, TimeNs(std::max(1.0, frame.axis.nsPerPixel()))));
        const double w = m_metrics.horizontalAdvance(text) + 10;
        const QRectF tag(std::clamp(x - w / 2, headerWidth, headerWidth + frame.axis.width - w),
                         frame.stepBandHeight + 1, w, 15);
        p.fillRect(tag, QColor(0x11, 0x18, 0x27));
        p.setPen(Qt::white);
        p.drawText(tag, Qt::AlignCenter, text);
    }
    p.restore();
    p.setPen(QPen(m_theme.border, 1));
    p.drawLine(QPointF(0, frame.rulerHeight - 0.5), QPointF(frame.size.width(), frame.rulerHeight - 0.5));
    // The top-left corner: the visible span.
    p.setPen(m_theme.text);
    p.setFont(m_boldFont);
    // (The upper half: the timeline widget puts its track filter in the lower; a compact ruler has the span
    // alone.)
    p.drawText(
        QRectF(8, 0, headerWidth - 16, frame.compactRuler ? frame.rulerHeight : frame.rulerHeight / 2),
        Qt::AlignLeft | Qt::AlignVCenter,
        !frame.cornerTitle.isEmpty()
            ? m_metrics.elidedText(frame.cornerTitle, Qt::ElideMiddle, int(headerWidth - 16))
            : QStringLiteral("View: %1").arg(QString::fromStdString(formatDuration(frame.axis.span()))));
    p.setFont(m_font);
}

void TimelineRenderer::paintHeaders(QPainter& p, const TimelineFrame& frame) {
    const QRectF column(0, frame.rulerHeight, headerWidth, frame.size.height() - frame.rulerHeight);
    p.save();
    p.setClipRect(column);
    p.fillRect(column, m_theme.headerBackground);
    const auto [firstRow, lastRow] = m_layout->rowsBetween(frame.scrollY, frame.scrollY + column.height());
    const auto& rows = m_layout->rows();
    for (std::size_t ri = firstRow; ri < lastRow; ++ri) {
        const LaneRow& row = rows[ri];
        const double top = viewY(frame, row.y);
        if (row.kind == LaneRow::Kind::GroupHeader) {
            const LaneGroup& group = m_layout->groups()[row.group];
            p.fillRect(QRectF(0, top, headerWidth, row.height), m_theme.groupBackground);
            // The fold triangle.
            QPolygonF tri;
            const double cx = 11, cy = top + row.height / 2;
            if (group.collapsed)
                tri << QPointF(cx - 3, cy - 5) << QPointF(cx + 3, cy) << QPointF(cx - 3, cy + 5);
            else
                tri << QPointF(cx - 5, cy - 3) << QPointF(cx + 5, cy - 3) << QPointF(cx, cy + 3);
            p.setPen(Qt::NoPen);
            p.setBrush(m_theme.mutedText);
            p.setRenderHint(QPainter::Antialiasing, true);
            p.drawPolygon(tri);
            p.setRenderHint(QPainter::Antialiasing, false);
            p.setBrush(Qt::NoBrush);
            p.setPen(m_theme.text);
            p.setFont(m_boldFont);
            const QString title =
                QString::fromStdString(group.title) +
                (group.collapsed ? QStringLiteral("  (%1)").arg(group.tracks.size()) : QString());
            p.drawText(QRectF(22, top, headerWidth - 28, row.height), Qt::AlignLeft | Qt::AlignVCenter,
                       QFontMetricsF(m_boldFont).elidedText(title, Qt::ElideRight, headerWidth - 28));
            p.setFont(m_font);
            continue;
        }
        if (isFirstOverflowLane(row)) {
            // Below here: slices that overlap their enclosing one, and what they enclose (model/nesting.h).
            p.setPen(QPen(m_theme.mutedText, 1, Qt::DashLine));
            p.drawLine(QPointF(18, top + 0.5), QPointF(headerWidth, top + 0.5));
            p.drawText(QRectF(18, top, headerWidth - 24, std::min(row.height, 18.0)),
                       Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("overlapping ↓"));
            continue;
        }
        // A track's title on its first lane only (a compact thread's parts are one track).
        if (ri > 0 && rows[ri - 1].kind != LaneRow::Kind::GroupHeader &&
            m_layout->sourceTrackOf(rows[ri - 1].track) == m_layout->sourceTrackOf(row.track))
            continue;
        const TrackId source = m_layout->sourceTrackOf(row.track);
        // A thread that folds (its Python frames, or its deep lanes under a stacked view's cap): its title,
        // and on the right, muted, what folds away. The title is the switch.
        QString folds;
        if (const HostView* view = m_layout->hostViewOf(source))
            folds = QStringLiteral("%1 Python ×%2")
                        .arg(m_layout->pythonExpanded(source) ? QStringLiteral("▾") : QStringLiteral("▸"))
                        .arg(view->pythonLanes);
        const QString lanes = lanesFoldText(source);
        if (!lanes.isEmpty()) folds += (folds.isEmpty() ? QString() : QStringLiteral("  ")) + lanes;
        if (!folds.isEmpty()) {
            const double foldsWidth = m_metrics.horizontalAdvance(folds) + 6;
            const double h = std::min(row.height, 18.0);
            p.setPen(m_theme.mutedText);
            p.drawText(QRectF(headerWidth - 6 - foldsWidth, top, foldsWidth, h),
                       Qt::AlignRight | Qt::AlignVCenter, folds);
            p.setPen(m_theme.text);
            const QString title = QString::fromStdString(m_layout->trackTitle(source));
            p.drawText(QRectF(18, top, headerWidth - 30 - foldsWidth, h), Qt::AlignLeft | Qt::AlignVCenter,
                       m_metrics.elidedText(title, Qt::ElideMiddle, int(headerWidth - 30 - foldsWidth)));
            continue;
        }
        p.setPen(m_theme.text);
        // The full name ("GPU 0 · NVIDIA H100 · stream 7") when it fits, else the short one under the group
        // header.
        QString title = QString::fromStdString(m_layout->trackTitle(row.track));
        if (m_metrics.horizontalAdvance(title) > headerWidth - 24)
            title = QString::fromStdString(m_layout->laneTitle(row.track));
        p.drawText(QRectF(18, top, headerWidth - 24, std::min(row.height, 18.0)),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   m_metrics.elidedText(title, Qt::ElideMiddle, headerWidth - 24));
    }
    p.restore();
    p.setPen(QPen(m_theme.border, 1));
    p.drawLine(QPointF(headerWidth - 0.5, 0), QPointF(headerWidth - 0.5, frame.size.height()));
}

bool TimelineRenderer::isFirstOverflowLane(const LaneRow& row) const {
    if (row.kind != LaneRow::Kind::Slices || m_layout->derived(row.track)) return false;
    const std::uint32_t lane = m_layout->track(row.track).overflowLane;
    return lane != 0 && row.depth == lane;
}

int TimelineRenderer::rowAtY(const TimelineFrame& frame, double y) const {
    if (y < frame.rulerHeight) return -1;
    return m_layout->rowAt(y - frame.rulerHeight + frame.scrollY);
}

int TimelineRenderer::rowNearY(const TimelineFrame& frame, double y) const {
    return m_layout->rowNear(std::max(y, double(frame.rulerHeight)) - frame.rulerHeight + frame.scrollY);
}

EventRef TimelineRenderer::eventAt(const TimelineFrame& frame, QPointF pos) const {
    if (pos.x() < headerWidth) return {};
    const int ri = rowAtY(frame, pos.y());
    if (ri < 0) return {};
    const LaneRow& row = m_layout->rows()[std::size_t(ri)];
    if (row.kind != LaneRow::Kind::Slices) return {};
    const Track& t = m_layout->track(row.track);
    const double x = pos.x() - headerWidth;
    const TimeNs time = frame.axis.timeAt(x);
    const TimeNs slack = TimeNs(std::ceil(frame.axis.nsPerPixel() * 3));
    const auto hit = sliceAt(t, row.depth, time, slack);
    if (!hit) return {};
    // The store's event, also where a compact thread view drew it.
    return m_layout->sourceOf({row.track, EventIndex(*hit)});
}

int TimelineRenderer::groupHeaderAt(const TimelineFrame& frame, QPointF pos) const {
    const int ri = rowAtY(frame, pos.y());
    if (ri < 0) return -1;
    const LaneRow& row = m_layout->rows()[std::size_t(ri)];
    return row.kind == LaneRow::Kind::GroupHeader ? int(row.group) : -1;
}

} // namespace kinetoscope
