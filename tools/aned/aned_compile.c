// SPDX-License-Identifier: MIT
/*
 * aned: the compiler service: Compile takes a network as records, one
 * per libane builder call, checks them, and builds the image in a child
 * process with a time limit; CompileOnnx takes an ONNX model's bytes and
 * compiles them in the same sandboxed child with libane's ONNX front end.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "aned.h"

/* ------------------------------------------------------------ compiler service */
/* A record's argument count, by op (ANE_BROKER_NET_*). */
static const unsigned char net_nargs[] = { 4, 4, 13, 4, 4, 2, 12, 1, 2, 1 };

/* Which arguments name an earlier record's tensor (bit i: argument i). */
static const unsigned short net_refs[] = { 0, 0, 0x7, 0x3, 0x6, 0x1, 0x1, 0x1, 0x1, 0x1 };

struct compile *compiles;

/* In the child: run the records through the builder; the image, or a message. */
static int net_build(const struct net_rec *r, unsigned int n, int out)
{
	struct ane_net *net = NULL;
	int *t = calloc(n ? n : 1, sizeof(*t));
	const void *img = NULL;
	size_t size = 0, done = 0;
	const char *msg;
	unsigned int i;
	int ret = 0;

	if (!t || ane_net_create(&net)) {
		msg = "out of memory";
		goto fail;
	}
	for (i = 0; i < n; i++) {
		const uint32_t *a = r[i].args;
		int x = (int)(a[0] < i ? t[a[0]] : -1);

		switch (r[i].op) {
		case ANE_BROKER_NET_INPUT:
			t[i] = ane_net_input(net, NULL, a[0], a[1], a[2], a[3]);
			break;
		case ANE_BROKER_NET_CONST: {
			/* A byte array in the message is not aligned for floats. */
			float *v = malloc(r[i].n_data * sizeof(float));

			if (!v) {
				msg = "out of memory";
				goto fail;
			}
			memcpy(v, r[i].data, r[i].n_data * sizeof(float));
			t[i] = ane_net_const(net, NULL, a[0], a[1], a[2], a[3], v);
			free(v);
			break;
		}
		case ANE_BROKER_NET_CONV: {
			struct ane_net_conv_params p = {
				.stride_h = a[3], .stride_w = a[4], .dilation_h = a[5],
				.dilation_w = a[6], .pad_top = a[7], .pad_bottom = a[8],
				.pad_left = a[9], .pad_right = a[10], .groups = a[11],
				.act = (enum ane_net_act)a[12],
			};

			t[i] = ane_net_conv(net, x, t[a[1]],
					    a[2] == ANE_BROKER_NET_NONE ? -1 : t[a[2]], &p);
			break;
		}
		case ANE_BROKER_NET_MATMUL:
			t[i] = ane_net_matmul(net, x, t[a[1]], a[2], (enum ane_net_act)a[3]);
			break;
		case ANE_BROKER_NET_ELTWISE:
			t[i] = ane_net_eltwise(net, (enum ane_net_eltwise_op)a[0], t[a[1]], t[a[2]],
					       (enum ane_net_act)a[3]);
			break;
		case ANE_BROKER_NET_ACTIVATION:
			t[i] = ane_net_activation(net, x, (enum ane_net_act)a[1]);
			break;
		case ANE_BROKER_NET_POOL: {
			struct ane_net_pool_params p = {
				.kind = (enum ane_net_pool_kind)a[1], .kernel_h = a[2],
				.kernel_w = a[3], .stride_h = a[4], .stride_w = a[5],
				.pad_top = a[6], .pad_bottom = a[7], .pad_left = a[8],
				.pad_right = a[9], .count_pad = a[10],
				.act = (enum ane_net_act)a[11],
			};

			t[i] = ane_net_pool(net, x, &p);
			break;
		}
		case ANE_BROKER_NET_SOFTMAX:
			t[i] = ane_net_softmax(net, x);
			break;
		case ANE_BROKER_NET_NORM:
			t[i] = ane_net_norm(net, x, (enum ane_net_norm_kind)a[1]);
			break;
		default:	/* OUTPUT */
			t[i] = -1;
			ane_net_output(net, x);
			break;
		}
	}
	if (ane_net_build(net, &img, &size)) {
		msg = ane_net_errmsg(net);
		goto fail;
	}
	while (done < size) {
		ssize_t k = write(out, (const uint8_t *)img + done, size - done);

		if (k <= 0)
			_exit(3);
		done += (size_t)k;
	}
	goto out;
fail:
	ret = 1;
	if (write(out, msg, strlen(msg)) < 0)
		ret = 3;
out:
	ane_net_destroy(net);
	free(t);
	return ret;
}

