// SPDX-License-Identifier: GPL-2.0
/* The ptags engine unit tests: one TAP stream, grouped by SPEC section. */
#include "tutil.h"

int main(void)
{
	test_s3_read();
	test_s3_list();
	test_s3_write();
	test_s3_cost();
	test_s4_valid();
	test_s5_perms();
	test_s6_tables();
	test_s7_enomem();
	test_s8_limits();
	test_s9_exec();
	test_model();
	return tap_done();
}
