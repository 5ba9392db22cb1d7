// SPDX-License-Identifier: GPL-2.0
/*
 * memremap_bench: time memremap_pages() of a large MEMORY_DEVICE_PRIVATE
 * range, the way test_hmm and GPU drivers map device memory (the method of
 * the DEVICE_PRIVATE measurements on the ZONE_DEVICE memmap init series).
 *
 * On load: take a free physical range of size_mb MiB, then loops times
 * memremap_pages() + memunmap_pages() it, printing the time of each
 * memremap_pages() call in microseconds as
 *   "memremap_bench: memremap_pages <us> us"
 * The measurement is done when the load returns; unload with rmmod.
 * Out of tree, built against each kernel of an A/B run by tools/bench;
 * not part of the series.
 */
#include <linux/ioport.h>
#include <linux/ktime.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>

static unsigned long size_mb = 16384;
module_param(size_mb, ulong, 0444);
MODULE_PARM_DESC(size_mb, "size of the device private range in MiB");
static unsigned int loops = 5;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops, "number of memremap_pages() calls to time");

static void bench_folio_free(struct folio *folio)
{
}

static vm_fault_t bench_migrate_to_ram(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct dev_pagemap_ops bench_ops = {
	.folio_free	= bench_folio_free,
	.migrate_to_ram	= bench_migrate_to_ram,
};

static int __init memremap_bench_init(void)
{
	unsigned long size = size_mb << 20;
	struct dev_pagemap pgmap = {};
	struct resource *res;
	unsigned int i;
	int ret = 0;

	res = request_free_mem_region(&iomem_resource, size, "memremap_bench");
	if (IS_ERR(res)) {
		pr_err("memremap_bench: no free range of %lu MiB\n", size_mb);
		return PTR_ERR(res);
	}
	for (i = 0; i < loops; i++) {
		ktime_t t0;
		void *p;

		memset(&pgmap, 0, sizeof(pgmap));
		pgmap.type = MEMORY_DEVICE_PRIVATE;
		pgmap.range.start = res->start;
		pgmap.range.end = res->end;
		pgmap.nr_range = 1;
		pgmap.ops = &bench_ops;
		pgmap.owner = &pgmap;

		t0 = ktime_get();
		p = memremap_pages(&pgmap, NUMA_NO_NODE);
		if (IS_ERR(p)) {
			pr_err("memremap_bench: memremap_pages: %ld\n", PTR_ERR(p));
			ret = PTR_ERR(p);
			break;
		}
		pr_info("memremap_bench: memremap_pages %lld ns\n",
			ktime_to_ns(ktime_sub(ktime_get(), t0)));
		memunmap_pages(&pgmap);
	}
	release_mem_region(res->start, resource_size(res));
	return ret;
}
module_init(memremap_bench_init);

static void __exit memremap_bench_exit(void)
{
}
module_exit(memremap_bench_exit);

MODULE_DESCRIPTION("Time memremap_pages() of device private memory");
MODULE_LICENSE("GPL");
