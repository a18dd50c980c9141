#pragma once

// The analysis tables' models and cells, for the views that use them all.

#include "kerneltablemodel.h"
#include "operatortablemodel.h"
#include "tablecells.h"
