// SPDX-License-Identifier: MIT
/* qpt: dispatch to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "qpt/qpt.h"

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct cli_command commands[] = {
#define QPT_CMD(n, s) {#n, cmd_##n, s},
#include "cli/commands.def"
#undef QPT_CMD
	{NULL, NULL, NULL},
};

static void usage(FILE *out)
{
	const struct cli_command *c;

	fprintf(out, "usage: qpt [-V|--version] [-h|--help] COMMAND [ARGS]\n\n"
		     "Capture and decode hardware control-flow traces "
		     "(Intel PT) through the perf AUX area.\n\ncommands:\n");
	for (c = commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "\nSee 'qpt help COMMAND' (or 'qpt COMMAND --help').\n");
}

static const struct cli_command *find(const char *name)
{
	const struct cli_command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(name, c->name))
			return c;
	return NULL;
}

/* Run @c with @argc, @argv (argv[0] its name): getopt names argv[0] in its
 * messages, "qpt NAME". */
static int run(const struct cli_command *c, int argc, char **argv)
{
	char prog[64];

	snprintf(prog, sizeof(prog), "qpt %s", c->name);
	argv[0] = prog;
	return c->run(argc, argv);
}

int main(int argc, char **argv)
{
	const struct cli_command *c;

	if (argc < 2) {
		usage(stderr);
		return QPT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* qpt help CMD: CMD --help */
		char *help[] = {argv[2], "--help", NULL};

		c = find(argv[2]);
		if (c)
			return run(c, 2, help);
		argv[1] = argv[2];
	} else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
		   !strcmp(argv[1], "help")) {
		usage(stdout);
		return QPT_EXIT_OK;
	} else if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
		   !strcmp(argv[1], "version")) {
		printf("qpt %s\n", qpt_version());
		return QPT_EXIT_OK;
	} else {
		c = find(argv[1]);
		if (c)
			return run(c, argc - 1, argv + 1);
	}
	cli_error(NULL, "'%s' is not a qpt command", argv[1]);
	usage(stderr);
	return QPT_EXIT_USAGE;
}
