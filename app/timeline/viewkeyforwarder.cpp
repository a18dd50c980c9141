#include "timeline/viewkeyforwarder.h"

#include "timeline/viewkeys.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>
#include <QWidget>

namespace kinetoscope {

namespace {
bool takesText(const QWidget* w) {
    if (!w) return false;
    if (qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w)) return true;
    if (const auto* t = qobject_cast<const QTextEdit*>(w)) return !t->isReadOnly();
    if (const auto* t = qobject_cast<const QPlainTextEdit*>(w)) return !t->isReadOnly();
    if (const auto* c = qobject_cast<const QComboBox*>(w)) return c->isEditable();
    return false;
}
} // namespace

ViewKeyForwarder::ViewKeyForwarder(QWidget* scope, QWidget* target)
    : QObject(scope), m_scope(scope), m_target(target) {
    qApp->installEventFilter(this);
}

ViewKeyForwarder::~ViewKeyForwarder() {
    qApp->removeEventFilter(this);
}

bool ViewKeyForwarder::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::KeyPress || !m_scope || !m_target) return false;
    auto* key = static_cast<QKeyEvent*>(event);
    if (!viewKeyOf(key->key()) ||
        (key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)))
        return false;
    // The event is seen once for each widget it propagates to: act on its first receiver only, the focus
    // widget (or the window, when nothing has focus).
    QWidget* focus = QApplication::focusWidget();
    if (watched != (focus ? static_cast<QObject*>(focus) : static_cast<QObject*>(m_target->window())))
        return false;
    if (!m_target->isVisible() || !m_target->window()->isActiveWindow()) return false;
    if (focus && (focus == m_target || m_target->isAncestorOf(focus))) return false; // it has them already
    if (focus && !m_scope->isAncestorOf(focus) && focus->window() == m_target->window() &&
        !focus->inherits("QTabBar"))
        return false; // focus in another part of the window (another tab's view)
    if (takesText(focus)) return false;
    QKeyEvent copy(key->type(), key->key(), key->modifiers(), key->text(), key->isAutoRepeat(), key->count());
    QCoreApplication::sendEvent(m_target, &copy);
    return true;
}

} // namespace kinetoscope
