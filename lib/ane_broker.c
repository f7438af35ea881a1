// SPDX-License-Identifier: MIT
/*
 * libane: the client side of aned, the broker daemon
 * (Documentation/accel/ane/broker.rst): D-Bus peer to peer over a unix
 * socket, interface org.ane.Broker1 at /org/ane/Broker.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "libane.h"

#define BROKER_PATH	"/org/ane/Broker"
#define BROKER_IFACE	"org.ane.Broker1"
/* A call waits this long for its reply (an evaluation takes at most ~12 s). */
#define CALL_TIMEOUT_US	30000000ull

struct ane_broker {
	sd_bus *bus;
	int dead;		/* the connection broke: every call fails */
	char path[108];
	char err[512];
};

static int bfail(struct ane_broker *b, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bfail(struct ane_broker *b, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, sizeof(b->err), fmt, ap);
	va_end(ap);
	return -e;
}

static const char *sock_path(const char *path)
{
	const char *env = getenv(ANE_BROKER_SOCKET_ENV);

	if (path)
		return path;
	return env && *env ? env : ANE_BROKER_SOCKET_DEFAULT;
}

int ane_broker_available(const char *path)
{
	struct stat st;

	return !stat(sock_path(path), &st) && S_ISSOCK(st.st_mode);
}

int ane_broker_connect(const char *path, struct ane_broker **out, char *errbuf,
		       size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ane_broker *b;
	int fd, ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	path = sock_path(path);
	if (strlen(path) >= sizeof(sa.sun_path)) {
		if (errbuf)
			snprintf(errbuf, errlen, "aned socket %s: path too long", path);
		return -ENAMETOOLONG;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	snprintf(b->path, sizeof(b->path), "%s", path);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		if (errbuf)
			snprintf(errbuf, errlen, "aned socket %s: %s (is aned running?)", path,
				 strerror(-ret));
		free(b);
		return ret;
	}
	ret = sd_bus_new(&b->bus);
	if (ret >= 0)
		ret = sd_bus_set_fd(b->bus, fd, fd);
	else
		close(fd);
	if (ret >= 0)
		ret = sd_bus_negotiate_fds(b->bus, 1);
	if (ret >= 0)
		ret = sd_bus_start(b->bus);
	if (ret < 0) {
		if (errbuf)
			snprintf(errbuf, errlen, "aned socket %s: D-Bus handshake: %s", path,
				 strerror(-ret));
		sd_bus_flush_close_unref(b->bus);
		free(b);
		return ret;
	}
	*out = b;
	return 0;
}

void ane_broker_close(struct ane_broker *b)
{
	if (!b)
		return;
	sd_bus_flush_close_unref(b->bus);
	free(b);
}

const char *ane_broker_errmsg(const struct ane_broker *b)
{
	return b ? b->err : "no broker handle";
}

static int new_call(struct ane_broker *b, const char *method, sd_bus_message **m)
{
	int ret;

	if (b->dead)
		return bfail(b, ENOTCONN, "%s: the connection to aned (%s) broke: close the handle and connect again",
			     method, b->path);
	ret = sd_bus_message_new_method_call(b->bus, m, NULL, BROKER_PATH, BROKER_IFACE,
					     method);
	if (ret < 0)
		return bfail(b, -ret, "%s: %s", method, strerror(-ret));
	return 0;
}

/* Send @m, wait for the reply; 0 or the daemon's -errno, message set. */
static int do_call(struct ane_broker *b, const char *method, sd_bus_message *m,
		   sd_bus_message **reply)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	int ret;

	ret = sd_bus_call(b->bus, m, CALL_TIMEOUT_US, &err, reply);
	sd_bus_message_unref(m);
	if (ret >= 0) {
		b->err[0] = '\0';
		return 0;
	}
	if (sd_bus_error_is_set(&err) && !sd_bus_error_has_name(&err, SD_BUS_ERROR_NO_REPLY) &&
	    !sd_bus_error_has_name(&err, SD_BUS_ERROR_DISCONNECTED)) {
		int e = sd_bus_error_get_errno(&err);

		ret = bfail(b, e > 0 ? e : EIO, "aned: %s", err.message ? err.message : err.name);
	} else {
		b->dead = 1;
		ret = bfail(b, ret == -ETIMEDOUT ? ETIMEDOUT : ECONNRESET,
			    "%s: the connection to aned (%s) broke (%s): close the handle and connect again",
			    method, b->path, strerror(-ret));
	}
	sd_bus_error_free(&err);
	return ret;
}

