#pragma once

#include "live/capturesession.h"

#include <QDialog>

class QLineEdit;
class QPlainTextEdit;

namespace kinetoscope {

// Capture > Launch…: program, arguments, working directory, environment, and optionally a trace to replay
// instead of CUPTI (for machines without a GPU, and demos).
class LaunchDialog : public QDialog {
    Q_OBJECT
  public:
    explicit LaunchDialog(QWidget* parent = nullptr);
    live::LaunchSpec spec() const;
    // Fills the fields (remembered across sessions; tests set them directly).
    void setSpec(const live::LaunchSpec& spec);

  private:
    QLineEdit* m_program;
    QLineEdit* m_arguments;
    QLineEdit* m_directory;
    QPlainTextEdit* m_environment;
    QLineEdit* m_replay;
    QLineEdit* m_speed;
};

} // namespace kinetoscope
