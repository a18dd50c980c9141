#pragma once

#include <QObject>
#include <QPointer>

class QWidget;

namespace kinetoscope {

// The view keys (viewkeys.h: W/S zoom, A/D pan, 0 fit) for a timeline whatever has focus in its view: pressed
// while focus is anywhere in `scope` (a table, a tab bar) or nowhere in its window, they go to `target`,
// unless the focus widget takes text (a line edit, an editable text, a spin box, an editable combo box),
// where they type. Before, they did nothing until the timeline was clicked, and nothing said so. One filter
// on the application, acting only while `target` shows in the active window.
class ViewKeyForwarder : public QObject {
  public:
    ViewKeyForwarder(QWidget* scope, QWidget* target);
    ~ViewKeyForwarder() override;

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    QPointer<QWidget> m_scope;
    QPointer<QWidget> m_target;
};

} // namespace kinetoscope
