// Time <-> pixel arithmetic of the timeline (core/query/timeaxis.h).
#include "query/timeaxis.h"

#include <QTest>

using namespace kinetoscope;

class TestTimeAxis : public QObject {
    Q_OBJECT
  private slots:
    void mapping_data();
    void mapping();
    void zoomKeepsAnchor_data();
    void zoomKeepsAnchor();
    void panAndClamp();
    void tickStep_data();
    void tickStep();
    void ticksCoverView();
    void tickLabels_data();
    void tickLabels();
    void rulerLabelsFarOut_data();
    void rulerLabelsFarOut();
};

void TestTimeAxis::mapping_data() {
    QTest::addColumn<qint64>("start");
    QTest::addColumn<qint64>("end");
    QTest::addColumn<double>("width");
    QTest::addColumn<qint64>("t");
    QTest::addColumn<double>("x");
    QTest::newRow("origin") << qint64(0) << qint64(1000) << 100.0 << qint64(0) << 0.0;
    QTest::newRow("middle") << qint64(0) << qint64(1000) << 100.0 << qint64(500) << 50.0;
    QTest::newRow("right edge") << qint64(0) << qint64(1000) << 100.0 << qint64(1000) << 100.0;
    QTest::newRow("left of view") << qint64(1000) << qint64(2000) << 200.0 << qint64(500) << -100.0;
    // Epoch-based Kineto clocks: 1.7e18 ns. A 1 µs window there must keep ns precision.
    QTest::newRow("epoch, 1 us window")
        << qint64(1'700'000'000'000'000'000) << qint64(1'700'000'000'000'001'000) << 1000.0
        << qint64(1'700'000'000'000'000'250) << 250.0;
}

void TestTimeAxis::mapping() {
    QFETCH(qint64, start);
    QFETCH(qint64, end);
    QFETCH(double, width);
    QFETCH(qint64, t);
    QFETCH(double, x);
    const TimeAxis axis{start, end, width};
    QCOMPARE(axis.xOf(t), x);
    QCOMPARE(axis.timeAt(x), t);
}

void TestTimeAxis::zoomKeepsAnchor_data() {
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("factor");
    QTest::newRow("zoom in at left") << 0.0 << 0.5;
    QTest::newRow("zoom in at centre") << 500.0 << 0.8;
    QTest::newRow("zoom out at right") << 1000.0 << 1.25;
    QTest::newRow("zoom in at 1/3") << 333.0 << 0.1;
}

void TestTimeAxis::zoomKeepsAnchor() {
    QFETCH(double, x);
    QFETCH(double, factor);
    const TimeAxis axis{1'000'000, 2'000'000, 1000};
    const TimeNs anchor = axis.timeAt(x);
    const TimeAxis z = axis.zoomedAt(x, factor);
    QVERIFY(std::abs(z.timeAt(x) - anchor) <= 1);
    QVERIFY(std::abs(double(z.span()) - double(axis.span()) * factor) <= 1);
    // Never narrower than the minimum span.
    const TimeAxis tiny = axis.zoomedAt(x, 1e-9);
    QCOMPARE(tiny.span(), TimeAxis::minSpan);
}

void TestTimeAxis::panAndClamp() {
    const TimeAxis axis{0, 1000, 100};
    const TimeAxis right = axis.pannedBy(10);
    QCOMPARE(right.start, 100);
    QCOMPARE(right.end, 1100);
    QCOMPARE(right.clampedTo(0, 1050).end, 1050);
    QCOMPARE(right.clampedTo(0, 1050).span(), 1000);
    QCOMPARE(axis.pannedBy(-50).clampedTo(0, 5000).start, 0);
    // Wider than the bounds: shrinks to them.
    QCOMPARE(axis.clampedTo(200, 700).start, 200);
    QCOMPARE(axis.clampedTo(200, 700).end, 700);
    // withRange accepts reversed ends and widens tiny ranges to minSpan around their middle.
    QCOMPARE(axis.withRange(900, 100).start, 100);
    const TimeAxis narrow = axis.withRange(1000, 1010);
    QCOMPARE(narrow.span(), TimeAxis::minSpan);
    QVERIFY(narrow.start <= 1000 && narrow.end >= 1010);
}

