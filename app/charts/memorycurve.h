#pragma once

#include "analysis/ops/modules.h"
#include "model/tracestore.h"

#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

#include <array>
#include <optional>
#include <vector>

namespace kinetoscope {

// Allocated and reserved memory over time per device (the store's "Memory ..." counter tracks), peaks marked.
// Dragging across it selects a time range (rangeSelected).
class MemoryCurve : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryCurve(const TraceStore& store, QWidget* parent = nullptr);
    void setRange(TimeNs from, TimeNs to);
    QSize sizeHint() const override { return {600, 170}; }
    std::size_t seriesCount() const { return m_series.size(); }
    // Time at an x position (for tests that drag across it).
    TimeNs timeAt(double x) const;

  signals:
    void rangeSelected(qint64 from, qint64 to);

  protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;

  private:
    QRectF plotRect() const;
    const TraceStore& m_store;
    std::vector<TrackId> m_series;
    TimeNs m_from = 0, m_to = 1;
    double m_max = 1;
    double m_min = 0;
    std::optional<double> m_dragFrom;
    double m_dragTo = 0;
};

} // namespace kinetoscope
