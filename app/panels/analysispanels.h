#pragma once

// Every analysis panel, for the views that show them all (the trace view and the capture view).

#include "panels/compiledpanel.h"
#include "panels/kernelpanel.h"
#include "panels/memorypanel.h"
#include "panels/modulepanel.h"
#include "panels/operatorpanel.h"
#include "panels/overviewpanel.h"
#include "panels/rooflinepanel.h"
