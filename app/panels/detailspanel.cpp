#include "panels/detailspanel.h"

#include "panels/kernelsourceview.h"

#include "analysis/compiled/inductor.h"
#include "analysis/ops/hosttree.h"
#include "query/args.h"
#include "query/enclosing.h"
#include "query/kernelshortname.h"
#include "query/lanelayout.h"
#include "query/selftime.h"
#include "query/viewport.h"

#include <QUrl>

namespace kinetoscope {

namespace {
constexpr int maxChildrenListed = 50;

QString esc(std::string_view text) {
    return QString::fromUtf8(text.data(), qsizetype(text.size())).toHtmlEscaped();
}
QString dur(TimeNs ns) {
    return QString::fromStdString(formatDuration(ns));
}
} // namespace

DetailsPanel::DetailsPanel(const TraceStore& store, QWidget* parent) : QTextBrowser(parent), m_store(store) {
    setOpenLinks(false);
    setOpenExternalLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("kernel-source"))
            return emit kernelSourceRequested(url.path(), url.query());
        if (url.scheme() == QLatin1String("kernel-folder")) return emit kernelFolderRequested();
        const EventRef ref = refFromLink(url);
        if (ref.isValid()) emit jumpRequested(ref);
    });
    showEvent({});
}

QString DetailsPanel::linkFor(EventRef ref) {
    return QStringLiteral("event:%1/%2").arg(ref.track.value).arg(ref.index.value);
}

EventRef DetailsPanel::refFromLink(const QUrl& url) {
    if (url.scheme() != QLatin1String("event")) return {};
    const QStringList parts = url.path().split(QLatin1Char('/'));
    if (parts.size() != 2) return {};
    bool ok1 = false, ok2 = false;
    const uint track = parts[0].toUInt(&ok1);
    const uint row = parts[1].toUInt(&ok2);
    if (!ok1 || !ok2) return {};
    return {TrackId(track), EventIndex(row)};
}

QString DetailsPanel::launchedWorkHtml(const TraceStore& store, const std::vector<LaunchedWork>& launched,
                                       std::vector<EventRef>* links) {
    std::uint64_t count = 0;
    TimeNs total = 0;
    for (const LaunchedWork& w : launched) {
        count += w.count;
        total += w.total;
    }
    QString html = QStringLiteral("<p>%1</p><table cellspacing=0 cellpadding=2>")
                       .arg(tr("%1 events, %2 of GPU time").arg(count).arg(dur(total)));
    html += QStringLiteral(
                "<tr style=\"color:#4b5563\"><td align=right>%1</td><td align=right>%2</td><td>%3</td></tr>")
                .arg(tr("count"), tr("GPU total"), tr("kernel, copy or memset (a link to its longest)"));
    for (std::size_t i = 0; i < launched.size() && int(i) < maxChildrenListed; ++i) {
        const LaunchedWork& w = launched[i];
        if (links) links->push_back(w.longest);
        html +=
            QStringLiteral(
                "<tr><td align=right>%1</td><td align=right>%2</td><td><a href=\"%3\">%4</a></td></tr>")
                .arg(w.count)
                .arg(dur(w.total), linkFor(w.longest),
                     QString::fromStdString(shortKernelName(store.strings().view(w.name))).toHtmlEscaped());
    }
    html += QStringLiteral("</table>");
    if (int(launched.size()) > maxChildrenListed)
        html += tr("<p>… and %1 more</p>").arg(int(launched.size()) - maxChildrenListed);
    return html;
}

QString DetailsPanel::eventLink(EventRef ref, const QString& prefix) {
    m_links.push_back(ref);
    const Track& t = m_store.track(ref.track);
    return QStringLiteral("%1<a href=\"%2\">%3</a> <span style=\"color:#6b7280\">%4 · %5</span>")
        .arg(prefix, linkFor(ref), esc(m_store.nameOf(ref)),
             esc(m_store.strings().view(m_store.categoryOf(ref).name)), dur(t.durations[ref.index.value]));
}

