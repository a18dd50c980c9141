#include "model/timeconv.h"

#include <QTest>

using namespace kinetoscope;

class TestTimeConv : public QObject {
    Q_OBJECT
  private slots:
    void parse_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("ns");
        QTest::newRow("zero") << "0" << true << qint64(0);
        QTest::newRow("integer us") << "42" << true << qint64(42000);
        QTest::newRow("epoch us, beyond double's exact ns")
            << "1698438996453838" << true << qint64(1698438996453838000);
        QTest::newRow("kineto three decimals") << "3603029046213.755" << true << qint64(3603029046213755);
        QTest::newRow("one decimal") << "12.5" << true << qint64(12500);
        QTest::newRow("sub-ns rounds half up") << "0.0005" << true << qint64(1);
        QTest::newRow("sub-ns rounds down") << "0.0004" << true << qint64(0);
        QTest::newRow("many decimals") << "1.23456789" << true << qint64(1235);
        QTest::newRow("negative") << "-12.25" << true << qint64(-12250);
        QTest::newRow("exponent") << "1.5e3" << true << qint64(1500000);
        QTest::newRow("negative exponent") << "25e-3" << true << qint64(25);
        QTest::newRow("trailing space") << "7 " << true << qint64(7000);
        QTest::newRow("leading zeros") << "0007.000" << true << qint64(7000);
        QTest::newRow("largest epoch ns") << "9223372036854775.807" << true << qint64(9223372036854775807LL);
        QTest::newRow("overflow") << "9223372036854776" << false << qint64(0);
        QTest::newRow("1e400") << "1e400" << false << qint64(0);
        QTest::newRow("tiny 1e-400") << "1e-400" << true << qint64(0);
        QTest::newRow("NaN") << "NaN" << false << qint64(0);
        QTest::newRow("Infinity") << "Infinity" << false << qint64(0);
        QTest::newRow("empty") << "" << false << qint64(0);
        QTest::newRow("letters") << "12abc" << false << qint64(0);
        QTest::newRow("lone dot") << "." << false << qint64(0);
        QTest::newRow("exponent without digits") << "1e" << false << qint64(0);
        QTest::newRow("40 digits") << "1234567890123456789012345678901234567890" << false << qint64(0);
    }
    void parse() {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(qint64, ns);
        const std::string s = text.toStdString();
        const auto r = parseMicrosecondsText(s);
        QCOMPARE(r.has_value(), valid);
        if (valid) QCOMPARE(qint64(*r), ns);
    }

    void format_data() {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("text");
        QTest::newRow("ns") << qint64(999) << "999 ns";
        QTest::newRow("us") << qint64(1500) << "1.500 us";
        QTest::newRow("ms") << qint64(2500000) << "2.500 ms";
        QTest::newRow("s") << qint64(3000000000) << "3.000 s";
    }
    void format() {
        QFETCH(qint64, ns);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatDuration(ns)), text);
    }
};

QTEST_GUILESS_MAIN(TestTimeConv)
#include "tst_timeconv.moc"
