// SPDX-License-Identifier: MIT
/*
 * VM tests of surfaces and the DART from userspace: create, mmap, write,
 * map, read back through the emulated translation, unmap; every bad
 * request's errno; faults and their records; isolation between
 * processes; eviction under address pressure; PRIME.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <fcntl.h>
#include <linux/udmabuf.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "libane.h"
#include "vm/vm_util.h"

#define PAGE16K 16384u

static char node[64];

struct client {
	int fd;
	uint64_t token;
};

static int client_open(struct client *c)
{
	struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };

	c->fd = open(node, O_RDWR | O_CLOEXEC);
	if (c->fd < 0 || ioctl(c->fd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op) < 0) {
		printf("#   open/DeviceOpen %s: %s\n", node, strerror(errno));
		return -1;
	}
	c->token = op.out.token;
	return 0;
}

static uint32_t surface(int fd, uint64_t size, uint64_t *offset)
{
	struct drm_ane_surface_create sc = { .size = size };

	if (ioctl(fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc) < 0) {
		printf("#   SURFACE_CREATE %llu: %s\n", (unsigned long long)size, strerror(errno));
		return 0;
	}
	if (offset)
		*offset = sc.offset;
	return sc.handle;
}

static int map1(struct client *c, uint32_t handle, uint32_t usage, uint64_t off,
		uint64_t size, uint64_t *iova)
{
	static struct drm_ane_memory_map mr;
	int ret;

	memset(&mr, 0, sizeof(mr));
	mr.token = c->token;
	mr.in.num_surfaces = 1;
	mr.in.direction = 3;
	mr.in.surfaces[0].handle = handle;
	mr.in.surfaces[0].usage = usage;
	mr.in.surfaces[0].offset = off;
	mr.in.surfaces[0].size = size;
	ret = ioctl(c->fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr);
	if (!ret && iova)
		*iova = mr.iova;
	return ret;
}

static int unmap1(struct client *c, uint64_t iova)
{
	static struct drm_ane_memory_unmap ur;

	memset(&ur, 0, sizeof(ur));
	ur.in.iova = iova;
	return ioctl(c->fd, DRM_IOCTL_ANE_DP_MEMORY_UNMAP, &ur);
}

static int dma(int fd, uint64_t iova, void *buf, uint64_t size, int write)
{
	struct drm_ane_dma d = {
		.iova = iova, .size = size, .data = (uintptr_t)buf,
		.flags = write ? ANE_DMA_WRITE : 0,
	};

	return ioctl(fd, DRM_IOCTL_ANE_DMA, &d);
}

static void surface_maps_and_reads_back_through_the_dart(void)
{
	struct client c;
	uint64_t off, iova = 0;
	uint32_t h, word;
	uint8_t buf[64];
	uint8_t *p;

	if (client_open(&c)) {
		t_case_failed = 1;
		return;
	}
	/* A sub-page surface still takes a whole 16 KB page. */
	h = surface(c.fd, 100, &off);
	T_CHECK(h != 0, "create");
	p = mmap(NULL, PAGE16K, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd, (off_t)off);
	T_CHECK(p != MAP_FAILED, "mmap 16 KB of a 100-byte surface: %s", strerror(errno));
	if (p == MAP_FAILED)
		return;
	T_CHECK(mmap(NULL, 2 * PAGE16K, PROT_READ, MAP_SHARED, c.fd, (off_t)off) == MAP_FAILED,
		"mmap past the surface");
	for (unsigned int i = 0; i < PAGE16K; i++)
		p[i] = (uint8_t)(i * 7);

	T_OK(map1(&c, h, 1, 0, 0, &iova));
	T_CHECK(iova && !(iova % PAGE16K) && iova < 0xe0000000ull, "iova 0x%llx",
		(unsigned long long)iova);
	/* Read back through the emulated translation. */
	T_OK(dma(c.fd, iova + 4090, buf, sizeof(buf), 0));
	T_EQ(buf[0], (uint8_t)(4090 * 7));
	T_EQ(buf[63], (uint8_t)(4153 * 7));
	/* An engine write shows in the CPU mapping. */
	word = 0xfeedf00d;
	T_OK(dma(c.fd, iova + 8192, &word, 4, 1));
	T_EQ(*(uint32_t *)(p + 8192), 0xfeedf00d);

	T_OK(unmap1(&c, iova));
	/* Double unmap: no such mapping. */
	T_ERRNO(unmap1(&c, iova), ESRCH);
	/* And the address is gone for the engine: a contained fault. */
	T_ERRNO(dma(c.fd, iova, buf, 4, 0), ENXIO);
	munmap(p, PAGE16K);
	close(c.fd);
}

