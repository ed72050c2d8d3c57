/* SPDX-License-Identifier: MIT */
/*
 * The simulated Intel PT of the PMU source's tests (sim_crash.c,
 * rec_uprobe.c): 32-byte units, each a PSB+ whose TSC packet holds the
 * unit's number (perf report -D prints it), so that which units a
 * snapshot holds can be read back from the file.
 */
#ifndef QPT_TESTS_CAPTURE_SIM_UNIT_H
#define QPT_TESTS_CAPTURE_SIM_UNIT_H

#include <stdint.h>
#include <string.h>

#define SIM_UNIT 32

/* Unit @n at @u: PSB, TSC(n), PSBEND, PADs. */
static inline void sim_unit_fill(uint8_t *u, uint64_t n)
{
	static const uint8_t psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
					0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
					0x02, 0x82, 0x02, 0x82};

	memset(u, 0, SIM_UNIT);
	memcpy(u, psb, sizeof(psb));
	u[16] = 0x19; /* TSC: 7 bytes of payload */
	memcpy(u + 17, &n, 7);
	u[24] = 0x02; /* PSBEND */
	u[25] = 0x23;
}

#endif