static int read_u64(struct ane_broker *b, sd_bus_message *reply, uint64_t *v)
{
	int ret = sd_bus_message_read(reply, "t", v);

	sd_bus_message_unref(reply);
	return ret < 0 ? bfail(b, EPROTO, "aned: a malformed reply") : 0;
}

int ane_broker_load(struct ane_broker *b, const void *image, size_t size,
		    enum ane_qos qos, uint32_t flags, uint64_t *model)
{
	sd_bus_message *m, *reply;
	int ret;

	if (!b || !image || !model)
		return -EINVAL;
	ret = new_call(b, "Load", &m);
	if (ret)
		return ret;
	ret = sd_bus_message_append_array(m, 'y', image, size);
	if (ret >= 0)
		ret = sd_bus_message_append(m, "uu", (uint32_t)qos, flags);
	if (ret < 0) {
		sd_bus_message_unref(m);
		return bfail(b, -ret, "Load: image of %zu bytes: %s", size, strerror(-ret));
	}
	ret = do_call(b, "Load", m, &reply);
	return ret ? ret : read_u64(b, reply, model);
}

int ane_broker_load_fd(struct ane_broker *b, int fd, enum ane_qos qos,
		       uint32_t flags, uint64_t *model)
{
	sd_bus_message *m, *reply;
	int ret;

	if (!b || fd < 0 || !model)
		return -EINVAL;
	ret = new_call(b, "LoadFd", &m);
	if (ret)
		return ret;
	ret = sd_bus_message_append(m, "huu", fd, (uint32_t)qos, flags);
	if (ret < 0) {
		sd_bus_message_unref(m);
		return bfail(b, -ret, "LoadFd: %s", strerror(-ret));
	}
	ret = do_call(b, "LoadFd", m, &reply);
	return ret ? ret : read_u64(b, reply, model);
}

int ane_broker_evaluate(struct ane_broker *b, uint64_t model,
			const void *const *inputs, const size_t *in_sizes,
			unsigned int n_in, void *const *outputs,
			const size_t *out_sizes, unsigned int n_out,
			enum ane_qos qos, uint64_t *exec_ns)
{
	sd_bus_message *m, *reply;
	unsigned int i;
	uint64_t ns;
	int ret;

	if (!b || (n_in && (!inputs || !in_sizes)) || !outputs || !out_sizes)
		return -EINVAL;
	ret = new_call(b, "Evaluate", &m);
	if (ret)
		return ret;
	ret = sd_bus_message_append(m, "t", model);
	if (ret >= 0)
		ret = sd_bus_message_open_container(m, 'a', "ay");
	for (i = 0; ret >= 0 && i < n_in; i++)
		ret = sd_bus_message_append_array(m, 'y', inputs[i], in_sizes[i]);
	if (ret >= 0)
		ret = sd_bus_message_close_container(m);
	if (ret >= 0)
		ret = sd_bus_message_append(m, "u", (uint32_t)qos);
	if (ret < 0) {
		sd_bus_message_unref(m);
		return bfail(b, -ret, "Evaluate: inputs: %s", strerror(-ret));
	}
	ret = do_call(b, "Evaluate", m, &reply);
	if (ret)
		return ret;
	ret = sd_bus_message_enter_container(reply, 'a', "ay");
	for (i = 0; ret >= 0; i++) {
		const void *p;
		size_t size;

		ret = sd_bus_message_read_array(reply, 'y', &p, &size);
		if (ret <= 0)
			break;
		if (i >= n_out || size > out_sizes[i]) {
			sd_bus_message_unref(reply);
			return bfail(b, EINVAL, "Evaluate: outputs[%u]: the model writes %zu bytes, %s",
				     i, size, i >= n_out ? "n_out is smaller" : "the buffer is smaller");
		}
		memcpy(outputs[i], p, size);
	}
	if (ret >= 0)
		ret = sd_bus_message_exit_container(reply);
	if (ret >= 0)
		ret = sd_bus_message_read(reply, "t", &ns);
	sd_bus_message_unref(reply);
	if (ret < 0)
		return bfail(b, EPROTO, "aned: a malformed reply to Evaluate");
	if (exec_ns)
		*exec_ns = ns;
	return 0;
}

/* A call taking one uint64 and answering one uint64 (or nothing). */
static int call_t(struct ane_broker *b, const char *method, uint64_t arg, uint64_t *res)
{
	sd_bus_message *m, *reply;
	int ret;

	if (!b)
		return -EINVAL;
	ret = new_call(b, method, &m);
	if (ret)
		return ret;
	ret = sd_bus_message_append(m, "t", arg);
	if (ret < 0) {
		sd_bus_message_unref(m);
		return bfail(b, -ret, "%s: %s", method, strerror(-ret));
	}
	ret = do_call(b, method, m, &reply);
	if (ret)
		return ret;
	if (!res) {
		sd_bus_message_unref(reply);
		return 0;
	}
	return read_u64(b, reply, res);
}

