#!/usr/bin/env bash
# Sets up a fresh machine, builds, and shows what tiny quanta buy: extreme-bimodal
# (99.5% 0.5 us, 0.5% 500 us requests) at load 0.5, processor sharing with a 2 us quantum
# side by side with run-to-completion FCFS, on the same arrivals.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh
build/bin/quanta run --workload extreme-bimodal --load 0.5 --local ps,fcfs --duration-s 5 "$@"
