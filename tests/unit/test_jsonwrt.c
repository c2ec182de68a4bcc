/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The streaming JSON writer must write what cJSON prints for the same
 * document, byte for byte, compact and pretty: every command's output went
 * through cJSON before, and its readers (and the goldens) expect that form. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The writer lives with the commands (it prints), not in the library. */
#include "../../cmd/render/jsonwrt.c"

static char *written(const cJSON *doc, bool pretty)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	struct np_jw jw;
	np_jw_init(&jw, f, pretty);
	np_jw_cjson(&jw, NULL, doc);
	assert_int_equal(np_jw_finish(&jw), 0);
	fclose(f);
	return text;
}

static void assert_same(const cJSON *doc)
{
	for (int pretty = 0; pretty <= 1; pretty++) {
		char *want = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
		char *got = written(doc, pretty);
		assert_non_null(want);
		/* np_jw_finish ends the document with a newline, as puts did. */
		size_t n = strlen(got);
		assert_true(n > 0 && got[n - 1] == '\n');
		got[n - 1] = '\0';
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
}

static void test_numbers(void **state)
{
	(void)state;
	static const double values[] = {
		0, 1, -1, 42, 0.42, 0.1, 1.0 / 3, 2.0 / 3, 0.5, 1e-7, 123456.789, INT_MAX, (double)INT_MAX + 1,
		INT_MIN, (double)INT_MIN - 1, 4294967296.0, 999999999999999.0, 1e15, 1e16, 9007199254740993.0,
		18446744073709551615.0, 1.5e300, DBL_MAX, DBL_MIN, 5e-324, -0.25, 3.14159265358979, 100.0 / 7,
	};
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(values[i]));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(NAN));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(INFINITY));
	assert_same(a);
	cJSON_Delete(a);
}

/* Numbers cJSON prints in 15 digits (rates over whole seconds, shares),
 * and ones it needs 17 for, from every range: np_jw_number writes the
 * short decimals without printf, and must print what cJSON prints. */
static void test_numbers_spread(void **state)
{
	(void)state;
	cJSON *a = cJSON_CreateArray();
	uint64_t s = 99991;
	for (int i = 0; i < 30000; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		double d;
		switch (i % 6) {
		case 0: d = (double)(s % 10000000000ULL) / 1000.0; break;
		case 1: d = (double)(s % 1000000) / 997.0; break;
		case 2: d = (double)(s % 100000) / 1e5; break;
		case 3: d = -(double)(s % 1000000000) / 1000.0; break;
		case 4: memcpy(&d, &s, sizeof(d)); d = isfinite(d) ? d : 1.5; break;
		default: d = (double)(s % 1000) / pow(10, (double)(s >> 60)); break;
		}
		cJSON_AddItemToArray(a, cJSON_CreateNumber(d));
	}
	assert_same(a);
	cJSON_Delete(a);
}

/* What np_jw_int (is_signed) or np_jw_uint writes for v, without the newline. */
static char *written_integer(bool is_signed, long long sv, unsigned long long uv)
{
	char *got = NULL;
	size_t len;
	FILE *f = open_memstream(&got, &len);
	assert_non_null(f);
	struct np_jw jw;
	np_jw_init(&jw, f, false);
	if (is_signed)
		np_jw_int(&jw, NULL, sv);
	else
		np_jw_uint(&jw, NULL, uv);
	assert_int_equal(np_jw_finish(&jw), 0);
	fclose(f);
	got[strlen(got) - 1] = '\0';
	return got;
}

static void assert_integer_as_cjson(double as_double, char *got)
{
	cJSON *n = cJSON_CreateNumber(as_double);
	char *want = cJSON_PrintUnformatted(n);
	assert_string_equal(got, want);
	free(want);
	free(got);
	cJSON_Delete(n);
}