int ane_broker_unload(struct ane_broker *b, uint64_t model)
{
	return call_t(b, "Unload", model, NULL);
}

int ane_broker_share(struct ane_broker *b, uint64_t model, uint64_t *cookie)
{
	return cookie ? call_t(b, "Share", model, cookie) : -EINVAL;
}

int ane_broker_adopt(struct ane_broker *b, uint64_t cookie, uint64_t *model)
{
	return model ? call_t(b, "Adopt", cookie, model) : -EINVAL;
}

int ane_broker_instantiate_ex(struct ane_broker *b, uint64_t base, const void *weights,
			      size_t size, enum ane_qos qos, uint32_t flags, uint64_t *model)
{
	sd_bus_message *m, *reply;
	int ret;

	if (!b || !weights || !model)
		return -EINVAL;
	ret = new_call(b, "Instantiate", &m);
	if (ret)
		return ret;
	ret = sd_bus_message_append(m, "t", base);
	if (ret >= 0)
		ret = sd_bus_message_append_array(m, 'y', weights, size);
	if (ret >= 0)
		ret = sd_bus_message_append(m, "uu", (uint32_t)qos, flags);
	if (ret < 0) {
		sd_bus_message_unref(m);
		return bfail(b, -ret, "Instantiate: %s", strerror(-ret));
	}
	ret = do_call(b, "Instantiate", m, &reply);
	return ret ? ret : read_u64(b, reply, model);
}

int ane_broker_instantiate(struct ane_broker *b, uint64_t base, const void *weights,
			   size_t size, enum ane_qos qos, uint64_t *model)
{
	return ane_broker_instantiate_ex(b, base, weights, size, qos, 0, model);
}

/* Call @what and read its (ay image, t model) answer. */
static int image_reply(struct ane_broker *b, const char *what, sd_bus_message *m,
		       void **image, size_t *size, uint64_t *model)
{
	sd_bus_message *reply;
	const void *p;
	size_t len;
	int ret;

	ret = do_call(b, what, m, &reply);
	if (ret)
		return ret;
	ret = sd_bus_message_read_array(reply, 'y', &p, &len);
	if (ret >= 0)
		ret = sd_bus_message_read(reply, "t", model);
	if (ret >= 0 && len) {
		*image = malloc(len);
		if (!*image)
			ret = -ENOMEM;
		else
			memcpy(*image, p, len);
		*size = len;
	}
	sd_bus_message_unref(reply);
	if (ret < 0)
		return bfail(b, ret == -ENOMEM ? ENOMEM : EPROTO, "aned: a malformed reply to %s",
			     what);
	return 0;
}

int ane_broker_compile(struct ane_broker *b, const struct ane_broker_net_rec *recs,
		       unsigned int n, enum ane_qos qos, uint32_t flags, void **image,
		       size_t *size, uint64_t *model)
{
	sd_bus_message *m;
	unsigned int i;
	int ret;

	if (!b || (n && !recs) || !image || !size || !model)
		return -EINVAL;
	*image = NULL;
	*size = 0;
	*model = 0;
	ret = new_call(b, "Compile", &m);
	if (ret)
		return ret;
	ret = sd_bus_message_open_container(m, 'a', "(uauay)");
	for (i = 0; ret >= 0 && i < n; i++) {
		if (recs[i].n_args > ANE_BROKER_NET_MAX_ARGS) {
			sd_bus_message_unref(m);
			return bfail(b, EINVAL, "Compile: net[%u]: %u arguments, at most %u", i,
				     recs[i].n_args, ANE_BROKER_NET_MAX_ARGS);
		}
		ret = sd_bus_message_open_container(m, 'r', "uauay");
		if (ret >= 0)
			ret = sd_bus_message_append(m, "u", recs[i].op);
		if (ret >= 0)
			ret = sd_bus_message_append_array(m, 'u', recs[i].args,
							  recs[i].n_args * sizeof(uint32_t));
		if (ret >= 0)
			ret = sd_bus_message_append_array(m, 'y', recs[i].data ? (const void *)recs[i].data : "",
							  recs[i].data ? recs[i].n_data * sizeof(float) : 0);
		if (ret >= 0)
			ret = sd_bus_message_close_container(m);
	}
	if (ret >= 0)
		ret = sd_bus_message_close_container(m);
	if (ret >= 0)
		ret = sd_bus_message_append(m, "uu", (uint32_t)qos, flags);
	if (ret < 0) {
		sd_bus_message_unref(m);
		return bfail(b, -ret, "Compile: net: %s", strerror(-ret));
	}
	return image_reply(b, "Compile", m, image, size, model);
}

