// SPDX-License-Identifier: GPL-2.0-only
/*
 * DRM_IOCTL_SYNCOBJ_RESET, _SIGNAL and _WAIT on the accel node.
 *
 * DRM's core sizes its arrays for these three from the caller's
 * count_handles with no bound and without __GFP_NOWARN, so any client
 * could raise a kernel WARNING in the page allocator with a huge count.
 * The driver answers them itself:
 * one kernel copy of the argument, read once, with count_handles bounded by
 * ANE_SYNCOBJ_MAX_HANDLES, using only DRM's exported syncobj API.  The
 * semantics are the core's for binary syncobjs (ane has no timelines);
 * Documentation/accel/ane/uapi.rst, "DRM core ioctls on the accel node",
 * lists every answer.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>
#include <drm/drm_utils.h>

#include "ane_syncobj.h"

/*
 * A WAIT_FOR_SUBMIT wait looks again at a syncobj that has no fence yet
 * after one jiffy, then after twice as long each time, up to this many
 * milliseconds: DRM exports no way to be called when a syncobj gets a
 * fence.  A fence that is there is waited on with a callback, not polled.
 */
#define ANE_SYNCOBJ_POLL_MAX_MS	10

/* The flags of a binary wait; DRM's core refuses WAIT_AVAILABLE there too. */
#define ANE_SYNCOBJ_WAIT_FLAGS	(DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | \
				 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT | \
				 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE)

/**
 * struct ane_syncobj_waiter - one syncobj of a WAIT
 * @fence: the syncobj's fence when the wait first saw one, referenced;
 *	NULL while the syncobj has none
 * @cb: on @fence, wakes @task when @fence signals; @cb.func is set only
 *	once dma_fence_add_callback() has added it
 * @task: the waiting task
 *
 * Only the waiting task touches these fields, except that the fence's
 * signalling calls @cb.func, which reads @task.
 */
struct ane_syncobj_waiter {
	struct dma_fence *fence;
	struct dma_fence_cb cb;
	struct task_struct *task;
};

static void ane_syncobj_wake(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct ane_syncobj_waiter *w = container_of(cb, struct ane_syncobj_waiter, cb);

	wake_up_process(w->task);
}

/* Drop the references of @objs (NULL entries skipped) and free it. */
static void ane_syncobj_put_all(struct drm_syncobj **objs, u32 count)
{
	u32 i;

	for (i = 0; i < count; i++)
		if (objs[i])
			drm_syncobj_put(objs[i]);
	kvfree(objs);
}

/*
 * Look up @count (1..ANE_SYNCOBJ_MAX_HANDLES) handles, read from the user
 * array at @uhandles, in @file: 0 and a referenced array in *@out, or
 * -ENOMEM, -EFAULT, or -ENOENT for a handle that names no syncobj.
 */
static int ane_syncobj_lookup(struct drm_file *file, u64 uhandles, u32 count,
			      struct drm_syncobj ***out)
{
	struct drm_syncobj **objs;
	u32 *handles;
	int ret = 0;
	u32 i;

	handles = kvmalloc_array(count, sizeof(*handles), GFP_KERNEL_ACCOUNT);
	objs = kvcalloc(count, sizeof(*objs), GFP_KERNEL_ACCOUNT);
	if (!handles || !objs) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(handles, u64_to_user_ptr(uhandles),
			   array_size(count, sizeof(*handles)))) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < count; i++) {
		objs[i] = drm_syncobj_find(file, handles[i]);
		if (!objs[i]) {
			ret = -ENOENT;
			break;
		}
	}
out:
	kvfree(handles);
	if (ret) {
		if (objs)
			ane_syncobj_put_all(objs, count);
		return ret;
	}
	*out = objs;
	return 0;
}

/*
 * RESET (@signal false): every syncobj loses its fence.  SIGNAL: every one
 * gets a new, signalled stub fence stamped with the time of the call, as
 * DRM's core does.
 */
