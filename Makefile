# arc: the Attention Request Contract (ARC 0.2) as Unix filters.
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
DATADIR	?= $(PREFIX)/share/arc
CC	?= cc
CFLAGS	?= -O2 -g
WARN	 = -std=c11 -Wall -Wextra -Wpedantic -Werror -Wshadow \
	   -Wstrict-prototypes -Wmissing-prototypes -Wvla
# libbsd's overlay headers: in the multiarch folder since Debian 13
MULTIARCH != $(CC) -print-multiarch 2>/dev/null || :
CPPFLAGS += -D_GNU_SOURCE -isystem /usr/include/$(MULTIARCH)/bsd \
	-isystem /usr/include/bsd -DLIBBSD_OVERLAY
LDLIBS	+= -lbsd -lmd -lzstd -lm

COMMANDS = arc-validate arc-apply arc-status arc-wait arc-answer arc-emit arc-acp arc-hook arc-web arc-doctor
# arc-notify is a binary of its own: it alone links libsystemd (sd-bus)
# and libcurl (ntfy: HTTPS and a streamed answer topic).
NOTIFY_OBJS = arc-notify.o arcnotifyconf.o arcntfy.o
NOTIFY_LIBS = -lsystemd -lcurl
OBJS	 = arcmain.o arc-web.o arc-validate.o arc-apply.o arc-answer.o arc-wait.o \
	   arc-status.o arc-emit.o arc-acp.o arc-hook.o arc-doctor.o archook.o archooksettings.o archost-claude.o \
	   archost-gemini.o archost-copilot.o arcacpmsg.o arcacpscan.o \
	   arcacpproxy.o arcacpout.o arcacpjournal.o arcacpask.o arcacprace.o \
	   arcacpstream.o arcpick.o arcshow.o arcview.o \
	   arcfollow.o arcsettle.o arcmirror.o arcfilter.o arcusage.o arcvia.o arcwords.o arcbind.o arctmux.o \
	   arcdelivery.o \
	   arcjournal.o arcarchive.o arcrules.o arclog.o arccheckpoint.o arcoffdevice.o arcspawn.o \
	   arcstate.o \
	   arcproblem.o arcvalidate.o arcrecord.o arcevent.o arcbuf.o arcjson.o arctime.o \
	   arcfile.o arcterm.o arcdigest.o arcsha256.o arccrc.o arcline.o arcutf8.o arcjsonout.o arcbell.o \
	   arcwaiter.o arcnarrow.o arcfanout.o arcmemory.o
HEADERS	 = arc.h arcterm.h arcproblem.h arcvalidate.h arcrecord.h arcevent.h \
	   arcstate.h arcrules.h arclog.h arccheckpoint.h arcarchive.h arcjournal.h \
	   arcfilter.h arcusage.h arcvia.h arcwords.h arcbind.h arcpick.h arcshow.h arcfollow.h \
	   arcmirror.h arcsettle.h archook.h archooksettings.h archost-claude.h archost-gemini.h archost-copilot.h \
	   arcacpmsg.h arcacpscan.h arcacpproxy.h arcacpout.h arcacpjournal.h \
	   arcacpask.h arcacprace.h arcacpstream.h arcnotifyconf.h arcoffdevice.h arcspawn.h arctmux.h arcview.h \
	   arcdelivery.h arcbell.h arcwaiter.h arcnarrow.h arcntfy.h arcsha256.h \
	   arcfanout.h
LIBOBJS	 = $(filter-out arcmain.o arc-%.o,$(OBJS))
MAN1	 = man/arc-validate.1 man/arc-apply.1 man/arc-status.1 \
	   man/arc-wait.1 man/arc-answer.1 man/arc-emit.1 man/arc-mqtt.1 \
	   man/arc-acp.1 man/arc-notify.1 man/arc-hook.1 man/arc-doctor.1
MAN5	 = man/arc-journal.5 man/arc-notify.conf.5
MAN7	 = man/arc.7 man/arc-hooks.7
MAN8	 = man/arc-web.8
LIBEXECDIR ?= $(PREFIX)/lib/arc
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
COMPLETED = arc-validate arc-apply arc-answer arc-wait arc-status arc-emit \
	    arc-acp arc-notify arc-hook

