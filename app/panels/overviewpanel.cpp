#include "panels/overviewpanel.h"

#include "query/enclosing.h"
#include "query/kernelshortname.h"

#include "charts/barchart.h"
#include "charts/memorycurve.h"
#include "charts/moduleflame.h"
#include "charts/stackedcolumnchart.h"
#include "panels/detailspanel.h"
#include "panels/panelparts.h"
#include "tables/tablemodels.h"
#include "timeline/timelinepalette.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <functional>

namespace kinetoscope {

using namespace panel;

namespace {
const QColor breakdownColors[] = {
    QColor(0x5f, 0xbf, 0x8f), QColor(0xf0, 0xa0, 0x4b), QColor(0xe5, 0x8f, 0xb7), QColor(0x3a, 0xa6, 0xa6),
    QColor(0xe5, 0x86, 0x6a), QColor(0xf2, 0xc1, 0x4e), QColor(0x6c, 0x9b, 0xd2), QColor(0xb0, 0xb7, 0xc3)};
constexpr std::size_t outliersListed = 10;

QString linkTo(EventRef ref, const QString& text) {
    return QStringLiteral("<a href=\"%1\">%2</a>").arg(DetailsPanel::linkFor(ref), text.toHtmlEscaped());
}

// One outlier list: the count, what it means, and its worst `outliersListed` calls by `badness`, each a link
// to the call on the timeline (its details link on to the GPU event it launched).
template <typename Badness>
QString outlierList(const QString& title, std::vector<EventRef> calls, Badness badness,
                    const std::function<QString(EventRef)>& describe) {
    QString html = QStringLiteral("<p><b>%1</b>: %2").arg(title).arg(calls.size());
    if (calls.empty()) return html + QStringLiteral("</p>");
    std::sort(calls.begin(), calls.end(), [&](EventRef a, EventRef b) { return badness(a) > badness(b); });
    QStringList items;
    for (std::size_t i = 0; i < std::min(outliersListed, calls.size()); ++i)
        items << describe(calls[i]);
    html += QStringLiteral(" — ") + items.join(QStringLiteral(" · "));
    if (calls.size() > outliersListed)
        html += QObject::tr(" · and %1 more").arg(calls.size() - outliersListed);
    return html + QStringLiteral("</p>");
}

// Where the GPUs wait (HTA's analyses, docs/DEFINITIONS.md): time by kind per GPU, idle gaps and the launch
// queue per stream, the launch statistics, and the three outlier lists linked to the timeline.
QString gpuWaitsHtml(const TraceStore& store, const AnalysisResult& r) {
    QString html;
    for (const DeviceTime& t : r.gpuTime) {
        const double span = double(std::max<TimeNs>(1, t.span));
        html +=
            QObject::tr("<p><b>GPU %1</b> over %2 (its first GPU event to its last): idle %3 · compute %4 · "
                        "communication %5 · memory %6 · compute overlapping the others %7</p>")
                .arg(t.device)
                .arg(durationText(t.span), percentText(double(t.idle) / span),
                     percentText(double(t.compute) / span), percentText(double(t.communication) / span),
                     percentText(double(t.memory) / span), percentText(double(t.overlap) / span));
    }
    for (const StreamIdle& g : r.gpuIdle) {
        const double idle = double(std::max<TimeNs>(1, g.idle()));
        html +=
            QObject::tr("<p>GPU %1 stream %2 idle %3 in %4 gaps: waiting for the host %5, for the previous "
                        "kernel %6, other %7")
                .arg(g.device)
                .arg(g.stream)
                .arg(durationText(g.idle()))
                .arg(g.gaps)
                .arg(percentText(double(g.hostWait) / idle), percentText(double(g.kernelWait) / idle),
                     percentText(double(g.other) / idle));
        for (const StreamQueue& q : r.queues)
            if (q.device == g.device && q.stream == g.stream)
                html += QObject::tr(". Launch queue: at most %1 waiting, %2 on average, full for %3")
                            .arg(q.maxLength)
                            .arg(q.meanLength, 0, 'f', 1)
                            .arg(durationText(q.fullTime));
        html += QStringLiteral("</p>");
    }
    const LaunchStatistics& ls = r.launches;
    if (ls.launches == 0) return html.isEmpty() ? QObject::tr("<p>No GPU work in this scope.</p>") : html;
    auto us = [](double ns) { return durationText(TimeNs(std::llround(ns))); };
    html +=
        QObject::tr("<p><b>Launches</b>: %1 · call median %2, p99 %3 · GPU median %4, p99 %5 · launch delay "
                    "median %6, p99 %7</p>")
            .arg(ls.launches)
            .arg(us(ls.cpuDuration.median), us(ls.cpuDuration.p99), us(ls.gpuDuration.median),
                 us(ls.gpuDuration.p99), us(ls.launchDelay.median), us(ls.launchDelay.p99));
    auto work = [&](EventRef call) { return store.gpuWorkOf(call).front(); };
    auto callTime = [&](EventRef call) { return store.durationOf(call); };
    auto gpuTime = [&](EventRef call) { return store.durationOf(work(call)); };
    auto delay = [&](EventRef call) {
        const EventRef g = work(call);
        return store.track(g.track).starts[g.index.value] - store.track(call.track).endOf(call.index.value);
    };
    auto kernelName = [&](EventRef call) {
        return QString::fromStdString(shortKernelName(std::string(store.nameOf(work(call)))));
    };
    html += outlierList(
        QObject::tr("Short kernels (GPU time shorter than the call that launched them)"), ls.shortKernels,
        [&](EventRef c) { return callTime(c) - gpuTime(c); },
        [&](EventRef c) {
            return linkTo(c, QObject::tr("%1 (GPU %2, call %3)")
                                 .arg(kernelName(c), durationText(gpuTime(c)), durationText(callTime(c))));
        });
    html += outlierList(QObject::tr("Launch calls over 50 µs"), ls.longCalls, callTime, [&](EventRef c) {
        return linkTo(c, QObject::tr("%1 %2").arg(
                             QString::fromUtf8(store.nameOf(c).data(), qsizetype(store.nameOf(c).size())),
                             durationText(callTime(c))));
    });
    html += outlierList(QObject::tr("Launch delays over 100 µs"), ls.longDelays, delay, [&](EventRef c) {
        return linkTo(c, QObject::tr("%1 waited %2").arg(kernelName(c), durationText(delay(c))));
    });
    return html;
}

} // namespace

OverviewPanel::OverviewPanel(const TraceStore& store, QWidget* parent)
    : AnalysisPanel(parent), m_store(store) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    outer->addWidget(scroll);
    auto* body = new QWidget(scroll);
    scroll->setWidget(body);
    auto* layout = new QVBoxLayout(body);
    m_facts = new QLabel(body);
    m_facts->setTextFormat(Qt::RichText);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_facts->setWordWrap(true);
    m_steps = new QLabel(body);
    m_steps->setWordWrap(true);
    auto* batchRow = new QHBoxLayout;
    m_batch = new QSpinBox(body);
    m_batch->setRange(0, 1 << 24);
    m_batch->setSpecialValueText(tr("(type one)"));
    m_batch->setToolTip(tr("Samples per step, to turn steps/s into samples/s"));
    m_throughput = new QLabel(body);
    batchRow->addWidget(new QLabel(tr("Batch size:"), body));
    batchRow->addWidget(m_batch);
    batchRow->addWidget(m_throughput, 1);
    connect(m_batch, &QSpinBox::valueChanged, this, &OverviewPanel::updateThroughput);
    m_chart = new StackedColumnChart(body);
    m_breakdown = makeTable(body, {});
    // Each figure's span in its header: four GPU-busy figures over different spans read as contradictions.
    m_gpus = makeTable(body, {tr("GPU"), tr("Utilization (of the steps)"),
                              tr("Busy (of the trace's wall time)"), tr("Est. SM efficiency (of the steps)"),
                              tr("Est. achieved occupancy"), tr("Tensor-core share (of kernel time)")});
    const char* gpuTips[] = {
        "Device index (Kineto writes it as the pid)",
        "Union of kernel intervals from the first step's start to the last step's end, divided by that span "
        "(gaps "
        "between steps count as idle, as in the TensorBoard plugin)",
        "Length of the union of all GPU work (kernels, memcpy, memset) divided by the trace's wall time",
        "∫ min(Σ blocks per SM of the kernels running, 1) dt from the first step's start to the last step's "
        "end, "
        "divided by that span",
        "Σ (est. achieved occupancy % × kernel time clipped to the steps' span) / Σ that time, over kernels "
        "that report it",
        "Kernel time of tensor-core kernels (recognised by name, docs/DEFINITIONS.md) divided by all kernel "
        "time",
    };
    for (int c = 0; c < 6; ++c)
        m_gpus->horizontalHeaderItem(c)->setToolTip(QString::fromUtf8(gpuTips[c]));
    m_recommendations = new QTextBrowser(body);
    m_recommendations->setOpenLinks(false);
    m_gpuWaits = new QTextBrowser(body);
    m_gpuWaits->setOpenLinks(false);
    // One scroll for the page: each section as tall as its content (they were fixed-height boxes scrolling
    // inside the page, the wheel moving one or the other by where the pointer was).
    growWithContent(m_recommendations);
    growWithContent(m_gpuWaits);
    for (QTextBrowser* browser : {m_recommendations, m_gpuWaits})
        connect(browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
            if (url.scheme() == QLatin1String("range")) {
                const QStringList parts = url.path().split(QLatin1Char(':'));
                if (parts.size() == 2) emit rangeRequested(parts[0].toLongLong(), parts[1].toLongLong());
            } else if (const EventRef ref = DetailsPanel::refFromLink(url); ref.isValid()) {
                emit jumpRequested(ref);
            }
        });
    // Double-clicking a step shows it on the timeline.
    connect(m_breakdown, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (!m_result || row < 0 || std::size_t(row) >= m_result->overview.steps.size()) return;
        const StepRange& s = m_result->overview.steps[std::size_t(row)];
        emit rangeRequested(s.start, s.end);
    });
    layout->addWidget(m_facts);
    layout->addWidget(m_steps);
    layout->addLayout(batchRow);
    layout->addWidget(new QLabel(
        tr("<b>Step time breakdown</b> (each category takes only time no higher one claimed)"), body));
    layout->addWidget(m_chart);
    layout->addWidget(m_breakdown);
    layout->addWidget(new QLabel(tr("<b>GPU metrics</b> (hover the headers for their definitions)"), body));
    layout->addWidget(m_gpus);
    layout->addWidget(new QLabel(tr("<b>Recommendations</b>"), body));
    layout->addWidget(m_recommendations);
    layout->addWidget(
        new QLabel(tr("<b>Where the GPUs wait</b> (as HTA measures it; links show the calls on the "
                      "timeline)"),
                   body));
    layout->addWidget(m_gpuWaits);
    layout->addStretch(1);
}

