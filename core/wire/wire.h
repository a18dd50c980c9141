#pragma once

// The live-capture record stream: its records (records.h), the encoder the agent writes with (encoder.h) and
// the hostile-input decoder the viewer reads with (decoder.h).

#include "decoder.h"
#include "encoder.h"
#include "records.h"
