#pragma once

#include <QStringList>
#include <QWidget>

#include <cstddef>
#include <optional>
#include <vector>

namespace kinetoscope {

// Which ranks each row of the heat map holds: one row per rank while they fit (at least minRowPx each), else
// folded, `perRow` consecutive ranks a row. Geometry only, apart from painting.
struct HeatMapRows {
    std::size_t ranks = 0;
    std::size_t perRow = 1;
    int rowCount = 0;
    double rowPx = 0;
    std::size_t firstRank(int row) const { return std::size_t(row) * perRow; }
    std::size_t endRank(int row) const { return std::min(ranks, firstRank(row) + perRow); }
    int rowOf(std::size_t rank) const { return int(rank / perRow); }
};
HeatMapRows foldRanks(std::size_t ranks, double heightPx, double minRowPx = 3, double maxRowPx = 22);

// A job's ranks × steps, each cell coloured by how far its value is above the step's median rank's (a
// straggler is dark). At thousands of ranks the rows fold, each showing the largest of its ranks, so one slow
// rank in 10,000 still shows.
class RankHeatMap : public QWidget {
    Q_OBJECT
  public:
    explicit RankHeatMap(QWidget* parent = nullptr);
    // values[rank][step] in ns; a negative value: the rank has no such step.
    void setData(QStringList rankLabels, QStringList steps, std::vector<std::vector<double>> values,
                 QString metric);

    struct Cell {
        std::size_t rank = 0; // the largest of the row's ranks
        std::size_t step = 0;
        double value = 0;
        double median = 0; // the step's median over all ranks
        std::size_t firstRank = 0, endRank = 0;
    };
    std::optional<Cell> cellAt(QPoint pos) const;
    const HeatMapRows& rows() const { return m_rows; }
    QRect cellRect(int row, std::size_t step) const;
    QSize sizeHint() const override { return {600, 260}; }
    QSize minimumSizeHint() const override { return {200, 120}; }

  signals:
    void cellActivated(std::size_t rank, std::size_t step);

  protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    bool event(QEvent*) override;

  private:
    void fold();
    QRect plotRect() const;

    QStringList m_rankLabels, m_steps;
    std::vector<std::vector<double>> m_values; // [rank][step]
    std::vector<double> m_medians;             // per step
    QString m_metric;
    HeatMapRows m_rows;
    std::vector<std::vector<std::size_t>> m_rowMax; // [row][step] -> the rank with the largest value
};

} // namespace kinetoscope