static void bad_map_requests_get_their_errno(void)
{
	static struct drm_ane_memory_map mr;
	uint64_t iova;
	struct client c;
	uint32_t h, h2;

	if (client_open(&c)) {
		t_case_failed = 1;
		return;
	}
	h = surface(c.fd, 2 * PAGE16K, NULL);
	h2 = surface(c.fd, PAGE16K, NULL);
	T_ERRNO(map1(&c, h, 1, 4096, 0, NULL), EINVAL);		/* unaligned */
	T_ERRNO(map1(&c, h, 1, 2 * PAGE16K, 0, NULL), ERANGE);	/* offset past */
	T_ERRNO(map1(&c, h, 1, PAGE16K, 2 * PAGE16K, NULL), ERANGE);	/* oversized */
	T_ERRNO(map1(&c, h, 1, 0, 3 * PAGE16K, NULL), ERANGE);
	T_ERRNO(map1(&c, 0xdead, 1, 0, 0, NULL), ENOENT);		/* unknown handle */
	T_ERRNO(map1(&c, h, 3, 0, 0, NULL), EINVAL);		/* unknown usage */
	T_ERRNO(map1(&c, h, 0x1019, 0, 0, NULL), EPERM);		/* firmware usage */

	memset(&mr, 0, sizeof(mr));
	mr.token = c.token ^ 1;					/* not our token */
	mr.in.num_surfaces = 1;
	mr.in.surfaces[0].handle = h;
	mr.in.surfaces[0].usage = 1;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EACCES);
	mr.token = c.token;
	mr.in.num_surfaces = 0;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EINVAL);
	mr.in.num_surfaces = ANE_MAP_MAX_SURFACES + 1;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EINVAL);
	mr.in.num_surfaces = 1;
	mr.in.direction = 4;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EINVAL);
	mr.in.direction = 1;
	mr.in.flags = 1;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EINVAL);
	mr.in.flags = 0;
	mr.in.iova = 0x4000;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EINVAL);
	mr.in.iova = 0;
	mr.in.reserved[1] = 1;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EINVAL);
	mr.in.reserved[1] = 0;
	mr.in.surfaces[5].handle = h;				/* past num_surfaces */
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EINVAL);
	mr.in.surfaces[5].handle = 0;
	mr.in.num_surfaces = 2;					/* mixed usage */
	mr.in.surfaces[1].handle = h2;
	mr.in.surfaces[1].usage = 2;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr), EINVAL);
	/* Two surfaces, one usage: one contiguous range. */
	mr.in.surfaces[1].usage = 1;
	T_OK(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr));
	iova = mr.iova;
	{
		uint32_t a, b;

		T_OK(dma(c.fd, iova + 2 * PAGE16K - 4, &a, 4, 0));
		T_OK(dma(c.fd, iova + 2 * PAGE16K, &b, 4, 0));
		T_ERRNO(dma(c.fd, iova + 3 * PAGE16K, &b, 4, 0), ENXIO);
	}

	/* Unmap names a mapping by its address alone. */
	T_ERRNO(unmap1(&c, 0), EINVAL);
	T_ERRNO(unmap1(&c, iova + PAGE16K), ESRCH);
	{
		static struct drm_ane_memory_unmap ur;

		memset(&ur, 0, sizeof(ur));
		ur.in.iova = iova;
		ur.in.num_surfaces = 1;
		T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_DP_MEMORY_UNMAP, &ur), EINVAL);
	}
	T_OK(unmap1(&c, iova));

	/* Bad surface and DMA arguments. */
	{
		struct drm_ane_surface_create sc = { .size = 0 };
		uint32_t w;

		T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc), EINVAL);
		sc.size = (1ull << 30) + 1;
		T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc), E2BIG);
		sc.size = 1;
		sc.flags = 1;
		T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc), EINVAL);
		T_ERRNO(dma(c.fd, 0x4000, &w, 0, 0), EINVAL);
		T_ERRNO(dma(c.fd, 0x4000, &w, (16u << 20) + 1, 0), EINVAL);
	}
	close(c.fd);
}

