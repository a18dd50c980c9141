// Where a captured program is told to find CUPTI (core/live/cuptilocate.h). On the first real GPU the agent
// was built against this machine's toolkit (/usr/local/cuda-13.0/lib), which the GPU machine lacks; the CUPTI
// there was PyTorch's pip package (VENV/lib/python3.12/site-packages/nvidia/cu13/lib) and the toolkit's
// targets/x86_64-linux/lib. Each row builds such a layout in a temporary folder and asks for the folder
// found.
#include "live/cuptilocate.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace kinetoscope;
namespace fs = std::filesystem;

class TestCuptiLocate : public QObject {
    Q_OBJECT
  private slots:
    void findsCupti_data();
    void findsCupti();
    void nothingWhenNotNeeded();
};

void TestCuptiLocate::findsCupti_data() {
    QTest::addColumn<QStringList>("files");   // created under the temporary folder ROOT
    QTest::addColumn<QString>("program");     // ROOT/ is replaced; a bare name is looked up on PATH
    QTest::addColumn<QString>("path");        // $PATH, ROOT/ replaced
    QTest::addColumn<QString>("overrideDir"); // $KINETOSCOPE_CUPTI_DIR
    QTest::addColumn<QString>("cudaHome");
    QTest::addColumn<QString>("expected"); // ROOT/ replaced; empty: none found
    const QString lib = "libcupti.so.13";
    QTest::newRow("PyTorch's pip CUPTI for a venv python on PATH")
        << QStringList{"venv/bin/python3", "venv/lib/python3.12/site-packages/nvidia/cu13/lib/" + lib}
        << "python3"
        << "ROOT/venv/bin"
        << ""
        << ""
        << "ROOT/venv/lib/python3.12/site-packages/nvidia/cu13/lib";
    QTest::newRow("older wheels: one package per library")
        << QStringList{"env/bin/python", "env/lib/python3.10/site-packages/nvidia/cuda_cupti/lib/" + lib,
                       "env/lib/python3.10/site-packages/nvidia/cublas/lib/libcublas.so.12"}
        << "ROOT/env/bin/python"
        << ""
        << ""
        << ""
        << "ROOT/env/lib/python3.10/site-packages/nvidia/cuda_cupti/lib";
    QTest::newRow("the override comes first")
        << QStringList{"mine/" + lib, "venv/bin/python3",
                       "venv/lib/python3.12/site-packages/nvidia/cu13/lib/" + lib}
        << "ROOT/venv/bin/python3"
        << ""
        << "ROOT/mine"
        << ""
        << "ROOT/mine";
    QTest::newRow("an override without the library is passed over")
        << QStringList{"venv/bin/python3", "venv/lib/python3.12/site-packages/nvidia/cu13/lib/" + lib}
        << "ROOT/venv/bin/python3"
        << ""
        << "ROOT/empty"
        << ""
        << "ROOT/venv/lib/python3.12/site-packages/nvidia/cu13/lib";
    QTest::newRow("a C++ program: the toolkit's extras/CUPTI")
        << QStringList{"bin/probe", "cuda/extras/CUPTI/lib64/" + lib} << "ROOT/bin/probe"
        << ""
        << ""
        << "ROOT/cuda"
        << "ROOT/cuda/extras/CUPTI/lib64";
    QTest::newRow("a runfile toolkit: targets/x86_64-linux/lib")
        << QStringList{"bin/probe", "cuda/targets/x86_64-linux/lib/" + lib} << "ROOT/bin/probe"
        << ""
        << ""
        << "ROOT/cuda"
        << "ROOT/cuda/targets/x86_64-linux/lib";
    QTest::newRow("another major version is not ours")
        << QStringList{"venv/bin/python3",
                       "venv/lib/python3.12/site-packages/nvidia/cuda_cupti/lib/libcupti.so.12"}
        << "ROOT/venv/bin/python3"
        << ""
        << ""
        << "ROOT/nocuda"
        << "";
    QTest::newRow("a program that is not found") << QStringList{} << "nosuchprogram"
                                                 << "ROOT/bin"
                                                 << ""
                                                 << "ROOT/nocuda"
                                                 << "";
}

void TestCuptiLocate::findsCupti() {
    QFETCH(QStringList, files);
    QFETCH(QString, program);
    QFETCH(QString, path);
    QFETCH(QString, overrideDir);
    QFETCH(QString, cudaHome);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString root = dir.path() + "/";
    auto rooted = [&](QString s) { return s.replace("ROOT/", root).toStdString(); };
    for (const QString& file : files) {
        const fs::path p = rooted("ROOT/" + file);
        fs::create_directories(p.parent_path());
        std::ofstream(p) << "x";
    }
    live::CuptiSearch search;
    search.library = "libcupti.so.13";
    search.program = rooted(program);
    search.pathVariable = rooted(path);
    search.overrideDir = rooted(overrideDir);
    search.cudaHome = rooted(cudaHome);
    search.defaultCuda = rooted("ROOT/usr-local-cuda"); // not this machine's toolkit
    const std::string found = live::findCuptiDir(search);
    QCOMPARE(QString::fromStdString(found),
             expected.isEmpty() ? QString() : QString::fromStdString(rooted(expected)));
    // Whatever is found was among the folders searched, which start with the override when there is one.
    const std::vector<std::string> searched = live::cuptiSearchDirs(search);
    if (!found.empty()) QVERIFY(std::find(searched.begin(), searched.end(), found) != searched.end());
    if (!overrideDir.isEmpty())
        QCOMPARE(QString::fromStdString(searched.front()), QString::fromStdString(rooted(overrideDir)));
}

// An agent built without CUPTI needs none: nothing is searched and the target's environment stays as it was.
void TestCuptiLocate::nothingWhenNotNeeded() {
    live::CuptiSearch search;
    search.program = "python3";
    search.overrideDir = "/somewhere";
    QVERIFY(live::cuptiSearchDirs(search).empty());
    QVERIFY(live::findCuptiDir(search).empty());
}

QTEST_APPLESS_MAIN(TestCuptiLocate)
#include "tst_cuptilocate.moc"
