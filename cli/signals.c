// SPDX-License-Identifier: MIT
/*
 * Signal names and what si_code says, from <signal.h>'s values (the
 * kernel's include/uapi/asm-generic/siginfo.h).
 */
#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/signals.h"

static const struct {
	int sig;
	const char *name;
} sig_names[] = {
    {SIGHUP, "SIGHUP"},	      {SIGINT, "SIGINT"},	{SIGQUIT, "SIGQUIT"},
    {SIGILL, "SIGILL"},	      {SIGTRAP, "SIGTRAP"},	{SIGABRT, "SIGABRT"},
    {SIGBUS, "SIGBUS"},	      {SIGFPE, "SIGFPE"},	{SIGKILL, "SIGKILL"},
    {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"},	{SIGUSR2, "SIGUSR2"},
    {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"},	{SIGTERM, "SIGTERM"},
    {SIGSTKFLT, "SIGSTKFLT"}, {SIGCHLD, "SIGCHLD"},	{SIGCONT, "SIGCONT"},
    {SIGSTOP, "SIGSTOP"},     {SIGTSTP, "SIGTSTP"},	{SIGTTIN, "SIGTTIN"},
    {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},	{SIGXCPU, "SIGXCPU"},
    {SIGXFSZ, "SIGXFSZ"},     {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},
    {SIGWINCH, "SIGWINCH"},   {SIGIO, "SIGIO"},		{SIGPWR, "SIGPWR"},
    {SIGSYS, "SIGSYS"},
};

const char *cli_signal_name(int sig)
{
	size_t i;

	for (i = 0; i < sizeof(sig_names) / sizeof(sig_names[0]); i++)
		if (sig_names[i].sig == sig)
			return sig_names[i].name;
	return NULL;
}

int cli_signal_parse(const char *s)
{
	char *end;
	long v;
	size_t i;

	if (isdigit((unsigned char)*s)) {
		v = strtol(s, &end, 10);
		return *end || v < 1 || v > 64 ? -1 : (int)v;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (i = 0; i < sizeof(sig_names) / sizeof(sig_names[0]); i++)
		if (!strcasecmp(sig_names[i].name + 3, s))
			return sig_names[i].sig;
	return -1;
}

int cli_signal_list(const char *list, uint64_t *mask, const char **bad)
{
	char buf[32];
	const char *p = list;
	size_t n;
	int sig;

	*mask = 0;
	while (*p) {
		n = strcspn(p, ",");
		if (!n || n >= sizeof(buf)) {
			*bad = p;
			return -1;
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		sig = cli_signal_parse(buf);
		if (sig < 0) {
			*bad = p;
			return -1;
		}
		*mask |= 1ULL << (sig - 1);
		p += n;
		if (*p == ',')
			p++;
	}
	return *mask ? 0 : ((*bad = list), -1);
}

struct code_name {
	int sig, code;
	const char *name, *meaning;
};

static const struct code_name codes[] = {
    {SIGSEGV, SEGV_MAPERR, "SEGV_MAPERR", "address not mapped to object"},
    {SIGSEGV, SEGV_ACCERR, "SEGV_ACCERR",
     "invalid permissions for mapped object"},
    {SIGSEGV, 3, "SEGV_BNDERR", "failed address bound checks"},
    {SIGSEGV, 4, "SEGV_PKUERR", "failed protection key checks"},
    {SIGBUS, BUS_ADRALN, "BUS_ADRALN", "invalid address alignment"},
    {SIGBUS, BUS_ADRERR, "BUS_ADRERR", "nonexistent physical address"},
    {SIGBUS, BUS_OBJERR, "BUS_OBJERR", "object-specific hardware error"},
    {SIGILL, ILL_ILLOPC, "ILL_ILLOPC", "illegal opcode"},
    {SIGILL, ILL_ILLOPN, "ILL_ILLOPN", "illegal operand"},
    {SIGILL, ILL_ILLADR, "ILL_ILLADR", "illegal addressing mode"},
    {SIGILL, ILL_ILLTRP, "ILL_ILLTRP", "illegal trap"},
    {SIGILL, ILL_PRVOPC, "ILL_PRVOPC", "privileged opcode"},
    {SIGILL, ILL_PRVREG, "ILL_PRVREG", "privileged register"},
    {SIGILL, ILL_COPROC, "ILL_COPROC", "coprocessor error"},
    {SIGILL, ILL_BADSTK, "ILL_BADSTK", "internal stack error"},
    {SIGFPE, FPE_INTDIV, "FPE_INTDIV", "integer divide by zero"},
    {SIGFPE, FPE_INTOVF, "FPE_INTOVF", "integer overflow"},
    {SIGFPE, FPE_FLTDIV, "FPE_FLTDIV", "floating-point divide by zero"},
    {SIGFPE, FPE_FLTOVF, "FPE_FLTOVF", "floating-point overflow"},
    {SIGFPE, FPE_FLTUND, "FPE_FLTUND", "floating-point underflow"},
    {SIGFPE, FPE_FLTRES, "FPE_FLTRES", "floating-point inexact result"},
    {SIGFPE, FPE_FLTINV, "FPE_FLTINV", "floating-point invalid operation"},
    {SIGFPE, FPE_FLTSUB, "FPE_FLTSUB", "subscript out of range"},
    {SIGTRAP, TRAP_BRKPT, "TRAP_BRKPT", "process breakpoint"},
    {SIGTRAP, TRAP_TRACE, "TRAP_TRACE", "process trace trap"},
    {SIGSYS, 1, "SYS_SECCOMP", "seccomp triggered"},
    /* any signal */
    {0, SI_USER, "SI_USER", "sent by kill"},
    {0, SI_KERNEL, "SI_KERNEL", "sent by the kernel"},
    {0, SI_QUEUE, "SI_QUEUE", "sent by sigqueue"},
    {0, SI_TIMER, "SI_TIMER", "POSIX timer expired"},
    {0, SI_MESGQ, "SI_MESGQ", "POSIX message queue state changed"},
    {0, SI_ASYNCIO, "SI_ASYNCIO", "AIO completed"},
    {0, SI_SIGIO, "SI_SIGIO", "queued SIGIO"},
    {0, SI_TKILL, "SI_TKILL", "sent by tkill or tgkill (raise, abort)"},
};

void cli_signal_code(int sig, int code, const char **name,
		     const char **meaning)
{
	size_t i;

	*name = *meaning = NULL;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		/* codes above 0 are the signal's own; 0 and below any's */
		if (codes[i].code != code ||
		    (code > 0 && code != SI_KERNEL && codes[i].sig != sig))
			continue;
		*name = codes[i].name;
		*meaning = codes[i].meaning;
		return;
	}
}