void TestTimeAxis::tickStep_data() {
    QTest::addColumn<qint64>("span");
    QTest::addColumn<double>("width");
    QTest::addColumn<double>("spacing");
    QTest::addColumn<qint64>("step");
    QTest::newRow("1 ms over 1000 px, 100 px apart")
        << qint64(1'000'000) << 1000.0 << 100.0 << qint64(100'000);
    QTest::newRow("rounds up to 2") << qint64(1'000'000) << 1000.0 << 150.0 << qint64(200'000);
    QTest::newRow("rounds up to 5") << qint64(1'000'000) << 1000.0 << 300.0 << qint64(500'000);
    QTest::newRow("rounds up to 10") << qint64(1'000'000) << 1000.0 << 600.0 << qint64(1'000'000);
    QTest::newRow("100 ns window") << qint64(100) << 1000.0 << 90.0 << qint64(10);
    QTest::newRow("never below 1 ns") << qint64(100) << 10000.0 << 10.0 << qint64(1);
}

void TestTimeAxis::tickStep() {
    QFETCH(qint64, span);
    QFETCH(double, width);
    QFETCH(double, spacing);
    QFETCH(qint64, step);
    QCOMPARE(niceTickStep(TimeAxis{0, span, width}, spacing), step);
}

void TestTimeAxis::ticksCoverView() {
    const TimeAxis axis{1'234'567, 2'345'678, 800};
    const TimeNs origin = 1'000'000;
    const TimeNs step = niceTickStep(axis, 80);
    const auto ticks = rulerTicks(axis, origin, step);
    QVERIFY(!ticks.empty());
    QVERIFY(ticks.front().time >= axis.start && ticks.front().time - step < axis.start);
    QVERIFY(ticks.back().time <= axis.end && ticks.back().time + step > axis.end);
    for (const RulerTick& t : ticks)
        QCOMPARE((t.time - origin) % step, 0);
    QVERIFY(std::any_of(ticks.begin(), ticks.end(), [](const RulerTick& t) { return t.major; }));
}

void TestTimeAxis::tickLabels_data() {
    QTest::addColumn<qint64>("relative");
    QTest::addColumn<qint64>("step");
    QTest::addColumn<QString>("label");
    QTest::newRow("zero") << qint64(0) << qint64(100'000) << QStringLiteral("0 µs");
    QTest::newRow("us steps") << qint64(500'000) << qint64(100'000) << QStringLiteral("500 µs");
    QTest::newRow("ms with decimals") << qint64(1'500'000) << qint64(500'000) << QStringLiteral("1.5 ms");
    QTest::newRow("seconds") << qint64(2'000'000'000) << qint64(500'000'000) << QStringLiteral("2.0 s");
    QTest::newRow("fine steps far out stay in ms")
        << qint64(1'400'200'000) << qint64(200'000) << QStringLiteral("1400.2 ms");
    QTest::newRow("ns") << qint64(40) << qint64(10) << QStringLiteral("40 ns");
}

void TestTimeAxis::tickLabels() {
    QFETCH(qint64, relative);
    QFETCH(qint64, step);
    QFETCH(QString, label);
    QCOMPARE(QString::fromStdString(formatTickLabel(relative, step)), label);
}

void TestTimeAxis::rulerLabelsFarOut_data() {
    QTest::addColumn<qint64>("first");
    QTest::addColumn<qint64>("step");
    QTest::addColumn<QStringList>("labels");
    // Near the origin, or coarse: every label from the origin, as before.
    QTest::newRow("near the origin") << qint64(0) << qint64(100'000)
                                     << QStringList{QStringLiteral("0 µs"), QStringLiteral("100 µs"),
                                                    QStringLiteral("200 µs")};
    QTest::newRow("far but coarse") << qint64(1'400'200'000) << qint64(200'000)
                                    << QStringList{QStringLiteral("1400.2 ms"), QStringLiteral("1400.4 ms"),
                                                   QStringLiteral("1400.6 ms")};
    // The report: 1.112 s into the trace at 10 ns steps read "1112165.72 µs". Now the first tick carries the
    // time and the others an offset from it.
    QTest::newRow("deep zoom far out")
        << qint64(1'112'165'720) << qint64(10)
        << QStringList{QStringLiteral("1.11216572 s"), QStringLiteral("+10 ns"), QStringLiteral("+20 ns")};
}

void TestTimeAxis::rulerLabelsFarOut() {
    QFETCH(qint64, first);
    QFETCH(qint64, step);
    QFETCH(QStringList, labels);
    const TimeNs origin = 5'000'000'000; // an absolute trace start
    std::vector<RulerTick> ticks;
    for (int i = 0; i < labels.size(); ++i)
        ticks.push_back({origin + first + i * step, true});
    QStringList got;
    for (const std::string& l : rulerLabels(ticks, origin, step))
        got << QString::fromStdString(l);
    QCOMPARE(got, labels);
    // Every label short enough to sit between two ticks 90 px apart.
    for (const QString& l : got)
        QVERIFY2(l.size() <= 14, qPrintable(l));
}

QTEST_APPLESS_MAIN(TestTimeAxis)
#include "tst_timeaxis.moc"
