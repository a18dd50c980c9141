#pragma once

#include <QWidget>

class QLineEdit;
class QCheckBox;
class QLabel;
class QToolButton;

namespace kinetoscope {

// Ctrl+F: a query field with regex and case toggles, the match count and next/previous.
class SearchBar : public QWidget {
    Q_OBJECT
  public:
    explicit SearchBar(QWidget* parent = nullptr);

    QString text() const;
    bool isRegex() const;
    bool isCaseSensitive() const;
    void setText(const QString& text);
    void setRegex(bool on);
    void setStatus(const QString& text, bool error = false);
    void focusQuery();

  signals:
    void queryChanged();
    void next();
    void previous();
    void closed();

  protected:
    void keyPressEvent(QKeyEvent*) override;

  private:
    QLineEdit* m_edit;
    QCheckBox* m_regex;
    QCheckBox* m_case;
    QLabel* m_status;
};

} // namespace kinetoscope
