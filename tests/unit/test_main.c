// SPDX-License-Identifier: GPL-2.0
/* The ptags engine unit tests: one TAP stream, grouped by SPEC section. */
/* One TAP stream (../tap.h); details under the result they explain. */
#define TAP_IMPLEMENTATION
#define TAP_DIAG_PREFIX "#   "
#include "tutil.h"

int main(void)
{
	test_s03_3_read();
	test_s03_2_list();
	test_s03_4_write();
	test_s03_4_cost();
	test_s04_valid();
	test_s05_perms();
	test_s06_tables();
	test_s07_enomem();
	test_s08_limits();
	test_s09_exec();
	test_model();
	return tap_done();
}
