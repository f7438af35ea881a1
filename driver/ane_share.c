// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program hand-off: a control client exports a prepared program (and
 * its intermediate buffer) as a file descriptor, and a direct-path client,
 * usually in another process, attaches it to get a program token of its
 * own that its selectors name (ch. 27: the broker "hands the client a
 * program handle and an intermediate-buffer handle").
 *
 * The export is an anonymous file holding references to the program, to
 * the exporting client and to the exporter's credentials.  Attaching
 * checks the caller against those credentials -- the same effective uid
 * in the same user namespace, Linux's stand-in for the seed's team
 * identifier and code-directory hash -- before it looks at anything else,
 * then makes an attached program in the caller's list: an &ane_program
 * whose parent is the exported one, with the exported intermediate buffer
 * mapped into the caller's isolation context, holding a reference to the
 * owner so that the exported program stays prepared (its slot and
 * process kept) until the last attachment and the export are gone.
 * Documentation/accel/ane/resident.rst describes the model.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <linux/anon_inodes.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uidgid.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/ane_accel.h>

#include "ane_dart.h"
#include "ane_drv.h"
#include "ane_gem.h"
#include "ane_program.h"
#include "ane_share.h"

/**
 * struct ane_export - the private data of an export file
 * @owner: the exporting client (a reference).
 * @prog: the exported program (a reference).
 * @cred: the exporter's credentials at export time (a reference).
 *
 * Immutable once the file exists; freed when the file is released.
 */
struct ane_export {
	struct ane_file *owner;
	struct ane_program *prog;
	const struct cred *cred;
};

static int ane_export_release(struct inode *inode, struct file *file)
{
	struct ane_export *ex = file->private_data;

	ane_program_put(ex->prog);
	put_cred(ex->cred);
	/* May be the owner's last reference: its programs go with it. */
	ane_file_put(ex->owner);
	kfree(ex);
	return 0;
}

static const struct file_operations ane_export_fops = {
	.owner = THIS_MODULE,
	.release = ane_export_release,
};

/* The client must be open, and in @space; the state lock is held on 0. */
static int ane_share_enter(struct ane_file *af, enum ane_space space)
{
	down_read(&af->state_lock);
	if (af->state == ANE_CLIENT_OPEN && af->space == space)
		return 0;
	up_read(&af->state_lock);
	return af->state == ANE_CLIENT_NEW ? -ENOTCONN :
	       af->state == ANE_CLIENT_CLOSED ? -ESHUTDOWN : -EBADRQC;
}

/* DRM_IOCTL_ANE_PROGRAM_EXPORT */
int ane_program_export_ioctl(struct drm_device *dev, void *data,
			     struct drm_file *file)
{
	struct drm_ane_program_export *args = data;
	struct ane_file *af = file->driver_priv;
	struct ane_program *p;
	struct ane_export *ex;
	struct file *f;
	int ret, fd;

	if (args->flags || args->fd || args->reserved)
		return -EINVAL;
	ret = ane_share_enter(af, ANE_SPACE_CONTROL);
	if (ret)
		return ret;
	ex = kzalloc(sizeof(*ex), GFP_KERNEL_ACCOUNT);
	if (!ex) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_lock(&af->prog_lock);
	p = ane_program_find_locked(af, args->token);
	ret = !p ? -ENOENT : p->parent ? -EINVAL : !p->prepared ? -EBADFD : 0;
	if (!ret)
		kref_get(&p->kref);
	mutex_unlock(&af->prog_lock);
	if (ret)
		goto err_free;
	ex->prog = p;
	ex->cred = get_current_cred();
	ane_file_get(af);
	ex->owner = af;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_put;
	}
	f = anon_inode_getfile("[ane-program]", &ane_export_fops, ex, O_RDONLY);
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		ret = PTR_ERR(f);
		goto err_put;
	}
	fd_install(fd, f);
	args->fd = fd;
	goto out;

err_put:
	ane_program_put(ex->prog);
	put_cred(ex->cred);
	ane_file_put(ex->owner);
err_free:
	kfree(ex);
out:
	up_read(&af->state_lock);
	return ret;
}

/*
 * Is the caller the exporter?  The same effective uid in the same user
 * namespace: what Linux has of the seed's code identity.  Capabilities do
 * not stand in for it.
 */
static bool ane_share_same_identity(const struct cred *owner)
{
	const struct cred *cur = current_cred();

	return cur->user_ns == owner->user_ns && uid_eq(cur->euid, owner->euid);
}

/*
 * Make the attached program of @ex for @af.  The owner's state is read
 * under its lock, nested in nothing (the caller holds no program lock).
 */
static struct ane_program *ane_share_attach(struct ane_file *af,
					    struct ane_export *ex)
{
	struct ane_program *code = ex->prog;
	struct ane_dart_ctx *ctx;
	struct ane_program *p;
	int ret;

