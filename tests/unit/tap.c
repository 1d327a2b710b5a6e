// SPDX-License-Identifier: GPL-2.0
/* A tiny TAP producer: see tap.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define MAX_SECTIONS 32

static struct {
	const char *name;
	unsigned int run, failed;
} sections[MAX_SECTIONS];
static unsigned int nsections, cur, total, failed;

void tap_section(const char *name)
{
	unsigned int i;

	for (i = 0; i < nsections; i++)
		if (!strcmp(sections[i].name, name))
			break;
	if (i == nsections) {
		if (nsections == MAX_SECTIONS)
			bail("too many sections");
		sections[nsections++].name = name;
	}
	cur = i;
	printf("# %s\n", name);
}

bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	total++;
	if (nsections)
		sections[cur].run++;
	if (!cond) {
		failed++;
		if (nsections)
			sections[cur].failed++;
	}
	printf("%sok %u - ", cond ? "" : "not ", total);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

void diag(const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(2);
}

int tap_done(void)
{
	unsigned int i;

	printf("1..%u\n", total);
	for (i = 0; i < nsections; i++)
		printf("# %-34s %4u tests, %u failed\n", sections[i].name,
		       sections[i].run, sections[i].failed);
	printf("# total: %u tests, %u passed, %u failed\n", total,
	       total - failed, failed);
	return failed ? 1 : 0;
}