/* np_jw_int writes what cJSON writes for the same count as a double. */
static void test_ints(void **state)
{
	(void)state;
	static const long long values[] = {
		0, 7, -7, INT_MAX, (long long)INT_MAX + 1, INT_MIN, 999999999999999LL, 1000000000000000LL,
		-1000000000000000LL, 9007199254740993LL, LLONG_MAX, LLONG_MIN,
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		assert_integer_as_cjson((double)values[i], written_integer(true, values[i], 0));
}

/* np_jw_uint the same for counts past LLONG_MAX. */
static void test_uints(void **state)
{
	(void)state;
	static const unsigned long long values[] = { 0, 999999999999999ULL, 1000000000000000ULL, ULLONG_MAX };
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		assert_integer_as_cjson((double)values[i], written_integer(false, 0, values[i]));
}

static void test_strings(void **state)
{
	(void)state;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "plain", "eth0");
	cJSON_AddStringToObject(o, "quote\"key", "say \"hi\" \\ back\\slash");
	cJSON_AddStringToObject(o, "controls", "a\tb\nc\rd\be\ff\x01g\x1fh\x7fi");
	cJSON_AddStringToObject(o, "utf8", "n\xc3\xa9" "ud \xe2\x86\x92 0");
	cJSON_AddStringToObject(o, "empty", "");
	/* Longer than the writer's buffer, and escapes across its end. */
	char *big = malloc(200001);
	for (size_t i = 0; i < 200000; i++)
		big[i] = i % 1000 == 999 ? '\n' : (char)('a' + i % 26);
	big[200000] = '\0';
	cJSON_AddStringToObject(o, "big", big);
	free(big);
	/* Strings are passed eight bytes at a time until one needs care: each
	 * such byte at every offset of the first, second and third eight. */
	static const char *const special[] = { "\"", "\\", "\n", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x86\x92" };
	for (size_t s = 0; s < sizeof(special) / sizeof(*special); s++) {
		for (size_t at = 0; at <= 24; at++) {
			char text[64], key[16];
			snprintf(text, sizeof(text), "%.*s%s%s", (int)at, "abcdefghijklmnopqrstuvwxyz", special[s], "ABCDEFGHIJ");
			snprintf(key, sizeof(key), "s%zu_%zu", s, at);
			cJSON_AddStringToObject(o, key, text);
		}
	}
	cJSON_AddNullToObject(o, "null");
	cJSON_AddTrueToObject(o, "yes");
	cJSON_AddFalseToObject(o, "no");
	assert_same(o);
	cJSON_Delete(o);
}

/* Depth, empty containers and arrays of objects: where cJSON's pretty form
 * puts its newlines and tabs. */
static void test_nesting(void **state)
{
	(void)state;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "schema", 1);
	cJSON_AddObjectToObject(doc, "empty_object");
	cJSON_AddArrayToObject(doc, "empty_array");
	cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
	for (int i = 0; i < 3; i++) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddNumberToObject(r, "irq", 100 + i);
		cJSON *per = cJSON_AddObjectToObject(r, "per_node");
		cJSON_AddNumberToObject(per, "0", i);
		cJSON_AddNumberToObject(per, "1", 0.5 * i);
		cJSON *list = cJSON_AddArrayToObject(r, "list");
		cJSON_AddItemToArray(list, cJSON_CreateString("a"));
		cJSON_AddItemToArray(list, cJSON_CreateArray());
		cJSON_AddItemToArray(list, cJSON_CreateObject());
		cJSON_AddItemToArray(rows, r);
	}
	cJSON *deep = doc;
	for (int i = 0; i < 10; i++)
		deep = cJSON_AddObjectToObject(deep, "d");
	cJSON_AddStringToObject(deep, "leaf", "x");
	assert_same(doc);
	assert_same(rows);
	cJSON_Delete(doc);
}

/* The calls a command makes, against the tree cJSON prints. */
static void test_streamed_calls(void **state)
{
	(void)state;
	char *got = NULL;
	size_t len;
	for (int pretty = 0; pretty <= 1; pretty++) {
		FILE *f = open_memstream(&got, &len);
		struct np_jw jw;
		np_jw_init(&jw, f, pretty);
		np_jw_object(&jw, NULL);
		np_jw_int(&jw, "schema", 1);
		np_jw_str(&jw, "hostname", NULL);
		np_jw_array(&jw, "irqs");
		np_jw_object(&jw, NULL);
		np_jw_int(&jw, "irq", 0);
		np_jw_number(&jw, "remote_share", 0.25);
		np_jw_bool(&jw, "managed", false);
		np_jw_close(&jw);
		np_jw_close(&jw);
		np_jw_close(&jw);
		assert_int_equal(np_jw_finish(&jw), 0);
		fclose(f);

		cJSON *doc = cJSON_CreateObject(), *irqs, *irq = cJSON_CreateObject();
		cJSON_AddNumberToObject(doc, "schema", 1);
		cJSON_AddNullToObject(doc, "hostname");
		irqs = cJSON_AddArrayToObject(doc, "irqs");
		cJSON_AddNumberToObject(irq, "irq", 0);
		cJSON_AddNumberToObject(irq, "remote_share", 0.25);
		cJSON_AddFalseToObject(irq, "managed");
		cJSON_AddItemToArray(irqs, irq);
		char *want = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
		got[strlen(got) - 1] = '\0';
		assert_string_equal(got, want);
		free(want);
		free(got);
		cJSON_Delete(doc);
	}
}

