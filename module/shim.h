/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's side of the engine's shim (shim.c implements
 * engine/engine_shim.h), and what the module adds to it.
 */
#ifndef PTAGS_SHIM_H
#define PTAGS_SHIM_H

#include "engine/engine.h"

int ptags_shim_init(void);
void ptags_shim_uninit(void);
bool ptags_set_tryget(struct pt_set *s);

#endif /* PTAGS_SHIM_H */
