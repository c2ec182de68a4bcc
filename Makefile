# SPDX-License-Identifier: GPL-2.0-or-later
# numaplace: `make run` builds and reports on this machine; `make check` runs every test.
# Both first install the Debian -dev packages they need when run as root on a
# machine that lacks them (see `deps` below).

# Where it installs. DATADIR and SYSCONFDIR are compiled in, and all of them
# are written into the man pages and the unit: build and install with the same
# values (a change of any rebuilds what depends on it). numaplace changes the
# machine's settings, so it goes to sbin; its configuration is the machine's,
# in /etc, whatever the PREFIX.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/numaplace
SYSCONFDIR ?= /etc
# systemd's own unit directory for PREFIX=/usr (as its pkg-config file says);
# under PREFIX otherwise, which systemd searches too.
SYSTEMD_UNITDIR_PC = $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null)
SYSTEMDUNITDIR ?= $(or $(if $(filter /usr,$(PREFIX)),$(SYSTEMD_UNITDIR_PC)),$(PREFIX)/lib/systemd/system)
DESTDIR ?=
VERSION := 0.1

CC ?= cc
PKG_CONFIG ?= pkg-config
# hwloc is used by the tests as the independent reading of the same roots.
LIB_PKGS := libcjson libpci numa smartcols ncursesw
TEST_PKGS := cmocka hwloc

# CPPFLAGS, CFLAGS and LDFLAGS are the caller's (dpkg-buildflags' in a Debian
# build): added to, never replaced. The hardening a distribution would add
# comes first, so the caller's flags win (-D_FORTIFY_SOURCE only when the
# caller sets none). Warnings are errors only in make check and CI (WERROR=1).
CFLAGS ?= -O2 -g
WARN := -std=gnu11 -Wall -Wextra -Wshadow -Wno-sign-compare $(if $(WERROR),-Werror)
# Headers are named by their stage from the top of lib/ and cmd/
# ("read/sysfs.h", "render/output.h").
override CPPFLAGS += -Ilib -Icmd -D_GNU_SOURCE -DNUMAPLACE_VERSION='"$(VERSION)"' \
	-DNUMAPLACE_DATADIR='"$(DATADIR)"' -DNUMAPLACE_CONFDIR='"$(SYSCONFDIR)/numaplace"'