# Debian packages, by what needs them.  make deps-TARGET installs a
# target's list (apt-get, with sudo when not root), and make deps what
# make check runs.  make install and make check install nothing: they
# name what is missing and stop (need-TARGET).  make demo, the first
# command on a fresh machine, installs the little it builds and runs
# with (DEBS_DEMO: it builds the commands alone, not arc-notify, the one
# binary linking libsystemd), as do the targets only CI and developers
# run (check-clients, check-slow, check-valgrind, check-sanitize, fuzz,
# bench).  DEBS_BUILD is what make (all) and make install need.
# Every program a test file runs, by package, is in t/README's table
# "What each file runs"; t/needs.bats checks it against these lists.  A
# package counts as there when an installed one provides it (a nodejs
# from NodeSource provides npm and conflicts with Debian's).
DEBS_CORE  = libbsd-dev libmd-dev libzstd-dev
DEBS_BUILD = $(DEBS_CORE) libsystemd-dev libcurl4-openssl-dev
DEBS_DEMO  = $(DEBS_CORE) jq procps
DEBS_CHECK = $(DEBS_BUILD) jq procps zstd bats python3-jsonschema mandoc strace \
	     tmux man-db groff-base bsdextrautils python3 python3-crc32c \
	     mosquitto mosquitto-clients lighttpd lighttpd-mod-openssl chromium nodejs \
	     curl dunst openssl \
	     xvfb dbus imagemagick x11-utils libnotify-bin libglib2.0-bin time \
	     systemd libsqlite3-0
DEBS_SLOW  = $(DEBS_CHECK)
# npm is a package of its own in Debian (nodejs has node only).
DEBS_CLIENTS = $(DEBS_CHECK) npm
DEBS_VALGRIND = $(DEBS_BUILD) jq valgrind curl libsqlite3-0
DEBS_SANITIZE = $(DEBS_CHECK) clang libclang-rt-14-dev
DEBS_FUZZ  = $(DEBS_CORE) jq clang libclang-rt-14-dev
DEBS_BENCH = $(DEBS_CHECK) libcjson-dev sqlite3 valgrind
# ntfy, the push server t/ntfy.bats runs, is Debian 13's package (12 has
# none), fetched from trixie with apt and unpacked in the tree by
# t/fetch-ntfy, which touches nothing of the machine's; the targets that
# run t/ntfy.bats fetch it once their packages are in (it links
# libsqlite3, which DEBS_CHECK brings: its package's Depends).
NTFY	   = t/ntfy/usr/bin/ntfy

all: $(COMMANDS) arc-notify

$(OBJS) $(NOTIFY_OBJS): $(HEADERS)

