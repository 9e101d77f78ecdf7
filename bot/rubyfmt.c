/* rubyfmt.c - see rubyfmt.h.
 *
 * Ruby 3.1 formats a Float with format("%.2f", v) like this (sprintf.c,
 * float_value): non-finite values are written by sprintf.c itself; finite
 * ones go through rb_str_catf() to BSD_vfprintf() (vsnprintf.c), whose cvt()
 * calls BSD__dtoa() (missing/dtoa.c, David Gay's dtoa) in mode 3 for %f
 * (digits up to `prec` places after the point) and mode 2 for %e/%g (`prec`
 * significant digits).  Gay's dtoa first tries a floating-point estimate
 * (valid when at most 14 digits are wanted) and falls back to exact bignum
 * arithmetic when the estimate is too close to call.  Ruby changed that fast
 * path: when the remainder after the last digit is within the estimate's
 * error bound of one half, it sets `half` and rounds half-to-even on the
 * digit string (bumps an odd last digit at once; for an even one the exact
 * path later keeps the digit even if the exact value lies above the tie).
 * So values that are *near* a decimal tie round as if they were exactly on
 * it: 14.005 (= 14.00500000000000078...) => "14.00", 0.15 => "0.2".
 *
 * dtoa_ruby() below ports the mode 2/3 parts of that dtoa: the exponent
 * estimate, the floating-point fast path and the "small integer" path are
 * transcribed operation for operation (their double roundings are part of
 * the result); the bignum path, which is exact, is done here by expanding the
 * double to its exact decimal digits and rounding that string with the same
 * rules (half-even on the exact remainder, plus Ruby's `half` quirk).
 * format_finite() transcribes the parts of BSD_vfprintf and cvt that handle
 * %e, %f and %g.
 *
 * Needs IEEE-754 binary64 doubles evaluated without excess precision or
 * fused multiply-add (x86-64 SSE2 with -std=c11, as the build uses).
 */
#include "rubyfmt.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* BUF in vsnprintf.c: MAXEXP + MAXFRACT + 1, with MAXFRACT = 308 * 10 / 3. */
#define RF_MAXFRACT 1026
#define RF_BUF (308 + RF_MAXFRACT + 1)

static const double tens[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
	1e20, 1e21, 1e22
};
static const double bigtens[] = { 1e16, 1e32, 1e64, 1e128, 1e256 };

