// SPDX-License-Identifier: MIT
/*
 * C++ test program for qpt crash's stack after exceptions, against gdb
 * (unwind.sh).  Each mode dies of a SIGSEGV (a NULL store in crash_here)
 * on a known call path:
 *   caught     main -> Parser::parse -> check throws; main catches;
 *              then main -> g1 -> crash
 *   cleanup    as caught, through a frame with a destructor to run
 *              (Guard: its landing pad resumes the unwind)
 *   rethrow    main -> mid, which catches and rethrows what
 *              Parser::parse threw; main catches; g1 -> crash
 *   lib        main -> lib_parse (the shared library) throws; main
 *              catches; g1 -> crash
 *   in_catch   main -> Parser::parse throws; main catches and, in the
 *              handler, -> on_error -> crash
 */
#include <cstdio>
#include <cstring>
#include <stdexcept>

#define NOINLINE __attribute__((noinline, noclone))

int lib_parse(int v);

static volatile int sink;
static int *volatile nowhere;

NOINLINE void crash_here(int v)
{
	*nowhere = v;
	sink++;
}

NOINLINE void g1(int v)
{
	crash_here(v + 1);
	sink++;
}

NOINLINE void check(int v)
{
	if (v > 0)
		throw std::runtime_error("check");
	sink++;
}

struct Parser {
	int n;
	NOINLINE int parse(int v);
};

NOINLINE int Parser::parse(int v)
{
	check(v);
	return n + v;
}

struct Guard {
	~Guard()
	{
		sink++;
	}
};

NOINLINE int guarded(Parser &p, int v)
{
	Guard g;

	return p.parse(v) + 1;
}

NOINLINE int mid(Parser &p, int v)
{
	try {
		return p.parse(v);
	} catch (const std::exception &) {
		sink++;
		throw;
	}
}

NOINLINE void on_error(int v)
{
	crash_here(v);
	sink++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "caught";
	Parser p = {1};
	int r = 0;

	try {
		if (!strcmp(mode, "caught"))
			r = p.parse(argc);
		else if (!strcmp(mode, "cleanup"))
			r = guarded(p, argc);
		else if (!strcmp(mode, "rethrow"))
			r = mid(p, argc);
		else if (!strcmp(mode, "lib"))
			r = lib_parse(argc);
		else if (!strcmp(mode, "in_catch"))
			r = p.parse(argc);
	} catch (const std::exception &e) {
		if (!strcmp(mode, "in_catch"))
			on_error(argc);
		r = 2;
	}
	g1(r);
	return 0;
}
