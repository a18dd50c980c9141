#include "charts/rankheatmap.h"

#include "model/textformat.h"
#include "model/timeconv.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace kinetoscope {

namespace {
constexpr int gutterPx = 74; // rank labels
constexpr int headerPx = 18; // step names
constexpr int legendPx = 20;

// Light at or under the median, through amber at +10%, to dark red at +50% and more.
QColor colourOf(double value, double median) {
    if (value < 0) return QColor(0xff, 0xff, 0xff);
    if (median <= 0) return value > 0 ? QColor(0xb9, 0x1c, 0x1c) : QColor(0xe2, 0xe8, 0xf0);
    const double over = value / median - 1;
    if (over <= 0.05) return QColor(0xe2, 0xe8, 0xf0);
    const auto mix = [](QColor a, QColor b, double t) {
        t = std::clamp(t, 0.0, 1.0);
        return QColor(int(a.red() + (b.red() - a.red()) * t), int(a.green() + (b.green() - a.green()) * t),
                      int(a.blue() + (b.blue() - a.blue()) * t));
    };
    if (over <= 0.10) return mix(QColor(0xe2, 0xe8, 0xf0), QColor(0xfc, 0xd3, 0x4d), (over - 0.05) / 0.05);
    return mix(QColor(0xfc, 0xd3, 0x4d), QColor(0xb9, 0x1c, 0x1c), (over - 0.10) / 0.40);
}
} // namespace

HeatMapRows foldRanks(std::size_t ranks, double heightPx, double minRowPx, double maxRowPx) {
    HeatMapRows r;
    r.ranks = ranks;
    if (ranks == 0 || heightPx <= 0) return r;
    const std::size_t fitting = std::max<std::size_t>(1, std::size_t(heightPx / minRowPx));
    r.perRow = ranks <= fitting ? 1 : (ranks + fitting - 1) / fitting;
    r.rowCount = int((ranks + r.perRow - 1) / r.perRow);
    r.rowPx = std::min(maxRowPx, heightPx / r.rowCount);
    return r;
}

