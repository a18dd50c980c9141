#pragma once

#include "analysis/compiled/inductor.h"
#include "analysis/compiled/kernelsources.h"
#include "analysis/ops/hosttree.h"
#include "model/tracestore.h"

#include <QTextBrowser>

#include <memory>

namespace kinetoscope {

// Everything about the selected slice: timing, every `args` field (decoded now, on demand), the parent chain,
// children and related events (launch ↔ GPU work, forward ↔ backward). Each related event is a link.
class DetailsPanel : public QTextBrowser {
    Q_OBJECT
  public:
    explicit DetailsPanel(const TraceStore& store, QWidget* parent = nullptr);

    void showEvent(EventRef ref);
    EventRef shown() const { return m_ref; }
    // The events linked from the panel, in the order they appear (for tests and keyboard use).
    const std::vector<EventRef>& links() const { return m_links; }
    // The HTML anchor of an event link.
    static QString linkFor(EventRef ref);
    static EventRef refFromLink(const QUrl& url);
    // The GPU work an operator launched, per kernel (count, GPU total, a link to its longest), as HTML: the
    // one table of it, here and in the Operators tab. The links go to `links` when given.
    static QString launchedWorkHtml(const TraceStore& store, const std::vector<LaunchedWork>& launched,
                                    std::vector<EventRef>* links = nullptr);

    // Where the trace's Triton kernels' generated code was found (null while it is being looked for), and
    // the folder it was looked in; the slice shown is shown again.
    void setKernelSources(std::shared_ptr<const KernelSourceSearch> sources, bool searching);

  signals:
    void jumpRequested(kinetoscope::EventRef ref);
    void kernelSourceRequested(QString kernel,
                               QString hash); // "Show its source" (hash: its launch's kernel_hash)
    void kernelFolderRequested();             // "Find generated code in a folder…"

  private:
    QString eventLink(EventRef ref, const QString& prefix = {});
    QString generatedCodeHtml(EventRef ref);
    QString provenanceCallHtml(const KernelSource& found, const LaunchInGraphCall& inCall);
    const TraceStore& m_store;
    EventRef m_ref;
    std::vector<EventRef> m_links;
    std::shared_ptr<const KernelSourceSearch> m_sources;
    bool m_searching = false;
};

} // namespace kinetoscope
