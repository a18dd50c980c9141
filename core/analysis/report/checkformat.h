#pragma once

// `kinetoscope-cli check`'s verdict as text, JSON (--json) or Markdown for a CI job summary (--markdown):
// each regression with its baseline, new value, change, the threshold it crossed and a kinetoscope:// link.

#include "analysis/report/regressioncheck.h"

#include <string>

namespace kinetoscope {

std::string checkToText(const CheckReport& report);
std::string checkToJson(const CheckReport& report);
std::string checkToMarkdown(const CheckReport& report);

} // namespace kinetoscope
