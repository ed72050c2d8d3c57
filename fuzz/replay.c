// SPDX-License-Identifier: MIT
/*
 * Runs a libFuzzer entry point over every file of the directories (or
 * files) given, as zstd's regression driver does: the fuzz target's
 * checks (ASan, UBSan) then guard the normal build too.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	/* an exact-size heap copy, so ASan sees reads past the end */
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	/* every prefix of the seed, sampled, as truncated inputs */
	if (n > 0) {
		long step = n / 64 + 1, cut;

		for (cut = 0; cut < n; cut += step) {
			uint8_t *t = malloc(cut ? (size_t)cut : 1);

			memcpy(t, buf, (size_t)cut);
			LLVMFuzzerTestOneInput(t, (size_t)cut);
			free(t);
		}
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, nr = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *d;
		DIR *dir;

		if (stat(argv[i], &st) < 0) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) < 0)
				return 1;
			nr++;
			continue;
		}
		dir = opendir(argv[i]);
		if (!dir)
			return 1;
		while ((d = readdir(dir))) {
			char path[4096];

			if (d->d_name[0] == '.' || strstr(d->d_name, ".md"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], d->d_name);
			if (run_file(path) < 0) {
				closedir(dir);
				return 1;
			}
			nr++;
		}
		closedir(dir);
	}
	printf("%d inputs\n", nr);
	return nr ? 0 : 1;
}
