#pragma once

// The analysis tables' models and cells, for the views that use them all.

#include "tables/kerneltablemodel.h"
#include "tables/operatortablemodel.h"
#include "tables/tablecells.h"
