/* SPDX-License-Identifier: MIT */
/* The unit cases of onnx_ops_test.c. */
static void run_unit_cases(void)
{
	(void)t_case_failed;
}
