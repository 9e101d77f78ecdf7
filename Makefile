# robotmail - build, test, run.  Everything starts from a fresh Debian 12 as root:
#   make run    install missing packages, build, run the main job on the example
#   make test   install missing packages, build, run every test suite
# See README.md.

SHELL := /bin/bash
CC ?= cc
CLANG ?= clang
BUILD ?= build
PREFIX ?= /usr/local
SYSCONFDIR ?= $(PREFIX)/etc
VERSION ?= 0.1
# the build in the checkout reads config/ and templates/ from it; `make
# install` builds again with the installed directories (RM_DATADIR below)
DATADIR ?= $(CURDIR)/config
TEMPLATEDIR ?= $(CURDIR)/templates

# Debian packages: libraries, tools the build and the tests use.
DEB_PACKAGES := pkg-config make gcc libpq-dev postgresql libetpan-dev libcurl4-gnutls-dev libpcre2-dev \
	libyaml-dev libjansson-dev libsqlite3-dev libarchive-dev libcmocka-dev \
	libsasl2-modules clang libclang-rt-14-dev cppcheck python3 xz-utils zstd gzip tar \
	valgrind git curl cgit lighttpd time postfix python3-aiosmtpd openssl sqlite3 bc \
	public-inbox man-db libgnutls28-dev tidy dovecot-imapd chromium mutt

PKGS := libetpan libcurl libpcre2-8 yaml-0.1 jansson sqlite3 libarchive gnutls libpq

# Deferred (=): pkg-config is only asked once the packages are installed.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
# libetpan's .pc leaks Debian's -specs= flag (see the project notes, deps-and-peers.md)
PKG_LIBS = $(filter-out -specs=%,$(shell pkg-config --libs $(PKGS))) -lm
# robotmail itself links these only: libcurl, libpq, libetpan, libarchive,
# GnuTLS (and the ~45 libraries they pull in) and SQLite are opened with dlopen
# on first use (bot/dynlib.h); the unit tests, fuzz targets and bench drivers
# call them directly and link PKG_LIBS
LINK_PKGS := libpcre2-8 yaml-0.1 jansson
LINK_LIBS = $(shell pkg-config --libs $(LINK_PKGS)) -lm
# the SONAME of pkg-config package $(1): read from its first -l library's .so
# as the compiler finds it (libcurl -> libcurl-gnutls.so.4 on Debian 12)
dynlib_soname = $(shell so=$$($(CC) -print-file-name=lib$(patsubst -l%,%,$(firstword $(filter -l%,$(shell \
	pkg-config --libs $(1))))).so) && objdump -p "$$so" 2>/dev/null | awk '$$1 == "SONAME" {print $$2}')
# found once per make run, when first needed (after `make deps`)
DYNLIB_SONAMES = $(eval DYNLIB_SONAMES := -DRM_SONAME_CURL='"$(call dynlib_soname,libcurl)"' \
	-DRM_SONAME_PQ='"$(call dynlib_soname,libpq)"' -DRM_SONAME_ETPAN='"$(call dynlib_soname,libetpan)"' \
	-DRM_SONAME_ARCHIVE='"$(call dynlib_soname,libarchive)"' \
	-DRM_SONAME_GNUTLS='"$(call dynlib_soname,gnutls)"' \
	-DRM_SONAME_SQLITE='"$(call dynlib_soname,sqlite3)"')$(DYNLIB_SONAMES)
WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CFLAGS_COMMON = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -g \
	-DRM_DATADIR='"$(DATADIR)"' -DRM_TEMPLATEDIR='"$(TEMPLATEDIR)"' -DRM_VERSION='"$(VERSION)"' \
	$(PKG_CFLAGS) $(DYNLIB_SONAMES)
