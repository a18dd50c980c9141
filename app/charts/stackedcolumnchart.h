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

} // namespace kinetoscope