HARDEN_CPPFLAGS := $(if $(findstring _FORTIFY_SOURCE,$(CPPFLAGS)),,-D_FORTIFY_SOURCE=2)
HARDEN_CFLAGS := -fstack-protector-strong -fPIE
HARDEN_LDFLAGS := -pie -Wl,-z,relro,-z,now
BUILD_CFLAGS = $(HARDEN_CPPFLAGS) $(CPPFLAGS) $(WARN) $(HARDEN_CFLAGS) $(CFLAGS) $(PKG_CFLAGS)
BUILD_LDFLAGS = $(HARDEN_CFLAGS) $(CFLAGS) $(HARDEN_LDFLAGS) $(LDFLAGS)
# The sanitizer build (tests only) takes the caller's CPPFLAGS, for include paths.
SAN_CFLAGS = $(CPPFLAGS) $(WARN) -O1 -g $(SAN) $(PKG_CFLAGS)
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS) 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(LIB_PKGS) 2>/dev/null) -lm
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# lib/ is in folders by stage (base, read, judge, change); cmd/ holds the
# commands, cmd/render/ what they print with.
LIB_SRC := $(sort $(wildcard lib/*/*.c))
CMD_SRC := $(sort $(wildcard cmd/*.c cmd/render/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
# Each object depends on the headers it includes, as the compiler lists them
# (-MMD -MP, build/**/*.d), not on every header of the tree.
DEPFLAGS = -MMD -MP

# Debian packages: what building needs, and what the tests also compare against
# (systemd: systemd-analyze checks the unit; zsh, fish: their completions run; prometheus:
# promtool checks the metrics; ansible-core: the collection's modules run against fixture roots;
# inotify-tools: a test that changes a file between two samples waits for the first read).
BUILD_DEBS := gcc make pkg-config libcjson-dev libpci-dev libnuma-dev libsmartcols-dev libncurses-dev pciutils
CHECK_DEBS := $(BUILD_DEBS) groff-base libcmocka-dev libhwloc-dev hwloc-nox numactl jq util-linux prometheus \
	systemd zsh fish ansible-core tmux libxml2-utils librsvg2-bin inotify-tools
# The live tests also run the real irqbalance daemon once.
LIVE_DEBS := $(CHECK_DEBS) irqbalance

MAN_PAGES := $(patsubst man/%.in,build/man/%,$(wildcard man/*.in))

.PHONY: all run check check-live check-vm check-package deps check-deps install clean bench fuzz fuzz-run
UNITS := $(patsubst systemd/%.in,build/%,$(wildcard systemd/*.service.in))
all: numaplace $(MAN_PAGES) $(UNITS)

# Installs only what is missing, and only when it can (root with apt-get).
deps:
	@sh tests/install-deps.sh $(BUILD_DEBS)
check-deps:
	@sh tests/install-deps.sh $(CHECK_DEBS)

# build/config and build/san/config hold the flags and paths each build was
# made with, rewritten only when they change (FORCE runs the check every
# time): a build with other flags or another PREFIX remakes what they touch.
# -Werror is left out: a build that compiled without warnings stays good.
BUILD_CONFIG = $(filter-out -Werror,$(CC) $(BUILD_CFLAGS) $(BUILD_LDFLAGS) $(PKG_LIBS) \
	$(BINDIR) $(DATADIR) $(SYSCONFDIR) $(SYSTEMDUNITDIR) $(VERSION))
SAN_CONFIG = $(filter-out -Werror,$(CC) $(SAN_CFLAGS) $(PKG_LIBS) $(TESTROW_FLAGS))
quote = '$(subst ','\'',$(1))'
remember = @mkdir -p $(@D); printf '%s\n' $(call quote,$(1)) | cmp -s - $@ || printf '%s\n' $(call quote,$(1)) >$@
build/config: FORCE
	$(call remember,$(BUILD_CONFIG))
build/san/config: FORCE
	$(call remember,$(SAN_CONFIG))
FORCE:

build/%.o: %.c build/%.d build/config
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(BUILD_CFLAGS) $(DEPFLAGS) -c -o $@ $<

build/san/%.o: %.c build/san/%.d build/san/config
	@mkdir -p $(dir $@)
	@echo "  CC/SAN  $<"
	@$(CC) $(SAN_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The man pages and the unit, with the configured paths.
SUBST = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DATADIR@|$(DATADIR)|g' \
	-e 's|@CONFDIR@|$(SYSCONFDIR)/numaplace|g' -e 's|@SYSTEMDUNITDIR@|$(SYSTEMDUNITDIR)|g' \
	-e 's|@VERSION@|$(VERSION)|g'
build/man/%: man/%.in build/config
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	@$(SUBST) $< >$@.tmp && mv -f $@.tmp $@
build/%.service: systemd/%.service.in build/config
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	@$(SUBST) $< >$@.tmp && mv -f $@.tmp $@

build/libnumaplace.a: $(LIB_SRC:%.c=build/%.o)
	rm -f $@ && ar rcs $@ $^
build/san/libnumaplace.a: $(LIB_SRC:%.c=build/san/%.o)
	rm -f $@ && ar rcs $@ $^

numaplace: $(CMD_SRC:%.c=build/%.o) build/libnumaplace.a
	$(CC) $(BUILD_LDFLAGS) -o $@ $^ $(PKG_LIBS)
# Test binaries link tests/testing.c: the hooks a release binary must not
# have (NUMAPLACE_FAULT_AFTER_WRITES).
TESTING_OBJ := build/san/tests/testing.o
build/san/numaplace: $(CMD_SRC:%.c=build/san/%.o) $(TESTING_OBJ) build/san/libnumaplace.a
	$(CC) $(SAN) -o $@ $^ $(PKG_LIBS)

build/san/tests/unit/%: tests/unit/%.c $(TESTING_OBJ) build/san/libnumaplace.a build/san/config
	@mkdir -p $(dir $@)
	@echo "  TEST    $<"
	@$(CC) $(SAN_CFLAGS) $(DEPFLAGS) -o $@ $< $(TESTING_OBJ) build/san/libnumaplace.a \
		$(PKG_LIBS) $(shell $(PKG_CONFIG) --libs cmocka)
# A test build of the library with one kind more, its row in a test file
# (NP_ATTR_MORE, attr.h): tests/unit/newrow.c shows that a kind of an
# existing target shape is one row, with no other change.
TESTROW_FLAGS := -Itests -DNP_ATTR_MORE='"unit/newrow-rows.h"'
build/testrow/lib/%.o: lib/%.c build/testrow/lib/%.d build/san/config
	@mkdir -p $(dir $@)
	@echo "  CC/ROW  $<"
	@$(CC) $(SAN_CFLAGS) $(TESTROW_FLAGS) $(DEPFLAGS) -c -o $@ $<
build/testrow/libnumaplace.a: $(LIB_SRC:lib/%.c=build/testrow/lib/%.o)
	@rm -f $@ && ar rcs $@ $^
build/san/tests/unit/test_new_row: tests/unit/newrow.c $(TESTING_OBJ) build/testrow/libnumaplace.a build/san/config
	@mkdir -p $(dir $@)
	@echo "  TEST    $<"
	@$(CC) $(SAN_CFLAGS) $(TESTROW_FLAGS) $(DEPFLAGS) -o $@ $< \
		$(TESTING_OBJ) build/testrow/libnumaplace.a $(PKG_LIBS) $(shell $(PKG_CONFIG) --libs cmocka)
# The snapshot files the kinds' rows name, for snapshot.sh's allow-list.
build/san/tests/attr-files: tests/attr-files.c build/san/libnumaplace.a build/san/config
	@mkdir -p $(dir $@)
	@echo "  TEST    $<"
	@$(CC) $(SAN_CFLAGS) $(DEPFLAGS) -o $@ $< build/san/libnumaplace.a $(PKG_LIBS)
build/san/tests/hwloc-agree build/san/tests/hwloc-pcitree: build/san/tests/%: tests/%.c
	@mkdir -p $(dir $@)
	@echo "  TEST    $<"
	@$(CC) $(WARN) -O1 -g $(SAN) $(shell $(PKG_CONFIG) --cflags hwloc libcjson) -o $@ $< \
		$(shell $(PKG_CONFIG) --libs hwloc libcjson)

run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	./numaplace report

# The tests and CI build with -Werror: WERROR=1 reaches the makes they run
# too (the install test), so that they find the build as check left it.
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=build/san/tests/unit/%) build/san/tests/unit/test_new_row
# Fuzz harnesses (tests/fuzz/fuzz_NAME.c, corpus in tests/fuzz/corpus/NAME/):
# make check replays the corpus under the sanitizers with a small main; make
# fuzz runs each under libFuzzer (clang) for FUZZ_SECONDS.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAY := $(FUZZ_SRC:tests/fuzz/%.c=build/san/tests/fuzz/%-replay)
FUZZ_SECONDS ?= 10
# The small main is an object of its own: compiled with a harness in one
# step, its dependency file would take the place of the harness's.
FUZZ_MAIN := build/san/tests/fuzz/replay.o
$(FUZZ_REPLAY): $(FUZZ_MAIN)
build/san/tests/fuzz/%-replay: tests/fuzz/%.c $(FUZZ_MAIN) build/san/libnumaplace.a build/san/config
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $<"
	@$(CC) $(SAN_CFLAGS) $(DEPFLAGS) -o $@ $< $(FUZZ_MAIN) build/san/libnumaplace.a $(PKG_LIBS)
# libFuzzer comes with clang; its runtime is a package clang only recommends.
FUZZ_DEBS := clang libclang-rt-dev
FUZZ_CFLAGS = $(CPPFLAGS) $(WARN) -g -O1 $(PKG_CFLAGS)
build/fuzz/lib/%.o: lib/%.c build/fuzz/lib/%.d
	@mkdir -p $(dir $@)
	@echo "  CC/FUZZ $<"
	@clang $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<
build/fuzz/libnumaplace.a: $(LIB_SRC:lib/%.c=build/fuzz/lib/%.o)
	@rm -f $@ && ar rcs $@ $^
build/fuzz/%: tests/fuzz/%.c build/fuzz/libnumaplace.a
	@echo "  FUZZ    $<"
	@clang $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< build/fuzz/libnumaplace.a $(PKG_LIBS)
# Each harness runs FUZZ_SECONDS from its committed corpus (new inputs go to
# build/fuzz/corpus-NAME); a finding stops it, its input saved as
# build/fuzz/NAME-crash-*: commit that to tests/fuzz/corpus/NAME/ with the fix.
fuzz:
	@sh tests/install-deps.sh $(FUZZ_DEBS)
	@$(MAKE) --no-print-directory fuzz-run
fuzz-run: SHELL := /bin/bash
fuzz-run: $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
	@for f in $^; do n=$${f##*/fuzz_}; mkdir -p build/fuzz/corpus-$$n || exit 1; \
		echo "  FUZZ    $$n ($(FUZZ_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 -timeout=20 \
			-artifact_prefix=build/fuzz/$$n- build/fuzz/corpus-$$n tests/fuzz/corpus/$$n 2>&1 | \
			grep -E '^Done|ERROR|SUMMARY|Test unit written|deadly signal|abort'; \
		test $${PIPESTATUS[0]} -eq 0 || { echo "fuzz: harness $$n found a failure (see above)" >&2; exit 1; }; done
check check-live: export WERROR := 1
check:
	@$(MAKE) --no-print-directory check-deps
	@$(MAKE) --no-print-directory all build/san/numaplace $(UNIT_BINS) build/san/tests/hwloc-agree build/san/tests/hwloc-pcitree $(FUZZ_REPLAY) \
		build/san/tests/attr-files build/gen-root
	@bash tests/run.sh

# The live tests write this machine's IRQ affinities, rq_affinity, RPS and
# /etc/default/irqbalance, and put them back: only on a disposable machine,
# when asked (NUMAPLACE_LIVE=1) or in CI.
check-live:
	@if [ "$${NUMAPLACE_LIVE:-}" != 1 ] && [ "$${CI:-}" != true ]; then \
		echo "check-live changes this machine's kernel settings (and restores them);" \
		     "run it on a disposable machine with NUMAPLACE_LIVE=1" >&2; exit 2; fi
	@sh tests/install-deps.sh $(LIVE_DEBS)
	@$(MAKE) --no-print-directory all build/san/numaplace $(UNIT_BINS)
	@bash tests/run.sh --live

# The guest's crash test: the release build with the fault hook of
# tests/testing.c (NUMAPLACE_FAULT_AFTER_WRITES), as the sanitizer build has it.
build/numaplace-fault: $(CMD_SRC:%.c=build/%.o) build/tests/testing.o build/libnumaplace.a
	$(CC) $(BUILD_LDFLAGS) -o $@ $^ $(PKG_LIBS)
# QEMU guests on Debian's kernel (tests/vm/): one boot per layout (NUMA nodes,
# multiqueue NICs, NVMe), the live tests inside, their results brought back.
# It changes nothing on this machine: the guests' taps live in network
# namespaces made for them, and the kernel package is downloaded and
# unpacked under build/vm, never installed.
VM_DEBS := $(BUILD_DEBS) qemu-system-x86 busybox-static cpio kmod iproute2 jq ethtool libhwloc-dev
check-vm: export WERROR := 1
check-vm:
	@sh tests/install-deps.sh $(VM_DEBS)
	@$(MAKE) --no-print-directory numaplace build/numaplace-fault
	@bash tests/vm/run.sh

# The Debian package, built from a copy of the tree and inspected (lintian,
# contents, the unpacked binary finding its profiles). Its build
# dependencies are debian/control's; CI runs it after check and check-live.
PACKAGE_DEBS := dpkg-dev debhelper lintian fakeroot binutils
check-package: export WERROR := 1
check-package:
	@sh tests/install-deps.sh $(CHECK_DEBS) $(PACKAGE_DEBS)
	@bash tests/run.sh --package

# The profiles are installed as found (a wildcard), so a tree without one
# still installs. Debian's zsh searches /usr/share/zsh/vendor-completions
# (debian/rules sets ZSHCOMPDIR).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
install: all
	install -D -m 0755 numaplace $(DESTDIR)$(BINDIR)/numaplace
	install -d -m 0755 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5
	install -m 0644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man5/
	install -D -m 0644 completions/numaplace.bash $(DESTDIR)$(BASHCOMPDIR)/numaplace
	install -D -m 0644 completions/_numaplace $(DESTDIR)$(ZSHCOMPDIR)/_numaplace
	install -D -m 0644 completions/numaplace.fish $(DESTDIR)$(FISHCOMPDIR)/numaplace.fish
	install -d -m 0755 $(DESTDIR)$(DATADIR)/profiles
	$(if $(wildcard profiles/*.json),install -m 0644 $(wildcard profiles/*.json) $(DESTDIR)$(DATADIR)/profiles/)
	install -d -m 0755 $(DESTDIR)$(SYSTEMDUNITDIR)
	install -m 0644 $(UNITS) $(DESTDIR)$(SYSTEMDUNITDIR)/

# The install paths as shell assignments, for scripts (the install test).
INSTALL_VARS := PREFIX BINDIR MANDIR DATADIR SYSCONFDIR SYSTEMDUNITDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR
.PHONY: paths
paths:
	@printf '%s\n' $(foreach v,$(INSTALL_VARS),$(call quote,$(v)=$(call quote,$($(v)))))

# Removes what install put there, and the directories that are left empty.
.PHONY: uninstall
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/numaplace \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(filter %.8,$(MAN_PAGES)))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(filter %.5,$(MAN_PAGES)))) \
		$(DESTDIR)$(BASHCOMPDIR)/numaplace \
		$(DESTDIR)$(ZSHCOMPDIR)/_numaplace \
		$(DESTDIR)$(FISHCOMPDIR)/numaplace.fish \
		$(addprefix $(DESTDIR)$(DATADIR)/profiles/,$(notdir $(wildcard profiles/*.json))) \
		$(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(UNITS)))
	rmdir $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR) 2>/dev/null || true

clean:
	rm -rf build numaplace

# An object without its .d yet (built before -MMD, or the .d lost) is
# remade: each .d is a target of its own, made (as missing) by nothing.
DEPFILES := $(foreach d,build build/san,$(LIB_SRC:%.c=$(d)/%.d) $(CMD_SRC:%.c=$(d)/%.d)) \
	build/san/tests/testing.d build/tests/testing.d build/san/tests/fuzz/replay.d \
	$(LIB_SRC:lib/%.c=build/testrow/lib/%.d) $(LIB_SRC:lib/%.c=build/fuzz/lib/%.d)
$(DEPFILES):
# The objects' .d files, and the test binaries' (compiled and linked in one
# step, from one source each).
-include $(wildcard $(DEPFILES) $(UNIT_BINS:=.d) $(FUZZ_REPLAY:=.d) $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%.d) \
	build/san/tests/attr-files.d)

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