void compile_free(struct compile *cp)
{
	struct compile **pp;

	for (pp = &compiles; *pp; pp = &(*pp)->next)
		if (*pp == cp) {
			*pp = cp->next;
			break;
		}
	sd_event_source_disable_unref(cp->child_src);
	sd_event_source_disable_unref(cp->timer_src);
	sd_bus_message_unref(cp->msg);
	close(cp->memfd);
	n_compiles--;
	free(cp);
}

static int on_compile_timeout(sd_event_source *s, uint64_t usec, void *ud)
{
	struct compile *cp = ud;

	(void)s;
	(void)usec;
	kill(cp->pid, SIGKILL);
	if (cp->msg) {
		reply_errno(cp->msg, ETIMEDOUT, "%s: not done within %llu s: stopped",
			    cp->what, (unsigned long long)(opt.compile_timeout_us / 1000000));
		cp->msg = sd_bus_message_unref(cp->msg);
	}
	return 0;
}

static int on_compile_done(sd_event_source *s, const siginfo_t *si, void *ud)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	sd_bus_error err = SD_BUS_ERROR_NULL;
	struct compile *cp = ud;
	struct stat st;
	uint8_t *buf = NULL;
	uint64_t id = 0;
	size_t got = 0;
	int ret = 0;

	(void)s;
	if (!cp->msg || !cp->c)
		goto out;
	if (fstat(cp->memfd, &st) || st.st_size < 0 || (uint64_t)st.st_size > ANE_IMG_MAX_SIZE ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		reply_errno(cp->msg, EIO, "%s: the compiler's output is unreadable", cp->what);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(cp->memfd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (si->si_code != CLD_EXITED || (si->si_status != 0 && si->si_status != 1)) {
		reply_errno(cp->msg, EIO, "%s: the compiler %s %d", cp->what,
			    si->si_code == CLD_EXITED ? "exited with" : "was killed by signal",
			    si->si_status);
		goto out;
	}
	if (si->si_status == 1) {
		buf[got] = '\0';
		reply_errno(cp->msg, EINVAL, "%s: %s: %s", cp->what,
			    strcmp(cp->what, "Compile") ? "model" : "net", (char *)buf);
		goto out;
	}
	stats.compiles++;
	if (got > aned_tier_max_image(cp->c->rule.tier, opt.max_image)) {
		reply_errno(cp->msg, E2BIG, "%s: the image: %zu bytes, above the %s tier's %" PRIu64,
			    cp->what, got, aned_tier_name(cp->c->rule.tier),
			    aned_tier_max_image(cp->c->rule.tier, opt.max_image));
		goto out;
	}
	if (cp->flags & ANE_BROKER_COMPILE_LOAD) {
		ret = do_load(cp->c, buf, got, cp->qos, cp->flags & ~ANE_BROKER_COMPILE_LOAD, &id,
			      &err);
		if (ret > 0)
			buf = NULL;	/* the model's now */
		if (ret < 0) {
			sd_bus_reply_method_error(cp->msg, &err);
			goto out;
		}
		got = 0;
	}
	ret = sd_bus_message_new_method_return(cp->msg, &reply);
	if (ret >= 0)
		ret = sd_bus_message_append_array(reply, 'y', buf ? (const void *)buf : "", got);
	if (ret >= 0)
		ret = sd_bus_message_append(reply, "t", id);
	if (ret >= 0)
		sd_bus_send(NULL, reply, NULL);
out:
	sd_bus_error_free(&err);
	free(buf);
	compile_free(cp);
	return 0;
}

/*
 * Check @qos and @flags, then run @build(@arg, 3) in a child process with
 * nothing of the daemon's but the output file (descriptor 3), as nobody,
 * with a CPU time limit; the reply goes out when it ends
 * (on_compile_done()).  1 when started, else a refusal.
 */
static int start_compile(struct client *c, sd_bus_message *msg, uint32_t qos,
			 uint32_t flags, const char *what,
			 int (*build)(const void *arg, int out), const void *arg,
			 sd_bus_error *err)
{
	struct compile *cp;
	unsigned int depth;
	int ret;

	ret = check_qos(c, qos, what, err);
	if (!ret && (flags & ~(ANE_BROKER_COMPILE_LOAD | LOAD_FLAGS) ||
		     (!(flags & ANE_BROKER_COMPILE_LOAD) && flags)))
		ret = deny(err, EINVAL, "%s: flags: 0x%x: ANE_BROKER_COMPILE_LOAD, with Load's flags",
			   what, flags);
	if (!ret && (flags & ANE_BROKER_COMPILE_LOAD))
		ret = check_flags(c, flags & ~ANE_BROKER_COMPILE_LOAD, LOAD_FLAGS, what, &depth, err);
	if (!ret && n_compiles >= MAX_COMPILES)
		ret = deny(err, EBUSY, "%s: %u compiles are running, the daemon's limit: try again",
			   what, n_compiles);
	if (ret)
		return ret;
	cp = calloc(1, sizeof(*cp));
	if (!cp)
		return deny(err, ENOMEM, "%s: out of memory", what);
	cp->memfd = memfd_create("aned-compile", MFD_CLOEXEC);
	if (cp->memfd < 0) {
		ret = deny(err, errno, "%s: memfd_create: %s", what, strerror(errno));
		free(cp);
		return ret;
	}
	fflush(stderr);
	cp->pid = fork();
	if (cp->pid == 0) {
		struct rlimit cpu = { opt.compile_timeout_us / 1000000 + 1,
				      opt.compile_timeout_us / 1000000 + 1 };
		sigset_t all;

		/* Nothing of the daemon's but the output file; nobody's identity. */
		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		if (dup2(cp->memfd, 3) != 3)
			_exit(4);
		close_range(4, ~0u, 0);
		setrlimit(RLIMIT_CPU, &cpu);
		if (!geteuid() && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
				   setresuid(65534, 65534, 65534)))
			_exit(5);
		_exit(build(arg, 3));
	}
	if (cp->pid < 0) {
		ret = deny(err, errno, "%s: fork: %s", what, strerror(errno));
		close(cp->memfd);
		free(cp);
		return ret;
	}
	cp->msg = sd_bus_message_ref(msg);
	cp->c = c;
	cp->qos = qos;
	cp->flags = flags;
	cp->what = what;
	n_compiles++;
	cp->next = compiles;
	compiles = cp;
	if (sd_event_add_child(event, &cp->child_src, cp->pid, WEXITED, on_compile_done, cp) < 0 ||
	    sd_event_add_time(event, &cp->timer_src, CLOCK_MONOTONIC,
			      now_us() + opt.compile_timeout_us, 0, on_compile_timeout, cp) < 0) {
		kill(cp->pid, SIGKILL);
		waitpid(cp->pid, NULL, 0);
		compile_free(cp);
		return deny(err, EIO, "%s: the event sources could not be set up", what);
	}
	return 1;	/* answered when the child ends */
}

