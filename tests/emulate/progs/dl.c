// SPDX-License-Identifier: MIT
/*
 * A library loaded at run time, run, unloaded, loaded again and run
 * again (the emulated source must see its code come and go).
 *   dl LIBRARY
 */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*work_fn)(int);

static int run_once(const char *path, int n)
{
	void *h = dlopen(path, RTLD_NOW);
	work_fn f;
	int r;

	if (!h)
		return -1;
	f = (work_fn)dlsym(h, "plugin_work");
	r = f ? f(n) : -1;
	dlclose(h);
	return r;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	printf("%d %d\n", run_once(argv[1], 100), run_once(argv[1], 50));
	return 0;
}
