/* test_smtp.c - the quoted-printable downgrade for servers without 8BITMIME. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smtp.h"

/* A reference decoder (RFC 2045 6.7): soft breaks vanish, =XX is a byte. */
static size_t qp_decode(const char *in, size_t n, char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		if (in[i] == '=' && i + 2 < n && in[i + 1] == '\r' && in[i + 2] == '\n') {
			i += 3;
		} else if (in[i] == '=' && i + 2 < n) {
			char h[3] = { in[i + 1], in[i + 2], 0 };

			out[o++] = (char)strtol(h, NULL, 16);
			i += 3;
		} else {
			out[o++] = in[i++];
		}
	}
	return o;
}

static void check_roundtrip(const char *msg)
{
	size_t len = strlen(msg), olen = 0, dlen;
	char *q = rm_smtp_downgrade_qp(msg, len, &olen);
	const char *body = strstr(msg, "\r\n\r\n") + 4, *qbody;
	char *dec;
	size_t i, col = 0;

	assert_non_null(q);
	qbody = strstr(q, "\r\n\r\n") + 4;
	/* 7-bit, lines of at most 76 characters, the header says so */
	for (i = 0; i < olen; i++) {
		assert_true((unsigned char)q[i] < 0x80);
		col = q[i] == '\n' ? 0 : col + 1;
		assert_true(col <= 77); /* 76 plus the CR */
	}
	assert_non_null(strstr(q, "\r\nContent-Transfer-Encoding: quoted-printable\r\n"));
	assert_null(strstr(q, "8bit"));
	dec = malloc(olen + 1);
	dlen = qp_decode(qbody, (size_t)(q + olen - qbody), dec);
	assert_int_equal(dlen, strlen(body));
	assert_memory_equal(dec, body, dlen);
	free(dec);
	free(q);
}

static void test_qp_latin1_table(void **state)
{
	(void)state;
	check_roundtrip("Subject: x\r\nContent-Type: text/plain; charset=\"iso-8859-1\"\r\n"
			"Content-Transfer-Encoding: 8bit\r\n\r\n"
			"      2.00 \xb1 10%      +3.1%       4.0 \xb1  5%  stress-ng.time\r\n"
			"a = b\r\n\ttab\r\n");
}

static void test_qp_trailing_blanks_and_long_lines(void **state)
{
	char msg[2000];
	size_t n;

	(void)state;
	n = (size_t)snprintf(msg, sizeof(msg), "Subject: y\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
				 "commit: \r\nends with a tab\t\r\n\xe9\xe9 \r\n");
	/* a 300-character line of 8-bit bytes and '=' signs: soft breaks */
	for (int i = 0; i < 300; i++)
		msg[n++] = (char)(i % 3 == 0 ? '=' : i % 3 == 1 ? '\xb1' : 'x');
	memcpy(msg + n, "\r\nlast line without a line end", 31);
	check_roundtrip(msg);
}

static void test_qp_exact_bytes(void **state)
{
	const char *m = "A: b\r\nContent-Transfer-Encoding: 8bit\r\n\r\nx \r\n\xb1=\r\n";
	size_t olen;
	char *q = rm_smtp_downgrade_qp(m, strlen(m), &olen);

	(void)state;
	assert_string_equal(q, "A: b\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nx=20\r\n=B1=3D\r\n");
	free(q);
	/* no header/body split: nothing to downgrade */
	assert_null(rm_smtp_downgrade_qp("A: b\r\n", 6, &olen));
}

const struct CMUnitTest unit_smtp_tests[] = {
	cmocka_unit_test(test_qp_latin1_table),
	cmocka_unit_test(test_qp_trailing_blanks_and_long_lines),
	cmocka_unit_test(test_qp_exact_bytes),
};
const size_t unit_smtp_ntests = sizeof(unit_smtp_tests) / sizeof(unit_smtp_tests[0]);
