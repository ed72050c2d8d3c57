// SPDX-License-Identifier: MIT
/*
 * Symbol names as people write them: C++ (_Z), Rust (_R, and the legacy
 * _ZN...17h<hash>E form) and D (_D) names demangled by libiberty's
 * cplus_demangle, the demangler binutils, gdb and perf use, with perf's
 * rules: no parameter lists, no Rust hash or crate disambiguator.
 */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "qpt/decode.h"

char *qpt_demangle(const char *name)
{
	if (!name || name[0] != '_' ||
	    (name[1] != 'Z' && name[1] != 'R' && name[1] != 'D'))
		return NULL;
	return cplus_demangle(name, DMGL_ANSI | DMGL_AUTO);
}