void DetailsPanel::setKernelSources(std::shared_ptr<const KernelSourceSearch> sources, bool searching) {
    m_sources = std::move(sources);
    m_searching = searching;
    showEvent(m_ref);
}

// What Inductor's provenance says of this very launch: the nodes its call of the kernel computes (one
// kernel serves several layers, each call its own nodes), when the call's launches of it are as many as the
// graph's calls of it.
QString DetailsPanel::provenanceCallHtml(const KernelSource& found, const LaunchInGraphCall& inCall) {
    if (found.calls.size() != inCall.count || inCall.ordinal >= found.calls.size()) return {};
    const ProvenanceCall& call = found.calls[inCall.ordinal];
    const auto joined = [](const std::vector<std::string>& items) {
        QStringList out;
        for (const std::string& item : items)
            out << QString::fromStdString(item).toHtmlEscaped();
        return out.join(QStringLiteral(", "));
    };
    QString html = tr("This launch is call %1 of the graph's <code>call</code>: computes %2")
                       .arg(call.handle)
                       .arg(joined(call.postNodes));
    if (!call.preNodes.empty()) html += tr(" (the model's %1)").arg(joined(call.preNodes));
    if (!call.modelLines.empty())
        html += tr(", at %1").arg(QString::fromStdString(modelLinesText(call.modelLines)).toHtmlEscaped());
    return html;
}

// For a Triton kernel or its launch event: how it was launched, and where its generated code is (or what
// was looked for), with the way to its source and to a folder to look in.
QString DetailsPanel::generatedCodeHtml(EventRef ref) {
    const std::string name(m_store.nameOf(ref));
    if (!name.starts_with("triton_")) return {};
    EventRef launchEvent;
    if (m_store.categoryOf(ref).kind == CategoryKind::CpuOp) {
        launchEvent = ref;
    } else if (isGpuCategory(m_store.categoryOf(ref).kind)) {
        if (const auto launch = m_store.launchOf(ref))
            if (const auto op = launchingOperator(m_store, *launch); op && m_store.nameOf(*op) == name)
                launchEvent = *op;
    }
    if (!launchEvent.isValid() && !isGpuCategory(m_store.categoryOf(ref).kind)) return {};
    const TritonLaunch launch = tritonLaunchAt(m_store, launchEvent);
    QString html = QStringLiteral("<h4 style=\"margin:8px 0 2px 0\">%1</h4>").arg(tr("Generated code"));
    if (const QString config = launchConfigText(launch); !config.isEmpty())
        html += tr("Launched with %1<br/>").arg(config.toHtmlEscaped());
    // The compiled graph whose call launched it, and which of that call's launches of this kernel it is.
    const std::optional<LaunchInGraphCall> inCall = launchInGraphCall(m_store, launchEvent);
    if (inCall) {
        html += tr("In the graph call %1").arg(eventLink(inCall->graphCall));
        if (inCall->count > 1)
            html += tr(", its launch %1 of %2 there").arg(inCall->ordinal + 1).arg(inCall->count);
        html += QStringLiteral("<br/>");
    }
    // The launch's hash tells apart two kernels of one name (a forward and a backward graph's).
    const KernelSource* found = m_sources ? m_sources->find(name, launch.kernelHash) : nullptr;
    if (found) {
        html += tr("<a href=\"kernel-source:%1?%2\">Show its source</a> <span "
                   "style=\"color:#6b7280\">%3:%4</span>")
                    .arg(esc(name), esc(found->kernelHash), esc(found->file))
                    .arg(found->code.firstLine);
        if (!found->code.atenOps.empty()) {
            QStringList ops;
            for (const std::string& op : found->code.atenOps)
                ops << esc(op);
            html += tr("<br/>Fuses %1").arg(ops.join(QStringLiteral(", ")));
        }
        // This launch's own nodes and lines when Inductor's provenance tells them (the comment's lines are
        // those of the kernel's first call only), else the kernel's.
        const QString thisCall = inCall ? provenanceCallHtml(*found, *inCall) : QString();
        if (!thisCall.isEmpty())
            html += QStringLiteral("<br/>") + thisCall;
        else if (!found->modelLines.empty())
            html += tr("<br/>From the model's %1").arg(esc(modelLinesText(found->modelLines)));
    } else if (m_searching) {
        html += tr("<span style=\"color:#6b7280\">Looking for its code…</span>");
    } else {
        QString lookedFor;
        if (m_sources)
            for (const auto& [kernel, what] : m_sources->missing)
                if (kernel == name) lookedFor = esc(what);
        if (lookedFor.isEmpty())
            lookedFor =
                launch.kernelFile.empty() ? tr("the trace names no kernel_file") : esc(launch.kernelFile);
        html += tr("Its code is not on this machine (looked for %1)").arg(lookedFor);
    }
    html += tr("<br/><a href=\"kernel-folder:\">Find generated code in a folder…</a> "
               "<span style=\"color:#6b7280\">(an Inductor cache, a torch_compile_debug folder, or where "
               "output_code.py was saved)</span>");
    return html;
}

