# arc: the Attention Request Contract (ARC 0.2) as Unix filters.
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
CC	?= cc
CFLAGS	?= -O2 -g
WARN	 = -std=c11 -Wall -Wextra -Wpedantic -Werror -Wshadow \
	   -Wstrict-prototypes -Wmissing-prototypes -Wvla
CPPFLAGS += -D_GNU_SOURCE -isystem /usr/include/bsd -DLIBBSD_OVERLAY
LDLIBS	+= -lbsd -lmd

COMMANDS = arc-validate arc-apply
OBJS	 = arcfilter.o arcvalidate.o arcstate.o arcjournal.o arcjson.o \
	   arctime.o arcdigest.o arcline.o
MAN1	 = man/arc-validate.1
MAN5	 =
MAN7	 = man/arc.7

all: $(COMMANDS)

$(OBJS): arc.h arccmd.h arcstate.h arcjournal.h

arc: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(COMMANDS): arc
	ln -f arc $@

.c.o:
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -c $<

check: all
	@t/run-tests

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	for c in $(COMMANDS); do install -m 755 arc $(DESTDIR)$(BINDIR)/$$c; done
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7

clean:
	rm -f arc $(COMMANDS) *.o

.PHONY: all check install clean
