#pragma once

#include "analysis/jobs/job.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTableWidget;

namespace kinetoscope {

class RankHeatMap;
class StackedColumnChart;

// A job's figures at any size: what could not be read and what looks wrong, the rank × step heat map (folding
// rows past a few hundred ranks), the stragglers as a sortable table with who waits for them, and, for small
// jobs (up to 64 ranks), the chart of each rank's step and the rank table. Each figure says what it is.
class JobFigures : public QWidget {
    Q_OBJECT
  public:
    JobFigures(const JobReport& job, QWidget* parent = nullptr);

    static constexpr std::size_t smallJob = 64; // ranks up to which the chart and rank table are shown

    RankHeatMap* heatMap() const { return m_heatMap; }
    QComboBox* heatMetric() const { return m_metric; }
    QTableWidget* stragglerTable() const { return m_stragglers; }
    QTableWidget* rankTable() const { return m_rankTable; }
    QLabel* banner() const { return m_banner; }
    QLabel* stragglerLabel() const { return m_stragglerLabel; }
    // Says something about the job under the banner (a trace that is not where the rank file says).
    void say(const QString& message);

  signals:
    // A rank in a step to look at beside the step's median rank (a straggler row or a heat-map cell).
    void rankActivated(std::size_t rank, std::size_t step);

  private:
    void showMetric(int metric);

    const JobReport& m_job;
    QLabel* m_banner;
    QLabel* m_message;
    QComboBox* m_metric;
    RankHeatMap* m_heatMap;
    QLabel* m_stragglerLabel;
    QTableWidget* m_stragglers;
    StackedColumnChart* m_chart = nullptr;
    QTableWidget* m_rankTable = nullptr;
};

// Every rank's row (jobRankColumns: the report's per_rank), sortable and filterable by rank or file: a
// model, so 10,000 ranks cost no widget per cell.
QWidget* makePerRankTable(const JobReport& job, QWidget* parent);

// The job's steps across ranks (min / median / p90 / max) and its collectives' spread, as tables.
QTableWidget* makeStepDistributionTable(const JobReport& job, QWidget* parent);
QTableWidget* makeCollectiveSpreadTable(const JobReport& job, QWidget* parent);

} // namespace kinetoscope