static void faults_are_recorded_for_the_client(void)
{
	struct drm_ane_get_fault gf;
	struct drm_ane_get_status st;
	struct client c;
	uint32_t w = 0;
	int cfd;

	if (client_open(&c)) {
		t_case_failed = 1;
		return;
	}
	memset(&gf, 0, sizeof(gf));
	T_OK(ioctl(c.fd, DRM_IOCTL_ANE_GET_FAULT, &gf));
	T_EQ(gf.count, 0);
	T_EQ(gf.fault.seq, 0);

	T_ERRNO(dma(c.fd, 0x123c000, &w, 4, 1), ENXIO);
	memset(&gf, 0, sizeof(gf));
	T_OK(ioctl(c.fd, DRM_IOCTL_ANE_GET_FAULT, &gf));
	T_EQ(gf.count, 1);
	T_CHECK(gf.fault.seq > 0, "seq");
	T_EQ(gf.fault.address, 0x123c000);
	T_EQ(gf.fault.is_write, 1);
	/* A fresh context has no L3 table there: the walk stops at L2. */
	T_EQ(gf.fault.hw_error, ANE_FAULT_L2_INVALID);
	T_EQ(gf.fault.hw_class, 1);
	T_EQ(gf.fault.l2_index, 0x123c000 >> 25);
	T_EQ(gf.fault.l3_index, (0x123c000 >> 14) & 2047);
	T_CHECK(gf.fault.hw_status & 0x80000000u, "status 0x%x", gf.fault.hw_status);
	T_EQ((gf.fault.hw_status >> 24) & 0xf, gf.fault.sid);

	T_ERRNO(dma(c.fd, 0xe0000000ull, &w, 4, 0), ENXIO);
	T_OK(ioctl(c.fd, DRM_IOCTL_ANE_GET_FAULT, &gf));
	T_EQ(gf.fault.hw_error, ANE_FAULT_APERTURE);
	T_ERRNO(dma(c.fd, 0x100000000ull, &w, 4, 0), ENXIO);
	T_OK(ioctl(c.fd, DRM_IOCTL_ANE_GET_FAULT, &gf));
	T_EQ(gf.fault.hw_error, ANE_FAULT_CEILING);
	T_EQ(gf.count, 3);
	gf.flags = 1;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_ANE_GET_FAULT, &gf), EINVAL);

	/* GetStatus of a control client counts its own faults only. */
	{
		struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };

		cfd = open(node, O_RDWR | O_CLOEXEC);
		T_OK(ioctl(cfd, DRM_IOCTL_ANE_CTL_DEVICE_OPEN, &op));
		T_ERRNO(dma(cfd, 0x8000, &w, 4, 0), ENXIO);
		T_OK(ioctl(cfd, DRM_IOCTL_ANE_CTL_GET_STATUS, &st));
		T_EQ(st.out.dart_faults, 1);
		close(cfd);
	}
	/* Before DeviceOpen the DMA ioctl has no client to act for. */
	cfd = open(node, O_RDWR | O_CLOEXEC);
	T_ERRNO(dma(cfd, 0x8000, &w, 4, 0), ENOTCONN);
	close(cfd);
	close(c.fd);
}

