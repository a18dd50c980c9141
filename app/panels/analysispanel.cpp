#include "panels/analysispanel.h"

// AnalysisPanel is an interface; this file gives its signals a home for moc.
