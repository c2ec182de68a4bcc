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
LIB_PKGS := libcjson libpci numa
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
BUILD_DEBS := gcc make pkg-config libcjson-dev libpci-dev libnuma-dev pciutils
CHECK_DEBS := $(BUILD_DEBS) libcmocka-dev libhwloc-dev hwloc-nox numactl jq util-linux

.PHONY: all run check deps check-deps install clean bench
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

build/san/tests/unit/%: tests/unit/%.c build/san/libnumaplace.a $(HEADERS)
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

install: numaplace
	install -D -m 0755 numaplace $(DESTDIR)$(BINDIR)/numaplace

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
