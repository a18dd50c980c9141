// Counts with their nouns and byte sizes in adaptive units (core/model/textformat): the forms every panel,
// the CLI and the captions use ("1 track", "840132.5 KiB" read as "820.4 MiB").
#include "model/textformat.h"

#include <QTest>

using namespace kinetoscope;

class TestTextFormat : public QObject {
    Q_OBJECT
  private slots:
    void counts_data();
    void counts();
    void bytes_data();
    void bytes();
};

void TestTextFormat::counts_data() {
    QTest::addColumn<qulonglong>("n");
    QTest::addColumn<QString>("singular");
    QTest::addColumn<QString>("plural");
    QTest::addColumn<QString>("text");
    QTest::newRow("one") << qulonglong(1) << "step"
                         << ""
                         << "1 step";
    QTest::newRow("none") << qulonglong(0) << "track"
                          << ""
                          << "0 tracks";
    QTest::newRow("many") << qulonglong(2) << "rank"
                          << ""
                          << "2 ranks";
    QTest::newRow("irregular") << qulonglong(3) << "category"
                               << "categories"
                               << "3 categories";
    QTest::newRow("irregular one") << qulonglong(1) << "category"
                                   << "categories"
                                   << "1 category";
}

void TestTextFormat::counts() {
    QFETCH(qulonglong, n);
    QFETCH(QString, singular);
    QFETCH(QString, plural);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(countText(n, singular.toStdString(), plural.toStdString())), text);
}

void TestTextFormat::bytes_data() {
    QTest::addColumn<double>("bytes");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << 0.0 << "0 B";
    QTest::newRow("bytes") << 512.0 << "512 B";
    QTest::newRow("just under a KiB") << 1023.0 << "1023 B";
    QTest::newRow("a KiB") << 1024.0 << "1.00 KiB";
    // The report: 840132.5 KiB shown as such.
    QTest::newRow("MiB") << 840132.5 * 1024 << "820 MiB";
    QTest::newRow("tens of MiB") << 12.5 * 1048576 << "12.5 MiB";
    QTest::newRow("GiB") << 1.95 * 1073741824 << "1.95 GiB";
    QTest::newRow("negative") << -1.5 * 1073741824 << "-1.50 GiB";
    QTest::newRow("TiB") << 1099511627776.0 << "1.00 TiB";
}

void TestTextFormat::bytes() {
    QFETCH(double, bytes);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(formatBytes(bytes)), text);
}

QTEST_APPLESS_MAIN(TestTextFormat)
#include "tst_textformat.moc"
