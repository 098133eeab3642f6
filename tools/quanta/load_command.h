#pragma once

#include "load_options.h"

namespace quanta {

// Draws the send schedule, builds and sends the requests, waits for the replies and prints
// the report. Returns the exit status: 0, or 1 when the target cannot be reached.
int load_command(const LoadOptions& options);

}  // namespace quanta
