// SPDX-License-Identifier: MIT
/*
 * The crash example of scripts/demo.sh: a tiny parser whose table lookup
 * dereferences NULL for a key without a value.  qpt record --emulate
 * --snapshot keeps its last moments; qpt crash tells them.
 */
#include <stdio.h>

struct entry {
	char key;
	const int *value;
};

static const int one = 1, two = 2;
static const struct entry table[] = {{'a', &one}, {'b', &two}, {'c', NULL}};

__attribute__((noinline)) int lookup(char key)
{
	unsigned i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].key == key)
			return *table[i].value; /* demo: the fault */
	return 0;
}

__attribute__((noinline)) int parse(const char *s)
{
	int sum = 0;

	for (; *s; s++)
		sum += lookup(*s); /* demo: the call */
	return sum;
}

int main(int argc, char **argv)
{
	printf("%d\n", parse(argc > 1 ? argv[1] : "abc")); /* demo: main */
	return 0;
}
