/*
 * refuse: a notification server on the session bus that refuses every
 * Notify call with a D-Bus error, as a real one does when it is full or
 * will not show what it is sent (org.freedesktop.Notifications.Error.
 * Refused, "too many notifications shown").  It owns
 * org.freedesktop.Notifications, answers GetServerInformation,
 * GetCapabilities and CloseNotification, and prints one line "notify" for
 * each Notify call it refuses, so that a test can count the tries.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include <systemd/sd-bus.h>

static void
check(int rc, const char *what)
{
	if (rc < 0)
		errx(1, "%s: %s", what, strerror(-rc));
}

static int
notify(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	(void)m;
	(void)arg;
	if (printf("notify\n") < 0 || fflush(stdout) == EOF)
		err(1, "stdout");
	return sd_bus_error_set(e, "org.freedesktop.Notifications.Error.Refused",
	    "too many notifications shown");
}

static int
info(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	(void)arg;
	(void)e;
	return sd_bus_reply_method_return(m, "ssss", "refuse", "arc-test",
	    "1", "1.2");
}

static int
caps(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	(void)arg;
	(void)e;
	return sd_bus_reply_method_return(m, "as", 2, "body", "actions");
}

static int
close_one(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	(void)arg;
	(void)e;
	return sd_bus_reply_method_return(m, "");
}

static const sd_bus_vtable vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Notify", "susssasa{sv}i", "u", notify,
	    SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("GetServerInformation", "", "ssss", info,
	    SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("GetCapabilities", "", "as", caps,
	    SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("CloseNotification", "u", "", close_one,
	    SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

int
main(void)
{
	sd_bus_slot	*slot = NULL;
	sd_bus		*bus = NULL;
	int		 rc;

	check(sd_bus_open_user(&bus), "the session bus");
	check(sd_bus_add_object_vtable(bus, &slot,
	    "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
	    vtable, NULL), "the object");
	check(sd_bus_request_name(bus, "org.freedesktop.Notifications", 0),
	    "the name");
	for (;;) {
		check(rc = sd_bus_process(bus, NULL), "processing");
		if (rc > 0)
			continue;
		check(sd_bus_wait(bus, UINT64_MAX), "waiting");
	}
}
