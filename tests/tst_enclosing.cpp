// Details > Parents and every "launched from" chain list exactly the slices that enclose a slice on its
// thread. On a with_stack trace the lane above a slice can hold a frame that ended long before it
// (`profiler.py(821): step`, 0.3 ms long, shown as the parent of an operator at 131 ms): the lanes are a
// drawing layout, not the nesting.
#include "query/enclosing.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

class TestEnclosing : public QObject {
    Q_OBJECT
  private slots:
    void matchesTheDefinition_data();
    void matchesTheDefinition();
    void handWritten();
};

void TestEnclosing::matchesTheDefinition_data() {
    QTest::addColumn<QString>("trace");
    QTest::newRow("qwen h100 with_stack")
        << "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
    QTest::newRow("b200 eager with_stack, overlaps")
        << "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz";
    QTest::newRow("resnet50 legacy")
        << "pytorch__kineto/"
           "tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz";
}

// Brute force over every row of the track against the definition, for a sample of rows of every CPU thread.
void TestEnclosing::matchesTheDefinition() {
    QFETCH(QString, trace);
    const LoadResult r = loadTrace(test::tracePath(trace.toUtf8().constData()));
    QVERIFY(r.ok());
    std::size_t checked = 0, withParents = 0;
    for (const Track& t : r.store->tracks()) {
        if (t.kind != TrackKind::CpuThread) continue;
        const std::uint32_t n = std::uint32_t(t.sliceCount());
        const std::uint32_t stride = std::max<std::uint32_t>(1, n / 400);
        for (std::uint32_t row = 0; row < n; row += stride) {
            const TimeNs s = t.starts[row], e = t.endOf(row);
            std::vector<std::uint32_t> expected;
            for (std::uint32_t p = 0; p < n; ++p) {
                if (p == row) continue;
                const TimeNs ps = t.starts[p], pe = t.endOf(p);
                const bool same = ps == s && pe == e;
                if (ps <= s && s < pe && e <= pe && (!same || t.depthOf(p) < t.depthOf(row)))
                    expected.push_back(p);
            }
            std::vector<std::uint32_t> got = enclosingRows(t, row);
            // parentOf is the innermost of them: one of them, enclosing none of the others.
            const auto parent = t.parentOf(row);
            QCOMPARE(parent.has_value(), !got.empty());
            if (parent) {
                QVERIFY(std::find(got.begin(), got.end(), *parent) != got.end());
                for (std::uint32_t p : got)
                    QVERIFY(!t.encloses(*parent, p));
            }
            for (std::uint32_t p : got)
                QVERIFY(t.starts[p] <= s && s < t.endOf(p) && e <= t.endOf(p));
            std::sort(expected.begin(), expected.end());
            std::sort(got.begin(), got.end());
            QCOMPARE(got, expected);
            ++checked;
            withParents += !got.empty();
        }
    }
    QVERIFY(checked > 100);
    QVERIFY(withParents > 50);
}

void TestEnclosing::handWritten() {
    // A frame that ended long ago sits on lane 0 above a later op; a partial overlap is not a parent; equal
    // extents: the first in the file is the parent.
    const LoadResult r = test::loadText(R"([
 {"ph":"X","cat":"python_function","name":"step","pid":1,"tid":1,"ts":0,"dur":5},
 {"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":100,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"twin","pid":1,"tid":1,"ts":100,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"inner","pid":1,"tid":1,"ts":120,"dur":10},
 {"ph":"X","cat":"cpu_op","name":"straddles","pid":1,"tid":1,"ts":190,"dur":30},
 {"ph":"X","cat":"cpu_op","name":"late","pid":1,"tid":1,"ts":1000,"dur":10}])");
    QVERIFY(r.ok());
    const Track& t = r.store->tracks()[0];
    auto rowOf = [&](const char* name) {
        for (std::uint32_t i = 0; i < t.sliceCount(); ++i)
            if (r.store->strings().view(t.names[i]) == name) return i;
        return std::uint32_t(-1);
    };
    auto names = [&](std::uint32_t row) {
        QStringList out;
        for (std::uint32_t p : enclosingRows(t, row)) {
            const std::string_view n = r.store->strings().view(t.names[p]);
            out << QString::fromUtf8(n.data(), qsizetype(n.size()));
        }
        return out.join(',');
    };
    QCOMPARE(names(rowOf("late")), QString());
    QCOMPARE(names(rowOf("inner")), QString("outer,twin"));
    QCOMPARE(names(rowOf("twin")), QString("outer"));
    QCOMPARE(names(rowOf("outer")), QString());
    QCOMPARE(names(rowOf("straddles")), QString());
}

QTEST_GUILESS_MAIN(TestEnclosing)
#include "tst_enclosing.moc"
