// `quanta serve`: the runtime behind network front ends until a signal (or --duration-s),
// then the run's statistics in `quanta run`'s schema plus the network counters.
#pragma once

#include "serve_options.h"

namespace quanta {

int serve_command(const ServeOptions& options);

}  // namespace quanta
