// A slice's args as the SQL layer's `args` table types them (core/query/args: TypedArgsDecoder): an
// integer, a real, a string's text or minified JSON, the same for every way a trace writes a value, and
// the same keys and texts as the Details panel's decodeArgsText; parsed in place within the trace's text or
// from a copy.
#include "query/args.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace kinetoscope;

namespace {
// One decoded arg as a line: "key kind value", the value as its kind holds it.
std::string describe(const TypedArg& a) {
    using Kind = TypedArg::Kind;
    std::string out = std::string(a.key) + ' ';
    switch (a.kind) {
    case Kind::Integer:
        return out + "int " + std::to_string(a.integer);
    case Kind::Real: {
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", a.real);
        return out + "real " + text + (std::signbit(a.real) && a.real == 0 ? " (negative)" : "");
    }
    case Kind::String:
        return out + "string " + std::string(a.text);
    case Kind::Json:
        return out + "json " + std::string(a.text);
    }
    return out;
}
} // namespace

class TestArgs : public QObject {
    Q_OBJECT
  private slots:
    void typesEachValue_data();
    void typesEachValue();
    void integersPast64BitsReadAsReals();
    void oneDecoderServesMany();
};

void TestArgs::typesEachValue_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("Kineto's kernel args")
        << R"({"External id": 31, "device": 0, "grid": [128, 1, 1], "est. achieved occupancy %": 100, "blocks per SM": 0.8})"
        << QStringList{"External id int 31", "device int 0", "grid json [128,1,1]",
                       "est. achieved occupancy % int 100", "blocks per SM real 0.80000000000000004"};
    QTest::newRow("integers at int64's ends")
        << R"({"a": 9223372036854775807, "b": -9223372036854775808, "c": -1})"
        << QStringList{"a int 9223372036854775807", "b int -9223372036854775808", "c int -1"};
    // Past int64 an integer reads whole only as a real (never as an integer it is not).
    QTest::newRow("an integer past int64")
        << R"({"seq": 18446744073709551615, "next": 9223372036854775808})"
        << QStringList{"seq real 1.8446744073709552e+19", "next real 9.2233720368547758e+18"};
    QTest::newRow("reals as written") << R"({"x": 1.0, "y": 1e3, "z": -0.0, "w": 2.5e-300, "v": 0.1})"
                                      << QStringList{"x real 1", "y real 1000", "z real -0 (negative)",
                                                     "w real 2.5e-300", "v real 0.10000000000000001"};
    QTest::newRow("strings, escapes decoded")
        << R"({"name": "aten::mm", "path": "C:\\runs\\a", "quote": "say \"hi\"", "unicode": "\u00e9t\u00e9", "empty": ""})"
        << QStringList{"name string aten::mm", "path string C:\\runs\\a", "quote string say \"hi\"",
                       "unicode string \u00e9t\u00e9", "empty string "};
    QTest::newRow("true, false, null, nested")
        << R"({"t": true, "f": false, "n": null, "dims": [[1, 2], []], "o": {"k": [1, {"x": "y"}]}})"
        << QStringList{"t json true", "f json false", "n json null", "dims json [[1,2],[]]",
                       "o json {\"k\":[1,{\"x\":\"y\"}]}"};
    QTest::newRow("a number as a string stays a string")
        << R"({"Call stack": "", "stream": "7"})" << QStringList{"Call stack string ", "stream string 7"};
    QTest::newRow("no args") << "" << QStringList{};
    QTest::newRow("a number past any double") << R"({"a": 1, "b": 1e400})" << QStringList{};
    QTest::newRow("an empty object") << "{}" << QStringList{};
    QTest::newRow("not an object") << "[1, 2]" << QStringList{};
    QTest::newRow("damaged JSON") << R"({"a": 1, "b": )" << QStringList{};
}

void TestArgs::typesEachValue() {
    QFETCH(QString, json);
    QFETCH(QStringList, expected);
    const std::string text = json.toStdString();
    TypedArgsDecoder decoder;
    QStringList got;
    for (const TypedArg& a : decoder.decode(text))
        got << QString::fromStdString(describe(a));
    QCOMPARE(got, expected);
    // Parsed where it lies inside a larger text (as the trace's), whatever follows it: the same.
    for (const std::string& follows : {std::string(100, '9'), std::string(100, '"'), std::string(100, '\\'),
                                       std::string("}]\"x\": 1, ") + std::string(90, ' ')}) {
        const std::string source = text + follows;
        QStringList inPlace;
        for (const TypedArg& a :
             decoder.decode(std::string_view(source).substr(0, text.size()), follows.size()))
            inPlace << QString::fromStdString(describe(a));
        QCOMPARE(inPlace, expected);
    }
    // The same keys, and for strings and JSON the same texts, as the Details panel shows.
    const std::vector<ArgField> fields = decodeArgsText(text);
    const std::vector<TypedArg>& typed = decoder.decode(text);
    QCOMPARE(fields.size(), typed.size());
    for (std::size_t i = 0; i < fields.size(); ++i) {
        QCOMPARE(std::string(typed[i].key), fields[i].key);
        if (typed[i].kind == TypedArg::Kind::String || typed[i].kind == TypedArg::Kind::Json)
            QCOMPARE(std::string(typed[i].text), fields[i].value);
    }
}

// Integers past 64 bits read as reals (docs/SQL.md), where the Details panel's decoding, which parses the
// whole object first, shows no args at all for such a slice.
void TestArgs::integersPast64BitsReadAsReals() {
    TypedArgsDecoder decoder;
    QStringList got;
    for (const TypedArg& a :
         decoder.decode(R"({"big": 123456789012345678901234567890, "low": -9223372036854775809, "n": 3})"))
        got << QString::fromStdString(describe(a));
    QCOMPARE(got,
             (QStringList{"big real 1.2345678901234568e+29", "low real -9.2233720368547758e+18", "n int 3"}));
}

// An export decodes millions of slices' args with one decoder: what one call gave must not leak into the
// next (fewer args, other kinds), and its texts stay valid until the next call.
void TestArgs::oneDecoderServesMany() {
    TypedArgsDecoder decoder;
    const std::vector<TypedArg>& first = decoder.decode(R"({"a": [1, 2], "b": {"c": 3}, "d": true})");
    QCOMPARE(first.size(), std::size_t(3));
    QCOMPARE(std::string(first[0].text), std::string("[1,2]"));
    QCOMPARE(std::string(first[1].text), std::string("{\"c\":3}"));
    QCOMPARE(std::string(first[2].text), std::string("true"));
    const std::vector<TypedArg>& second = decoder.decode(R"({"x": 5})");
    QCOMPARE(second.size(), std::size_t(1));
    QCOMPARE(describe(second[0]), std::string("x int 5"));
    QVERIFY(decoder.decode("").empty());
    const std::vector<TypedArg>& third = decoder.decode(R"({"n": null, "s": "t"})");
    QCOMPARE(describe(third[0]), std::string("n json null"));
    QCOMPARE(describe(third[1]), std::string("s string t"));
}

QTEST_GUILESS_MAIN(TestArgs)
#include "tst_args.moc"
