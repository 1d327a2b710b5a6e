/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TAP producer of the host unit tests (tests/unit), the host tests of
 * libptags (tests/lib) and the in-guest tests (tests/guest, through
 * guest.h).  Every ok() line is one test, numbered from 1; tap_done()
 * prints the plan last.  tap_section() (the unit tests) names the part of
 * the SPEC that the following tests count under, for a summary per
 * section after the plan.
 *
 * One file of each program defines TAP_IMPLEMENTATION before it includes
 * this header, which then defines the functions as well: test_main.c of
 * the unit tests, test_lib.c, and guest.h (a guest test is one file).  A
 * program may define TAP_DIAG_PREFIX there too: what diag() puts before
 * its text (default "# ").
 */
#ifndef PTAGS_TAP_H
#define PTAGS_TAP_H

#include <stdbool.h>

/* One TAP result: "ok N - ..." or "not ok N - ..."; returns @cond. */
bool ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A comment line. */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "Bail out! ...": a setup step failed; exits with status 2. */
void bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The same with " (errno N: text)" of the errno when it was called. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The tests from here on count under @name (a string that lives on). */
void tap_section(const char *name);
/* The plan, the summary of the sections; the exit status for main(). */
int tap_done(void);

#endif /* PTAGS_TAP_H */

#if defined(TAP_IMPLEMENTATION) && !defined(PTAGS_TAP_DEFINED)
#define PTAGS_TAP_DEFINED

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TAP_DIAG_PREFIX
#define TAP_DIAG_PREFIX "# "
#endif
#define TAP_MAX_SECTIONS 32

static struct {
	const char *name;
	unsigned int run, failed;
} tap_sections[TAP_MAX_SECTIONS];
static unsigned int tap_nsections, tap_cur, tap_count, tap_failures;

bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (tap_nsections)
		tap_sections[tap_cur].run++;
	if (!cond) {
		tap_failures++;
		if (tap_nsections)
			tap_sections[tap_cur].failed++;
	}
	printf("%sok %u - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs(TAP_DIAG_PREFIX, stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void __attribute__((noreturn))
tap_bail(int err, const char *fmt, va_list ap)
{
	fputs("Bail out! ", stdout);
	vprintf(fmt, ap);
	if (err >= 0)
		printf(" (errno %d: %s)", err, strerror(err));
	putchar('\n');
	fflush(stdout);
	exit(2);
}

void bail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_bail(-1, fmt, ap);
}

void die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	tap_bail(err, fmt, ap);
}

void tap_section(const char *name)
{
	unsigned int i;

	for (i = 0; i < tap_nsections; i++)
		if (!strcmp(tap_sections[i].name, name))
			break;
	if (i == tap_nsections) {
		if (tap_nsections == TAP_MAX_SECTIONS)
			bail("too many sections");
		tap_sections[tap_nsections++].name = name;
	}
	tap_cur = i;
	printf("# %s\n", name);
}

int tap_done(void)
{
	unsigned int i;

	printf("1..%u\n", tap_count);
	for (i = 0; i < tap_nsections; i++)
		printf("# %-34s %4u tests, %u failed\n", tap_sections[i].name,
		       tap_sections[i].run, tap_sections[i].failed);
	if (tap_nsections)
		printf("# total: %u tests, %u passed, %u failed\n", tap_count,
		       tap_count - tap_failures, tap_failures);
	fflush(stdout);
	return tap_failures ? 1 : 0;
}

#endif /* TAP_IMPLEMENTATION */
