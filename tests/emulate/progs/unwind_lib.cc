// SPDX-License-Identifier: MIT
/* The shared library of unwind_cxx: a function that throws across it. */
#include <stdexcept>

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE int lib_parse(int v)
{
	if (v > 0)
		throw std::invalid_argument("lib_parse");
	return v;
}
