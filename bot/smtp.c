/* smtp.c - see smtp.h. */
#include "smtp.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strbuf.h"

#define MAX_RCPTS 1000

struct rm_smtp {
	struct rm_smtp_cfg cfg;
	char *url;
	CURL *easy;
	/* per message */
	const char *bytes;
	size_t len, pos;
	char *const *rcpts;
	size_t nrcpts;
	int *codes;          /* RCPT reply codes */
	char **texts;
	long current;        /* index of the RCPT awaiting a reply, -1 none */
	struct rm_sb inbuf;  /* partial reply lines */
};

static size_t on_read(char *buf, size_t size, size_t nmemb, void *userp)
{
	struct rm_smtp *s = userp;
	size_t room = size * nmemb, n = s->len - s->pos;

	if (n > room)
		n = room;
	memcpy(buf, s->bytes + s->pos, n);
	s->pos += n;
	return n;
}

/* Watch the protocol: which RCPT was sent, and its final reply line. */
static int on_debug(CURL *c, curl_infotype type, char *data, size_t size, void *userp)
{
	struct rm_smtp *s = userp;

	(void)c;
	if (type == CURLINFO_HEADER_OUT) {
		if (size > 8 && !strncasecmp(data, "RCPT TO:", 8)) {
			const char *lt = memchr(data, '<', size);
			size_t i;

			s->current = -1;
			for (i = 0; lt && i < s->nrcpts; i++) {
				size_t l = strlen(s->rcpts[i]);

				if ((size_t)(data + size - lt) > l + 1 && !strncasecmp(lt + 1, s->rcpts[i], l) &&
				    lt[1 + l] == '>' && s->codes[i] == 0) {
					s->current = (long)i;
					break;
				}
			}
		} else {
			s->current = -1;
		}
	} else if (type == CURLINFO_HEADER_IN && s->current >= 0) {
		/* a final reply line is "NNN text" (continuations are "NNN-text") */
		if (size >= 4 && data[3] == ' ' && data[0] >= '1' && data[0] <= '5') {
			size_t l = size;

			while (l && (data[l - 1] == '\n' || data[l - 1] == '\r'))
				l--;
			s->codes[s->current] = (int)strtol(data, NULL, 10);
			free(s->texts[s->current]);
			s->texts[s->current] = rm_xstrndup(data, l);
			s->current = -1;
		}
	}
	return 0;
}

struct rm_smtp *rm_smtp_new(const struct rm_smtp_cfg *cfg)
{
	struct rm_smtp *s = rm_xcalloc(1, sizeof(*s));
	struct rm_sb u = RM_SB_INIT;

	s->cfg = *cfg;
	rm_sb_init(&u);
	rm_sb_adds(&u, cfg->url);
	if (cfg->helo)
		rm_sb_addf(&u, "/%s", cfg->helo);
	s->url = rm_sb_detach(&u, NULL);
	s->easy = curl_easy_init();
	rm_sb_init(&s->inbuf);
	return s;
}

void rm_smtp_free(struct rm_smtp *s)
{
	size_t i;

	if (!s)
		return;
	curl_easy_cleanup(s->easy);
	for (i = 0; s->texts && i < s->nrcpts; i++)
		free(s->texts[i]);
	free(s->texts);
	free(s->codes);
	free(s->url);
	rm_sb_release(&s->inbuf);
	free(s);
}

