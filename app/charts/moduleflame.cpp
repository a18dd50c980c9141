#include "charts/moduleflame.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <functional>

namespace kinetoscope {

ModuleFlame::ModuleFlame(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(100);
}

void ModuleFlame::setTree(const ModuleTree* tree) {
    m_tree = tree;
    layout();
    update();
}

void ModuleFlame::resizeEvent(QResizeEvent*) {
    layout();
}

void ModuleFlame::layout() {
    m_rects.clear();
    if (!m_tree) return;
    m_rects.assign(m_tree->nodes.size(), QRectF());
    const double rowHeight = 18;
    std::function<void(const std::vector<int>&, double, double, int, TimeNs)> place =
        [&](const std::vector<int>& nodes, double x, double w, int depth, TimeNs total) {
            double cursor = x;
            for (int n : nodes) {
                const ModuleNode& node = m_tree->nodes[std::size_t(n)];
                const double nw = total > 0 ? w * double(node.hostTotal) / double(total) : 0;
                m_rects[std::size_t(n)] = QRectF(cursor, depth * rowHeight, nw, rowHeight - 1);
                TimeNs childTotal = node.hostTotal;
                place(node.children, cursor, nw, depth + 1, childTotal);
                cursor += nw;
            }
        };
    TimeNs rootTotal = 0;
    for (int r : m_tree->roots)
        rootTotal += m_tree->nodes[std::size_t(r)].hostTotal;
    place(m_tree->roots, 0, width(), 0, rootTotal);
}

int ModuleFlame::nodeAt(QPointF pos) const {
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        if (m_rects[i].contains(pos)) return int(i);
    }
    return -1;
}

QRectF ModuleFlame::rectOf(int node) const {
    return node >= 0 && std::size_t(node) < m_rects.size() ? m_rects[std::size_t(node)] : QRectF();
}

void ModuleFlame::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_tree) return;
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        const QRectF& r = m_rects[i];
        if (r.width() < 1) continue;
        const int hue = int((std::hash<std::string>{}(m_tree->nodes[i].name) % 60) + 10);
        p.fillRect(r, QColor::fromHsl(hue, 170, 165));
        if (r.width() > 30) {
            p.setPen(QColor(0x1f, 0x29, 0x37));
            p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       p.fontMetrics().elidedText(QString::fromStdString(m_tree->nodes[i].name),
                                                  Qt::ElideRight, int(r.width()) - 5));
        }
    }
}

void ModuleFlame::mousePressEvent(QMouseEvent* e) {
    const int n = nodeAt(e->position());
    if (n >= 0) emit nodeClicked(n);
}

} // namespace kinetoscope
