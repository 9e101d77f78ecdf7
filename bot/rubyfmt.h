/*
 * rubyfmt.h - floating-point formatting byte for byte as Ruby 3.1's
 * format()/sprintf() prints it.
 *
 * Owns: turning one double into the text Ruby's `format("%...f", v)`
 * (and %e, %g) produces.  Ruby does not use the C library for this: it runs
 * its own BSD__dtoa (missing/dtoa.c, David Gay's dtoa with a Ruby change in
 * the floating-point fast path) under BSD_vfprintf (vsnprintf.c), and the two
 * disagree with glibc near decimal ties (Ruby: "%.2f" % 14.005 => "14.00",
 * "%.1f" % 0.15 => "0.2").  This module reproduces that algorithm.
 *
 * Must not: know what the numbers mean or which columns use which format
 * (table.c decides); it only talks to strbuf and libc.
 */
#ifndef RM_RUBYFMT_H
#define RM_RUBYFMT_H

#include "strbuf.h"

/* Append to sb what Ruby's format("%<flags><width>.<prec><conv>", v) gives
 * for one double.  conv is 'f', 'e' or 'g'; flags is a string of the
 * characters "+- 0#" (may be "" or NULL); width 0 means no width; prec < 0
 * means no precision was written (Ruby's default of 6).  NaN and infinities
 * print as "NaN", "Inf", "-Inf" (with "+"/" " flags "+Inf", "+NaN"), padded
 * with blanks to the width as Ruby does.  The caller owns sb; nothing is
 * retained.  Thread-safe: no static mutable state. */
void rm_rubyfmt_double(struct rm_sb *sb, const char *flags, int width, int prec,
			   char conv, double v);

#endif