struct records {
	const struct net_rec *r;
	unsigned int n;
};

static int build_records(const void *arg, int out)
{
	const struct records *rs = arg;

	return net_build(rs->r, rs->n, out);
}

int m_compile(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	struct net_rec *r = NULL;
	uint64_t data_bytes = 0, max;
	uint32_t qos, flags;
	unsigned int n = 0, i;
	int ret;

	ret = admit(c, ANED_ENT_COMPILER, "Compile", err);
	if (ret)
		return ret;
	max = aned_tier_max_image(c->rule.tier, opt.max_image);
	if (sd_bus_message_enter_container(msg, 'a', "(uauay)") < 0)
		return deny(err, EINVAL, "Compile: net: not an array of (u, au, ay)");
	for (;;) {
		const void *p;
		size_t size;
		struct net_rec *nr;

		ret = sd_bus_message_enter_container(msg, 'r', "uauay");
		if (ret < 0) {
			ret = deny(err, EINVAL, "Compile: net[%u]: not (u, au, ay)", n);
			goto out;
		}
		if (!ret)
			break;
		if (n == ANE_BROKER_NET_MAX_RECORDS) {
			ret = deny(err, E2BIG, "Compile: net: more than %u records",
				   ANE_BROKER_NET_MAX_RECORDS);
			goto out;
		}
		nr = realloc(r, (n + 1) * sizeof(*r));
		if (!nr) {
			ret = deny(err, ENOMEM, "Compile: out of memory");
			goto out;
		}
		r = nr;
		nr = &r[n];
		memset(nr, 0, sizeof(*nr));
		if (sd_bus_message_read(msg, "u", &nr->op) < 0 ||
		    sd_bus_message_read_array(msg, 'u', &p, &size) < 0) {
			ret = deny(err, EINVAL, "Compile: net[%u]: not (u, au, ay)", n);
			goto out;
		}
		if (nr->op >= sizeof(net_nargs)) {
			ret = deny(err, EINVAL, "Compile: net[%u].op: %u, not an ANE_BROKER_NET_* op",
				   n, nr->op);
			goto out;
		}
		if (size != net_nargs[nr->op] * sizeof(uint32_t)) {
			ret = deny(err, EINVAL, "Compile: net[%u].args: %zu, op %u takes %u", n,
				   size / sizeof(uint32_t), nr->op, net_nargs[nr->op]);
			goto out;
		}
		memcpy(nr->args, p, size);
		for (i = 0; i < net_nargs[nr->op]; i++) {
			uint32_t a = nr->args[i];

			if (!(net_refs[nr->op] & (1u << i)) ||
			    (nr->op == ANE_BROKER_NET_CONV && i == 2 && a == ANE_BROKER_NET_NONE))
				continue;
			if (a >= n || r[a].op == ANE_BROKER_NET_OUTPUT) {
				ret = deny(err, EINVAL, "Compile: net[%u].args[%u]: %u is not an earlier record's tensor",
					   n, i, a);
				goto out;
			}
		}
		if (sd_bus_message_read_array(msg, 'y', &p, &size) < 0) {
			ret = deny(err, EINVAL, "Compile: net[%u].data: not a byte array", n);
			goto out;
		}
		if (nr->op == ANE_BROKER_NET_CONST) {
			uint64_t vals = 1;

			for (i = 0; i < 4; i++) {
				if (!nr->args[i] || nr->args[i] > 65536) {
					ret = deny(err, EINVAL, "Compile: net[%u].args[%u]: dimension %u, not in 1..65536",
						   n, i, nr->args[i]);
					goto out;
				}
				vals *= nr->args[i];
			}
			if (vals > max || size != vals * sizeof(float)) {
				ret = deny(err, EINVAL, "Compile: net[%u].data: %zu bytes, the constant has %" PRIu64 " fp32 values",
					   n, size, vals);
				goto out;
			}
			data_bytes += size;
			if (data_bytes > 2 * max) {
				ret = deny(err, E2BIG, "Compile: net: constants above %" PRIu64 " bytes",
					   2 * max);
				goto out;
			}
			nr->data = p;
			nr->n_data = vals;
		} else if (size) {
			ret = deny(err, EINVAL, "Compile: net[%u].data: %zu bytes, only a constant (op 1) has data",
				   n, size);
			goto out;
		}
		if (sd_bus_message_exit_container(msg) < 0) {
			ret = deny(err, EINVAL, "Compile: net[%u]: not (u, au, ay)", n);
			goto out;
		}
		n++;
	}
	if (sd_bus_message_exit_container(msg) < 0 ||
	    sd_bus_message_read(msg, "uu", &qos, &flags) < 0) {
		ret = deny(err, EINVAL, "Compile: qos, flags: not two uint32");
		goto out;
	}
	ret = start_compile(c, msg, qos, flags, "Compile", build_records,
			    &(struct records){ r, n }, err);
out:
	free(r);
	return ret;
}

