# numaplace: `make run` builds and reports on this machine; `make check` runs every test.
# Both first install the Debian -dev packages they need when run as root on a
# machine that lacks them (see `deps` below).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/numaplace
DESTDIR ?=
VERSION := 0.1

CC ?= cc
PKG_CONFIG ?= pkg-config
# hwloc is used by the tests as the independent reading of the same roots.
LIB_PKGS := libcjson libpci numa smartcols
TEST_PKGS := cmocka hwloc

CFLAGS ?= -O2 -g
WARN := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-sign-compare
CPPFLAGS += -D_GNU_SOURCE -DNUMAPLACE_VERSION='"$(VERSION)"' -DNUMAPLACE_DATADIR='"$(DATADIR)"'
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS) 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(LIB_PKGS) 2>/dev/null)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRC := $(sort $(wildcard lib/*.c))
CMD_SRC := $(sort $(wildcard cmd/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
HEADERS := $(wildcard lib/*.h cmd/*.h)

# Debian packages: what building needs, and what the tests also compare against.
BUILD_DEBS := gcc make pkg-config libcjson-dev libpci-dev libnuma-dev libsmartcols-dev pciutils
CHECK_DEBS := $(BUILD_DEBS) groff-base libcmocka-dev libhwloc-dev hwloc-nox numactl jq util-linux ansible-core
# The live tests also run the real irqbalance daemon once.
LIVE_DEBS := $(CHECK_DEBS) irqbalance

.PHONY: all run check check-live deps check-deps install clean bench
all: numaplace

# Installs only what is missing, and only when it can (root with apt-get).
deps:
	@sh tests/install-deps.sh $(BUILD_DEBS)
check-deps:
	@sh tests/install-deps.sh $(CHECK_DEBS)

build/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

build/san/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "  CC/SAN  $<"
	@$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) $(PKG_CFLAGS) -c -o $@ $<

build/libnumaplace.a: $(LIB_SRC:%.c=build/%.o)
	rm -f $@ && ar rcs $@ $^
build/san/libnumaplace.a: $(LIB_SRC:%.c=build/san/%.o)
	rm -f $@ && ar rcs $@ $^

numaplace: $(CMD_SRC:%.c=build/%.o) build/libnumaplace.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS)
build/san/numaplace: $(CMD_SRC:%.c=build/san/%.o) build/san/libnumaplace.a
	$(CC) $(SAN) -o $@ $^ $(PKG_LIBS)

build/san/tests/unit/%: tests/unit/%.c build/san/libnumaplace.a $(HEADERS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	@echo "  TEST    $<"
	@$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) $(PKG_CFLAGS) -o $@ $< build/san/libnumaplace.a \
		$(PKG_LIBS) $(shell $(PKG_CONFIG) --libs cmocka)
build/san/tests/hwloc-agree: tests/hwloc-agree.c
	@mkdir -p $(dir $@)
	@echo "  TEST    $<"
	@$(CC) $(WARN) -O1 -g $(SAN) $(shell $(PKG_CONFIG) --cflags hwloc libcjson) -o $@ $< \
		$(shell $(PKG_CONFIG) --libs hwloc libcjson)

run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory numaplace
	./numaplace report

UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=build/san/tests/unit/%)
check:
	@$(MAKE) --no-print-directory check-deps
	@$(MAKE) --no-print-directory numaplace build/san/numaplace $(UNIT_BINS) build/san/tests/hwloc-agree
	@bash tests/run.sh

# The live tests write this machine's IRQ affinities, rq_affinity, RPS and
# /etc/default/irqbalance, and put them back: only on a disposable machine,
# when asked (NUMAPLACE_LIVE=1) or in CI.
check-live:
	@if [ "$${NUMAPLACE_LIVE:-}" != 1 ] && [ "$${CI:-}" != true ]; then \
		echo "check-live changes this machine's kernel settings (and restores them);" \
		     "run it on a disposable machine with NUMAPLACE_LIVE=1" >&2; exit 2; fi
	@sh tests/install-deps.sh $(LIVE_DEBS)
	@$(MAKE) --no-print-directory numaplace build/san/numaplace $(UNIT_BINS)
	@bash tests/run.sh --live

# The man pages and profiles are installed as found (wildcards), so a tree
# without one still installs. The unit gets the binary's real path. Note that
# DATADIR (the profiles) is compiled in: build with the same PREFIX.
install: numaplace
	install -D -m 0755 numaplace $(DESTDIR)$(BINDIR)/numaplace
	$(if $(wildcard man/*.8),install -d -m 0755 $(DESTDIR)$(MANDIR)/man8)
	$(if $(wildcard man/*.8),install -m 0644 $(wildcard man/*.8) $(DESTDIR)$(MANDIR)/man8/)
	$(if $(wildcard man/*.5),install -d -m 0755 $(DESTDIR)$(MANDIR)/man5)
	$(if $(wildcard man/*.5),install -m 0644 $(wildcard man/*.5) $(DESTDIR)$(MANDIR)/man5/)
	install -D -m 0644 completions/numaplace.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/numaplace
	install -D -m 0644 completions/_numaplace $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_numaplace
	install -D -m 0644 completions/numaplace.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/numaplace.fish
	install -d -m 0755 $(DESTDIR)$(DATADIR)/profiles
	$(if $(wildcard profiles/*.json),install -m 0644 $(wildcard profiles/*.json) $(DESTDIR)$(DATADIR)/profiles/)
	install -d -m 0755 $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/numaplace.service >$(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace.service.tmp
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace.service.tmp
	mv -f $(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace.service.tmp $(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace.service
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/numaplace-hold.service >$(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace-hold.service.tmp
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace-hold.service.tmp
	mv -f $(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace-hold.service.tmp $(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace-hold.service

# Removes what install put there, and the directories that are left empty.
.PHONY: uninstall
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/numaplace \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(wildcard man/*.5))) \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/numaplace \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_numaplace \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/numaplace.fish \
		$(addprefix $(DESTDIR)$(DATADIR)/profiles/,$(notdir $(wildcard profiles/*.json))) \
		$(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace.service \
		$(DESTDIR)$(PREFIX)/lib/systemd/system/numaplace-hold.service
	rmdir $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR) 2>/dev/null || true

clean:
	rm -rf build numaplace

# Benchmark tools: a generator of synthetic machine roots and "the floor" (the
# least I/O a report can do on a root). Standalone C, plain libc.
build/gen-root: tests/gen-root.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O2 -o $@ $<
build/bench-floor: tests/bench/floor.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O2 -o $@ $<

bench: numaplace build/gen-root build/bench-floor
	@bash tests/bench/bench.sh
