#pragma once

// Every analysis panel, for the views that show them all (the trace view and the capture view).

#include "kernelpanel.h"
#include "memorypanel.h"
#include "modulepanel.h"
#include "operatorpanel.h"
#include "overviewpanel.h"
#include "rooflinepanel.h"
