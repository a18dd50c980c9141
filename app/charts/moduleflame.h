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