	ctx = ane_file_ctx(af);
	if (IS_ERR(ctx))
		return ERR_CAST(ctx);
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return ERR_PTR(-ENOMEM);
	kref_init(&p->kref);
	INIT_LIST_HEAD(&p->chains);
	p->adev = af->adev;
	p->slot = -1;
	p->pid = -1;

	mutex_lock(&ex->owner->prog_lock);
	if (!code->prepared) {
		mutex_unlock(&ex->owner->prog_lock);
		kfree(p);
		return ERR_PTR(-EBADFD);
	}
	if (code->inter) {
		drm_gem_object_get(&code->inter->base);
		p->inter = code->inter;
	}
	mutex_unlock(&ex->owner->prog_lock);

	/* From here the attached program releases what it holds. */
	kref_get(&code->kref);
	p->parent = code;
	ane_file_get(ex->owner);
	p->owner = ex->owner;
	if (p->inter) {
		p->inter_map = ane_dart_map(ctx, p->inter->frame_pa,
					    p->inter->nframes,
					    ANE_USAGE_INTERMEDIATE,
					    ANE_PROT_READ_WRITE, p);
		if (IS_ERR(p->inter_map)) {
			ret = PTR_ERR(p->inter_map);
			p->inter_map = NULL;
			ane_program_put(p);
			return ERR_PTR(ret);
		}
	}
	p->token = ane_new_token(af->adev);
	return p;
}

/* Drop the attached program @token of @af; its requests keep it alive. */
static int ane_share_detach(struct ane_file *af, u64 token)
{
	struct ane_program *p;
	int ret;

	ret = ane_share_enter(af, ANE_SPACE_DIRECT);
	if (ret)
		return ret;
	mutex_lock(&af->prog_lock);
	p = ane_program_find_locked(af, token);
	if (p && p->owner)
		list_del(&p->link);
	else
		p = NULL;
	mutex_unlock(&af->prog_lock);
	up_read(&af->state_lock);
	if (!p)
		return -ENOENT;
	/* Out of the client's lock: it may be the owner's last reference. */
	ane_program_put(p);
	return 0;
}

/* DRM_IOCTL_ANE_PROGRAM_ATTACH */
int ane_program_attach_ioctl(struct drm_device *dev, void *data,
			     struct drm_file *file)
{
	struct drm_ane_program_attach *args = data;
	struct ane_file *af = file->driver_priv;
	struct ane_program *p;
	struct ane_export *ex;
	struct fd f;
	int ret;

	if (args->flags & ~ANE_ATTACH_DETACH || args->num_procedures ||
	    args->reserved)
		return -EINVAL;
	if (args->flags & ANE_ATTACH_DETACH)
		return args->fd ? -EINVAL : ane_share_detach(af, args->token);
	if (args->token)
		return -EINVAL;
	ret = ane_share_enter(af, ANE_SPACE_DIRECT);
	if (ret)
		return ret;
	f = fdget(args->fd);
	if (!fd_file(f)) {
		ret = -EBADF;
		goto out;
	}
	if (fd_file(f)->f_op != &ane_export_fops) {
		ret = -EINVAL;
		goto out_fd;
	}
	ex = fd_file(f)->private_data;
	/* Identity first: anyone else learns nothing of the program. */
	if (!ane_share_same_identity(ex->cred)) {
		ret = -EACCES;
		goto out_fd;
	}
	if (ex->owner->adev != af->adev) {
		ret = -EXDEV;
		goto out_fd;
	}
	p = ane_share_attach(af, ex);
	if (IS_ERR(p)) {
		ret = PTR_ERR(p);
		goto out_fd;
	}
	mutex_lock(&af->prog_lock);
	if (ane_program_count_locked(af) >= ANE_MAX_PROGRAMS_PER_FILE) {
		mutex_unlock(&af->prog_lock);
		ane_program_put(p);
		ret = -ENOSPC;
		goto out_fd;
	}
	/*
	 * The answer before the program is listed: once the lock drops, a
	 * sibling thread may detach it (tokens are sequential) and drop
	 * the last reference.
	 */
	args->token = p->token;
	args->num_procedures = p->parent->hdr.num_procedures;
	list_add_tail(&p->link, &af->programs);
	mutex_unlock(&af->prog_lock);
out_fd:
	fdput(f);
out:
	up_read(&af->state_lock);
	return ret;
}

/**
 * ane_share_release() - release what an attached program holds of its own
 * @p: the attached program, at its last reference.
 *
 * Releases the chains it enqueued output sets on, unmaps the exported
 * intermediate buffer from the attaching client's context and drops it;
 * ane_program_put() drops the rest (the parent, then the owner).
 */
void ane_share_release(struct ane_program *p)
{
	/* The chains it used hold pins on its intermediate buffer. */
	ane_chain_user_release(p);
	if (p->inter_map)
		WARN_ON(ane_dart_unmap(p->inter_map));
	if (p->inter)
		drm_gem_object_put(&p->inter->base);
	p->inter_map = NULL;
	p->inter = NULL;
}
