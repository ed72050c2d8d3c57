// SPDX-License-Identifier: MIT
/* The library emu_dl loads (libemu_plugin.so). */
int plugin_work(int n);

int plugin_work(int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++) {
		if (i % 3)
			s += i;
		else
			s ^= i;
	}
	return s;
}