/* Two processes: neither can reach the other's pages by any address. */
static void processes_cannot_see_each_others_pages(void)
{
	int pipefd[2], status;
	uint64_t iova = 0;
	struct client c;
	uint32_t h, w;
	pid_t pid;

	if (client_open(&c) || pipe(pipefd)) {
		t_case_failed = 1;
		return;
	}
	h = surface(c.fd, PAGE16K, NULL);
	T_OK(map1(&c, h, 1, 0, 0, &iova));
	w = 0x11111111;
	T_OK(dma(c.fd, iova, &w, 4, 1));

	pid = fork();
	if (pid == 0) {
		struct client o;
		uint64_t oiova = 0;
		uint32_t ow = 0, oh;
		int bad = 0;

		close(pipefd[0]);
		if (client_open(&o))
			_exit(10);
		/* The parent's address faults in this process's context. */
		if (dma(o.fd, iova, &ow, 4, 0) == 0 || errno != ENXIO)
			bad |= 1;
		/* The parent's handle means nothing here. */
		if (map1(&o, h, 1, 0, 0, NULL) == 0 || errno != ENOENT)
			bad |= 2;
		/* Its own surface gets an address of its own context. */
		oh = surface(o.fd, PAGE16K, NULL);
		if (map1(&o, oh, 1, 0, 0, &oiova) || dma(o.fd, oiova, &ow, 4, 0) || ow != 0)
			bad |= 4;
		/* Its unmap cannot touch the parent's mapping. */
		if (oiova != iova && (unmap1(&o, iova) == 0 || errno != ESRCH))
			bad |= 8;
		if (write(pipefd[1], &bad, sizeof(bad)) != sizeof(bad))
			_exit(11);
		_exit(0);
	}
	close(pipefd[1]);
	{
		int bad = -1;

		T_CHECK(read(pipefd[0], &bad, sizeof(bad)) == sizeof(bad), "child report");
		T_EQ(bad, 0);
	}
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "child status 0x%x", status);
	/* The parent's page is untouched and still mapped. */
	T_OK(dma(c.fd, iova, &w, 4, 0));
	T_EQ(w, 0x11111111);
	close(pipefd[0]);
	close(c.fd);
}

/* Mapping more than the aperture holds reclaims idle mappings. */
static void address_pressure_evicts_least_recently_used(void)
{
	uint64_t iova[55], biova = 0, boff;
	uint32_t a, b, w = 0;
	struct client c;
	uint8_t *bp;
	int i, n = 55;

	if (client_open(&c)) {
		t_case_failed = 1;
		return;
	}
	a = surface(c.fd, 64u << 20, NULL);
	b = surface(c.fd, 64u << 20, &boff);
	T_CHECK(a && b, "64 MiB surfaces");
	bp = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd, (off_t)boff);
	T_CHECK(bp != MAP_FAILED, "mmap");
	if (bp == MAP_FAILED)
		return;
	memcpy(bp, "BBBB", 4);
	/* 55 mappings of 64 MiB fill the 3.5 GiB aperture. */
	for (i = 0; i < n; i++) {
		if (map1(&c, a, 8, 0, 0, &iova[i])) {
			printf("#   map %d of 64 MiB: %s\n", i, strerror(errno));
			t_case_failed = 1;
			n = i;
			break;
		}
	}
	/* iova[0] was mapped first, so it is the least recently used. */
	T_OK(dma(c.fd, iova[0], "AAAA", 4, 1));
	/* One more does not fail: the least recently used one is reclaimed. */
	T_OK(map1(&c, b, 8, 0, 0, &biova));
	T_EQ(biova, iova[0]);
	T_OK(dma(c.fd, iova[0], &w, 4, 0));
	T_CHECK(!memcmp(&w, "BBBB", 4), "iova[0] reads 0x%08x, not surface B", w);
	T_OK(dma(c.fd, iova[1], &w, 4, 0));
	T_CHECK(!memcmp(&w, "AAAA", 4), "iova[1] reads 0x%08x, not surface A", w);
	/* Every mapping, reclaimed or not, unmaps once. */
	T_OK(unmap1(&c, biova));
	for (i = 0; i < n; i++)
		T_OK(unmap1(&c, iova[i]));
	T_ERRNO(unmap1(&c, iova[0]), ESRCH);
	munmap(bp, 4096);
	close(c.fd);
}

