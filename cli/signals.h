/* SPDX-License-Identifier: MIT */
/* Signal names and si_code meanings, for qpt record --on-signal and qpt
 * crash. */
#ifndef QPT_CLI_SIGNALS_H
#define QPT_CLI_SIGNALS_H

#include <stdint.h>

/* "SIGSEGV" for 11; NULL for a number without a name. */
const char *cli_signal_name(int sig);
/* A signal by name ("SEGV", "SIGSEGV", case-insensitive) or number. */
int cli_signal_parse(const char *s);
/* A comma-separated list of them as a mask (bit sig - 1); -1 on a bad
 * name (*@bad points at it). */
int cli_signal_list(const char *list, uint64_t *mask, const char **bad);
/* The si_code's name and meaning for @sig ("SEGV_MAPERR", "address not
 * mapped to object"); both NULL when not known. */
void cli_signal_code(int sig, int code, const char **name,
		     const char **meaning);

#endif