QString OverviewPanel::throughputText() const {
    return m_throughput->text();
}

void OverviewPanel::updateThroughput() {
    if (!m_result) return;
    const double sps = m_result->overview.stepsPerSecond;
    QString text = tr("%1 steps/s").arg(sps, 0, 'f', 2);
    if (m_batch->value() > 0) text += tr(" · %1 samples/s").arg(sps * m_batch->value(), 0, 'f', 1);
    m_throughput->setText(text);
}

void OverviewPanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    m_result = result;
    const Overview& ov = result->overview;
    QString facts;
    for (const DeviceProperties& d : result->facts.devices) {
        facts += tr("<b>GPU %1</b>: %2 · %3 GiB · %4 SMs · compute capability %5.%6<br/>")
                     .arg(d.id)
                     .arg(QString::fromStdString(d.name).toHtmlEscaped())
                     .arg(double(d.totalGlobalMem) / double(1ll << 30), 0, 'f', 1)
                     .arg(d.numSms)
                     .arg(d.computeMajor)
                     .arg(d.computeMinor);
    }
    QStringList items;
    for (const auto& [k, v] : result->facts.facts)
        items << QStringLiteral("%1: <b>%2</b>")
                     .arg(QString::fromStdString(k).toHtmlEscaped(),
                          QString::fromStdString(v).toHtmlEscaped());
    facts += items.join(QStringLiteral(" · "));
    m_facts->setText(facts.isEmpty() ? tr("No device properties or version metadata in this trace.") : facts);
    m_steps->setText(tr("<b>Steps:</b> %1%2 · mean %3 · median %4 · min %5 · max %6")
                         .arg(ov.steps.size())
                         .arg(ov.syntheticStep
                                  ? tr(" (no ProfilerStep: one activity step, from the first CPU operator or "
                                       "Python frame to the end of the GPU work it launched)")
                                  : QString())
                         .arg(durationText(ov.stepMean), durationText(ov.stepMedian),
                              durationText(ov.stepMin), durationText(ov.stepMax)));
    updateThroughput();

    QStringList series;
    QVector<QColor> colors;
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
        // What compute hid is not in the breakdown's communication: the name says so (the Kernels tab's
        // communication category counts both).
        series << (BreakdownCategory(c) == BreakdownCategory::Communication
                       ? tr("communication not overlapped")
                       : QString::fromLatin1(breakdownCategoryName(BreakdownCategory(c)).data()));
        colors << breakdownColors[c];
    }
    QStringList columns;
    std::vector<std::vector<double>> values;
    for (std::size_t i = 0; i < ov.breakdown.size(); ++i) {
        columns << QString::fromStdString(result->stepNames[i]).remove(QStringLiteral("ProfilerStep"));
        std::vector<double> v;
        for (TimeNs t : ov.breakdown[i].time)
            v.push_back(double(t));
        values.push_back(std::move(v));
    }
    m_chart->setData(columns, values, series, colors);

    m_breakdown->clear();
    m_breakdown->setColumnCount(int(breakdownCategoryCount) + 2);
    QStringList headers{tr("Step"), tr("Duration")};
    headers << series;
    m_breakdown->setHorizontalHeaderLabels(headers);
    // What each column counts (docs/DEFINITIONS.md, "Step-time breakdown"): each instant of a step goes to
    // the first category that covers it, in this order.
    static const char* const breakdownTips[breakdownCategoryCount] = {
        "GPU kernels that are not communication (highest priority)",
        "GPU memcpy not already under a kernel",
        "GPU memset not already claimed",
        "Collective kernels (NCCL/RCCL, DeepEP, custom all-reduce) while no kernel, copy or memset of a "
        "higher "
        "priority runs, and, on the CPU, nccl:*/gloo:*/c10d:: ranges: the communication compute did not "
        "hide. "
        "The part it hid is given beside it (\"overlapped\")",
        "Runtime and driver calls (cudaLaunchKernel, cuLaunchKernel, synchronisation, ...)",
        "enumerate(DataLoader) ranges",
        "Operators and annotations on the CPU, other than the steps",
        "The rest of the step: nothing recorded ran",
    };
    m_breakdown->horizontalHeaderItem(0)->setToolTip(
        tr("A ProfilerStep extended to the end of the GPU work it launched, or the one activity step"));
    m_breakdown->horizontalHeaderItem(1)->setToolTip(tr("The step's length"));
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c)
        if (QTableWidgetItem* h = m_breakdown->horizontalHeaderItem(int(c) + 2))
            h->setToolTip(tr(breakdownTips[c]));
    // Hundreds of steps make a table nobody reads and cost the UI thread; the chart shows them all, the table
    // the first 200 and the total over every step.
    constexpr std::size_t maxSteps = 200;
    const std::size_t listed = std::min(ov.breakdown.size(), maxSteps);
    m_breakdown->setRowCount(int(listed) + 1);
    TimeNs totalSpan = 0;
    for (std::size_t i = 0; i <= listed; ++i) {
        const bool total = i == listed;
        const auto& times = total ? ov.breakdownTotal : ov.breakdown[i].time;
        TimeNs span = 0;
        for (TimeNs t : times)
            span += t;
        if (!total) totalSpan += span;
        m_breakdown->setItem(int(i), 0,
                             new QTableWidgetItem(total ? (listed < ov.breakdown.size()
                                                               ? tr("All %1 steps").arg(ov.breakdown.size())
                                                               : tr("All steps"))
                                                        : QString::fromStdString(result->stepNames[i])));
        m_breakdown->setItem(int(i), 1, numberItem(durationText(span), double(span)));
        for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
            QString text = QStringLiteral("%1 (%2)").arg(
                durationText(times[c]), percentText(span ? double(times[c]) / double(span) : 0));
            const TimeNs hidden =
                total ? ov.communicationOverlappedTotal : ov.breakdown[i].communicationOverlapped;
            if (BreakdownCategory(c) == BreakdownCategory::Communication && hidden > 0)
                text += tr(" · %1 overlapped").arg(durationText(hidden));
            const TimeNs warmUp = total ? ov.warmUpTotal : ov.breakdown[i].warmUp;
            if (BreakdownCategory(c) == BreakdownCategory::Runtime && warmUp > 0)
                text += tr(" · %1 one-time warm-up").arg(durationText(warmUp));
            m_breakdown->setItem(int(i), int(c) + 2, numberItem(text, double(times[c])));
        }
    }
    m_breakdown->resizeColumnsToContents();
    fitHeightToRows(m_breakdown);

    m_gpus->setRowCount(int(ov.gpus.size()));
    for (std::size_t i = 0; i < ov.gpus.size(); ++i) {
        const GpuMetrics& g = ov.gpus[i];
        m_gpus->setItem(int(i), 0, new QTableWidgetItem(QStringLiteral("GPU %1").arg(g.device)));
        m_gpus->setItem(int(i), 1, numberItem(percentText(g.utilization), g.utilization));
        m_gpus->setItem(int(i), 2, numberItem(percentText(g.busyOfWall), g.busyOfWall));
        m_gpus->setItem(int(i), 3,
                        numberItem(g.hasSmData ? percentText(g.smEfficiency) : tr("n/a"), g.smEfficiency));
        m_gpus->setItem(int(i), 4,
                        numberItem(g.hasOccupancyData
                                       ? QString::number(g.achievedOccupancy, 'f', 1) + QLatin1Char('%')
                                       : tr("n/a"),
                                   g.achievedOccupancy));
        m_gpus->setItem(int(i), 5, numberItem(percentText(g.tensorCoreShare), g.tensorCoreShare));
    }
    m_gpus->resizeColumnsToContents();
    fitHeightToRows(m_gpus);

    QString html;
    if (ov.recommendations.empty()) html = tr("<p>Nothing stands out: no rule fired for this scope.</p>");
    for (const Recommendation& r : ov.recommendations) {
        QString link;
        if (r.example.isValid())
            link = QStringLiteral(" <a href=\"%1\">show</a>").arg(DetailsPanel::linkFor(r.example));
        else if (r.to > r.from)
            link = QStringLiteral(" <a href=\"range:%1:%2\">show</a>").arg(r.from).arg(r.to);
        html += QStringLiteral("<p><b>%1</b><br/><span style=\"color:#4b5563\">%2</span>%3</p>")
                    .arg(QString::fromStdString(r.title).toHtmlEscaped(),
                         QString::fromStdString(r.evidence).toHtmlEscaped(), link);
        if (r.example.isValid() && !r.exampleName.empty()) {
            // The example's time in the domain it is (a kernel's GPU time, an operator's CPU time); an
            // instant (a memory event) has none.
            const QString name =
                QString::fromStdString(r.exampleOnGpu ? shortKernelName(r.exampleName) : r.exampleName)
                    .toHtmlEscaped();
            const QString example =
                r.exampleDuration <= 0 ? tr("Example: %1").arg(name)
                : r.exampleOnGpu
                    ? tr("Example: %1 (%2 of GPU time)").arg(name, durationText(r.exampleDuration))
                    : tr("Example: %1 (%2 of CPU time)").arg(name, durationText(r.exampleDuration));
            html += QStringLiteral("<p style=\"margin-left:12px;color:#6b7280\">%1</p>").arg(example);
        }
    }
    m_recommendations->setHtml(html);
    m_gpuWaits->setHtml(gpuWaitsHtml(m_store, *result));
}

} // namespace kinetoscope