static uint64_t dbits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double bitsd(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* The exact decimal expansion of mm * 2^be (mm > 0): digits into out (no
 * trailing zeros), returns their count; *decpt is where the point goes
 * (value = 0.DIGITS * 10^decpt).  At most 767 significant digits. */
static int exact_digits(uint64_t mm, int be, char *out, int *decpt)
{
	/* mm * 5^1074 < 2^2549: 80 limbs; mm << 971 < 2^1024: 32 limbs. */
	uint32_t x[96], chunk[96] = { 0 };
	int n, nc = 0, len = 0, i;

	x[0] = (uint32_t)mm;
	x[1] = (uint32_t)(mm >> 32);
	n = x[1] ? 2 : 1;
	if (be >= 0) {
		int w = be / 32, b = be % 32;

		x[n] = 0;
		if (b) {
			for (i = n; i > 0; i--)
				x[i] = (x[i] << b) | (x[i - 1] >> (32 - b));
			x[0] <<= b;
			n++;
		}
		if (w) {
			memmove(x + w, x, (size_t)n * sizeof(x[0]));
			memset(x, 0, (size_t)w * sizeof(x[0]));
			n += w;
		}
		while (n > 1 && !x[n - 1])
			n--;
	} else {
		static const uint32_t p5[14] = {
			1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125,
			9765625, 48828125, 244140625, 1220703125
		};
		int e = -be;

		while (e > 0) {
			int s = e > 13 ? 13 : e;
			uint64_t carry = 0;

			for (i = 0; i < n; i++) {
				uint64_t t = (uint64_t)x[i] * p5[s] + carry;
				x[i] = (uint32_t)t;
				carry = t >> 32;
			}
			if (carry)
				x[n++] = (uint32_t)carry;
			e -= s;
		}
	}
	while (n > 0) {
		uint64_t r = 0;

		for (i = n - 1; i >= 0; i--) {
			uint64_t cur = (r << 32) | x[i];
			x[i] = (uint32_t)(cur / 1000000000u);
			r = cur % 1000000000u;
		}
		chunk[nc++] = (uint32_t)r;
		while (n > 0 && !x[n - 1])
			n--;
	}
	for (i = nc - 1; i >= 0; i--) {
		char tmp[9];
		uint32_t c = chunk[i];
		int j;

		for (j = 8; j >= 0; j--) {
			tmp[j] = (char)('0' + c % 10);
			c /= 10;
		}
		j = 0;
		if (i == nc - 1)
			while (j < 8 && tmp[j] == '0')
				j++;
		memcpy(out + len, tmp + j, (size_t)(9 - j));
		len += 9 - j;
	}
	*decpt = len + (be < 0 ? be : 0);
	while (len > 1 && out[len - 1] == '0')
		len--;
	return len;
}

/* BSD__dtoa(d, mode, ndigits, ...) for d > 0 finite and mode 2 or 3, as
 * Ruby 3.1 builds it (IEEE, no Honor_FLT_ROUNDS, no SET_INEXACT).  Writes the
 * digits (no NUL) to s0, returns their count, sets *decpt. */
static int dtoa_ruby(double dv, int mode, int ndigits, char *s0, int *decpt)
{
	uint64_t u = dbits(dv), m, mm;
	int de, lz, be, bbits, i, j, j1, k, k0, k_check, ilim, ilim0, ilim1, ieps;
	int half = 0;
	double d = dv, d2, ds, eps;
	char *s = s0;
	long L;

	/* d2b(): d = mm * 2^be with mm odd, bbits = bit length of mm. */
	de = (int)(u >> 52) & 0x7ff;
	m = u & 0xfffffffffffffull;
	if (de)
		m |= 1ull << 52;
	for (lz = 0; !(m >> lz & 1); lz++)
		;
	mm = m >> lz;
	be = (de ? de - 1075 : -1074) + lz;
	for (bbits = 0; bbits < 64 && (mm >> bbits); bbits++)
		;

	/* Estimate k = floor(log10(d)), maybe one too large. */
	if (de) {
		d2 = bitsd((u & 0xfffffffffffffull) | 0x3ff0000000000000ull);
		i = de - 1023;
	} else {
		uint32_t w0 = (uint32_t)(u >> 32), w1 = (uint32_t)u, x;

		i = bbits + be + (1023 + 52 - 1);
		x = i > 32 ? (w0 << (64 - i)) | (w1 >> (i - 32)) : w1 << (32 - i);
		d2 = (double)x;
		d2 = bitsd(dbits(d2) - (31ull << 52));
		i -= (1023 + 52 - 1) + 1;
	}
	ds = (d2 - 1.5) * 0.289529654602168 + 0.1760912590558 + i * 0.301029995663981;
	k = (int)ds;
	if (ds < 0. && ds != k)
		k--;
	k_check = 1;
	if (k >= 0 && k <= 22) {
		if (d < tens[k])
			k--;
		k_check = 0;
	}

	if (mode == 2) {
		if (ndigits <= 0)
			ndigits = 1;
		ilim = ilim1 = ndigits;
	} else {
		ilim = ndigits + k + 1;
		ilim1 = ilim - 1;
	}

	if (ilim >= 0 && ilim <= 14) {
		/* Try to get by with floating-point arithmetic. */
		i = 0;
		d2 = d;
		k0 = k;
		ilim0 = ilim;
		ieps = 2;
		if (k > 0) {
			ds = tens[k & 0xf];
			j = k >> 4;
			if (j & 0x10) {
				j &= 0x10 - 1;
				d /= bigtens[4];
				ieps++;
			}
			for (; j; j >>= 1, i++)
				if (j & 1) {
					ieps++;
					ds *= bigtens[i];
				}
			d /= ds;
		} else if ((j1 = -k) != 0) {
			d *= tens[j1 & 0xf];
			for (j = j1 >> 4; j; j >>= 1, i++)
				if (j & 1) {
					ieps++;
					d *= bigtens[i];
				}
		}
		if (k_check && d < 1. && ilim > 0) {
			if (ilim1 <= 0)
				goto fast_failed;
			ilim = ilim1;
			k--;
			d *= 10.;
			ieps++;
		}
		eps = ieps * d + 7.;
		eps = bitsd(dbits(eps) - (52ull << 52));
		if (ilim == 0) {
			d -= 5.;
			if (d > eps)
				goto one_digit;
			if (d < -eps)
				goto no_digits;
			goto fast_failed;
		}
		/* Generate ilim digits, then fix them up. */
		eps *= tens[ilim - 1];
		for (i = 1;; i++, d *= 10.) {
			L = (int)d;
			if (!(d -= (double)L))
				ilim = i;
			*s++ = (char)('0' + L);
			if (i == ilim) {
				if (d > 0.5 + eps)
					goto bump_up;
				else if (d < 0.5 - eps) {
					while (*--s == '0')
						;
					s++;
					goto ret;
				}
				/* Ruby's change: too close to call, treat as a tie. */
				half = 1;
				if ((*(s - 1) - '0') & 1)
					goto bump_up;
				break;
			}
		}
fast_failed:
		s = s0;
		d = d2;
		k = k0;
		ilim = ilim0;
	}

	/* Do we have a "small" integer? */
	if (be >= 0 && k <= 14) {
		ds = tens[k];
		for (i = 1;; i++, d *= 10.) {
			L = (int)(d / ds);
			d -= (double)L * ds;
			*s++ = (char)('0' + L);
			if (!d)
				break;
			if (i == ilim) {
				d += d;
				if (d > ds || (d == ds && (L & 1)))
					goto bump_up;
				break;
			}
		}
		goto ret;
	}

	/* The bignum path: exact digits, k corrected to floor(log10(d)). */
	if (mode == 3 && ilim < 0)
		goto no_digits; /* the true ilim is ilim or ilim - 1 */
	{
		char dig[800];
		int nd, dp, n, cmp;

		nd = exact_digits(mm, be, dig, &dp);
		k = dp - 1;
		ilim = mode == 2 ? ndigits : ndigits + k + 1;
		if (ilim <= 0 && mode == 3) {
			if (ilim < 0)
				goto no_digits;
			/* d <= 0.5 * 10^(k+1)? */
			if (dig[0] < '5' || (dig[0] == '5' && nd == 1))
				goto no_digits;
			goto one_digit;
		}
		if (nd <= ilim) {
			memcpy(s0, dig, (size_t)nd);
			s = s0 + nd;
			goto ret;
		}
		n = ilim;
		memcpy(s0, dig, (size_t)n);
		s = s0 + n;
		/* Compare the remainder with one half of the last place. */
		if (dig[n] > '5' || (dig[n] == '5' && nd > n + 1))
			cmp = 1;
		else if (dig[n] == '5')
			cmp = 0;
		else
			cmp = -1;
		if (cmp > 0 || (cmp == 0 && ((dig[n - 1] - '0') & 1))) {
			while (*--s == '9')
				if (s == s0) {
					k++;
					*s++ = '1';
					goto ret;
				}
			if (!half || ((*s - '0') & 1))
				++*s;
		} else {
			while (*--s == '0')
				;
		}
		s++;
		goto ret;
	}

bump_up:
	while (*--s == '9')
		if (s == s0) {
			k++;
			*s = '0';
			break;
		}
	++*s++;
	goto ret;
no_digits:
	k = -1 - ndigits;
	goto ret;
one_digit:
	*s++ = '1';
	k++;
ret:
	*decpt = k + 1;
	return (int)(s - s0);
}

/* cvt() from vsnprintf.c: digits of |value| into buf, trailing zeros
 * restored when `alt`; returns their count. */
static int cvt(double value, int ndigits, int alt, char *sign, int *decpt, char ch, char *buf)
{
	int n;

	if (value < 0) {
		value = -value;
		*sign = '-';
	} else if (value == 0.0 && signbit(value)) {
		*sign = '-';
	} else {
		*sign = '\0';
	}
	if (value == 0.0) {
		buf[0] = '0';
		n = 1;
		*decpt = 1;
	} else {
		n = dtoa_ruby(value, ch == 'f' ? 3 : 2, ndigits, buf, decpt);
	}
	if (alt) {
		int want = ndigits;

		if (ch == 'f') {
			if (n > 0 && buf[0] == '0' && value != 0.0)
				*decpt = -ndigits + 1;
			want += *decpt;
		}
		while (n < want)
			buf[n++] = '0';
	}
	return n;
}

/* exponent() from vsnprintf.c. */
static int exponent(char *p0, int exp, char fmtch)
{
	char *p = p0, expbuf[8], *t;

	*p++ = fmtch;
	if (exp < 0) {
		exp = -exp;
		*p++ = '-';
	} else {
		*p++ = '+';
	}
	t = expbuf + sizeof(expbuf);
	if (exp > 9) {
		do {
			*--t = (char)('0' + exp % 10);
		} while ((exp /= 10) > 9);
		*--t = (char)('0' + exp);
		for (; t < expbuf + sizeof(expbuf); *p++ = *t++)
			;
	} else {
		*p++ = '0';
		*p++ = (char)('0' + exp);
	}
	return (int)(p - p0);
}

static void pad(struct rm_sb *sb, char c, long n)
{
	if (n > 0)
		rm_sb_addn(sb, c, (size_t)n);
}

void rm_rubyfmt_double(struct rm_sb *sb, const char *flags, int width, int prec,
			   char conv, double v)
{
	int alt = 0, ladjust = 0, zeropad = 0, fprec = 0, expt = 0, ndig, size, expsize = 0;
	char sign = '\0', softsign, ch = conv, expstr[8];
	char buf[RF_BUF + 16];
	const char *cp;
	long realsz;

	for (; flags && *flags; flags++) {
		switch (*flags) {
		case ' ': if (!sign) sign = ' '; break;
		case '+': sign = '+'; break;
		case '#': alt = 1; break;
		case '-': ladjust = 1; break;
		case '0': zeropad = 1; break;
		default: break;
		}
	}
	if (width < 0)
		width = 0;

	if (isnan(v) || isinf(v)) {
		/* sprintf.c writes these itself: blank padding, never zeros. */
		const char *expr = isnan(v) ? "NaN" : "Inf";
		char s = '\0';
		int need;

		if (!isnan(v) && v < 0.0)
			s = '-';
		else if (sign)
			s = sign;
		need = 3 + (s ? 1 : 0);
		if (ladjust) {
			if (s)
				rm_sb_addc(sb, s);
			rm_sb_add(sb, expr, 3);
			pad(sb, ' ', (long)width - need);
		} else {
			pad(sb, ' ', (long)width - need);
			if (s)
				rm_sb_addc(sb, s);
			rm_sb_add(sb, expr, 3);
		}
		return;
	}

	if (ch == 'e' || ch == 'E') {
		if (prec != 0)
			alt = 1;
		prec = prec < 0 ? 6 + 1 : (fprec = prec + 1);
	} else {
		if (ch == 'f' && prec != 0)
			alt = 1;
		if (prec < 0)
			prec = 6;
		else
			fprec = prec;
	}
	ndig = cvt(v, prec < RF_MAXFRACT ? prec : RF_MAXFRACT, alt, &softsign, &expt, ch, buf);
	cp = buf;
	if (ch == 'g' || ch == 'G') {
		if (expt <= -4 || (expt > prec && expt > 1))
			ch = ch == 'g' ? 'e' : 'E';
		else
			ch = 'g';
	}
	if (ch <= 'e') {
		--expt;
		expsize = exponent(expstr, expt, ch);
		size = expsize + ndig;
		if (ndig > 1 || alt)
			++fprec, ++size;
	} else if (ch == 'f') {
		if (expt > 0) {
			size = expt;
			if (prec || alt)
				size += prec + 1;
		} else if (!prec) {
			size = 1;
			if (alt)
				size += 1;
		} else {
			size = prec + 2;
		}
	} else if (expt >= ndig) {
		size = expt;
		if (alt)
			++size;
	} else {
		size = ndig + (expt > 0 ? 1 : 2 - expt);
	}
	if (softsign)
		sign = '-';

	realsz = size + (sign ? 1 : 0);
	if (!ladjust && !zeropad)
		pad(sb, ' ', width - realsz);
	if (sign)
		rm_sb_addc(sb, sign);
	if (!ladjust && zeropad)
		pad(sb, '0', width - realsz);

	if (ch >= 'f') { /* 'f' or 'g' */
		if (v == 0) {
			if (ndig <= 1 && !alt) {
				rm_sb_addc(sb, '0');
			} else {
				rm_sb_add(sb, "0.", 2);
				pad(sb, '0', ndig >= fprec ? ndig - 1 : fprec - (ch != 'f'));
			}
		} else if (expt == 0 && ndig == 0 && !alt) {
			rm_sb_addc(sb, '0');
		} else if (expt <= 0) {
			rm_sb_add(sb, "0.", 2);
			pad(sb, '0', -expt);
			rm_sb_add(sb, cp, (size_t)ndig);
			if (alt)
				pad(sb, '0', fprec - ndig + (ch == 'f' ? expt : 0));
		} else if (expt >= ndig) {
			rm_sb_add(sb, cp, (size_t)ndig);
			pad(sb, '0', expt - ndig);
			if (alt)
				rm_sb_addc(sb, '.');
		} else {
			rm_sb_add(sb, cp, (size_t)expt);
			rm_sb_addc(sb, '.');
			rm_sb_add(sb, cp + expt, (size_t)(ndig - expt));
			if (alt)
				pad(sb, '0', fprec - ndig + (ch == 'f' ? expt : 0));
		}
	} else { /* 'e' */
		if (ndig > 1 || alt) {
			rm_sb_addc(sb, *cp++);
			rm_sb_addc(sb, '.');
			if (v != 0)
				rm_sb_add(sb, cp, (size_t)(ndig - 1));
			else
				pad(sb, '0', ndig - 1);
			if (alt)
				pad(sb, '0', fprec - ndig - 1);
		} else {
			rm_sb_addc(sb, *cp);
		}
		rm_sb_add(sb, expstr, (size_t)expsize);
	}
	if (ladjust)
		pad(sb, ' ', width - realsz);
}