int rm_smtp_send(struct rm_smtp *s, const char *from, char *const *rcpts, size_t n,
		 const char *bytes, size_t len, struct rm_rcpt_result *res, char *error,
		 size_t errlen)
{
	struct curl_slist *list = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct rm_sb f = RM_SB_INIT;
	CURLcode cc;
	long code = 0;
	size_t i;

	for (i = 0; s->texts && i < s->nrcpts; i++)
		free(s->texts[i]);
	free(s->texts);
	free(s->codes);
	if (n > MAX_RCPTS)
		n = MAX_RCPTS;
	s->codes = rm_xcalloc(n + 1, sizeof(int));
	s->texts = rm_xcalloc(n + 1, sizeof(char *));
	s->rcpts = rcpts;
	s->nrcpts = n;
	s->bytes = bytes;
	s->len = len;
	s->pos = 0;
	s->current = -1;
	error[0] = '\0';
	for (i = 0; i < n; i++) {
		struct rm_sb r = RM_SB_INIT;

		rm_sb_init(&r);
		rm_sb_addf(&r, "<%s>", rcpts[i]);
		list = curl_slist_append(list, r.buf);
		rm_sb_release(&r);
	}
	rm_sb_init(&f);
	rm_sb_addf(&f, "<%s>", from);
	/* the handle keeps its connection between messages; options are set again */
	curl_easy_setopt(s->easy, CURLOPT_URL, s->url);
	curl_easy_setopt(s->easy, CURLOPT_MAIL_FROM, f.buf);
	curl_easy_setopt(s->easy, CURLOPT_MAIL_RCPT, list);
#if LIBCURL_VERSION_NUM >= 0x080200
	curl_easy_setopt(s->easy, CURLOPT_MAIL_RCPT_ALLOWFAILS, 1L);
#else
	curl_easy_setopt(s->easy, CURLOPT_MAIL_RCPT_ALLLOWFAILS, 1L);
#endif
	curl_easy_setopt(s->easy, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(s->easy, CURLOPT_READFUNCTION, on_read);
	curl_easy_setopt(s->easy, CURLOPT_READDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(s->easy, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(s->easy, CURLOPT_DEBUGFUNCTION, on_debug);
	curl_easy_setopt(s->easy, CURLOPT_DEBUGDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT, s->cfg.connect_timeout);
	curl_easy_setopt(s->easy, CURLOPT_TIMEOUT, s->cfg.timeout);
	curl_easy_setopt(s->easy, CURLOPT_SERVER_RESPONSE_TIMEOUT, s->cfg.timeout);
	curl_easy_setopt(s->easy, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	if (s->cfg.starttls)
		curl_easy_setopt(s->easy, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	curl_easy_setopt(s->easy, CURLOPT_SSL_VERIFYPEER, s->cfg.verify ? 1L : 0L);
	curl_easy_setopt(s->easy, CURLOPT_SSL_VERIFYHOST, s->cfg.verify ? 2L : 0L);
	if (s->cfg.ca_file)
		curl_easy_setopt(s->easy, CURLOPT_CAINFO, s->cfg.ca_file);
	if (s->cfg.user) {
		curl_easy_setopt(s->easy, CURLOPT_USERNAME, s->cfg.user);
		curl_easy_setopt(s->easy, CURLOPT_PASSWORD, s->cfg.password ? s->cfg.password : "");
	}
	cc = curl_easy_perform(s->easy);
	curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(list);
	curl_easy_setopt(s->easy, CURLOPT_MAIL_RCPT, NULL);
	rm_sb_release(&f);
	for (i = 0; i < n; i++) {
		int c = s->codes[i];

		if (c >= 400)
			res[i].code = c;            /* refused at RCPT */
		else if (cc == CURLE_OK)
			res[i].code = 250;          /* accepted with the message */
		else if (c >= 200 && c < 300 && code >= 400 && code < 600)
			res[i].code = (int)code;    /* refused after DATA */
		else
			res[i].code = 451;          /* connection trouble: try later */
		res[i].rcpt = rcpts[i];
		res[i].text = s->texts[i];
	}
	if (cc != CURLE_OK) {
		snprintf(error, errlen, "%s: %s%s%s (last reply %ld)", s->cfg.url,
			 curl_easy_strerror(cc), errbuf[0] ? ": " : "", errbuf, code);
		return -1;
	}
	return 0;
}

int rm_smtp_ping(const struct rm_smtp_cfg *cfg, char *why, size_t len)
{
	CURL *c = curl_easy_init();
	CURLcode cc;

	curl_easy_setopt(c, CURLOPT_URL, cfg->url);
	curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, cfg->connect_timeout);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	if (cfg->starttls)
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, cfg->verify ? 1L : 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, cfg->verify ? 2L : 0L);
	if (cfg->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, cfg->ca_file);
	cc = curl_easy_perform(c);
	curl_easy_cleanup(c);
	snprintf(why, len, "%s: %s", cfg->url, cc == CURLE_OK ? "connected" : curl_easy_strerror(cc));
	return cc == CURLE_OK ? 0 : -1;
}