/* ------------------------------------------------------------ ONNX */

struct onnx_bytes {
	const void *p;
	size_t len;
};

/* Write @len bytes to @out; 0, or 3 when the pipe fails. */
static int write_all(int out, const void *p, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t k = write(out, (const uint8_t *)p + done, len - done);

		if (k <= 0)
			return 3;
		done += (size_t)k;
	}
	return 0;
}

/*
 * In the child: the model through libane's ONNX front end, engine-only,
 * as one program whose inputs and outputs are the graph's in the graph's
 * order (ANE_MODEL_ONE_PROGRAM: Evaluate exchanges them by index).
 */
static int onnx_build(const void *arg, int out)
{
	const struct onnx_bytes *ob = arg;
	struct ane_model_options o = {
		.flags = ANE_MODEL_ENGINE_ONLY | ANE_MODEL_ONE_PROGRAM,
	};
	struct ane_model *m = NULL;
	char msg[2048];
	const void *img;
	size_t size;
	int ret;

	if (ane_model_load_onnx(ob->p, ob->len, &o, &m, msg, sizeof(msg)))
		return write_all(out, msg, strlen(msg)) ? 3 : 1;
	if (ane_model_segment_image(m, 0, &img, &size)) {
		ane_model_destroy(m);
		return write_all(out, "no program", 10) ? 3 : 1;
	}
	ret = write_all(out, img, size);
	ane_model_destroy(m);
	return ret;
}

int m_compile_onnx(sd_bus_message *msg, void *ud, sd_bus_error *err)
{
	struct client *c = ud;
	struct onnx_bytes ob;
	uint32_t qos, flags;
	int ret;

	ret = admit(c, ANED_ENT_COMPILER, "CompileOnnx", err);
	if (ret)
		return ret;
	if (sd_bus_message_read_array(msg, 'y', &ob.p, &ob.len) < 0)
		return deny(err, EINVAL, "CompileOnnx: model: not a byte array");
	if (!ob.len)
		return deny(err, EINVAL, "CompileOnnx: model: empty");
	if (ob.len > 2 * aned_tier_max_image(c->rule.tier, opt.max_image))
		return deny(err, E2BIG, "CompileOnnx: model: %zu bytes, above twice the %s tier's image size",
			    ob.len, aned_tier_name(c->rule.tier));
	if (sd_bus_message_read(msg, "uu", &qos, &flags) < 0)
		return deny(err, EINVAL, "CompileOnnx: qos, flags: not two uint32");
	return start_compile(c, msg, qos, flags, "CompileOnnx", onnx_build, &ob, err);
}
