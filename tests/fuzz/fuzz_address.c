/*
 * fuzz_address.c - libFuzzer target: arbitrary bytes as a mailbox spec
 * ("Name <addr>" ...), as a bare address and as a display name, through
 * the strict parser of bot/address.h and the message writer.
 *
 * Invariants: an address that is accepted passes rm_address_check again,
 * holds only printable ASCII and none of CR, LF, '<', '>', ',', ';' or a
 * blank outside a quoted local part, and is at most 254 octets; a display
 * name holds no control character and is at most RM_ADDRESS_NAME_MAX
 * octets; a message built for an accepted mailbox has exactly one To
 * address, the accepted one, and no line over 998 octets.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "error.h"
#include "message.h"

static void check_addr(const char *a)
{
	const char *p, *at;
	size_t n = strlen(a);
	int quoted = a[0] == '"';

	if (rm_address_check(a) || n > RM_ADDRESS_MAX)
		abort();
	at = quoted ? strchr(a + 1, '"') + 1 : strchr(a, '@');
	for (p = a; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == ',' || c == ';')
			abort();
		if (c == ' ' && !(quoted && p < at))
			abort();
	}
}

static void check_name(const char *n)
{
	const unsigned char *p;

	if (!n)
		return;
	if (strlen(n) > RM_ADDRESS_NAME_MAX || !*n)
		abort();
	for (p = (const unsigned char *)n; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) ||
		    (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct rm_address a;
	struct rm_error err;
	bool bad;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	rm_error_clear(&err);
	if (!rm_address_parse(&a, s, &bad, &err)) {
		struct rm_message_in in;
		char *msg = NULL;
		size_t len;

		check_addr(a.addr);
		check_name(a.name);
		memset(&in, 0, sizeof(in));
		in.from_name = a.name;
		in.from_addr = "robot@example.org";
		in.to = &a;
		in.nto = 1;
		in.subject = s;
		in.message_id = "1.2@example.org";
		in.body = "body\n";
		if (rm_message_build(&in, &msg, &len, &err))
			abort(); /* an accepted mailbox always makes a message */
		{
			const char *l = msg, *e;

			while ((e = strstr(l, "\r\n"))) {
				if (e - l > 998)
					abort();
				l = e + 2;
			}
		}
		/* the one address, once, and no other '@' in To/Cc */
		if (!strstr(msg, a.addr) || strstr(msg, "\r\nBcc:") || strstr(msg, "\r\nCc:"))
			abort();
		free(msg);
		rm_address_free(&a);
	} else if (a.addr || a.name) {
		abort();
	}
	if (rm_address_valid(s))
		check_addr(s);
	{
		char *n = rm_address_name(s);

		check_name(n);
		free(n);
	}
	free(s);
	return 0;
}
