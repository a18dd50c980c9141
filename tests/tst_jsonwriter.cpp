// The one JSON writer (core/model/jsonwriter): nesting with commas and layout, the value forms (exact
// microseconds, printf-style fixed decimals, NaN as null), escaping, and text that standard parsers read
// back.
#include "model/jsonwriter.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace kinetoscope;

class TestJsonWriter : public QObject {
    Q_OBJECT
  private slots:
    void nestingAndLayout();
    void values_data();
    void values();
    void parsesBack();
};

void TestJsonWriter::nestingAndLayout() {
    std::string out;
    JsonWriter w(out);
    w.beginObject({"", ",\n ", ""});
    w.key("rows");
    w.beginArray({"\n  ", ",\n  ", "\n "});
    for (int i = 0; i < 2; ++i) {
        w.beginObject();
        w.key("i");
        w.num(i);
        w.key("tags");
        w.beginArray();
        w.str("a");
        w.str("b");
        w.endArray();
        w.endObject();
    }
    w.endArray();
    w.key("empty");
    w.beginArray({"\n  ", ",\n  ", "\n "});
    w.endArray();
    w.key("none");
    w.beginObject();
    w.endObject();
    w.endObject();
    QCOMPARE(QString::fromStdString(out),
             QStringLiteral("{\"rows\": [\n  {\"i\": 0, \"tags\": [\"a\", \"b\"]},\n"
                            "  {\"i\": 1, \"tags\": [\"a\", \"b\"]}\n ],\n"
                            " \"empty\": [],\n \"none\": {}}"));
}

void TestJsonWriter::values_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<double>("value");
    QTest::addColumn<int>("decimals");
    QTest::addColumn<QString>("expected");
    QTest::newRow("micros") << 0 << 1500.0 << 0 << "1.500";
    QTest::newRow("negative micros") << 0 << -1.0 << 0 << "-0.001";
    QTest::newRow("zero micros") << 0 << 0.0 << 0 << "0.000";
    QTest::newRow("fixed 6") << 1 << 0.1234565 << 6 << "0.123456"; // as printf: the double is just below
    QTest::newRow("fixed 0 of bytes") << 1 << 2147483648.0 << 0 << "2147483648";
    QTest::newRow("negative fixed") << 1 << -0.25 << 3 << "-0.250";
    QTest::newRow("NaN is null") << 1 << std::nan("") << 3 << "null";
    QTest::newRow("general") << 2 << 0.000123456789 << 0 << "0.000123457";
}

void TestJsonWriter::values() {
    QFETCH(int, kind);
    QFETCH(double, value);
    QFETCH(int, decimals);
    QFETCH(QString, expected);
    std::string out;
    JsonWriter w(out);
    if (kind == 0) w.micros(TimeNs(value));
    if (kind == 1) w.fixed(value, decimals);
    if (kind == 2) w.general(value);
    QCOMPARE(QString::fromStdString(out), expected);
    if (kind == 1 && !std::isnan(value)) {
        char printed[64];
        std::snprintf(printed, sizeof printed, "%.*f", decimals, value);
        QCOMPARE(QString::fromStdString(out), QString::fromLatin1(printed));
    }
}

void TestJsonWriter::parsesBack() {
    std::string out;
    JsonWriter w(out);
    const std::string awkward = "quote \" backslash \\ tab \t newline \n bell \x07 µs";
    w.beginObject();
    w.key(awkward);
    w.str(awkward);
    w.key("flag");
    w.boolean(true);
    w.key("missing");
    w.null();
    w.endObject();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QString key = QString::fromStdString(awkward);
    QCOMPARE(doc.object().value(key).toString(), key);
    QCOMPARE(doc.object().value("flag").toBool(), true);
    QVERIFY(doc.object().value("missing").isNull());
}

QTEST_MAIN(TestJsonWriter)
#include "tst_jsonwriter.moc"