static int ane_syncobj_reset_signal(struct drm_file *file,
				    const struct drm_syncobj_array *args,
				    bool signal)
{
	u32 count = args->count_handles;
	struct drm_syncobj **objs;
	struct dma_fence *stub;
	int ret;
	u32 i;

	if (args->pad || !count || count > ANE_SYNCOBJ_MAX_HANDLES)
		return -EINVAL;
	ret = ane_syncobj_lookup(file, args->handles, count, &objs);
	if (ret)
		return ret;
	for (i = 0; i < count; i++) {
		if (!signal) {
			drm_syncobj_replace_fence(objs[i], NULL);
			continue;
		}
		stub = dma_fence_allocate_private_stub(ktime_get());
		if (!stub) {
			ret = -ENOMEM;
			break;
		}
		drm_syncobj_replace_fence(objs[i], stub);
		dma_fence_put(stub);
	}
	ane_syncobj_put_all(objs, count);
	return ret;
}

/*
 * Has @w's fence signalled?  If not, make sure its signalling wakes the
 * waiter (a fence that signals while the callback is added counts as
 * signalled).
 */
static bool ane_syncobj_done(struct ane_syncobj_waiter *w)
{
	if (dma_fence_is_signaled(w->fence))
		return true;
	return !w->cb.func &&
	       dma_fence_add_callback(w->fence, &w->cb, ane_syncobj_wake);
}

/*
 * Sleep until every fence (WAIT_ALL) or one fence has signalled, the
 * timeout passes (-ETIME) or a signal comes (-ERESTARTSYS).  On success
 * *@first is the lowest index found signalled for a wait for any; a wait
 * for all leaves it as the first look set it.
 */
static int ane_syncobj_sleep(struct drm_syncobj **objs,
			     struct ane_syncobj_waiter *w, u32 count,
			     bool all, long timeout, u32 *first)
{
	long poll = 1, slice, left;
	bool missing;
	u32 done, i;
	int ret = 0;

	for (;;) {
		/* Before looking, so that a wake-up in between is not lost. */
		set_current_state(TASK_INTERRUPTIBLE);
		missing = false;
		done = 0;
		for (i = 0; i < count; i++) {
			if (!w[i].fence)
				w[i].fence = drm_syncobj_fence_get(objs[i]);
			if (!w[i].fence) {
				missing = true;
				continue;
			}
			if (!ane_syncobj_done(&w[i]))
				continue;
			if (all) {
				done++;
				continue;
			}
			*first = i;
			done = count;
			break;
		}
		if (done == count)
			break;
		if (!timeout) {
			ret = -ETIME;
			break;
		}
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (!missing) {
			timeout = schedule_timeout(timeout);
			continue;
		}
		slice = min_t(long, timeout, poll);
		left = schedule_timeout(slice);
		timeout -= slice - left;
		poll = min_t(long, poll * 2,
			     max_t(long, msecs_to_jiffies(ANE_SYNCOBJ_POLL_MAX_MS), 1));
	}
	__set_current_state(TASK_RUNNING);
	return ret;
}

/*
 * WAIT on binary syncobjs, as DRM's core answers it: first every syncobj
 * must have a fence unless WAIT_FOR_SUBMIT (-EINVAL); if enough of them
 * have signalled the call returns at once; otherwise the deadline goes to
 * the fences there are and the caller sleeps until the absolute
 * CLOCK_MONOTONIC timeout_nsec (0: do not sleep).
 */
static int ane_syncobj_wait(struct drm_file *file,
			    struct drm_syncobj_wait *args)
{
	bool all = args->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	bool submit = args->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	u32 count = args->count_handles, first = ~0u, done = 0, i;
	struct ane_syncobj_waiter *w;
	struct drm_syncobj **objs;
	ktime_t deadline;
	long timeout;
	int ret;