RankHeatMap::RankHeatMap(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void RankHeatMap::setData(QStringList rankLabels, QStringList steps, std::vector<std::vector<double>> values,
                          QString metric) {
    m_rankLabels = std::move(rankLabels);
    m_steps = std::move(steps);
    m_values = std::move(values);
    m_metric = std::move(metric);
    m_medians.assign(std::size_t(m_steps.size()), 0);
    for (std::size_t s = 0; s < m_medians.size(); ++s) {
        std::vector<double> column;
        for (const auto& row : m_values)
            if (s < row.size() && row[s] >= 0) column.push_back(row[s]);
        if (column.empty()) continue;
        // The median rank's value (nearest rank), as the job report defines it.
        const std::size_t k = (column.size() + 1) / 2 - 1;
        std::nth_element(column.begin(), column.begin() + std::ptrdiff_t(k), column.end());
        m_medians[s] = column[k];
    }
    // A few ranks take the rows they need, not the space a thousand would.
    const std::size_t ranks = m_values.size();
    setMaximumHeight(ranks <= 10 ? headerPx + legendPx + int(ranks) * 22 + 4 : QWIDGETSIZE_MAX);
    fold();
    update();
}

QRect RankHeatMap::plotRect() const {
    return QRect(gutterPx, headerPx, std::max(1, width() - gutterPx - 4),
                 std::max(1, height() - headerPx - legendPx));
}

void RankHeatMap::fold() {
    m_rows = foldRanks(m_values.size(), plotRect().height());
    m_rowMax.assign(std::size_t(m_rows.rowCount), std::vector<std::size_t>(std::size_t(m_steps.size()), 0));
    for (int row = 0; row < m_rows.rowCount; ++row)
        for (std::size_t s = 0; s < std::size_t(m_steps.size()); ++s) {
            std::size_t best = m_rows.firstRank(row);
            for (std::size_t r = m_rows.firstRank(row); r < m_rows.endRank(row); ++r)
                if (s < m_values[r].size() && m_values[r][s] > m_values[best][s]) best = r;
            m_rowMax[std::size_t(row)][s] = best;
        }
}

void RankHeatMap::resizeEvent(QResizeEvent*) {
    fold();
}

QRect RankHeatMap::cellRect(int row, std::size_t step) const {
    const QRect plot = plotRect();
    const double columnPx = double(plot.width()) / std::max<qsizetype>(1, m_steps.size());
    const int x0 = plot.left() + int(std::floor(double(step) * columnPx));
    const int x1 = plot.left() + int(std::floor(double(step + 1) * columnPx));
    const int y0 = plot.top() + int(std::floor(row * m_rows.rowPx));
    const int y1 = plot.top() + int(std::floor((row + 1) * m_rows.rowPx));
    return QRect(x0, y0, std::max(1, x1 - x0 - 1), std::max(1, y1 - y0 - (m_rows.rowPx >= 6 ? 1 : 0)));
}

std::optional<RankHeatMap::Cell> RankHeatMap::cellAt(QPoint pos) const {
    const QRect plot = plotRect();
    if (m_steps.isEmpty() || m_rows.rowCount == 0 || !plot.contains(pos)) return std::nullopt;
    const int row = int((pos.y() - plot.top()) / m_rows.rowPx);
    const auto step = std::size_t((pos.x() - plot.left()) * m_steps.size() / plot.width());
    if (row >= m_rows.rowCount || step >= std::size_t(m_steps.size())) return std::nullopt;
    Cell c;
    c.rank = m_rowMax[std::size_t(row)][step];
    c.step = step;
    c.value = step < m_values[c.rank].size() ? m_values[c.rank][step] : -1;
    c.median = m_medians[step];
    c.firstRank = m_rows.firstRank(row);
    c.endRank = m_rows.endRank(row);
    return c;
}

void RankHeatMap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect plot = plotRect();
    p.setPen(palette().text().color());
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
    p.setFont(small);
    const QFontMetrics fm(small);
    if (m_values.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No ranks"));
        return;
    }
    // Step names, elided to their column.
    for (std::size_t s = 0; s < std::size_t(m_steps.size()); ++s) {
        const QRect cell = cellRect(0, s);
        p.drawText(QRect(cell.left(), 0, cell.width(), headerPx), Qt::AlignCenter,
                   fm.elidedText(m_steps[qsizetype(s)], Qt::ElideLeft, cell.width()));
    }
    for (int row = 0; row < m_rows.rowCount; ++row)
        for (std::size_t s = 0; s < std::size_t(m_steps.size()); ++s) {
            const std::size_t r = m_rowMax[std::size_t(row)][s];
            p.fillRect(cellRect(row, s),
                       colourOf(s < m_values[r].size() ? m_values[r][s] : -1, m_medians[s]));
        }
    // Rank labels, as many as fit without overlapping.
    const int every = std::max(1, int(std::ceil((fm.height() + 2) / std::max(0.1, m_rows.rowPx))));
    for (int row = 0; row < m_rows.rowCount; row += every) {
        const std::size_t first = m_rows.firstRank(row);
        const QString label = m_rows.perRow == 1 ? m_rankLabels.value(qsizetype(first))
                                                 : tr("%1 …").arg(m_rankLabels.value(qsizetype(first)));
        const QRect cell = cellRect(row, 0);
        p.drawText(QRect(0, cell.top(), gutterPx - 6, fm.height()), Qt::AlignRight | Qt::AlignTop, label);
    }
    const QString legend =
        tr("%1 per step: light = within 5% of the step's median rank, amber = +10%, dark red = +50% or more")
            .arg(m_metric) +
        (m_rows.perRow > 1 ? tr(" · each row folds %1 ranks and shows the largest").arg(m_rows.perRow)
                           : QString());
    p.drawText(QRect(gutterPx, plot.bottom() + 3, plot.width(), legendPx), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(legend, Qt::ElideRight, plot.width()));
}

void RankHeatMap::mouseMoveEvent(QMouseEvent* e) {
    setCursor(cellAt(e->position().toPoint()) ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

void RankHeatMap::mouseDoubleClickEvent(QMouseEvent* e) {
    const auto c = cellAt(e->position().toPoint());
    if (c && c->value >= 0) emit cellActivated(c->rank, c->step);
}

bool RankHeatMap::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const auto c = cellAt(help->pos());
        if (c && c->value < 0) {
            QToolTip::showText(
                help->globalPos(),
                tr("%1 has no %2")
                    .arg(m_rankLabels.value(qsizetype(c->rank)), m_steps.value(qsizetype(c->step))),
                this);
            return true;
        }
        if (!c) {
            QToolTip::hideText();
            return true;
        }
        QString text = QStringLiteral("<b>%1</b> · %2<br>%3: %4 (step median %5")
                           .arg(m_rankLabels.value(qsizetype(c->rank)).toHtmlEscaped(),
                                m_steps.value(qsizetype(c->step)).toHtmlEscaped(), m_metric,
                                QString::fromStdString(formatDuration(TimeNs(c->value))),
                                QString::fromStdString(formatDuration(TimeNs(c->median))));
        if (c->median > 0)
            text += QStringLiteral(", %1%2%")
                        .arg(c->value >= c->median ? "+" : "")
                        .arg((c->value / c->median - 1) * 100, 0, 'f', 1);
        text += QStringLiteral(")");
        if (c->endRank - c->firstRank > 1)
            text += tr("<br>the largest of %1 … %2 (%3 ranks)")
                        .arg(m_rankLabels.value(qsizetype(c->firstRank)),
                             m_rankLabels.value(qsizetype(c->endRank - 1)))
                        .arg(c->endRank - c->firstRank);
        text += tr("<br>double-click: this rank beside the step's median rank");
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace kinetoscope
