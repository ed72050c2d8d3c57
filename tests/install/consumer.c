// SPDX-License-Identifier: MIT
/* A program built against the installed libqpt: it reads a perf.data and
 * prints its version and the number of records and attrs. */
#include <stdio.h>

#include <qpt/reader.h>

int main(int argc, char **argv)
{
	struct qpt_reader *r = NULL;
	struct qpt_record rec;
	int err, n = 0;

	if (argc != 2)
		return 2;
	err = qpt_reader_open(argv[1], NULL, &r);
	while (!err && (err = qpt_reader_next(r, &rec)) > 0) {
		n++;
		err = 0;
	}
	if (err < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], qpt_strerror(err));
		qpt_reader_free(r);
		return 1;
	}
	printf("qpt %s: %d records, %zu attrs\n", qpt_version(), n,
	       qpt_reader_nr_attrs(r));
	qpt_reader_free(r);
	return 0;
}
