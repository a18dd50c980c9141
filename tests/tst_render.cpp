// `kinetoscope --render`: headless PNGs of the timeline, and its argument errors.
#include "testsupport.h"

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestRender : public QObject {
    Q_OBJECT
  private slots:
    void renders_data();
    void renders();
    void rejects_data();
    void rejects();
    void rangeChangesPicture();
    void noFlowsByDefault();
    void helpAndVersionNeedNoDisplay_data();
    void helpAndVersionNeedNoDisplay();

  private:
    int run(const QStringList& args, QString* err = nullptr);
    QTemporaryDir m_dir;
};

namespace {
QString sample() {
    return QStringLiteral(KINETOSCOPE_SOURCE_DIR "/resources/samples/sample.pt.trace.json");
}
} // namespace

// `kinetoscope --help` and `--version` on a machine with no display answer and exit 0 (they aborted with Qt's
// platform-plugin error, exit 134).
void TestRender::helpAndVersionNeedNoDisplay_data() {
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("expected");
    QTest::newRow("--help") << "--help"
                            << "--render";
    QTest::newRow("-h") << "-h"
                        << "--compare";
    QTest::newRow("--version") << "--version" << KINETOSCOPE_VERSION;
}

void TestRender::helpAndVersionNeedNoDisplay() {
    QFETCH(QString, option);
    QFETCH(QString, expected);
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(KINETOSCOPE_APP), {option});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(out.contains(expected), qPrintable(out));
}

int TestRender::run(const QStringList& args, QString* err) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM")); // --render must choose offscreen by itself
    env.remove(QStringLiteral("DISPLAY"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(KINETOSCOPE_APP), args);
    if (!p.waitForFinished(120000)) return -1;
    if (err) *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

// By default --render draws no flow arrows (on a real trace every launch's arrow made a band that hid the
// lanes under it): the default picture is the `--flows none` one, and `--flows all` still draws them.
void TestRender::noFlowsByDefault() {
    QVERIFY(m_dir.isValid());
    const QString trace =
        QString::fromStdString(kinetoscope::test::tracePath(kinetoscope::test::traces::qwenH100));
    const QString byDefault = m_dir.filePath(QStringLiteral("flows-default.png"));
    const QString none = m_dir.filePath(QStringLiteral("flows-none.png"));
    const QString all = m_dir.filePath(QStringLiteral("flows-all.png"));
    const QStringList size{"--size", "1400x900"};
    QCOMPARE(run(QStringList{"--render", byDefault} + size + QStringList{trace}), 0);
    QCOMPARE(run(QStringList{"--render", none, "--flows", "none"} + size + QStringList{trace}), 0);
    QCOMPARE(run(QStringList{"--render", all, "--flows", "all"} + size + QStringList{trace}), 0);
    QCOMPARE(QImage(byDefault), QImage(none));
    QVERIFY(QImage(all) != QImage(none));
}

void TestRender::renders_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QSize>("size");
    QTest::newRow("sample, default size") << sample() << QStringList() << QSize(1600, 900);
    QTest::newRow("sample, 800x400, no flows")
        << sample() << QStringList{"--size", "800x400", "--flows", "none"} << QSize(800, 400);
    QTest::newRow("sample, range") << sample() << QStringList{"--range", "100:1500.5"} << QSize(1600, 900);
    QTest::newRow("gzip real trace") << QString::fromStdString(kinetoscope::test::tracePath(
                                            "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz"))
                                     << QStringList{"--size", "1920x1080", "--color", "name"}
                                     << QSize(1920, 1080);
}

void TestRender::renders() {
    QFETCH(QString, trace);
    QFETCH(QStringList, options);
    QFETCH(QSize, size);
    QVERIFY(m_dir.isValid());
    const QString out = m_dir.filePath(
        QStringLiteral("%1.png").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_')));
    QString err;
    QCOMPARE(run(QStringList{"--render", out} + options + QStringList{trace}, &err), 0);
    QImage image(out);
    QVERIFY2(!image.isNull(), qPrintable(err));
    QCOMPARE(image.size(), size);
    // Not blank: many distinct colours (slices, text, ruler).
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3) {
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    }
    QVERIFY2(colours.size() > 20, qPrintable(QStringLiteral("%1 colours").arg(colours.size())));
}

void TestRender::rejects_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing trace") << QStringList{"--render", "x.png", "/nonexistent/trace.json"}
                                   << QStringLiteral("/nonexistent/trace.json: ");
    QTest::newRow("bad size") << QStringList{"--render", "x.png", "--size", "big", sample()}
                              << QStringLiteral("--size");
    QTest::newRow("reversed range") << QStringList{"--render", "x.png", "--range", "10:5", sample()}
                                    << QStringLiteral("--range");
    QTest::newRow("bad flows") << QStringList{"--render", "x.png", "--flows", "some", sample()}
                               << QStringLiteral("--flows");
    QTest::newRow("two traces") << QStringList{"--render", "x.png", sample(), sample()}
                                << QStringLiteral("exactly one");
}

void TestRender::rejects() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QString err;
    QCOMPARE(run(args, &err), 1);
    QVERIFY2(err.contains(message), qPrintable(err));
    QCOMPARE(err.trimmed().count(QLatin1Char('\n')), 0);
}

void TestRender::rangeChangesPicture() {
    const QString whole = m_dir.filePath(QStringLiteral("whole.png"));
    const QString part = m_dir.filePath(QStringLiteral("part.png"));
    QCOMPARE(run({"--render", whole, sample()}), 0);
    QCOMPARE(run({"--render", part, "--range", "0:200", sample()}), 0);
    QVERIFY(QImage(whole) != QImage(part));
    // Deterministic: the same request renders the same pixels.
    const QString again = m_dir.filePath(QStringLiteral("again.png"));
    QCOMPARE(run({"--render", again, sample()}), 0);
    QCOMPARE(QImage(again), QImage(whole));
}

QTEST_GUILESS_MAIN(TestRender)
#include "tst_render.moc"
