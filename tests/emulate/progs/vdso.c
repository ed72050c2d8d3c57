// SPDX-License-Identifier: MIT
/* Test program: calls into the vDSO (time(), which has no retry loop to
 * make runs differ) and writes nothing, so that it can run with qpt's
 * stdout as the pipe of qpt record -o -. */
#include <time.h>

static volatile long sink;

int main(void)
{
	int i;

	for (i = 0; i < 3; i++)
		sink += time(NULL) > 0;
	return sink == 3 ? 0 : 1;
}
