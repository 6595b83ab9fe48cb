/*
 * call.h -- what the call path (call.c) offers the other modules; the
 * entry points' side of it is sb_rt.h.
 */
#ifndef SB_CALL_PATH_H
#define SB_CALL_PATH_H

#include "rank.h"
#include "sb_rt.h"

/* run at initialisation, once the settings are checked and the model is
 * loaded (the rank argument is NULL): a module that must check or open
 * something before any call adds a hook (a constructor does it) */
extern sb_hooks sb_init_hooks SB_HIDDEN;

/* seconds injected for the rank's calls so far */
SB_HIDDEN double sb_call_injected(sb_rank *r);

#endif