void DetailsPanel::showEvent(EventRef ref) {
    m_ref = ref;
    m_links.clear();
    if (!ref.isValid() || ref.track.value >= m_store.tracks().size()) {
        setHtml(tr(
            "<p style=\"color:#6b7280\">Click a slice to see its details. Ctrl+drag selects an area.</p>"));
        return;
    }
    const Track& t = m_store.track(ref.track);
    const TimeNs start = t.starts[ref.index.value];
    QString html;
    html += QStringLiteral("<h3 style=\"margin:2px 0\">%1</h3>").arg(esc(m_store.nameOf(ref)));
    html += QStringLiteral("<table cellspacing=0 cellpadding=2>");
    auto row = [&](const QString& k, const QString& v) {
        html += QStringLiteral("<tr><td style=\"color:#4b5563\">%1</td><td>%2</td></tr>").arg(k, v);
    };
    row(tr("Category"), esc(m_store.strings().view(m_store.categoryOf(ref).name)));
    row(tr("Start"), QString::fromStdString(formatTimeOffset(start - m_store.minTime(), 1)) +
                         QStringLiteral(" <span style=\"color:#6b7280\">(ts %1 µs)</span>")
                             .arg(QString::number(double(start) / 1000.0, 'f', 3)));
    row(tr("Duration"), dur(t.durations[ref.index.value]));
    if (t.kind != TrackKind::Counter) row(tr("Self time"), dur(selfTime(m_store, t, ref.index.value)));
    // The track as the timeline names it ("GPU 0 · NVIDIA H100 · stream 7", not "tid 7"), then the raw ids.
    const std::string title = trackTitle(m_store, ref.track);
    row(tr("Track"),
        esc(title) + QStringLiteral(" <span style=\"color:#6b7280\">(pid %1 · tid %2, as written)</span>")
                         .arg(esc(processIdText(m_store, t)), esc(threadIdText(m_store, t))));
    if (auto corr = m_store.correlationOf(ref)) row(tr("Correlation"), QString::number(*corr));
    if (t.flags[ref.index.value] & SliceFlag::Unterminated)
        row(tr("Note"), tr("never closed; ends at the track's last time"));
    if (t.flags[ref.index.value] & SliceFlag::Overlapping)
        row(tr("Note"), tr("overlaps its enclosing slice; drawn with what it encloses on the overflow lanes "
                           "below the track"));
    html += QStringLiteral("</table>");

    // Related events.
    QStringList related;
    if (isLaunchCategory(m_store.categoryOf(ref).kind)) {
        for (EventRef gpu : m_store.gpuWorkOf(ref))
            related << eventLink(gpu, tr("GPU work: "));
    }
    if (isGpuCategory(m_store.categoryOf(ref).kind)) {
        if (auto launch = m_store.launchOf(ref)) {
            related << eventLink(*launch, tr("Launched by: "));
            if (const auto op = launchingOperator(m_store, *launch))
                related << eventLink(*op, tr("Operator: "));
            related << tr("Launch delay: %1 <span style=\"color:#6b7280\">(start − end of the launch call, "
                          "at least 0)</span>")
                           .arg(dur(launchDelay(m_store, ref, *launch)));
        }
    }
    for (const Flow* f : m_store.flowsFrom(ref)) {
        if (f->kind == FlowKind::Launch) continue; // listed above
        related << eventLink(f->target,
                             f->kind == FlowKind::ForwardBackward ? tr("Backward: ") : tr("Flow to: "));
    }
    for (const Flow* f : m_store.flowsInto(ref)) {
        if (f->kind == FlowKind::Launch) continue;
        related << eventLink(f->source,
                             f->kind == FlowKind::ForwardBackward ? tr("Forward: ") : tr("Flow from: "));
    }
    if (!related.isEmpty()) {
        html += QStringLiteral("<h4 style=\"margin:8px 0 2px 0\">%1</h4>").arg(tr("Related"));
        html += related.join(QStringLiteral("<br/>"));
    }

    // The GPU work an operator or annotation launched (through the runtime calls inside it), per kernel name:
    // count and total GPU time, each linked to its longest event.
    if (t.kind == TrackKind::CpuThread && !isLaunchCategory(m_store.categoryOf(ref).kind)) {
        const std::vector<LaunchedWork> launched = gpuWorkLaunchedWithin(m_store, ref);
        if (!launched.empty()) {
            html += QStringLiteral("<h4 style=\"margin:8px 0 2px 0\">%1</h4>").arg(tr("GPU work launched"));
            html += launchedWorkHtml(m_store, launched, &m_links);
        }
    }

    html += generatedCodeHtml(ref);

    // Every slice that encloses it on its thread, outermost first.
    const std::vector<std::uint32_t> parents = enclosingRows(t, ref.index.value);
    if (!parents.empty()) {
        html += QStringLiteral("<h4 style=\"margin:8px 0 2px 0\">%1</h4>").arg(tr("Parents"));
        QStringList chain;
        for (std::uint32_t p : parents)
            chain << eventLink({ref.track, EventIndex(p)});
        html += chain.join(QStringLiteral("<br/>"));
    }

    const std::vector<ArgField> args = decodeArgs(m_store, ref);
    if (!args.empty()) {
        html += QStringLiteral("<h4 style=\"margin:8px 0 2px 0\">%1</h4><table cellspacing=0 cellpadding=2>")
                    .arg(tr("Arguments"));
        for (const ArgField& a : args)
            row(esc(a.key), QStringLiteral("<code>%1</code>").arg(esc(a.value)));
        html += QStringLiteral("</table>");
    }

    // The children are what its self time leaves out (query/selftime.h): for an operator, the operators and
    // calls inside it, past any Python frames between.
    const std::vector<std::uint32_t> children = directChildren(m_store, t, ref.index.value);
    if (!children.empty()) {
        html += QStringLiteral("<h4 style=\"margin:8px 0 2px 0\">%1</h4>")
                    .arg(tr("Children (%1)").arg(children.size()));
        QStringList links;
        for (std::size_t c = 0; c < children.size() && int(c) < maxChildrenListed; ++c)
            links << eventLink({ref.track, EventIndex(children[c])});
        if (int(children.size()) > maxChildrenListed)
            links << tr("… and %1 more").arg(int(children.size()) - maxChildrenListed);
        html += links.join(QStringLiteral("<br/>"));
    }
    setHtml(html);
}

} // namespace kinetoscope
