/* The same handlers without the pass, under plain_* names: the reference results. */
#define HANDLER(name) plain_##name
#include "handlers.c"