CFLAGS ?= -O2
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRCS := $(filter-out bot/main.c,$(wildcard bot/*.c))
LIB_OBJS := $(patsubst bot/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
ASAN_OBJS := $(patsubst bot/%.c,$(BUILD)/asan/%.o,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_SECONDS ?= 10

# quiet unless V=1
ifndef V
.SILENT:
endif

.PHONY: all build deps run test test-build test-only unit fuzz fuzz-build bench clean check-cppcheck check-style check-valgrind soak install

all: deps
	@$(MAKE) --no-print-directory -j$$(nproc) build

build: $(BUILD)/robotmail $(BUILD)/obj/curl-typecheck

# postfix is installed with debconf "No configuration": the system instance stays
# unconfigured and stopped (nothing listens on port 25); tests run private
# instances (tests/peers/postfix.sh, smtp-sink.sh).
# (one dpkg-query for every package: one per package took 8 s on a busy machine)
deps:
	@installed=" $$(dpkg-query -W -f='$${Package} $${Status}\n' $(DEB_PACKAGES) 2>/dev/null | \
		awk '/ install ok installed$$/ {printf "%s ", $$1}')"; \
	missing=""; for p in $(DEB_PACKAGES); do \
		case "$$installed" in *" $$p "*) ;; *) missing="$$missing $$p" ;; esac; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing$$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "make deps: need root to install:$$missing" >&2; exit 1; fi; \
		echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi

$(BUILD)/obj/%.o: bot/%.c bot/*.h | $(BUILD)/obj
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) -c -o $@ $<

$(BUILD)/asan/%.o: bot/%.c bot/*.h | $(BUILD)/asan
	$(CC) $(CFLAGS_COMMON) -O1 $(SAN) -c -o $@ $<

$(BUILD)/obj $(BUILD)/asan $(BUILD)/fuzz $(BUILD)/fuzzobj:
	mkdir -p $@

# curl's compile-time check of curl_easy_setopt/getinfo's argument types,
# which bot/dynlib_curl.h turns off for the real build: the modules that call
# libcurl compiled once more with it (and -O2: its warnings need optimising)
CURL_MODULES := $(shell grep -l '^\#include "dynlib_curl.h"' bot/*.c)
$(BUILD)/obj/curl-typecheck: $(CURL_MODULES) bot/*.h | $(BUILD)/obj
	for f in $(CURL_MODULES); do \
		$(CC) $(CFLAGS_COMMON) -O2 -DRM_DYNLIB_CURL_TYPECHECK -c -o /dev/null $$f || exit 1; done
	touch $@

$(BUILD)/robotmail: $(LIB_OBJS) $(BUILD)/obj/main.o
	$(CC) $(CFLAGS) -o $@ $^ $(LINK_LIBS)

$(BUILD)/robotmail-asan: $(ASAN_OBJS) $(BUILD)/asan/main.o
	$(CC) $(SAN) -o $@ $^ $(LINK_LIBS)

$(BUILD)/unit-tests: $(UNIT_SRCS) $(LIB_OBJS) tests/unit/*.h tests/fuzz/*.h
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) -iquote bot -o $@ $(UNIT_SRCS) $(LIB_OBJS) $(PKG_LIBS) -lcmocka

$(BUILD)/unit-tests-asan: $(UNIT_SRCS) $(ASAN_OBJS) tests/unit/*.h tests/fuzz/*.h
	$(CC) $(CFLAGS_COMMON) -O1 $(SAN) -iquote bot -o $@ $(UNIT_SRCS) $(ASAN_OBJS) $(PKG_LIBS) -lcmocka

# libFuzzer targets: clang, sanitizers; our sources compiled once, instrumented.
FUZZ_OBJS := $(patsubst bot/%.c,$(BUILD)/fuzzobj/%.o,$(LIB_SRCS))
FUZZ_CFLAGS = $(CFLAGS_COMMON) -Wno-unused-command-line-argument -O1 -g

$(BUILD)/fuzzobj/%.o: bot/%.c bot/*.h | $(BUILD)/fuzzobj
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS) tests/fuzz/*.h | $(BUILD)/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -iquote bot -o $@ $< $(FUZZ_OBJS) $(PKG_LIBS)

fuzz-build: $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

run: deps
	@$(MAKE) --no-print-directory -j$$(nproc) build
	@contrib/run-example.sh

# the binaries are built a job per core; tests/run-tests.sh then runs the
# suites a job per core (TEST_JOBS=1 for one at a time)
test: deps
	@$(MAKE) --no-print-directory -j$$(nproc) test-build
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run-tests.sh

test-build: $(BUILD)/robotmail $(BUILD)/obj/curl-typecheck $(BUILD)/robotmail-asan $(BUILD)/unit-tests $(BUILD)/unit-tests-asan fuzz-build

test-only: test-build
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run-tests.sh

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	@BUILD=$(BUILD) FUZZ_SECONDS=$${FUZZ_SECONDS:-600} tests/run-fuzz.sh

bench: deps
	@$(MAKE) --no-print-directory build
	@BUILD=$(BUILD) tests/bench.sh
	@BUILD=$(BUILD) tests/bench-smtp.sh
	@BUILD=$(BUILD) tests/bench-report.sh
	@BUILD=$(BUILD) tests/bench-hosts.sh
	@BUILD=$(BUILD) tests/bench-evidence.sh

# the unit tests and the main integration suites under valgrind (no ASan build)
check-valgrind: deps
	@$(MAKE) --no-print-directory build $(BUILD)/unit-tests
	@fail=0; \
	ROBOTMAIL_NO_JIT=1 valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		$(BUILD)/unit-tests >/tmp/robotmail-vg-unit.log 2>&1 || { echo "unit tests under valgrind failed"; tail -30 /tmp/robotmail-vg-unit.log; fail=1; }; \
	for s in data report run recipients report-edge; do \
		ROBOTMAIL=$(CURDIR)/tests/valgrind-robotmail.sh BUILD=$(BUILD) bash tests/suites/$$s.sh >/tmp/robotmail-vg-$$s.log 2>&1; \
		grep '^not ok' -A5 /tmp/robotmail-vg-$$s.log && fail=1; \
		echo "valgrind $$s: $$(grep -c '^ok' /tmp/robotmail-vg-$$s.log) passed, $$(grep -c '^not ok' /tmp/robotmail-vg-$$s.log) failed"; \
	done; exit $$fail

soak: deps
	@$(MAKE) --no-print-directory build
	@BUILD=$(BUILD) tests/soak.sh

check-cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,style,portability,performance \
		--std=c11 --inline-suppr --suppress=missingIncludeSystem -Ibot bot/

# banned C functions in bot/ (tests/suites/style.sh; also a suite of `make test`)
check-style:
	@out=$$(bash tests/suites/style.sh); echo "$$out" | grep -v '^ok - '; ! echo "$$out" | grep -q '^not ok - '

# make install [PREFIX=/usr/local] [SYSCONFDIR=$(PREFIX)/etc] [DESTDIR=...]: the
# binary built for PREFIX (it reads PREFIX/share/robotmail, never the
# checkout), the rule files, templates and the 0-day profile, the reference
# configuration (also as SYSCONFDIR/robotmail/robotmail.yaml unless one is
# there), the man page, the systemd service and timer (StateDirectory=) and
# the cron example, with PREFIX and SYSCONFDIR written into them.
SHAREDIR = $(PREFIX)/share/robotmail
UNIT_SED = -e 's|/usr/local/bin/|$(PREFIX)/bin/|g' -e 's|/etc/robotmail/|$(SYSCONFDIR)/robotmail/|g'
install: deps
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/install DATADIR=$(SHAREDIR) \
		TEMPLATEDIR=$(SHAREDIR)/templates VERSION=$(VERSION) build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SHAREDIR)/templates $(DESTDIR)$(SHAREDIR)/profiles \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/lib/systemd/system \
		$(DESTDIR)$(PREFIX)/share/doc/robotmail $(DESTDIR)$(SYSCONFDIR)/robotmail
	install -m 755 $(BUILD)/install/robotmail $(DESTDIR)$(PREFIX)/bin/robotmail
	install -m 644 config/metrics.yaml config/lkp-programs.yaml config/eras.yaml config/robotmail.yaml $(DESTDIR)$(SHAREDIR)/
	install -m 644 templates/*.txt $(DESTDIR)$(SHAREDIR)/templates/
	install -m 644 config/profiles/*.yaml $(DESTDIR)$(SHAREDIR)/profiles/
	[ -e $(DESTDIR)$(SYSCONFDIR)/robotmail/robotmail.yaml ] || \
		install -m 640 config/robotmail.yaml $(DESTDIR)$(SYSCONFDIR)/robotmail/robotmail.yaml
	install -m 644 contrib/robotmail.1 $(DESTDIR)$(PREFIX)/share/man/man1/robotmail.1
	for u in robotmail.service robotmail.timer; do \
		sed $(UNIT_SED) contrib/systemd/$$u >$(DESTDIR)$(PREFIX)/lib/systemd/system/$$u || exit 1; \
		chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/system/$$u; done
	sed $(UNIT_SED) contrib/robotmail.cron >$(DESTDIR)$(PREFIX)/share/doc/robotmail/robotmail.cron

clean:
	rm -rf $(BUILD)