	if (args->flags & ~ANE_SYNCOBJ_WAIT_FLAGS)
		return -EINVAL;
	/* Nothing to wait for: success, first_signaled untouched. */
	if (!count)
		return 0;
	if (count > ANE_SYNCOBJ_MAX_HANDLES)
		return -EINVAL;
	ret = ane_syncobj_lookup(file, args->handles, count, &objs);
	if (ret)
		return ret;
	w = kvcalloc(count, sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w) {
		ret = -ENOMEM;
		goto put;
	}
	timeout = drm_timeout_abs_to_jiffies(args->timeout_nsec);

	for (i = 0; i < count; i++) {
		w[i].task = current;
		w[i].fence = drm_syncobj_fence_get(objs[i]);
		if (!w[i].fence) {
			if (!submit) {
				ret = -EINVAL;
				goto out;
			}
			continue;
		}
		if (dma_fence_is_signaled(w[i].fence) && !done++)
			first = i;
	}
	if (done == count || (done && !all))
		goto out;

	if (args->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE) {
		deadline = ns_to_ktime(args->deadline_nsec);
		for (i = 0; i < count; i++)
			if (w[i].fence)
				dma_fence_set_deadline(w[i].fence, deadline);
	}
	ret = ane_syncobj_sleep(objs, w, count, all, timeout, &first);
out:
	if (!ret)
		args->first_signaled = first;
	for (i = 0; i < count; i++) {
		if (w[i].cb.func)
			dma_fence_remove_callback(w[i].fence, &w[i].cb);
		dma_fence_put(w[i].fence);
	}
	kvfree(w);
put:
	ane_syncobj_put_all(objs, count);
	return ret;
}

/**
 * ane_syncobj_is_array_ioctl() - does ane_syncobj_ioctl() answer @cmd?
 * @cmd: an ioctl command
 *
 * Return: true for DRM's type with the number of SYNCOBJ_RESET, _SIGNAL or
 * _WAIT, in any direction and size (matched by number, as drm_ioctl()
 * matches core ioctls).
 */
bool ane_syncobj_is_array_ioctl(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	return _IOC_TYPE(cmd) == DRM_IOCTL_BASE &&
	       (nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_RESET) ||
		nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_SIGNAL) ||
		nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT));
}

/**
 * ane_syncobj_ioctl() - SYNCOBJ_RESET, _SIGNAL or _WAIT on an ane file
 * @filp: the accel file
 * @cmd: a command ane_syncobj_is_array_ioctl() accepts
 * @uarg: the argument
 *
 * The argument is copied once, with drm_ioctl()'s rules for size and
 * direction: read only if @cmd has _IOC_WRITE, written back (whatever the
 * result, as drm_ioctl() does) only if it has _IOC_READ; a shorter size is
 * zero-extended; of a longer one only the kernel's struct is read and
 * written, the bytes past it are left alone.
 *
 * Return: 0 or a negative errno (see Documentation/accel/ane/uapi.rst).
 */
long ane_syncobj_ioctl(struct file *filp, unsigned int cmd, void __user *uarg)
{
	struct drm_file *file = filp->private_data;
	union {
		struct drm_syncobj_array array;
		struct drm_syncobj_wait wait;
	} args;
	unsigned int nr = _IOC_NR(cmd), size = _IOC_SIZE(cmd);
	unsigned int ksize, in, out;
	long ret;

	if (drm_dev_is_unplugged(file->minor->dev))
		return -ENODEV;
	if (nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT))
		ksize = sizeof(args.wait);
	else
		ksize = sizeof(args.array);
	in = cmd & IOC_IN ? min(size, ksize) : 0;
	out = cmd & IOC_OUT ? min(size, ksize) : 0;

	memset(&args, 0, sizeof(args));
	if (copy_from_user(&args, uarg, in))
		return -EFAULT;
	if (nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT))
		ret = ane_syncobj_wait(file, &args.wait);
	else
		ret = ane_syncobj_reset_signal(file, &args.array,
					       nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_SIGNAL));
	if (copy_to_user(uarg, &args, out))
		ret = -EFAULT;
	return ret;
}