arc-notify: $(NOTIFY_OBJS) $(LIBOBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(NOTIFY_OBJS) $(LIBOBJS) $(LDLIBS) \
	    $(NOTIFY_LIBS)

arc: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(COMMANDS): arc
	ln -f arc $@

.c.o:
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -c $<

# The page's style and script are files of their own (web/), compiled
# into arc-web as arrays of their bytes (web/embed: od, no extra package).
WEB_ASSETS = web/arc.css web/arc.js
web/assets.inc: web/embed $(WEB_ASSETS)
	web/embed $(WEB_ASSETS) >$@.tmp && mv $@.tmp $@

arc-web.o: web/assets.inc

# What is missing of a list ($(DEBS)), in $$missing.
MISSING = have=$$(dpkg-query -W -f='$${db:Status-Abbrev} $${Package}, $${Provides}\n' \
	    2>/dev/null | awk '$$1 == "ii" { $$1 = ""; print }' | tr ',' '\n' | \
	    awk 'NF { print $$1 }'); \
	missing=; for p in $(DEBS); do \
	    printf '%s\n' "$$have" | grep -qx -- "$$p" || missing="$$missing $$p"; done

# Installs what is missing of a list, and nothing when all is there.
deps: deps-check
deps-build: DEBS = $(DEBS_BUILD)
deps-demo: DEBS = $(DEBS_DEMO)
deps-check: DEBS = $(DEBS_CHECK)
deps-clients: DEBS = $(DEBS_CLIENTS)
deps-slow: DEBS = $(DEBS_SLOW)
deps-valgrind: DEBS = $(DEBS_VALGRIND)
deps-sanitize: DEBS = $(DEBS_SANITIZE)
deps-fuzz: DEBS = $(DEBS_FUZZ)
deps-bench: DEBS = $(DEBS_BENCH)
NTFY_TARGETS = deps-check deps-clients deps-slow deps-valgrind deps-sanitize deps-bench
deps-build deps-demo deps-check deps-clients deps-slow deps-valgrind deps-sanitize deps-fuzz deps-bench:
	@$(MISSING); \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	    $$sudo apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
	        --no-install-recommends $$missing >/dev/null; \
	fi
	@$(if $(filter $@,$(NTFY_TARGETS)),t/fetch-ntfy t/ntfy)

# Stops, naming what is missing and the command that installs it.
need-build: DEBS = $(DEBS_BUILD)
need-build: NEEDED_BY = install
need-check: DEBS = $(DEBS_CHECK)
need-check: NEEDED_BY = check
need-build need-check:
	@$(MISSING); \
	if [ $@ = need-check ] && [ ! -x $(NTFY) ]; then \
	    missing="$$missing ntfy(trixie)"; fi; \
	if [ -n "$$missing" ]; then \
	    echo "make $(NEEDED_BY) needs these Debian packages:$$missing" >&2; \
	    echo "make $(@:need-%=deps-%) installs them (apt-get; sudo when not root); then make $(NEEDED_BY) again" >&2; \
	    exit 2; \
	fi

check: need-check all test-helpers
	@t/run-tests

# The rooms the build knows, for t/layers to hold against its table.
print-rooms:
	@echo $(OBJS) $(NOTIFY_OBJS) $(HEADERS)

# The C helpers of the test suite, with the project's warnings: the
# power-loss shim (LD_PRELOAD) and the bit flipper.  t/run-tests builds
# them too (make test-helpers) when they are missing or older than their
# source.
TEST_HELPERS = t/powerloss/shim.so t/powerloss/flip t/notify/forge t/notify/refuse \
	       t/unit t/narrow/probe.so t/smallmem/phys.so t/fanout/socket.so
test-helpers: $(TEST_HELPERS)

# The pure functions of the lower layers, against their standards (t/unit.c).
t/unit: t/unit.c $(LIBOBJS)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -o $@ t/unit.c $(LIBOBJS) $(LDLIBS)

# A write tried as a process exits, to see what narrowing left it.
t/narrow/probe.so: t/narrow/probe.c
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -fPIC -shared -o $@ t/narrow/probe.c

# A machine of little memory, as sysconf(3) tells it.
t/smallmem/phys.so: t/smallmem/phys.c
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -fPIC -shared -o $@ t/smallmem/phys.c -ldl
t/fanout/socket.so: t/fanout/socket.c
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -fPIC -shared -o $@ t/fanout/socket.c -ldl

t/powerloss/shim.so: t/powerloss/shim.c
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -fPIC -shared -o $@ t/powerloss/shim.c -ldl

t/powerloss/flip: t/powerloss/flip.c
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -o $@ t/powerloss/flip.c

# a peer on the session bus that forges the notification server's signals
t/notify/forge: t/notify/forge.c
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -o $@ t/notify/forge.c -lsystemd
# a notification server that refuses every Notify call with a D-Bus error
t/notify/refuse: t/notify/refuse.c
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -o $@ t/notify/refuse.c -lsystemd

lint-man:
	mandoc -Tlint -Wwarning $(MAN1) $(MAN5) $(MAN7) $(MAN8)

# The demo runs the commands alone: arc-notify (libsystemd) is not built.
demo: deps-demo $(COMMANDS)
	@examples/demo

# A recorded Claude Code and Codex session played through the hook adapters.
demo-hooks: deps-demo $(COMMANDS)
	@examples/hooks-demo

# The hook fixtures and the adapters' outputs against the Claude Code and
# Codex packages pinned in t/clients/ (npm, installed into t/clients/cache).
check-clients: deps-clients all
	@t/clients/check

.PHONY: demo-hooks check-clients

bench: deps-bench all bench/cjson-parse bench/wakelat
	@bench/run

# The guard on the engine's figures: short forms, each paired with its
# yardstick in the same run, a ratio held to its target (bench/check).
bench-check: deps-bench all bench/cjson-parse bench/wakelat
	@bench/check

bench/wakelat: bench/wakelat.c
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -o $@ bench/wakelat.c

bench/cjson-parse: bench/cjson-parse.c
	$(CC) $(WARN) $(CFLAGS) -D_GNU_SOURCE -o $@ bench/cjson-parse.c -lcjson

# arc-apply against the model of ARC 0.2 (t/model/): make check runs 2,000
# random sequences (t/model.bats), this many more (--coverage wants a few
# hundred at least: every answer rule must be reached).
MODEL_SEQUENCES = 50000
check-model: deps-check all
	@t/model/difftest --sequences $(MODEL_SEQUENCES) --coverage

# Crashes, full disks and races: slower, and root for its mounts.
check-slow: deps-slow all test-helpers
	@ARC_NO_WRAP=1 t/run-tests t/slow/*.bats

check-valgrind: deps-valgrind all
	@t/valgrind-paths

# The whole suite against an ASan+UBSan build of every command, for memory
# errors and undefined behaviour.  Leaks are check-valgrind's and the
# fuzzers' (libFuzzer checks each input): LeakSanitizer's scan at each exit
# made each of the suite's thousands of processes 50 ms slower, and the
# step too long for CI (ASAN_OPTIONS=detect_leaks=1 brings it back).
SANFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=all
check-sanitize: deps-sanitize test-helpers web/assets.inc
	@mkdir -p san
	@for f in $(OBJS:.o=.c); do \
	    clang $(WARN) $(SANFLAGS) $(CPPFLAGS) -c $$f -o san/$${f%.c}.o || exit 1; \
	done
	@clang $(SANFLAGS) -o san/arc $(addprefix san/,$(OBJS)) $(LDLIBS)
	@for c in $(COMMANDS); do ln -f san/arc san/$$c; done
	@for f in $(NOTIFY_OBJS:.o=.c); do \
	    clang $(WARN) $(SANFLAGS) $(CPPFLAGS) -c $$f -o san/$${f%.c}.o || exit 1; \
	done
	@clang $(SANFLAGS) -o san/arc-notify $(addprefix san/,$(NOTIFY_OBJS)) \
	    $(addprefix san/,$(LIBOBJS)) $(LDLIBS) $(NOTIFY_LIBS)
	@ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1} \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    ARC_BIN=$(CURDIR)/san t/run-tests

# libFuzzer targets, each run FUZZ_SECONDS from a corpus seeded with t/.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = fuzz_validate fuzz_apply fuzz_journal fuzz_checkpoint fuzz_replay \
	       fuzz_acpmsg fuzz_hook
FUZZFLAGS = -O1 -g -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all
fuzz-build: deps-fuzz
	@mkdir -p fuzz/bin
	@for f in $(filter-out arcmain.o,$(OBJS)); do \
	    clang $(WARN) $(FUZZFLAGS:fuzzer,=fuzzer-no-link,) $(CPPFLAGS) \
	        -c $${f%.o}.c -o fuzz/bin/$$f || exit 1; done
	@for t in $(FUZZ_TARGETS); do \
	    clang $(WARN) $(FUZZFLAGS) $(CPPFLAGS) -o fuzz/bin/$$t fuzz/$$t.c \
	        fuzz/scratch.c \
	        $(addprefix fuzz/bin/,$(filter-out arcmain.o,$(OBJS))) \
	        $(LDLIBS) || exit 1; done

fuzz: fuzz-build $(COMMANDS)
	@fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

install: need-build all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(LIBEXECDIR)
	install -m 755 arc $(DESTDIR)$(BINDIR)/$(firstword $(COMMANDS))
	for c in $(filter-out arc-web,$(wordlist 2,99,$(COMMANDS))); do \
	    ln -f $(DESTDIR)$(BINDIR)/$(firstword $(COMMANDS)) \
	        $(DESTDIR)$(BINDIR)/$$c; done
	# the front command, unless an arc of another program is there
	# (Debian's archiver is /usr/bin/arc): it is never replaced
	@if [ -e $(DESTDIR)$(BINDIR)/arc ] && \
	    ! [ $(DESTDIR)$(BINDIR)/arc -ef $(DESTDIR)$(BINDIR)/arc-validate ]; then \
	    echo "$(BINDIR)/arc is another program: left as it is; arc's front command is not installed (arc-COMMAND is)" >&2; \
	else ln -f $(DESTDIR)$(BINDIR)/$(firstword $(COMMANDS)) $(DESTDIR)$(BINDIR)/arc; fi
	# arc-web is run by a web server, not by a person: the CGI's path.
	install -m 755 arc $(DESTDIR)$(LIBEXECDIR)/arc-web
	install -m 755 examples/arc-mqtt arc-notify $(DESTDIR)$(BINDIR)
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7
	install -m 644 $(MAN8) $(DESTDIR)$(MANDIR)/man8
	install -d $(DESTDIR)$(PREFIX)/share/arc/examples
	install -m 755 examples/claude-code-hook examples/codex-hook \
	    examples/codex-notify examples/gemini-hook \
	    $(DESTDIR)$(PREFIX)/share/arc/examples
	# the units run the commands where this install put them
	for u in $(UNITS); do \
	    sed -e 's|/usr/local/bin/|$(BINDIR)/|' -e 's|/usr/local/share/|$(PREFIX)/share/|' examples/$$u \
	        >$(DESTDIR)$(PREFIX)/share/arc/examples/$$u && \
	    chmod 644 $(DESTDIR)$(PREFIX)/share/arc/examples/$$u || exit 1; done
	sed -e 's|/usr/local/lib/arc/|$(LIBEXECDIR)/|' \
	    -e 's|/usr/local/share/|$(PREFIX)/share/|' examples/arc-web-lighttpd.conf \
	    >$(DESTDIR)$(PREFIX)/share/arc/examples/arc-web-lighttpd.conf
	chmod 644 $(DESTDIR)$(PREFIX)/share/arc/examples/arc-web-lighttpd.conf
	install -d $(DESTDIR)$(DATADIR)
	install -m 644 schemas/arc-0.2.schema.json $(DESTDIR)$(DATADIR)
	# bash-completion loads a command's file by its name
	install -d $(DESTDIR)$(COMPLETIONDIR)
	install -m 644 examples/arc.bash $(DESTDIR)$(COMPLETIONDIR)/arc
	for c in $(COMPLETED); do ln -sf arc $(DESTDIR)$(COMPLETIONDIR)/$$c; done

# Removes what install put under PREFIX, and the folders it made that
# are left empty; nothing else.
UNITS = arc-mqtt-agent.service arc-mqtt-person.service arc-notify.service \
	arc-web.service
INSTALLED_EXAMPLES = claude-code-hook codex-hook codex-notify gemini-hook \
	$(UNITS) arc-web-lighttpd.conf
uninstall:
	@! [ $(DESTDIR)$(BINDIR)/arc -ef $(DESTDIR)$(BINDIR)/arc-validate ] || \
	    rm -f $(DESTDIR)$(BINDIR)/arc
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(filter-out arc-web,$(COMMANDS))) \
	    $(DESTDIR)$(BINDIR)/arc-mqtt $(DESTDIR)$(BINDIR)/arc-notify \
	    $(DESTDIR)$(LIBEXECDIR)/arc-web \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(MAN7))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8))) \
	    $(addprefix $(DESTDIR)$(PREFIX)/share/arc/examples/,$(INSTALLED_EXAMPLES)) \
	    $(DESTDIR)$(DATADIR)/arc-0.2.schema.json \
	    $(DESTDIR)$(COMPLETIONDIR)/arc $(addprefix $(DESTDIR)$(COMPLETIONDIR)/,$(COMPLETED))
	rmdir $(DESTDIR)$(PREFIX)/share/arc/examples $(DESTDIR)$(DATADIR) \
	    $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(COMPLETIONDIR) \
	    $(DESTDIR)$(PREFIX)/share/bash-completion 2>/dev/null || :

clean:
	rm -rf arc arc-notify $(COMMANDS) *.o web/assets.inc bench/cjson-parse bench/wakelat san fuzz/bin fuzz/corpus \
	    $(TEST_HELPERS)

# The list a target installs: make -s debs-list T=CHECK (t/needs.bats).
debs-list:
	@echo $(DEBS_$(T))

.PHONY: all print-rooms debs-list deps need-build need-check deps-build deps-clients deps-demo deps-check deps-slow deps-valgrind deps-sanitize \
	deps-fuzz deps-bench check check-model check-slow check-valgrind check-sanitize fuzz fuzz-build lint-man demo bench \
	test-helpers \
	install uninstall clean