/* A table's keys made once (np_jw_key) before each kind of value, beside
 * keys written in full, and the counts under numeric keys: what cJSON
 * prints for the same rows. A key to escape or too long is not made. */
static void test_made_keys(void **state)
{
	(void)state;
	static const char *const names[] = { "irq", "name", "per_node", "nested", "none", "share", "big" };
	for (int pretty = 0; pretty <= 1; pretty++) {
		char *got = NULL;
		size_t len;
		FILE *f = open_memstream(&got, &len);
		struct np_jw jw;
		np_jw_init(&jw, f, pretty);
		struct np_jw_key keys[7], odd;
		for (int k = 0; k < 7; k++)
			assert_true(np_jw_key_init(&jw, &keys[k], names[k]));
		assert_false(np_jw_key_init(&jw, &odd, "a\"b"));
		assert_false(np_jw_key_init(&jw, &odd, "a key of sixty-one characters, beyond the room of the key...."));
		np_jw_array(&jw, NULL);
		for (int row = 0; row < 2; row++) {
			np_jw_object(&jw, NULL);
			np_jw_key(&jw, &keys[0]);
			np_jw_int(&jw, NULL, row);
			np_jw_key(&jw, &keys[1]);
			np_jw_str(&jw, NULL, row ? "eth0-TxRx-1" : "tab\there");
			np_jw_str(&jw, "a\"b", "escaped key");
			np_jw_key(&jw, &keys[2]);
			np_jw_object(&jw, NULL);
			np_jw_count(&jw, 0, 0);
			np_jw_count(&jw, -12, 999999999999999ULL);
			np_jw_count(&jw, LLONG_MAX, 1000000000000000ULL);
			np_jw_close(&jw);
			np_jw_key(&jw, &keys[3]);
			np_jw_array(&jw, NULL);
			np_jw_bool(&jw, NULL, true);
			np_jw_close(&jw);
			np_jw_key(&jw, &keys[4]);
			np_jw_str(&jw, NULL, NULL);
			np_jw_key(&jw, &keys[5]);
			np_jw_number(&jw, NULL, 0.25);
			np_jw_key(&jw, &keys[6]);
			np_jw_uint(&jw, NULL, 18446744073709551615ULL);
			np_jw_close(&jw);
		}
		np_jw_close(&jw);
		assert_int_equal(np_jw_finish(&jw), 0);
		fclose(f);

		cJSON *doc = cJSON_CreateArray();
		for (int row = 0; row < 2; row++) {
			cJSON *o = cJSON_CreateObject(), *counts = cJSON_CreateObject(), *a = cJSON_CreateArray();
			cJSON_AddNumberToObject(o, "irq", row);
			cJSON_AddStringToObject(o, "name", row ? "eth0-TxRx-1" : "tab\there");
			cJSON_AddStringToObject(o, "a\"b", "escaped key");
			cJSON_AddNumberToObject(counts, "0", 0);
			cJSON_AddNumberToObject(counts, "-12", 999999999999999.0);
			cJSON_AddNumberToObject(counts, "9223372036854775807", 1e15);
			cJSON_AddItemToObject(o, "per_node", counts);
			cJSON_AddItemToArray(a, cJSON_CreateTrue());
			cJSON_AddItemToObject(o, "nested", a);
			cJSON_AddNullToObject(o, "none");
			cJSON_AddNumberToObject(o, "share", 0.25);
			cJSON_AddNumberToObject(o, "big", 18446744073709551615.0);
			cJSON_AddItemToArray(doc, o);
		}
		char *want = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
		got[strlen(got) - 1] = '\0';
		assert_string_equal(got, want);
		free(want);
		free(got);
		cJSON_Delete(doc);
	}
}

/* A close too many, or a document left open, is a failure, not a silent
 * half document. */
static void test_unbalanced(void **state)
{
	(void)state;
	char *got = NULL;
	size_t len;
	FILE *f = open_memstream(&got, &len);
	struct np_jw jw;
	np_jw_init(&jw, f, false);
	np_jw_object(&jw, NULL);
	assert_int_equal(np_jw_finish(&jw), -ENOMEM);
	np_jw_init(&jw, f, false);
	np_jw_close(&jw);
	assert_int_equal(np_jw_finish(&jw), -ENOMEM);
	fclose(f);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers), cmocka_unit_test(test_numbers_spread), cmocka_unit_test(test_ints),           cmocka_unit_test(test_uints),
		cmocka_unit_test(test_strings), cmocka_unit_test(test_nesting),        cmocka_unit_test(test_streamed_calls),
		cmocka_unit_test(test_unbalanced), cmocka_unit_test(test_made_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
