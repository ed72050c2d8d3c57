// SPDX-License-Identifier: MIT
/*
 * The crash example of scripts/demo.sh: a tiny parser whose table lookup
 * dereferences NULL for a key without a value.  The first input has a key
 * the table does not know: lookup throws, main catches it and goes on
 * with the next input, where the lookup faults.  qpt record --emulate
 * --snapshot keeps the last moments; qpt crash tells them: the stack
 * after the caught exception, and the throw.
 */
#include <cstdio>
#include <stdexcept>

struct entry {
	char key;
	const int *value;
};

static const int one = 1, two = 2;
static const entry table[] = {{'a', &one}, {'b', &two}, {'c', nullptr}};

__attribute__((noinline)) int lookup(char key)
{
	for (const entry &e : table)
		if (e.key == key)
			return *e.value;	/* demo: the fault */
	throw std::out_of_range("no such key"); /* demo: the throw */
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
	const char *inputs[] = {"abx", argc > 1 ? argv[1] : "abc"};

	for (const char *in : inputs) {
		try {
			printf("%d\n", parse(in)); /* demo: main */
		} catch (const std::out_of_range &e) {
			printf("%s: %s\n", in, e.what());
		}
	}
	return 0;
}
