// TraceView's part in finding the Triton kernels' generated code: the search runs off the UI thread, the
// folder it searched is remembered per trace path, and the source opens in its own window.
#include "views/traceview.h"

#include "analysis/compiled/kernelsources.h"
#include "panels/compiledpanel.h"
#include "panels/detailspanel.h"
#include "panels/kernelsourceview.h"
#include "shell/backgroundjobs.h"
#include "shell/loadjob.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileDialog>
#include <QPointer>
#include <QSettings>

namespace kinetoscope {

QString TraceView::kernelFolderKey() const {
    return QStringLiteral("inductorFolder/") +
           QString::fromUtf8(m_path.toUtf8().toBase64(QByteArray::Base64UrlEncoding));
}

QString TraceView::compiledModulesKey() const {
    return QStringLiteral("inductorModules/") +
           QString::fromUtf8(m_path.toUtf8().toBase64(QByteArray::Base64UrlEncoding));
}

void TraceView::attachCompiledModule(const QString& path) {
    QSettings settings;
    m_compiledModules = settings.value(compiledModulesKey()).toStringList();
    if (!m_compiledModules.contains(path)) m_compiledModules << path;
    settings.setValue(compiledModulesKey(), m_compiledModules);
    if (m_trace) findKernelSources(settings.value(kernelFolderKey()).toString());
}

void TraceView::findKernelSources(const QString& folder) {
    if (!m_trace || !m_details) return;
    const std::uint64_t generation = ++m_kernelSourceGeneration;
    m_details->setKernelSources(m_kernelSources, true);
    auto trace = m_trace;
    QPointer<TraceView> self(this);
    const std::string dir = folder.toStdString();
    m_compiledModules = QSettings().value(compiledModulesKey()).toStringList();
    std::vector<std::string> modules;
    for (const QString& m : m_compiledModules)
        modules.push_back(m.toStdString());
    startBackground([trace, dir, modules, self, generation] {
        auto result = std::make_shared<const KernelSourceSearch>(
            kinetoscope::findKernelSources(*trace->store, dir, modules));
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, result, generation] {
                if (!self || generation != self->m_kernelSourceGeneration) return;
                self->m_kernelSources = result;
                self->m_details->setKernelSources(result, false);
                self->m_compiled->setKernelSources(result);
                emit self->kernelSourcesReady();
            },
            Qt::QueuedConnection);
    });
}

void TraceView::chooseKernelFolder() {
    QSettings settings;
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Folder with the generated code (an Inductor cache or torch_compile_debug folder)"),
        settings.value(kernelFolderKey()).toString());
    if (folder.isEmpty()) return;
    settings.setValue(kernelFolderKey(), folder);
    findKernelSources(folder);
}

void TraceView::showKernelSource(const QString& kernel, const QString& hash) {
    if (!m_kernelSources || !m_trace) return;
    const std::string name = kernel.toStdString();
    if (const KernelSource* found = m_kernelSources->find(name, hash.toStdString())) {
        const KernelSource& k = *found;
        QFile file(QString::fromStdString(k.file));
        if (!file.open(QIODevice::ReadOnly)) return;
        const QByteArray text = file.readAll();
        if (!m_sourceView) {
            m_sourceView = new KernelSourceView(this);
            m_sourceView->setWindowFlag(Qt::Window);
        }
        m_sourceView->showKernel(k, text.toStdString(), tritonLaunchOf(*m_trace->store, name));
        m_sourceView->show();
        m_sourceView->raise();
        return;
    }
}

} // namespace kinetoscope
