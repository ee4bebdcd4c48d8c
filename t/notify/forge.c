/*
 * forge: a peer on the session bus that is not the notification server,
 * sending the signals only the server (or the bus) may send, from one
 * connection, in the order given:
 *
 *   action DEST ID KEY   org.freedesktop.Notifications.ActionInvoked
 *   closed DEST ID       org.freedesktop.Notifications.NotificationClosed
 *   owner DEST           org.freedesktop.DBus.NameOwnerChanged, saying
 *                        that this peer now owns org.freedesktop.Notifications
 *   ping DEST            org.freedesktop.DBus.Peer.Ping, waiting for the
 *                        reply: DEST has handled all that came before
 *
 * DEST is a unique name (a unicast signal, which dbus-daemon delivers to
 * it whatever its match rules say) or "-" (a broadcast).  Prints its own
 * unique name first.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

static void
check(int rc, const char *what)
{
	if (rc < 0)
		errx(1, "%s: %s", what, strerror(-rc));
}

static unsigned
number(const char *s)
{
	char		*end;
	unsigned long	 v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v > 0xffffffffUL)
		errx(2, "%s: not a notification id", s);
	return (unsigned)v;
}

int
main(int argc, char *argv[])
{
	sd_bus		*bus = NULL;
	sd_bus_message	*m;
	const char	*me;
	int		 i = 1;

	check(sd_bus_open_user(&bus), "the session bus");
	check(sd_bus_get_unique_name(bus, &me), "unique name");
	printf("%s\n", me);
	(void)fflush(stdout);
	while (i < argc) {
		const char *verb = argv[i], *dest = i + 1 < argc ? argv[i + 1] :
		    NULL;

		if (dest == NULL)
			errx(2, "%s: no destination", verb);
		m = NULL;
		if (strcmp(verb, "action") == 0 && i + 3 < argc) {
			check(sd_bus_message_new_signal(bus, &m,
			    "/org/freedesktop/Notifications",
			    "org.freedesktop.Notifications", "ActionInvoked"),
			    verb);
			check(sd_bus_message_append(m, "us",
			    number(argv[i + 2]), argv[i + 3]), verb);
			i += 4;
		} else if (strcmp(verb, "closed") == 0 && i + 2 < argc) {
			check(sd_bus_message_new_signal(bus, &m,
			    "/org/freedesktop/Notifications",
			    "org.freedesktop.Notifications",
			    "NotificationClosed"), verb);
			check(sd_bus_message_append(m, "uu",
			    number(argv[i + 2]), 2U), verb);
			i += 3;
		} else if (strcmp(verb, "owner") == 0) {
			check(sd_bus_message_new_signal(bus, &m,
			    "/org/freedesktop/DBus", "org.freedesktop.DBus",
			    "NameOwnerChanged"), verb);
			check(sd_bus_message_append(m, "sss",
			    "org.freedesktop.Notifications", "", me), verb);
			i += 2;
		} else if (strcmp(verb, "ping") == 0) {
			check(sd_bus_call_method(bus, dest, "/",
			    "org.freedesktop.DBus.Peer", "Ping", NULL, NULL,
			    ""), verb);
			i += 2;
			continue;
		} else
			errx(2, "usage: forge {action DEST ID KEY | closed "
			    "DEST ID | owner DEST | ping DEST}...");
		if (strcmp(dest, "-") != 0)
			check(sd_bus_message_set_destination(m, dest), verb);
		check(sd_bus_send(bus, m, NULL), verb);
		sd_bus_message_unref(m);
	}
	check(sd_bus_flush(bus), "flush");
	sd_bus_flush_close_unref(bus);
	return 0;
}