static void prime_export_and_granule_checked_import(void)
{
	struct drm_prime_handle ph;
	struct udmabuf_create uc;
	char other[64];
	struct client c;
	int memfd, ufd, dbuf;
	uint32_t h;

	if (client_open(&c)) {
		t_case_failed = 1;
		return;
	}
	h = surface(c.fd, 3 * PAGE16K, NULL);
	memset(&ph, 0, sizeof(ph));
	ph.handle = h;
	ph.flags = DRM_CLOEXEC | DRM_RDWR;
	T_OK(ioctl(c.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph));
	dbuf = ph.fd;
	/* Self-import gives the same object back. */
	ph.handle = 0;
	T_OK(ioctl(c.fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph));
	T_EQ(ph.handle, h);

	/* Import into a second engine, map it there and see the same bytes. */
	if (ane_find_node(1, other, sizeof(other)) == 0) {
		struct drm_ane_device_open op = { .in.usage_type = ANE_USAGE_STANDARD };
		struct drm_ane_memory_map mr;
		uint32_t w = 0x5eed5eed, r = 0;
		uint64_t iova = 0;
		int ofd = open(other, O_RDWR | O_CLOEXEC);

		T_OK(map1(&c, h, 1, 0, 0, &iova));
		T_OK(dma(c.fd, iova + 2 * PAGE16K + 16, &w, 4, 1));
		T_OK(ioctl(ofd, DRM_IOCTL_ANE_DP_DEVICE_OPEN, &op));
		ph.fd = dbuf;
		ph.handle = 0;
		T_OK(ioctl(ofd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph));
		memset(&mr, 0, sizeof(mr));
		mr.token = op.out.token;
		mr.in.num_surfaces = 1;
		mr.in.surfaces[0].handle = ph.handle;
		mr.in.surfaces[0].usage = 1;
		T_OK(ioctl(ofd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr));
		T_OK(dma(ofd, mr.iova + 2 * PAGE16K + 16, &r, 4, 0));
		T_EQ(r, 0x5eed5eed);
		close(ofd);
	} else {
		printf("#   no second ane device: run with devices=2 for the cross-device import\n");
		t_case_failed = 1;
	}
	close(dbuf);

	/* A dma-buf of 4 KB pages does not meet the granule. */
	memfd = memfd_create("ane-test", MFD_ALLOW_SEALING);
	T_CHECK(memfd >= 0 && ftruncate(memfd, 4 * PAGE16K) == 0, "memfd");
	T_OK(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	ufd = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	T_CHECK(ufd >= 0, "/dev/udmabuf: %s", strerror(errno));
	memset(&uc, 0, sizeof(uc));
	uc.memfd = (uint32_t)memfd;
	uc.size = 4 * PAGE16K;
	dbuf = ioctl(ufd, UDMABUF_CREATE, &uc);
	T_CHECK(dbuf >= 0, "UDMABUF_CREATE: %s", strerror(errno));
	memset(&ph, 0, sizeof(ph));
	ph.fd = dbuf;
	T_ERRNO(ioctl(c.fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph), EINVAL);
	close(dbuf);
	close(ufd);
	close(memfd);
	close(c.fd);
}

static void debugfs_shows_mappings_and_faults(void)
{
	char path[512], buf[4096];
	const char *names[] = { "dart", "dart_mappings", "dart_tables", "dart_faults" };
	struct client c;
	uint64_t iova;
	unsigned int i;
	ssize_t n;
	int fd;

	if (client_open(&c)) {
		t_case_failed = 1;
		return;
	}
	T_OK(map1(&c, surface(c.fd, PAGE16K, NULL), 9, 0, 0, &iova));
	for (i = 0; i < 4; i++) {
		T_OK(vm_debugfs_path(node, names[i], path, sizeof(path)));
		fd = open(path, O_RDONLY);
		T_CHECK(fd >= 0, "%s: %s", path, strerror(errno));
		n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		T_CHECK(n > 0, "%s empty", path);
		buf[n > 0 ? n : 0] = 0;
		if (i == 1) {
			char want[64];

			snprintf(want, sizeof(want), "iova 0x%08llx size 0x4000 usage 9",
				 (unsigned long long)iova);
			T_CHECK(strstr(buf, want) != NULL, "mappings lack \"%s\"", want);
		}
		if (fd >= 0)
			close(fd);
	}
	close(c.fd);
}

int main(int argc, char **argv)
{
	if (vm_node(argc, argv, node, sizeof(node), "dart"))
		return 1;
	T_RUN(surface_maps_and_reads_back_through_the_dart);
	T_RUN(bad_map_requests_get_their_errno);
	T_RUN(faults_are_recorded_for_the_client);
	T_RUN(processes_cannot_see_each_others_pages);
	T_RUN(address_pressure_evicts_least_recently_used);
	T_RUN(prime_export_and_granule_checked_import);
	T_RUN(debugfs_shows_mappings_and_faults);
	return t_summary("dart");
}
