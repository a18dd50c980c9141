#pragma once

// The roofline chart: each op + shapes + dtypes a point at (FLOP/byte, achieved TFLOP/s) on log-log axes,
// sized by its device time, under the GPU's roofs (the bandwidth diagonal and a flat peak per compute type
// the ops use). Geometry (rooflineGeometry) apart from painting, so tests check where things land.

#include "analysis/roofline/roofline.h"

#include <QColor>
#include <QLineF>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QWidget>

#include <vector>

namespace kinetoscope {

struct RooflineGeometry {
    QRectF plot;               // the axes' inner rectangle
    double xMin = 0, xMax = 0; // log10 of FLOP/byte at the plot's left and right
    double yMin = 0, yMax = 0; // log10 of TFLOP/s at its bottom and top
    struct Point {
        int row = -1; // in the rows given
        QPointF center;
        double radius = 0;
    };
    std::vector<Point> points; // largest first (painted first, so small ones stay visible)
    struct Roof {
        QString label;
        QLineF line;
        bool memory = false;
    };
    std::vector<Roof> roofs;
    QPointF map(double intensity, double tflops) const;
};

// Rows without GPU time or FLOPs are left out (no point on log axes); with no peaks there are no roofs.
RooflineGeometry rooflineGeometry(const std::vector<PerfModelRow>& rows, const GpuPeaks* peaks, QSizeF size);
// The row of the point under `pos` (the smallest one when several overlap), or -1.
int rooflinePointAt(const RooflineGeometry& g, QPointF pos);
QColor rooflineColor(OpFamily family);

class RooflineChart : public QWidget {
    Q_OBJECT
  public:
    explicit RooflineChart(QWidget* parent = nullptr);
    void setData(std::vector<PerfModelRow> rows, const GpuPeaks* peaks);
    void setSelectedRow(int row);
    int selectedRow() const { return m_selected; }
    const RooflineGeometry& geometryNow() const { return m_geometry; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  signals:
    void rowClicked(int row);

  protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override; // tooltips

  private:
    std::vector<PerfModelRow> m_rows;
    const GpuPeaks* m_peaks = nullptr;
    RooflineGeometry m_geometry;
    int m_selected = -1;
};

} // namespace kinetoscope