int ane_broker_compile_onnx(struct ane_broker *b, const void *bytes, size_t len,
			    enum ane_qos qos, uint32_t flags, void **image,
			    size_t *size, uint64_t *model)
{
	sd_bus_message *m;
	int ret;

	if (!b || !bytes || !len || !image || !size || !model)
		return -EINVAL;
	*image = NULL;
	*size = 0;
	*model = 0;
	ret = new_call(b, "CompileOnnx", &m);
	if (ret)
		return ret;
	ret = sd_bus_message_append_array(m, 'y', bytes, len);
	if (ret >= 0)
		ret = sd_bus_message_append(m, "uu", (uint32_t)qos, flags);
	if (ret < 0) {
		sd_bus_message_unref(m);
		return bfail(b, -ret, "CompileOnnx: model: %s", strerror(-ret));
	}
	return image_reply(b, "CompileOnnx", m, image, size, model);
}

int ane_broker_handoff(struct ane_broker *b, uint64_t model, uint32_t flags,
		       int *export_fd, int *dp_fd)
{
	sd_bus_message *m, *reply;
	int ret, efd = -1, dfd = -1;

	if (!b || !export_fd || !dp_fd)
		return -EINVAL;
	*export_fd = *dp_fd = -1;
	ret = new_call(b, "HandOff", &m);
	if (ret)
		return ret;
	ret = sd_bus_message_append(m, "tu", model, flags);
	if (ret < 0) {
		sd_bus_message_unref(m);
		return bfail(b, -ret, "HandOff: %s", strerror(-ret));
	}
	ret = do_call(b, "HandOff", m, &reply);
	if (ret)
		return ret;
	ret = sd_bus_message_read(reply, "h", &efd);
	if (ret >= 0)
		ret = sd_bus_message_enter_container(reply, 'a', "h");
	if (ret >= 0 && sd_bus_message_read(reply, "h", &dfd) <= 0)
		dfd = -1;
	/* The message owns its descriptors: keep copies. */
	if (ret >= 0) {
		*export_fd = fcntl(efd, F_DUPFD_CLOEXEC, 3);
		if (dfd >= 0)
			*dp_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	}
	sd_bus_message_unref(reply);
	if (ret < 0 || *export_fd < 0 || (dfd >= 0 && *dp_fd < 0)) {
		if (*export_fd >= 0)
			close(*export_fd);
		if (*dp_fd >= 0)
			close(*dp_fd);
		*export_fd = *dp_fd = -1;
		return bfail(b, EPROTO, "aned: a malformed reply to HandOff");
	}
	return 0;
}

int ane_broker_purge(struct ane_broker *b, uint32_t flags, uint32_t *evicted)
{
	sd_bus_message *m, *reply;
	uint32_t n;
	int ret;

	if (!b)
		return -EINVAL;
	ret = new_call(b, "Purge", &m);
	if (ret)
		return ret;
	ret = sd_bus_message_append(m, "u", flags);
	if (ret < 0) {
		sd_bus_message_unref(m);
		return bfail(b, -ret, "Purge: %s", strerror(-ret));
	}
	ret = do_call(b, "Purge", m, &reply);
	if (ret)
		return ret;
	ret = sd_bus_message_read(reply, "u", &n);
	sd_bus_message_unref(reply);
	if (ret < 0)
		return bfail(b, EPROTO, "aned: a malformed reply to Purge");
	if (evicted)
		*evicted = n;
	return 0;
}

int ane_broker_diagnostics(struct ane_broker *b, char *buf, size_t len)
{
	sd_bus_message *m, *reply;
	const char *s;
	int ret;

	if (!b || !buf || !len)
		return -EINVAL;
	ret = new_call(b, "Diagnostics", &m);
	if (ret)
		return ret;
	ret = do_call(b, "Diagnostics", m, &reply);
	if (ret)
		return ret;
	ret = sd_bus_message_read(reply, "s", &s);
	if (ret >= 0)
		snprintf(buf, len, "%s", s);
	sd_bus_message_unref(reply);
	return ret < 0 ? bfail(b, EPROTO, "aned: a malformed reply to Diagnostics") : 0;
}
