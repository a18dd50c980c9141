#pragma once

#include "analysis/modules.h"
#include "model/tracestore.h"

#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

#include <array>
#include <optional>
#include <vector>

namespace kinetoscope {

// Horizontal bars with labels (top-N operators, kernel categories). Painted directly: a handful of bars.
class BarChart : public QWidget {
    Q_OBJECT
  public:
    struct Bar {
        QString label;
        double value = 0;
        QString text; // shown at the bar's end
        QColor color;
    };
    explicit BarChart(QWidget* parent = nullptr);
    void setBars(QVector<Bar> bars);
    const QVector<Bar>& bars() const { return m_bars; }
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent*) override;

  private:
    QVector<Bar> m_bars;
};

// One stacked column per step (the step-time breakdown).
class StackedColumnChart : public QWidget {
    Q_OBJECT
  public:
    explicit StackedColumnChart(QWidget* parent = nullptr);
    void setData(QStringList columns, std::vector<std::vector<double>> values, QStringList series,
                 QVector<QColor> colors);
    QSize sizeHint() const override { return {600, 190}; }

  protected:
    void paintEvent(QPaintEvent*) override;

  private:
    QStringList m_columns;
    std::vector<std::vector<double>> m_values; // [column][series]
    QStringList m_series;
    QVector<QColor> m_colors;
};

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

// The module tree as an icicle chart: each row a depth, widths by host total time. Click selects a module.
class ModuleFlame : public QWidget {
    Q_OBJECT
  public:
    explicit ModuleFlame(QWidget* parent = nullptr);
    void setTree(const ModuleTree* tree);
    int nodeAt(QPointF pos) const;
    QRectF rectOf(int node) const;
    QSize sizeHint() const override { return {600, 160}; }

  signals:
    void nodeClicked(int node);

  protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void resizeEvent(QResizeEvent*) override;

  private:
    void layout();
    const ModuleTree* m_tree = nullptr;
    std::vector<QRectF> m_rects; // by node
};

} // namespace kinetoscope
