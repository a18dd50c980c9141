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

} // namespace kinetoscope
