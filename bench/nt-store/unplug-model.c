// SPDX-License-Identifier: GPL-2.0
/*
 * unplug-model: a native user-space model of the memory-map work of
 * unplugging a FREE 128 MiB ZONE_MOVABLE memory block with virtio-mem (SBM)
 * on x86-64 Linux 7.3.4 (the base, d5a94c497) and with the page-isolation
 * series (the series: offline_and_remove_free_memory()), load for load and
 * store for store per struct page (or per buddy page or pageblock where the
 * kernel steps so), so that the cost of both on real caches can be timed
 * natively.  QEMU TCG, which counts the instructions elsewhere, models no
 * caches.  Style, conventions and most helpers follow memmap-model.c.
 *
 * The memory map is an array of 64-byte struct pages laid out as on x86-64
 * (include/linux/mm_types.h): flags (word 0); lru / buddy_list (words 1-2),
 * of which word 1 is also compound_info; mapping (3); index (4); private
 * (5); page_type/_mapcount and _refcount (two 32-bit halves of word 6);
 * memcg_data (7).  It is mapped with 2 MiB pages (MADV_HUGEPAGE), as the
 * kernel maps the vmemmap with PMDs: one 128 MiB memory block is 32768
 * struct pages, 2 MiB of map.  A model zone (ZONE_MOVABLE) holds free lists
 * per order and migratetype, the zone lock (an atomic exchange), the
 * counters (managed and totalram pages: atomic adds; NR_FREE_PAGES,
 * NR_FREE_PAGES_BLOCKS, present pages, nr_isolate_pageblock, nr_free: plain
 * adds) and the pageblock bitmap (8 bits per pageblock; the migratetype set
 * with cmpxchg as __set_pfnblock_flags_mask() does, PB_migrate_isolate with
 * lock or/and as set_bit()/clear_bit() do).  Memory sections (128 MiB) have
 * an online bit read by pfn_to_online_page() and cleared by
 * offline_mem_sections().  Plain kernel stores are plain C stores;
 * WRITE_ONCE(), atomic_set() and set_page_count() are volatile stores;
 * test_bit() on page flags and READ_ONCE() are volatile loads;
 * page_ref_dec_and_test() is a locked decrement.  PFNs start at 4 GiB
 * (1 << 20), so every block is aligned; x86-64 constants: pageblock_order
 * 9, MAX_PAGE_ORDER 10, 128 MiB sections and memory blocks, 2 MiB virtio-mem
 * subblocks (64 per block), hugetlb's smallest order 9.  Configuration
 * modelled: SPARSEMEM_VMEMMAP, no DEBUG_VM (VM_BUG_ON and VM_WARN compiled
 * out; BUG_ON kept), no KASAN, page_owner, page_table_check, memory
 * allocation profiling, debug_pagealloc or page poisoning, page_ref
 * tracepoints off, no init_on_alloc or init_on_free, no memmap_on_memory,
 * no free hugetlb folios, zone->contiguous.
 *
 * The block starts as online_pages() of a free block leaves it (built, not
 * timed, by the base's onlining code as memmap-model's hotplug path models
 * it): every page free, in 32 order-10 buddies on the MIGRATE_MOVABLE free
 * lists, the pageblocks MIGRATE_MOVABLE, all 64 subblocks plugged.  With
 * several blocks per run they are unplugged from the highest down, as
 * virtio_mem_sbm_unplug_request() walks them (virtio_mem_sbm_for_each_mb_rev),
 * so the block above each one is already offline.
 *
 * Methods:
 *
 * base    virtio_mem_sbm_unplug_any_sb_online() of a fully plugged block ->
 *         virtio_mem_sbm_unplug_sb_online() -> virtio_mem_fake_offline() ->
 *         alloc_contig_range() over the block, then the device request, then
 *         virtio_mem_sbm_try_remove_unplugged_mb() -> offline_and_remove_memory()
 *         -> offline_pages().
 * series  virtio_mem_sbm_unplug_any_sb_online() ->
 *         virtio_mem_sbm_remove_free_mb() -> offline_and_remove_free_memory()
 *         -> try_offline_memory_block() (memory_block_looks_free()) ->
 *         offline_pages(free_only), then the device request.
 *
 * What is modelled, per kernel function (P = per struct page of the block,
 * B = per buddy page, PB = per pageblock, K = once per block):
 *
 * base, alloc_contig_range() (alloc_contig_frozen_range_noprof()):
 *   start_isolate_page_range(PB_ISOLATE_MODE_OTHER) ->
 *     isolate_single_pageblock() (K: first and last pageblock, the
 *     neighbour's online test, the scan below the boundary when it is
 *     online), set_migratetype_isolate() (PB: page_zone(), PageUnaccepted(),
 *     zone lock, isolate bit) -> has_unmovable_pages() (P: the base walks
 *     every page and calls page_is_unmovable(), which tests PageReserved()
 *     and returns without a step in ZONE_MOVABLE; modelled as an
 *     out-of-line call, as the function is global) and
 *     pageblock_isolate_and_move_free_pages() = __move_freepages_block_isolate()
 *     (PB: find_large_buddy(), del_page_from_free_list() and
 *     split_large_buddy() -> __free_one_page() of the order-10 buddy for the
 *     first pageblock of each, __move_freepages_block() for the second:
 *     move_to_free_list() per buddy; the isolate bit; NR_FREE_PAGES);
 *   __alloc_contig_migrate_range() -> isolate_migratepages_range() ->
 *     isolate_migratepages_block() (B: PageHuge(), PageBuddy(),
 *     buddy_order_unsafe() and the step over the buddy);
 *   find_large_buddy() (K), test_pages_isolated() (PB: isolate bit; K: zone
 *     lock; B: __test_page_isolated_in_pageblock());
 *   isolate_freepages_range() -> isolate_freepages_block(strict) (B:
 *     PageCompound(), PageBuddy(), zone lock, buddy_order(),
 *     __isolate_free_page(): del_page_from_free_list(), the pageblock's
 *     migratetype; list_add_tail() to cc->freepages);
 *   split_free_frozen_pages() (7.3.4 has no split_map_pages(); this is
 *     what alloc_contig_range() calls in its place):
 *     B: post_alloc_hook() (set_page_private()), __split_page()
 *     (split_page_memcg(): memcg_data of the head), list_del(); P:
 *     list_add_tail() of every page to the order-0 list;
 *   undo_isolate_page_range() -> unset_migratetype_isolate() (PB: zone
 *     lock, PageBuddy() of the head) -> __move_freepages_block_isolate()
 *     (find_large_buddy(); P: __move_freepages_block() tests PageBuddy() of
 *     every page, none is free any more; the isolate bit);
 *   alloc_contig_range_noprof() -> set_pages_refcounted() (P:
 *     set_page_count(1)).
 * base, virtio_mem_fake_offline(): virtio_mem_set_fake_offline() (P:
 *   __SetPageOffline(): page_type load and store), adjust_managed_page_count()
 *   (K).
 * base, offline_pages() of the fake-offline block: page_zone() of the first
 *   and last page; start_isolate_page_range(PB_ISOLATE_MODE_MEM_OFFLINE) as
 *   above (P: has_unmovable_pages() and __move_freepages_block(): no page is
 *   free); MEM_GOING_OFFLINE -> virtio_mem_sbm_notify_going_offline() (per
 *   subblock: the plugged bit) -> virtio_mem_fake_offline_going_offline()
 *   (P: page_ref_dec_and_test()); scan_movable_pages() (P: PageLRU(),
 *   page_has_movable_ops(), PageOffline(), page_count(), page_folio(),
 *   folio_test_hugetlb()); dissolve_free_hugetlb_folios() (per 2 MiB:
 *   page_folio(), folio_test_hugetlb()); test_pages_isolated(MEM_OFFLINE)
 *   (P: PageBuddy(), PageHWPoison(), PageOffline(), page_count());
 *   __offline_isolated_pages() (K: offline_mem_sections(), zone lock; P:
 *   PageBuddy(), PageHWPoison(), PageOffline(), the two BUG_ON()s'
 *   page_count() and PageBuddy()); nr_isolate_pageblock under the zone lock,
 *   adjust_managed_page_count(), adjust_present_page_count() (K).
 * series, offline_and_remove_free_memory(): try_offline_memory_block() ->
 *   memory_block_looks_free() (B: pfn_to_online_page(), page_zonenum(),
 *   PageBuddy(), buddy_order_unsafe()) and page_zonenum() of the first page;
 *   offline_pages(free_only): start_isolate_page_range(MEM_OFFLINE) with the
 *   series' has_unmovable_pages() (PageReserved(), then PageBuddy() and
 *   page_zone() and the step over a free buddy in ZONE_MOVABLE: per buddy
 *   where a pageblock starts with one, per page where it starts inside a
 *   larger one: the last pageblock, isolated second, while its order-10
 *   buddy is still whole), __move_freepages_block_isolate() as above (B);
 *   offline_range_is_free() = test_pages_isolated(OTHER) (B);
 *   MEM_GOING_OFFLINE (per subblock: the plugged bit; no page is
 *   fake-offline); scan_movable_pages() (B: PageBuddy() and the step);
 *   dissolve_free_hugetlb_folios() (per 2 MiB); test_pages_isolated(MEM_OFFLINE)
 *   (B); __offline_isolated_pages() (B: del_page_from_free_list() of each
 *   buddy from the MIGRATE_ISOLATE list); the counters (K).
 *
 * Not modelled (say so when quoting numbers): the freeing of the memory map
 * itself (try_remove_memory() -> vmemmap_free()), the device requests
 * (virtio_mem_sbm_unplug_sb(), virtio_mem_sbm_unplug_mb()), the memory
 * block devices (device_offline(), memory_block_offline(),
 * remove_memory_block_devices(), walk_memory_blocks()), locks other than
 * the zone lock (hotplug and device locks, vm->hotplug_mutex,
 * page_offline_begin()'s rwsem, RCU), zone_pcp_disable(),
 * drain_all_pages(), lru_cache_disable() (which the base pays twice, in
 * __alloc_contig_migrate_range() and offline_pages(), and the series not
 * at all: IPIs and per-CPU work on a real machine), cond_resched(), the
 * notifier chains other than virtio-mem's (slab's MEM_GOING_OFFLINE
 * callback), walk_system_ram_range(), too_many_isolated()'s node counters,
 * init_per_zone_wmark_min(), remove_pfn_range_from_zone() (shrink_zone_span()
 * and set_zone_contiguous(), which rescans the rest of the zone, the same in
 * both), vmstat's per-CPU batching (a plain add here), the section lookup
 * of the pageblock bitmap (a flat array here), and the page contents (no
 * init_on_alloc clearing of the 128 MiB that post_alloc_hook() would do
 * with it on).  A failure or retry path (a busy page, -EBUSY, the
 * fallback from the series to the base path) is a model bug here: the
 * model stops loudly.
 *
 * Before every timed run the blocks are onlined again (untimed) and the
 * whole map, the pageblock bitmap and the sections are flushed from the
 * caches (clflushopt), as the struct pages of a block that has sat free in
 * ZONE_MOVABLE are not cached.  Blocks are unplugged one at a time, so
 * each block's passes work on its own 2 MiB of map (plus free-list
 * neighbours in other blocks): a larger --blocks count makes the whole map
 * larger than the last-level cache, so nothing of it survives between
 * blocks, but not one block's working set.  After every run the end state
 * is checked:
 * no page of the blocks on any free list (every list walked), every free
 * list empty, the zone counters (NR_FREE_PAGES, NR_FREE_PAGES_BLOCKS,
 * managed, totalram and present pages, nr_isolate_pageblock, nr_free per
 * order) and the pageblock bitmap equal between base and series and to
 * what offlining must leave, every subblock unplugged, every section
 * offline, and per method the map: base, every page PageOffline with no
 * reference; series, no page PageBuddy.  Any mismatch stops the model
 * with an error and exit status 1.
 *
 * Build: gcc -O2 -Wall -Wextra -o unplug-model bench/nt-store/unplug-model.c
 * (the pragma below keeps GCC from vectorising, as the kernel's -mno-sse
 * does, and from strict aliasing, as -fno-strict-aliasing does).
 * x86-64 only; runs natively, never meaningful under TCG.  --help for usage.
 */
#if !defined(__x86_64__)
#error "unplug-model: x86-64 only (clflushopt, the locked instructions of the model)"
#endif

#include <cpuid.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

#pragma GCC optimize("no-tree-vectorize", "no-strict-aliasing")

#define noinline	__attribute__((noinline))
#define always_inline	inline __attribute__((always_inline))
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define READ_ONCE(x)		(*(volatile __typeof__(x) *)&(x))
#define barrier()	asm volatile("" ::: "memory")
/* A load the kernel makes whose value the model does not need */
#define use(x)		asm volatile("" :: "r"(x))

/* x86-64 geometry */
#define PB_ORDER		9
#define PB_PAGES		(1UL << PB_ORDER)
#define MAX_PAGE_ORDER		10
#define MAX_ORDER_NR_PAGES	(1UL << MAX_PAGE_ORDER)
#define NR_ORDERS		(MAX_PAGE_ORDER + 1)
#define SECTION_PAGES		32768UL		/* PAGES_PER_SECTION: 128 MiB */
#define BLOCK_PAGES		32768UL		/* memory_block_size_bytes(): 128 MiB */
#define SB_PAGES		PB_PAGES	/* virtio-mem sb_size: 2 MiB */
#define SBS_PER_MB		(BLOCK_PAGES / SB_PAGES)	/* 64 */
#define HUGETLB_MIN_ORDER	9		/* the smallest hstate: 2 MiB */
#define COMPACT_CLUSTER_MAX	32
#define BASE_PFN		(1UL << 20)
#define NR_PAGEBLOCK_BITS	8
#define PB_PER_WORD		(64 / NR_PAGEBLOCK_BITS)
#define MAX_BLOCKS		512UL		/* 1 GiB of map, 64 GiB modelled */

/* Page flags (values are the model's; what matters is which word) */
#define PG_uptodate		(1UL << 3)	/* also PG_movable_ops */
#define PG_dirty		(1UL << 4)
#define PG_lru			(1UL << 5)
#define PG_head			(1UL << 6)
#define PG_reserved		(1UL << 10)
#define PG_reported		(1UL << 17)
#define PG_mlocked		(1UL << 19)
#define PG_hwpoison		(1UL << 21)
#define PG_movable_ops		PG_uptodate
#define NR_PAGEFLAGS		24
#define PAGE_FLAGS_CHECK_AT_PREP (((1UL << NR_PAGEFLAGS) - 1) & ~PG_hwpoison)
#define LAST_CPUPID_PGSHIFT	24
#define LAST_CPUPID_MASK	((1UL << 21) - 1)
#define NODES_PGSHIFT		51
#define NODES_MASK		((1UL << 10) - 1)
#define ZONES_PGSHIFT		61
#define ZONES_MASK		7UL
#define ZONEID_PGSHIFT		NODES_PGSHIFT

/* include/linux/page-flags.h: enum pagetype */
#define PGTY_buddy		0xf0u
#define PGTY_offline		0xf1u
#define PGTY_hugetlb		0xf4u
#define PGTY_unaccepted		0xf7u
#define UINT_MAX_		0xffffffffu
#define POISON_DELTA		0xdead000000000000UL
#define LIST_POISON1		((struct list_head *)(0x100 + POISON_DELTA))
#define LIST_POISON2		((struct list_head *)(0x122 + POISON_DELTA))

enum { ZONE_NORMAL = 2, ZONE_MOVABLE = 3 };
enum { MT_UNMOVABLE, MT_MOVABLE, MT_RECLAIMABLE, MT_HIGHATOMIC, MT_CMA,
       MT_ISOLATE, MIGRATE_TYPES };
#define PCPTYPES		3
#define MIGRATETYPE_MASK	7UL
#define PB_ISOLATE_BIT		(1UL << 4)	/* PB_migrate_isolate */

enum pb_isolate_mode { MODE_MEM_OFFLINE, MODE_CMA_ALLOC, MODE_OTHER };
enum kernel { K_BASE, K_SERIES };
enum { MEMINIT_EARLY, MEMINIT_HOTPLUG };
#define FPI_NONE		0
#define FPI_SKIP_REPORT		(1 << 0)
#define FPI_TO_TAIL		(1 << 1)

#define SECTION_IS_ONLINE	(1UL << 2)
#define EBUSY			16
#define ENOENT			2

struct list_head {
	struct list_head *next, *prev;
};

struct page {
	uint64_t flags;
	union {
		struct list_head lru;			/* also buddy_list */
		struct {
			uint64_t compound_info;		/* tails: head | 1 */
			void *word2;
		};
	};
	uint64_t mapping;
	uint64_t index;
	uint64_t private;
	union {
		uint32_t page_type;
		int32_t mapcount;
	};
	int32_t refcount;
	uint64_t memcg_data;
};
_Static_assert(sizeof(struct page) == 64, "64-byte struct page");

struct free_area {
	struct list_head free_list[MIGRATE_TYPES];
	unsigned long nr_free;
};

/* The counters the end-state check compares (struct zone, vmstat) */
struct counters {
	long managed_pages, totalram_pages, present_pages, node_present_pages;
	long nr_free_pages, nr_free_pages_blocks, pgfree;
	long nr_isolate_pageblock;
	unsigned long nr_free[NR_ORDERS];
};

struct zone {
	int lock;
	int idx;				/* zone_idx() */
	bool contiguous;
	unsigned long zone_start_pfn, spanned_pages;
	struct counters c;
	struct free_area free_area[NR_ORDERS];
};

static struct zone zone;
static struct page *map;		/* the memory map: PFN BASE_PFN onwards */
static uint64_t *pageblock_flags;
static unsigned long *sections;		/* struct mem_section's section_mem_map */
static uint64_t *sb_plugged;		/* virtio-mem: one bit per subblock */
static unsigned long nr_blocks;		/* blocks in this run */
static const int nid = 0;

static void __attribute__((__noreturn__, __noinline__, __cold__)) model_bug(const char *what,
								  unsigned long pfn)
{
	fprintf(stderr, "unplug-model: FAIL: %s (pfn %#lx)\n", what, pfn);
	exit(1);
}

static always_inline struct page *pfn_to_page(unsigned long pfn)
{
	return map + (pfn - BASE_PFN);
}

static always_inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - map) + BASE_PFN;
}

static always_inline unsigned long pageblock_start_pfn(unsigned long pfn)
{
	return pfn & ~(PB_PAGES - 1);
}

static always_inline unsigned long pageblock_end_pfn(unsigned long pfn)
{
	return pageblock_start_pfn(pfn) + PB_PAGES;
}

/* ---------------------------------------------------------------- lists */

static always_inline void INIT_LIST_HEAD(struct list_head *l)
{
	WRITE_ONCE(l->next, l);
	WRITE_ONCE(l->prev, l);
}

static always_inline void __list_add(struct list_head *new,
				     struct list_head *prev,
				     struct list_head *next)
{
	next->prev = new;
	new->next = next;
	new->prev = prev;
	WRITE_ONCE(prev->next, new);
}

static always_inline void list_add(struct list_head *new, struct list_head *head)
{
	__list_add(new, head, head->next);
}

static always_inline void list_add_tail(struct list_head *new,
					struct list_head *head)
{
	__list_add(new, head->prev, head);
}

static always_inline void __list_del_entry(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	WRITE_ONCE(entry->prev->next, entry->next);
}

static always_inline void list_del(struct list_head *entry)
{
	__list_del_entry(entry);
	entry->next = LIST_POISON1;
	entry->prev = LIST_POISON2;
}

static always_inline void list_move_tail(struct list_head *entry,
					 struct list_head *head)
{
	__list_del_entry(entry);
	list_add_tail(entry, head);
}

#define lru_to_page(l)	((struct page *)((char *)(l) - 8))

/* ------------------------------------------------------------- sections */

static always_inline unsigned long *__pfn_to_section(unsigned long pfn)
{
	return &sections[(pfn - BASE_PFN) / SECTION_PAGES];
}

/* pfn_to_online_page(): NR_MEM_SECTIONS, online_section(); no ZONE_DEVICE */
static always_inline struct page *pfn_to_online_page(unsigned long pfn)
{
	if (pfn < BASE_PFN || pfn >= BASE_PFN + nr_blocks * BLOCK_PAGES)
		return NULL;
	if (!(READ_ONCE(*__pfn_to_section(pfn)) & SECTION_IS_ONLINE))
		return NULL;
	return pfn_to_page(pfn);
}

/* page_isolation.c: __first_valid_page() */
static always_inline struct page *__first_valid_page(unsigned long pfn,
						     unsigned long nr_pages)
{
	unsigned long i;

	for (i = 0; i < nr_pages; i++) {
		struct page *page = pfn_to_online_page(pfn + i);

		if (page)
			return page;
	}
	return NULL;
}

/* ------------------------------------------------- pageblock bitmap */

static always_inline uint64_t *pb_word(unsigned long pfn, unsigned int *shift)
{
	unsigned long idx = (pfn - BASE_PFN) >> PB_ORDER;

	*shift = (idx % PB_PER_WORD) * NR_PAGEBLOCK_BITS;
	return &pageblock_flags[idx / PB_PER_WORD];
}

/* __set_pfnblock_flags_mask(): a cmpxchg loop on the bitmap word */
static always_inline void set_pfnblock_flags_mask(unsigned long pfn,
						  uint64_t flags, uint64_t mask)
{
	unsigned int shift;
	uint64_t *w = pb_word(pfn, &shift), old = READ_ONCE(*w);

	while (!__atomic_compare_exchange_n(w, &old,
					    (old & ~(mask << shift)) | (flags << shift),
					    false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
}

static always_inline uint64_t get_pfnblock_flags(unsigned long pfn)
{
	unsigned int shift;
	uint64_t *w = pb_word(pfn, &shift);

	return (READ_ONCE(*w) >> shift) & 0xff;
}

static always_inline int get_pfnblock_migratetype(unsigned long pfn)
{
	uint64_t f = get_pfnblock_flags(pfn);

	return f & PB_ISOLATE_BIT ? MT_ISOLATE : (int)(f & MIGRATETYPE_MASK);
}

/* get_pageblock_isolate(), is_migrate_isolate_page(): test_bit() */
static always_inline bool get_pageblock_isolate(unsigned long pfn)
{
	return get_pfnblock_flags(pfn) & PB_ISOLATE_BIT;
}

/* set_pageblock_isolate(), clear_pageblock_isolate(): set_bit(), clear_bit() */
static always_inline void set_pageblock_isolate(unsigned long pfn)
{
	unsigned int shift;
	uint64_t *w = pb_word(pfn, &shift);

	__atomic_fetch_or(w, PB_ISOLATE_BIT << shift, __ATOMIC_SEQ_CST);
}

static always_inline void clear_pageblock_isolate(unsigned long pfn)
{
	unsigned int shift;
	uint64_t *w = pb_word(pfn, &shift);

	__atomic_fetch_and(w, ~(PB_ISOLATE_BIT << shift), __ATOMIC_SEQ_CST);
}

static always_inline void toggle_pageblock_isolate(unsigned long pfn, bool isolate)
{
	if (isolate)
		set_pageblock_isolate(pfn);
	else
		clear_pageblock_isolate(pfn);
}

static always_inline void init_pageblock_migratetype(struct page *page, int mt,
						     bool isolate)
{
	set_pfnblock_flags_mask(page_to_pfn(page),
				mt | (isolate ? PB_ISOLATE_BIT : 0),
				MIGRATETYPE_MASK | PB_ISOLATE_BIT);
}

static always_inline bool migratetype_is_mergeable(int mt)
{
	return mt < PCPTYPES;
}

/* ------------------------------------------------------ struct page ops */

static always_inline void set_page_count(struct page *page, int v)
{
	WRITE_ONCE(page->refcount, v);
}

static always_inline uint64_t page_flags(const struct page *page)
{
	return READ_ONCE(page->flags);		/* test_bit() */
}

/* _compound_head() */
static always_inline struct page *compound_head(struct page *page)
{
	uint64_t info = READ_ONCE(page->compound_info);

	return info & 1 ? (struct page *)(uintptr_t)(info - 1) : page;
}
#define page_folio(p)	compound_head(p)

static always_inline bool PageCompound(const struct page *page)
{
	return (page_flags(page) & PG_head) || (READ_ONCE(page->compound_info) & 1);
}

static always_inline bool PageBuddy(const struct page *page)
{
	return (page->page_type >> 24) == PGTY_buddy;
}

static always_inline bool PageOffline(const struct page *page)
{
	return (page->page_type >> 24) == PGTY_offline;
}

static always_inline bool PageUnaccepted(const struct page *page)
{
	return (page->page_type >> 24) == PGTY_unaccepted;
}

static always_inline bool folio_test_hugetlb(const struct page *folio)
{
	return (folio->page_type >> 24) == PGTY_hugetlb;
}

/* PageHuge(): folio_test_hugetlb(page_folio(page)) */
static always_inline bool PageHuge(struct page *page)
{
	return folio_test_hugetlb(page_folio(page));
}

static always_inline bool PageReserved(const struct page *page)
{
	return page_flags(page) & PG_reserved;		/* PF_NO_COMPOUND */
}

static always_inline bool PageHWPoison(const struct page *page)
{
	return page_flags(page) & PG_hwpoison;		/* PF_ANY */
}

static always_inline bool PageLRU(struct page *page)
{
	return page_flags(compound_head(page)) & PG_lru;	/* PF_HEAD */
}

/* page_has_movable_ops(): PageMovableOps() (PF_NO_TAIL) && (Offline || Zsmalloc) */
static always_inline bool page_has_movable_ops(struct page *page)
{
	return (page_flags(compound_head(page)) & PG_movable_ops) &&
	       (PageOffline(page) || (page->page_type >> 24) == 0xf6u);
}

/* page_count(): folio_ref_count(page_folio(page)) */
static always_inline int page_count(struct page *page)
{
	return READ_ONCE(page_folio(page)->refcount);
}

static always_inline unsigned int buddy_order(const struct page *page)
{
	return page->private;
}

static always_inline unsigned int buddy_order_unsafe(const struct page *page)
{
	return READ_ONCE(page->private);
}

static always_inline int page_zone_id(const struct page *page)
{
	return page_flags(page) >> ZONEID_PGSHIFT;
}

static always_inline int page_zonenum(const struct page *page)
{
	return (page_flags(page) >> ZONES_PGSHIFT) & ZONES_MASK;
}

/* page_zone(page) == zone: the model has one zone, ZONE_MOVABLE of node 0 */
static always_inline bool page_in_zone(const struct page *page)
{
	return page_zone_id(page) ==
	       (int)(((unsigned long)ZONE_MOVABLE << (ZONES_PGSHIFT - NODES_PGSHIFT)) | nid);
}

static always_inline void __SetPageType(struct page *page, unsigned int ty)
{
	if ((page->page_type >> 24) == ty)
		return;
	page->page_type = ty << 24;
}

static always_inline void __ClearPageType(struct page *page)
{
	if (page->page_type == UINT_MAX_)
		return;
	page->page_type = UINT_MAX_;
}

/* mm_zero_struct_page(), then the rest of __init_single_page() */
static always_inline void __init_single_page(struct page *page, unsigned long zid,
					     int n)
{
	uint64_t *pp = (uint64_t *)page;

	pp[7] = 0;
	pp[6] = 0;
	pp[5] = 0;
	pp[4] = 0;
	pp[3] = 0;
	pp[2] = 0;
	pp[1] = 0;
	pp[0] = 0;
	page->flags &= ~(ZONES_MASK << ZONES_PGSHIFT);
	page->flags |= (zid & ZONES_MASK) << ZONES_PGSHIFT;
	page->flags &= ~(NODES_MASK << NODES_PGSHIFT);
	page->flags |= ((uint64_t)n & NODES_MASK) << NODES_PGSHIFT;
	set_page_count(page, 1);			/* init_page_count() */
	WRITE_ONCE(page->mapcount, -1);			/* atomic_set() */
	page->flags |= LAST_CPUPID_MASK << LAST_CPUPID_PGSHIFT;
	INIT_LIST_HEAD(&page->lru);
}

/* --------------------------------------------------------- zone, lists */

static always_inline void zone_lock(void)
{
	while (__atomic_exchange_n(&zone.lock, 1, __ATOMIC_ACQUIRE))
		;
}

static always_inline void zone_unlock(void)
{
	__atomic_store_n(&zone.lock, 0, __ATOMIC_RELEASE);
}

static always_inline bool zone_spans_pfn(unsigned long pfn)
{
	return zone.zone_start_pfn <= pfn &&
	       pfn < zone.zone_start_pfn + zone.spanned_pages;
}

static always_inline void account_freepages(long nr, int mt)
{
	if (mt == MT_ISOLATE)
		return;
	zone.c.nr_free_pages += nr;			/* __mod_zone_page_state() */
}

static always_inline void set_buddy_order(struct page *page, unsigned int order)
{
	page->private = order;
	__SetPageType(page, PGTY_buddy);
}

static always_inline bool page_is_buddy(const struct page *page,
					const struct page *buddy,
					unsigned int order)
{
	if (!PageBuddy(buddy))
		return false;
	if (buddy_order(buddy) != order)
		return false;
	return page_zone_id(page) == page_zone_id(buddy);
}

static always_inline struct page *find_buddy_page_pfn(struct page *page,
						      unsigned long pfn,
						      unsigned int order,
						      unsigned long *buddy_pfn)
{
	unsigned long b = pfn ^ (1UL << order);
	struct page *buddy = page + (b - pfn);

	if (buddy_pfn)
		*buddy_pfn = b;
	return page_is_buddy(page, buddy, order) ? buddy : NULL;
}

static always_inline void __add_to_free_list(struct page *page,
					     unsigned int order, int mt,
					     bool tail)
{
	struct free_area *area = &zone.free_area[order];

	if (tail)
		list_add_tail(&page->lru, &area->free_list[mt]);
	else
		list_add(&page->lru, &area->free_list[mt]);
	area->nr_free++;
	if (order >= PB_ORDER && mt != MT_ISOLATE)
		zone.c.nr_free_pages_blocks += 1L << order;
}

static always_inline void move_to_free_list(struct page *page,
					    unsigned int order, int old_mt,
					    int new_mt)
{
	struct free_area *area = &zone.free_area[order];

	list_move_tail(&page->lru, &area->free_list[new_mt]);
	account_freepages(-(1L << order), old_mt);
	account_freepages(1L << order, new_mt);
	if (order >= PB_ORDER && (old_mt == MT_ISOLATE) != (new_mt == MT_ISOLATE))
		zone.c.nr_free_pages_blocks += old_mt == MT_ISOLATE ?
					       1L << order : -(1L << order);
}

static always_inline void __del_page_from_free_list(struct page *page,
						    unsigned int order, int mt)
{
	if (page->flags & PG_reported)			/* page_reported() */
		page->flags &= ~PG_reported;
	list_del(&page->lru);
	__ClearPageType(page);				/* __ClearPageBuddy() */
	page->private = 0;				/* set_page_private() */
	zone.free_area[order].nr_free--;
	if (order >= PB_ORDER && mt != MT_ISOLATE)
		zone.c.nr_free_pages_blocks -= 1L << order;
}

static always_inline void del_page_from_free_list(struct page *page,
						  unsigned int order, int mt)
{
	__del_page_from_free_list(page, order, mt);
	account_freepages(-(1L << order), mt);
}

static always_inline bool buddy_merge_likely(unsigned long pfn,
					     unsigned long buddy_pfn,
					     struct page *page, unsigned int order)
{
	unsigned long higher;

	if (order >= MAX_PAGE_ORDER - 1)
		return false;
	higher = buddy_pfn & pfn;
	return find_buddy_page_pfn(page + (higher - pfn), higher, order + 1, NULL);
}

static noinline void __free_one_page(struct page *page, unsigned long pfn,
				     unsigned int order, int mt, int fpi)
{
	unsigned long buddy_pfn = 0, combined;
	struct page *buddy;
	bool to_tail;

	account_freepages(1L << order, mt);
	while (order < MAX_PAGE_ORDER) {
		int buddy_mt = mt;

		buddy = find_buddy_page_pfn(page, pfn, order, &buddy_pfn);
		if (!buddy)
			break;
		if (order >= PB_ORDER) {
			buddy_mt = get_pfnblock_migratetype(buddy_pfn);
			if (mt != buddy_mt &&
			    (!migratetype_is_mergeable(mt) ||
			     !migratetype_is_mergeable(buddy_mt)))
				break;
		}
		__del_page_from_free_list(buddy, order, buddy_mt);
		if (buddy_mt != mt)			/* change_pageblock_range() */
			model_bug("a merge across migratetypes", buddy_pfn);
		combined = buddy_pfn & pfn;
		page += combined - pfn;
		pfn = combined;
		order++;
	}
	set_buddy_order(page, order);
	to_tail = (fpi & FPI_TO_TAIL) ||
		  buddy_merge_likely(pfn, buddy_pfn, page, order);
	__add_to_free_list(page, order, mt, to_tail);
}

/* split_large_buddy(): a multi-pageblock free page into its pageblocks */
static always_inline void split_large_buddy(struct page *page, unsigned long pfn,
					    unsigned int order, int fpi)
{
	unsigned long end = pfn + (1UL << order);

	if (order > PB_ORDER)
		order = PB_ORDER;
	for (;;) {
		__free_one_page(page, pfn, order, get_pfnblock_migratetype(pfn), fpi);
		pfn += 1UL << order;
		if (pfn == end)
			break;
		page = pfn_to_page(pfn);
	}
}

/* -------------------------------------------- onlining (setup, untimed) */

/* __free_pages_prepare() without page checks, of a non-compound block */
static always_inline void __free_pages_prepare(struct page *page,
					       unsigned int order)
{
	unsigned long i;

	if (page->flags & PG_mlocked)
		page->flags &= ~PG_mlocked;
	for (i = 1; i < (1UL << order); i++)
		page[i].flags &= ~PAGE_FLAGS_CHECK_AT_PREP;
	if (page->mapping & 1)
		page->mapping = 0;
	if ((page->page_type >> 24) >= 0xf0 && page->page_type != UINT_MAX_)
		page->page_type = UINT_MAX_;
	page->flags |= LAST_CPUPID_MASK << LAST_CPUPID_PGSHIFT;
	page->flags &= ~PAGE_FLAGS_CHECK_AT_PREP;
	page->private = 0;
}

static always_inline void adjust_managed_page_count(struct page *page, long count)
{
	use(page_zone_id(page));			/* page_zone() */
	__atomic_fetch_add(&zone.c.managed_pages, count, __ATOMIC_RELAXED);
	__atomic_fetch_add(&zone.c.totalram_pages, count, __ATOMIC_RELAXED);
}

/* __free_pages_core(MEMINIT_HOTPLUG) */
static void __free_pages_core_hotplug(struct page *page, unsigned int order)
{
	unsigned long nr_pages = 1UL << order, loop, pfn = page_to_pfn(page);
	struct page *p = page;

	for (loop = 0; loop < nr_pages; loop++, p++) {
		__ClearPageType(p);			/* __ClearPageOffline() */
		set_page_count(p, 0);
	}
	adjust_managed_page_count(page, nr_pages);
	__free_pages_prepare(page, order);
	zone_lock();					/* free_one_page() */
	split_large_buddy(page, pfn, order, FPI_TO_TAIL);
	zone_unlock();
	zone.c.pgfree += nr_pages;
}

static void undo_isolate_page_range(unsigned long start, unsigned long end);

/* online_pages() of a free block, as the base does it */
static void online_block(unsigned long mb)
{
	unsigned long start = BASE_PFN + mb * BLOCK_PAGES, end = start + BLOCK_PAGES;
	unsigned long pfn;

	/* move_pfn_range_to_zone() -> memmap_init_range(MEMINIT_HOTPLUG) */
	for (pfn = start; pfn < end; pfn++) {
		struct page *page = pfn_to_page(pfn);

		__init_single_page(page, ZONE_MOVABLE, nid);
		__SetPageType(page, PGTY_offline);	/* __SetPageOffline() */
		if (!(pfn & (PB_PAGES - 1)))
			init_pageblock_migratetype(page, MT_MOVABLE, true);
	}
	zone.c.nr_isolate_pageblock += BLOCK_PAGES / PB_PAGES;
	/* online_pages_range() -> generic_online_page() */
	for (pfn = start; pfn < end; pfn += MAX_ORDER_NR_PAGES)
		__free_pages_core_hotplug(pfn_to_page(pfn), MAX_PAGE_ORDER);
	*__pfn_to_section(start) |= SECTION_IS_ONLINE;	/* online_mem_sections() */
	zone.c.present_pages += BLOCK_PAGES;		/* adjust_present_page_count() */
	zone.c.node_present_pages += BLOCK_PAGES;
	undo_isolate_page_range(start, end);
	sb_plugged[mb] = ~0UL;				/* all 64 subblocks plugged */
}

/* ------------------------------------------------------ page isolation */

/* find_large_buddy(): a buddy that straddles start_pfn */
static always_inline unsigned long find_large_buddy(unsigned long start_pfn)
{
	int order = start_pfn ? __builtin_ctzl(start_pfn) : MAX_PAGE_ORDER;
	unsigned long pfn = start_pfn;
	struct page *page;

	while (!PageBuddy(page = pfn_to_page(pfn))) {
		if (++order > MAX_PAGE_ORDER)
			return start_pfn;
		pfn &= ~0UL << order;
	}
	if (pfn + (1UL << buddy_order(page)) > start_pfn)
		return pfn;
	return start_pfn;
}

/* __move_freepages_block(): every pfn of the pageblock, buddies stepped over */
static always_inline void __move_freepages_block(unsigned long start_pfn,
						 int old_mt, int new_mt)
{
	unsigned long pfn, end_pfn = pageblock_end_pfn(start_pfn);

	for (pfn = start_pfn; pfn < end_pfn;) {
		struct page *page = pfn_to_page(pfn);
		unsigned int order;

		if (!PageBuddy(page)) {
			pfn++;
			continue;
		}
		order = buddy_order(page);
		move_to_free_list(page, order, old_mt, new_mt);
		pfn += 1UL << order;
	}
}

/* __move_freepages_block_isolate() */
static noinline bool __move_freepages_block_isolate(struct page *page, bool isolate)
{
	unsigned long pfn = page_to_pfn(page), start_pfn, buddy_pfn;
	struct page *buddy;
	int from_mt, to_mt;

	if (isolate == get_pageblock_isolate(pfn))
		return false;
	/* prep_move_freepages_block() */
	start_pfn = pageblock_start_pfn(pfn);
	if (!zone_spans_pfn(start_pfn) || !zone_spans_pfn(start_pfn + PB_PAGES - 1))
		return false;

	buddy_pfn = find_large_buddy(start_pfn);
	buddy = pfn_to_page(buddy_pfn);
	if (PageBuddy(buddy) && buddy_order(buddy) > PB_ORDER) {
		unsigned int order = buddy_order(buddy);

		del_page_from_free_list(buddy, order,
					get_pfnblock_migratetype(buddy_pfn));
		toggle_pageblock_isolate(pfn, isolate);
		split_large_buddy(buddy, buddy_pfn, order, FPI_NONE);
		return true;
	}
	if (isolate) {
		from_mt = get_pfnblock_flags(pfn) & MIGRATETYPE_MASK;
		to_mt = MT_ISOLATE;
	} else {
		from_mt = MT_ISOLATE;
		to_mt = get_pfnblock_flags(pfn) & MIGRATETYPE_MASK;
	}
	__move_freepages_block(start_pfn, from_mt, to_mt);
	toggle_pageblock_isolate(start_pfn, isolate);
	return true;
}

/*
 * page_is_unmovable(): a global function (page_alloc.c calls it too), so a
 * call per page here; in ZONE_MOVABLE it tests PageReserved() and returns
 * without a step.
 */
static noinline bool page_is_unmovable(struct zone *z, struct page *page,
				       enum pb_isolate_mode mode, unsigned long *step)
{
	if (PageReserved(page))
		return true;
	if (READ_ONCE(z->idx) == ZONE_MOVABLE)		/* zone_idx(zone) */
		return false;
	(void)mode;
	(void)step;
	model_bug("page_is_unmovable() outside ZONE_MOVABLE", page_to_pfn(page));
}

/*
 * has_unmovable_pages() of the base: every page of the pageblock, since
 * page_is_unmovable() returns before its PageBuddy() step in ZONE_MOVABLE.
 */
static always_inline struct page *has_unmovable_pages_base(unsigned long start_pfn,
							    unsigned long end_pfn,
							    enum pb_isolate_mode mode)
{
	struct page *page = pfn_to_page(start_pfn);

	if (!page_in_zone(page))			/* zone = page_zone(page) */
		model_bug("a pageblock outside the zone", start_pfn);
	if (get_pfnblock_migratetype(start_pfn) == MT_CMA)	/* is_migrate_cma_page() */
		return page;
	while (start_pfn < end_pfn) {
		unsigned long step = 1;

		page = pfn_to_page(start_pfn);
		if (page_is_unmovable(&zone, page, mode, &step))
			return page;
		start_pfn += step;
	}
	return NULL;
}

/*
 * has_unmovable_pages() of the series: the zone comes from the caller, and
 * in ZONE_MOVABLE a free buddy page of that zone is stepped over whole.
 */
static always_inline struct page *has_unmovable_pages_series(struct zone *z,
							      unsigned long start_pfn,
							      unsigned long end_pfn,
							      enum pb_isolate_mode mode)
{
	struct page *page = pfn_to_page(start_pfn);
	const bool movable = READ_ONCE(z->idx) == ZONE_MOVABLE;

	if (get_pfnblock_migratetype(start_pfn) == MT_CMA)
		return page;
	while (start_pfn < end_pfn) {
		unsigned long step = 1;

		page = pfn_to_page(start_pfn);
		if (page_is_unmovable(z, page, mode, &step))
			return page;
		if (movable && PageBuddy(page) && page_in_zone(page))
			step = 1UL << buddy_order(page);
		start_pfn += step;
	}
	return NULL;
}

/* set_migratetype_isolate() */
static noinline int set_migratetype_isolate(struct page *page,
					    enum pb_isolate_mode mode,
					    unsigned long start_pfn,
					    unsigned long end_pfn, enum kernel k)
{
	unsigned long pfn = page_to_pfn(page), cstart, cend;
	struct page *unmovable;

	use(page_zone_id(page));			/* page_zone() */
	if (PageUnaccepted(page))
		model_bug("an unaccepted page", pfn);	/* accept_page() */
	zone_lock();
	if (get_pageblock_isolate(pfn)) {		/* is_migrate_isolate_page() */
		zone_unlock();
		return -EBUSY;
	}
	cstart = pfn > start_pfn ? pfn : start_pfn;
	cend = pageblock_end_pfn(pfn) < end_pfn ? pageblock_end_pfn(pfn) : end_pfn;
	unmovable = k == K_BASE ? has_unmovable_pages_base(cstart, cend, mode) :
				  has_unmovable_pages_series(&zone, cstart, cend, mode);
	if (!unmovable) {
		/* pageblock_isolate_and_move_free_pages() */
		if (!__move_freepages_block_isolate(page, true)) {
			zone_unlock();
			return -EBUSY;
		}
		zone.c.nr_isolate_pageblock++;
		zone_unlock();
		return 0;
	}
	zone_unlock();
	return -EBUSY;
}

static always_inline unsigned long __isolate_free_page(struct page *page,
						       unsigned int order)
{
	unsigned long pfn = page_to_pfn(page), p;
	int mt;

	use(page_zone_id(page));			/* page_zone() */
	mt = get_pfnblock_migratetype(pfn);
	if (mt != MT_ISOLATE)				/* the watermark check */
		model_bug("__isolate_free_page() outside an isolated pageblock", pfn);
	del_page_from_free_list(page, order, mt);
	if (order >= PB_ORDER - 1)
		for (p = pfn; p < pfn + (1UL << order) - 1; p += PB_PAGES)
			if (migratetype_is_mergeable(get_pfnblock_migratetype(p)))
				model_bug("move_freepages_block() in __isolate_free_page()", p);
	return 1UL << order;
}

/* unset_migratetype_isolate() */
static noinline void unset_migratetype_isolate(struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	bool isolated_page = false;
	unsigned int order = 0;
	struct page *buddy;

	use(page_zone_id(page));			/* page_zone() */
	zone_lock();
	if (!get_pageblock_isolate(pfn))
		goto out;
	if (PageBuddy(page)) {
		order = buddy_order(page);
		if (order >= PB_ORDER && order < MAX_PAGE_ORDER) {
			buddy = find_buddy_page_pfn(page, pfn, order, NULL);
			if (buddy && !get_pageblock_isolate(page_to_pfn(buddy)))
				isolated_page = __isolate_free_page(page, order);
		}
	}
	if (!isolated_page) {
		/* pageblock_unisolate_and_move_free_pages() */
		if (!__move_freepages_block_isolate(page, false))
			model_bug("unisolating a pageblock", pfn);
	} else {
		clear_pageblock_isolate(pfn);
		/* __putback_isolated_page() */
		__free_one_page(page, pfn, order, get_pfnblock_migratetype(pfn),
				FPI_SKIP_REPORT | FPI_TO_TAIL);
	}
	zone.c.nr_isolate_pageblock--;
out:
	zone_unlock();
}

/* undo_isolate_page_range() */
static noinline void undo_isolate_page_range(unsigned long start, unsigned long end)
{
	unsigned long pfn;

	for (pfn = pageblock_start_pfn(start); pfn < end; pfn += PB_PAGES) {
		struct page *page = __first_valid_page(pfn, PB_PAGES);

		if (!page || !get_pageblock_isolate(page_to_pfn(page)))
			continue;
		unset_migratetype_isolate(page);
	}
}

/* isolate_single_pageblock() */
static noinline int isolate_single_pageblock(unsigned long boundary_pfn,
					     enum pb_isolate_mode mode,
					     bool isolate_before, bool skip_isolation,
					     enum kernel k)
{
	unsigned long ipb = isolate_before ? boundary_pfn - PB_PAGES : boundary_pfn;
	unsigned long start_pfn, pfn;

	use(page_zone_id(pfn_to_page(ipb)));		/* page_zone() */
	start_pfn = ipb & ~(MAX_ORDER_NR_PAGES - 1);
	if (start_pfn < zone.zone_start_pfn)
		start_pfn = zone.zone_start_pfn;
	if (skip_isolation) {
		if (!get_pageblock_isolate(ipb))
			model_bug("skip_isolation of a pageblock not isolated", ipb);
	} else if (set_migratetype_isolate(pfn_to_page(ipb), mode, ipb,
					   ipb + PB_PAGES, k)) {
		return -EBUSY;
	}
	if (isolate_before) {
		if (!pfn_to_online_page(boundary_pfn))
			return 0;
	} else {
		if (!pfn_to_online_page(boundary_pfn - 1))
			return 0;
	}
	for (pfn = start_pfn; pfn < boundary_pfn;) {
		struct page *page = __first_valid_page(pfn, boundary_pfn - pfn);

		if (!page)
			model_bug("no valid page below the boundary", pfn);
		pfn = page_to_pfn(page);
		if (PageUnaccepted(page)) {
			pfn += MAX_ORDER_NR_PAGES;
			continue;
		}
		if (PageBuddy(page)) {
			unsigned int order = buddy_order_unsafe(page);

			if (order <= MAX_PAGE_ORDER &&
			    pfn + (1UL << order) <= boundary_pfn) {
				pfn += 1UL << order;
				continue;
			}
			model_bug("a free page across the boundary", pfn);
		}
		if (PageCompound(page))
			model_bug("a compound page across the boundary", pfn);
		pfn++;
	}
	return 0;
}

/* start_isolate_page_range() */
static noinline int start_isolate_page_range(unsigned long start_pfn,
					     unsigned long end_pfn,
					     enum pb_isolate_mode mode, enum kernel k)
{
	unsigned long isolate_start = pageblock_start_pfn(start_pfn);
	unsigned long isolate_end = (end_pfn + PB_PAGES - 1) & ~(PB_PAGES - 1);
	unsigned long pfn;

	if (isolate_single_pageblock(isolate_start, mode, false, false, k))
		return -EBUSY;
	if (isolate_single_pageblock(isolate_end, mode, true,
				     isolate_start == isolate_end - PB_PAGES, k))
		return -EBUSY;
	for (pfn = isolate_start + PB_PAGES; pfn < isolate_end - PB_PAGES;
	     pfn += PB_PAGES) {
		struct page *page = __first_valid_page(pfn, PB_PAGES);

		if (page && set_migratetype_isolate(page, mode, start_pfn, end_pfn, k))
			return -EBUSY;
	}
	return 0;
}

/* __test_page_isolated_in_pageblock() */
static always_inline unsigned long
__test_page_isolated_in_pageblock(unsigned long pfn, unsigned long end_pfn,
				  enum pb_isolate_mode mode)
{
	while (pfn < end_pfn) {
		struct page *page = pfn_to_page(pfn);

		if (PageBuddy(page))
			pfn += 1UL << buddy_order(page);
		else if (mode == MODE_MEM_OFFLINE && PageHWPoison(page))
			pfn++;
		else if (mode == MODE_MEM_OFFLINE && PageOffline(page) &&
			 !page_count(page))
			pfn++;
		else
			break;
	}
	return pfn;
}

/* test_pages_isolated() */
static noinline int test_pages_isolated(unsigned long start_pfn, unsigned long end_pfn,
					enum pb_isolate_mode mode)
{
	unsigned long pfn;
	struct page *page;

	/* wait_for_freed_hugetlb_folios(): nothing being freed */
	for (pfn = start_pfn; pfn < end_pfn; pfn += PB_PAGES) {
		page = __first_valid_page(pfn, PB_PAGES);
		if (page && !get_pageblock_isolate(page_to_pfn(page)))
			break;
	}
	page = __first_valid_page(start_pfn, end_pfn - start_pfn);
	if (pfn < end_pfn || !page)
		return -EBUSY;
	use(page_zone_id(page));			/* page_zone() */
	zone_lock();
	if (mode == MODE_MEM_OFFLINE)	/* constant-folded in the kernel's inline */
		pfn = __test_page_isolated_in_pageblock(start_pfn, end_pfn,
							MODE_MEM_OFFLINE);
	else
		pfn = __test_page_isolated_in_pageblock(start_pfn, end_pfn, MODE_OTHER);
	zone_unlock();
	return pfn < end_pfn ? -EBUSY : 0;
}

/* ---------------------------------------------- alloc_contig_range() */

/* isolate_migratepages_block() of a range with free buddies only */
static noinline unsigned long isolate_migratepages_block(unsigned long low_pfn,
							 unsigned long end_pfn,
							 unsigned long *nr_isolated)
{
	struct page *valid_page = NULL;

	for (; low_pfn < end_pfn; low_pfn++) {
		struct page *page = pfn_to_page(low_pfn);

		/* isolation_suitable(): cc->ignore_skip_hint, no load */
		if (!valid_page && !(low_pfn & (PB_PAGES - 1)))
			valid_page = page;
		if (PageHuge(page))
			model_bug("a hugetlb folio to migrate", low_pfn);
		if (PageBuddy(page)) {
			unsigned long order = buddy_order_unsafe(page);

			if (order > 0 && order <= MAX_PAGE_ORDER)
				low_pfn += (1UL << order) - 1;
			continue;
		}
		/* cc->alloc_contig: no compound skip */
		if (!PageLRU(page)) {
			if (page_has_movable_ops(page))
				model_bug("a movable_ops page to migrate", low_pfn);
			continue;			/* isolate_fail */
		}
		(*nr_isolated)++;
		model_bug("an LRU page to migrate", low_pfn);
	}
	if (low_pfn > end_pfn)
		low_pfn = end_pfn;
	use(valid_page);	/* cc->no_set_skip_hint: no set_pageblock_skip() */
	return low_pfn;
}

/* __alloc_contig_migrate_range() -> isolate_migratepages_range() */
static noinline int __alloc_contig_migrate_range(unsigned long start, unsigned long end)
{
	unsigned long pfn = start, block_end, nr_migratepages = 0;

	/* lru_cache_disable(): not modelled */
	while (pfn < end) {
		/* isolate_migratepages_range() */
		for (block_end = pageblock_end_pfn(pfn); pfn < end;
		     pfn = block_end, block_end += PB_PAGES) {
			if (block_end > end)
				block_end = end;
			if (!zone.contiguous)		/* pageblock_pfn_to_page() */
				model_bug("zone not contiguous", pfn);
			pfn = isolate_migratepages_block(pfn, block_end,
							 &nr_migratepages);
			if (nr_migratepages >= COMPACT_CLUSTER_MAX)
				break;
		}
		/* reclaim_clean_pages_from_list(), migrate_pages(): empty */
	}
	return 0;
}

/* isolate_freepages_block(strict) */
static always_inline unsigned long isolate_freepages_block(unsigned long *start_pfn,
							   unsigned long end_pfn,
							   struct list_head *freelist)
{
	unsigned long blockpfn = *start_pfn, total_isolated = 0;
	struct page *page = pfn_to_page(blockpfn);
	bool locked = false;

	for (; blockpfn < end_pfn; blockpfn++, page++) {
		unsigned long isolated;
		unsigned int order;

		/* compact_unlock_should_abort() */
		if (!(blockpfn % COMPACT_CLUSTER_MAX) && locked) {
			zone_unlock();
			locked = false;
		}
		if (PageCompound(page))
			break;				/* strict: isolate_fail */
		if (!PageBuddy(page))
			break;
		if (!locked) {
			zone_lock();			/* compact_lock_irqsave() */
			locked = true;
			if (!PageBuddy(page))
				break;
		}
		order = buddy_order(page);
		isolated = __isolate_free_page(page, order);
		if (!isolated)
			break;
		total_isolated += isolated;
		list_add_tail(&page->lru, &freelist[order]);
		blockpfn += isolated - 1;
		page += isolated - 1;
	}
	if (locked)
		zone_unlock();
	if (blockpfn > end_pfn)
		blockpfn = end_pfn;
	*start_pfn = blockpfn;
	if (blockpfn < end_pfn)
		total_isolated = 0;
	return total_isolated;
}

/* isolate_freepages_range() */
static noinline unsigned long isolate_freepages_range(struct list_head *freepages,
						      unsigned long start_pfn,
						      unsigned long end_pfn)
{
	unsigned long isolated, pfn = start_pfn, block_end_pfn;
	int order;

	for (order = 0; order < NR_ORDERS; order++)
		INIT_LIST_HEAD(&freepages[order]);
	block_end_pfn = pageblock_end_pfn(pfn);
	for (; pfn < end_pfn; pfn += isolated, block_end_pfn += PB_PAGES) {
		unsigned long isolate_start_pfn = pfn;

		if (pfn >= block_end_pfn)
			block_end_pfn = pageblock_end_pfn(pfn);
		if (block_end_pfn > end_pfn)
			block_end_pfn = end_pfn;
		if (!zone.contiguous)			/* pageblock_pfn_to_page() */
			model_bug("zone not contiguous", pfn);
		isolated = isolate_freepages_block(&isolate_start_pfn, block_end_pfn,
						   freepages);
		if (!isolated)
			break;
	}
	if (pfn < end_pfn)
		return 0;				/* release_free_list() */
	return pfn;
}

/* post_alloc_hook() with every debug and init option off */
static always_inline void post_alloc_hook(struct page *page)
{
	page->private = 0;				/* set_page_private() */
	/* arch_alloc_page(), kernel_unpoison_pages(), page_kasan_tag_reset(),
	 * set_page_owner(), page_table_check_alloc(), pgalloc_tag_add(): off */
}

/* __split_page(): split_page_memcg() reads the head's memcg_data */
static always_inline void __split_page(struct page *page)
{
	if (READ_ONCE(page_folio(page)->memcg_data))	/* folio_memcg_charged() */
		model_bug("a charged free page", page_to_pfn(page));
}

/* split_free_frozen_pages(): 7.3.4's counterpart of split_map_pages() */
static noinline void split_free_frozen_pages(struct list_head *list)
{
	int order;

	for (order = 0; order < NR_ORDERS; order++) {
		unsigned long nr_pages = 1UL << order, i;
		struct list_head *l, *next;

		for (l = list[order].next; l != &list[order]; l = next) {
			struct page *page = lru_to_page(l);

			next = l->next;
			post_alloc_hook(page);
			if (!order)
				continue;
			__split_page(page);
			list_del(&page->lru);
			for (i = 0; i < nr_pages; i++)
				list_add_tail(&page[i].lru, &list[0]);
		}
	}
}

/* set_pages_refcounted() */
static noinline void set_pages_refcounted(unsigned long pfn, unsigned long nr_pages)
{
	for (; nr_pages--; pfn++)
		set_page_count(pfn_to_page(pfn), 1);	/* set_page_refcounted() */
}

/* alloc_contig_range_noprof() -> alloc_contig_frozen_range_noprof() */
static noinline int alloc_contig_range(unsigned long start, unsigned long end)
{
	struct list_head freepages[NR_ORDERS];		/* cc.freepages */
	unsigned long outer_start, outer_end;
	int ret;

	use(page_zone_id(pfn_to_page(start)));		/* cc.zone = page_zone() */
	ret = start_isolate_page_range(start, end, MODE_OTHER, K_BASE);
	if (ret)
		model_bug("alloc_contig_range(): isolation failed", start);
	/* drain_all_pages(): not modelled */
	ret = __alloc_contig_migrate_range(start, end);
	/* replace_free_hugepage_folios(): no free huge pages, returns at once */
	outer_start = find_large_buddy(start);
	if (test_pages_isolated(outer_start, end, MODE_OTHER))
		model_bug("alloc_contig_range(): test_pages_isolated() failed", start);
	outer_end = isolate_freepages_range(freepages, outer_start, end);
	if (!outer_end || outer_start != start || outer_end != end)
		model_bug("alloc_contig_range(): isolate_freepages_range()", start);
	split_free_frozen_pages(freepages);
	undo_isolate_page_range(start, end);
	set_pages_refcounted(start, end - start);
	return ret;
}

/* ------------------------------------------------------------ virtio-mem */

static always_inline bool virtio_mem_sbm_test_sb_plugged(unsigned long mb, int sb,
							 int count)
{
	uint64_t mask = count == 64 ? ~0UL : ((1UL << count) - 1) << sb;

	return (READ_ONCE(sb_plugged[mb]) & mask) == mask;
}

static always_inline bool virtio_mem_sbm_test_sb_unplugged(unsigned long mb, int sb,
							   int count)
{
	uint64_t mask = count == 64 ? ~0UL : ((1UL << count) - 1) << sb;

	return !(READ_ONCE(sb_plugged[mb]) & mask);
}

/* virtio_mem_set_fake_offline(onlined = true) */
static noinline void virtio_mem_set_fake_offline(unsigned long pfn,
						 unsigned long nr_pages)
{
	/* page_offline_begin(): rwsem, not modelled */
	for (; nr_pages--; pfn++) {
		struct page *page = pfn_to_page(pfn);

		__SetPageType(page, PGTY_offline);	/* __SetPageOffline() */
	}
}

/* virtio_mem_fake_offline() */
static void virtio_mem_fake_offline(unsigned long pfn, unsigned long nr_pages)
{
	/* is_zone_movable_page() */
	if (page_zonenum(pfn_to_page(pfn)) != ZONE_MOVABLE)
		model_bug("not ZONE_MOVABLE", pfn);
	/* vm->config_changed: not modelled; the first try succeeds */
	if (alloc_contig_range(pfn, pfn + nr_pages))
		model_bug("alloc_contig_range() failed", pfn);
	virtio_mem_set_fake_offline(pfn, nr_pages);
	adjust_managed_page_count(pfn_to_page(pfn), -(long)nr_pages);
}

/* virtio_mem_fake_offline_going_offline() */
static noinline void virtio_mem_fake_offline_going_offline(unsigned long pfn,
							   unsigned long nr_pages)
{
	unsigned long i;

	for (i = 0; i < nr_pages; i++) {
		struct page *page = pfn_to_page(pfn + i);

		/* page_ref_dec_and_test(): atomic_dec_and_test() */
		if (unlikely(__atomic_sub_fetch(&page->refcount, 1, __ATOMIC_SEQ_CST)))
			model_bug("fake-offline page referenced", pfn + i);
	}
}

/* MEM_GOING_OFFLINE -> virtio_mem_sbm_notify_going_offline() */
static void virtio_mem_sbm_notify_going_offline(unsigned long mb)
{
	unsigned long start = BASE_PFN + mb * BLOCK_PAGES;
	unsigned int sb;

	for (sb = 0; sb < SBS_PER_MB; sb++) {
		if (virtio_mem_sbm_test_sb_plugged(mb, sb, 1))
			continue;
		virtio_mem_fake_offline_going_offline(start + sb * SB_PAGES, SB_PAGES);
	}
}

/* ------------------------------------------------------- offline_pages() */

/* scan_movable_pages() of the base: every page */
static noinline int scan_movable_pages_base(unsigned long start, unsigned long end,
					    unsigned long *movable_pfn)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (PageLRU(page) || page_has_movable_ops(page))
			goto found;
		if (PageOffline(page) && page_count(page))
			return -EBUSY;
		if (!folio_test_hugetlb(page_folio(page)))
			continue;
		model_bug("a hugetlb folio in the range", pfn);
	}
	return -ENOENT;
found:
	*movable_pfn = pfn;
	return 0;
}

/* scan_movable_pages() of the series: free buddies stepped over */
static noinline int scan_movable_pages_series(unsigned long start, unsigned long end,
					      unsigned long *movable_pfn)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (PageBuddy(page)) {
			unsigned int order = buddy_order_unsafe(page);

			if (order <= MAX_PAGE_ORDER)
				pfn += (1UL << order) - 1;
			continue;
		}
		if (PageLRU(page) || page_has_movable_ops(page))
			goto found;
		if (PageOffline(page) && page_count(page))
			return -EBUSY;
		if (!folio_test_hugetlb(page_folio(page)))
			continue;
		model_bug("a hugetlb folio in the range", pfn);
	}
	return -ENOENT;
found:
	*movable_pfn = pfn;
	return 0;
}

/* dissolve_free_hugetlb_folios(): one folio per smallest huge page */
static noinline int dissolve_free_hugetlb_folios(unsigned long start, unsigned long end)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn += 1UL << HUGETLB_MIN_ORDER) {
		struct page *folio = page_folio(pfn_to_page(pfn));	/* pfn_folio() */

		/* dissolve_free_hugetlb_folio() */
		if (folio_test_hugetlb(folio))
			model_bug("a hugetlb folio to dissolve", pfn);
	}
	return 0;
}

/* __offline_isolated_pages() */
static noinline unsigned long __offline_isolated_pages(unsigned long start_pfn,
						       unsigned long end_pfn)
{
	unsigned long already_offline = 0, pfn;

	/* offline_mem_sections() */
	for (pfn = start_pfn; pfn < end_pfn; pfn += SECTION_PAGES)
		*__pfn_to_section(pfn) &= ~SECTION_IS_ONLINE;
	use(page_zone_id(pfn_to_page(start_pfn)));	/* page_zone() */
	zone_lock();
	for (pfn = start_pfn; pfn < end_pfn;) {
		struct page *page = pfn_to_page(pfn);
		unsigned int order;

		if (unlikely(!PageBuddy(page) && PageHWPoison(page))) {
			pfn++;
			continue;
		}
		if (PageOffline(page)) {
			if (unlikely(page_count(page)))		/* BUG_ON() */
				model_bug("BUG_ON(page_count(page))", pfn);
			if (unlikely(PageBuddy(page)))		/* BUG_ON() */
				model_bug("BUG_ON(PageBuddy(page))", pfn);
			already_offline++;
			pfn++;
			continue;
		}
		if (unlikely(page_count(page)))			/* BUG_ON() */
			model_bug("BUG_ON(page_count(page))", pfn);
		if (unlikely(!PageBuddy(page)))			/* BUG_ON() */
			model_bug("BUG_ON(!PageBuddy(page))", pfn);
		order = buddy_order(page);
		del_page_from_free_list(page, order, MT_ISOLATE);
		pfn += 1UL << order;
	}
	zone_unlock();
	return end_pfn - start_pfn - already_offline;
}

/* adjust_present_page_count() */
static always_inline void adjust_present_page_count(struct page *page, long nr_pages)
{
	use(page_zone_id(page));			/* page_zone() */
	zone.c.present_pages += nr_pages;
	zone.c.node_present_pages += nr_pages;		/* and the group's */
}

/* offline_pages(), with the series' free_only */
static noinline int offline_pages(unsigned long mb, bool free_only, enum kernel k)
{
	const unsigned long start_pfn = BASE_PFN + mb * BLOCK_PAGES;
	const unsigned long nr_pages = BLOCK_PAGES, end_pfn = start_pfn + nr_pages;
	unsigned long pfn, managed_pages;
	int ret;

	/* walk_system_ram_range(): the resource tree, not modelled */
	if (!page_in_zone(pfn_to_page(start_pfn)) ||	/* page_zone() */
	    !page_in_zone(pfn_to_page(end_pfn - 1)))
		model_bug("multizone range", start_pfn);
	/* free_only: zone_idx(zone) == ZONE_MOVABLE, the zone's, no load */
	/* zone_pcp_disable(), lru_cache_disable() (not free_only): not modelled */
	if (start_isolate_page_range(start_pfn, end_pfn, MODE_MEM_OFFLINE, k))
		model_bug("offline_pages(): isolation failed", start_pfn);
	/* offline_range_is_free() */
	if (free_only && test_pages_isolated(start_pfn, end_pfn, MODE_OTHER))
		model_bug("offline_pages(free_only): range not free", start_pfn);
	/* memory_notify(MEM_GOING_OFFLINE): virtio-mem's notifier */
	virtio_mem_sbm_notify_going_offline(mb);
	do {
		pfn = start_pfn;
		do {
			ret = k == K_BASE ? scan_movable_pages_base(pfn, end_pfn, &pfn) :
					    scan_movable_pages_series(pfn, end_pfn, &pfn);
			if (!ret)		/* do_migrate_range() */
				model_bug("a movable page to migrate", pfn);
		} while (!ret);
		if (ret != -ENOENT)
			model_bug("offline_pages(): unmovable page", start_pfn);
		if (dissolve_free_hugetlb_folios(start_pfn, end_pfn))
			model_bug("dissolve_free_hugetlb_folios()", start_pfn);
		ret = test_pages_isolated(start_pfn, end_pfn, MODE_MEM_OFFLINE);
		if (ret)
			model_bug("offline_pages(): test_pages_isolated() failed", start_pfn);
	} while (ret);
	managed_pages = __offline_isolated_pages(start_pfn, end_pfn);
	zone_lock();
	zone.c.nr_isolate_pageblock -= nr_pages / PB_PAGES;
	zone_unlock();
	adjust_managed_page_count(pfn_to_page(start_pfn), -(long)managed_pages);
	adjust_present_page_count(pfn_to_page(start_pfn), -(long)nr_pages);
	/* init_per_zone_wmark_min(), MEM_OFFLINE, remove_pfn_range_from_zone():
	 * not modelled */
	return 0;
}

/* memory_block_looks_free() (the series) */
static noinline bool memory_block_looks_free(unsigned long mb)
{
	unsigned long pfn = BASE_PFN + mb * BLOCK_PAGES, end = pfn + BLOCK_PAGES;

	/* mem->altmap: none */
	while (pfn < end) {
		struct page *page = pfn_to_online_page(pfn);
		unsigned int order;

		if (!page || page_zonenum(page) != ZONE_MOVABLE || !PageBuddy(page))
			return false;
		order = buddy_order_unsafe(page);
		if (order > MAX_PAGE_ORDER)
			return false;
		pfn += 1UL << order;
	}
	return true;
}

/* try_offline_memory_block() -> device_offline() -> memory_block_offline() */
static int try_offline_memory_block(unsigned long mb, bool free_only, enum kernel k)
{
	unsigned long start = BASE_PFN + mb * BLOCK_PAGES;
	struct page *page;

	if (free_only && !memory_block_looks_free(mb))
		return -EBUSY;
	page = pfn_to_online_page(start);
	if (page)
		use(page_zonenum(page) == ZONE_MOVABLE);	/* online_type */
	return offline_pages(mb, free_only, k);
}

/* --------------------------------------------------------------- methods */

enum { M_BASE, M_SERIES, NR_METHODS };
static const char *const method_name[] = { "base", "series" };
static double phase_ns;		/* base: time spent in virtio_mem_fake_offline() */

/*
 * base: virtio_mem_sbm_unplug_any_sb_online() of a fully plugged block ->
 * virtio_mem_sbm_unplug_sb_online() -> virtio_mem_fake_offline(), the device
 * request, virtio_mem_sbm_try_remove_unplugged_mb() ->
 * offline_and_remove_memory().
 */
static noinline void unplug_base(unsigned long mb)
{
	unsigned long start = BASE_PFN + mb * BLOCK_PAGES;
	double t0 = now();

	if (!virtio_mem_sbm_test_sb_plugged(mb, 0, SBS_PER_MB))
		model_bug("block not fully plugged", start);
	virtio_mem_fake_offline(start, BLOCK_PAGES);
	phase_ns += (now() - t0) * 1e9;
	/* virtio_mem_sbm_unplug_sb(): the device request, not modelled */
	WRITE_ONCE(sb_plugged[mb], 0);
	/* virtio_mem_sbm_try_remove_unplugged_mb() */
	if (!virtio_mem_sbm_test_sb_unplugged(mb, 0, SBS_PER_MB))
		model_bug("block not unplugged", start);
	/* offline_and_remove_memory() -> offline_and_remove_memory_ranges() */
	if (try_offline_memory_block(mb, false, K_BASE))
		model_bug("offline_and_remove_memory() failed", start);
	/* try_remove_memory(): not modelled */
}

/*
 * series: virtio_mem_sbm_unplug_any_sb_online() ->
 * virtio_mem_sbm_remove_free_mb() -> offline_and_remove_free_memory(), then
 * virtio_mem_sbm_unplug_mb().
 */
static noinline void unplug_series(unsigned long mb)
{
	unsigned long start = BASE_PFN + mb * BLOCK_PAGES;

	if (!virtio_mem_sbm_test_sb_plugged(mb, 0, SBS_PER_MB))
		model_bug("block not fully plugged", start);
	/* offline_and_remove_free_memory() -> __offline_and_remove_memory_ranges() */
	if (try_offline_memory_block(mb, true, K_SERIES))
		model_bug("offline_and_remove_free_memory() failed", start);
	/* try_remove_memory(), virtio_mem_sbm_unplug_mb(): not modelled */
	WRITE_ONCE(sb_plugged[mb], 0);
}

/* Blocks are unplugged from the highest down (virtio_mem_sbm_for_each_mb_rev) */
static void unplug_all(unsigned long blocks, int method)
{
	unsigned long mb;

	for (mb = blocks; mb-- > 0;) {
		if (method == M_BASE)
			unplug_base(mb);
		else
			unplug_series(mb);
	}
}

/* ------------------------------------------------------------- harness */

static void zone_reset(unsigned long blocks)
{
	int o, t;

	memset(&zone, 0, sizeof(zone));
	zone.idx = ZONE_MOVABLE;
	zone.contiguous = true;
	zone.zone_start_pfn = BASE_PFN;
	zone.spanned_pages = blocks * BLOCK_PAGES;
	for (o = 0; o < NR_ORDERS; o++)
		for (t = 0; t < MIGRATE_TYPES; t++)
			INIT_LIST_HEAD(&zone.free_area[o].free_list[t]);
	memset(pageblock_flags, 0,
	       (blocks * BLOCK_PAGES / PB_PAGES / PB_PER_WORD + 1) * sizeof(uint64_t));
	memset(sections, 0, blocks * sizeof(*sections));
	memset(sb_plugged, 0, blocks * sizeof(*sb_plugged));
}

/* Online every block (untimed): the state a free ZONE_MOVABLE block has */
static void setup(unsigned long blocks)
{
	unsigned long mb, pfn;
	int o;

	nr_blocks = blocks;
	zone_reset(blocks);
	for (mb = 0; mb < blocks; mb++)
		online_block(mb);
	/* what the model starts from: free order-10 MIGRATE_MOVABLE buddies */
	for (o = 0; o < NR_ORDERS; o++)
		if (zone.free_area[o].nr_free != (o == MAX_PAGE_ORDER ?
						  blocks * BLOCK_PAGES / MAX_ORDER_NR_PAGES : 0))
			model_bug("setup: free lists not as onlining leaves them", BASE_PFN);
	for (pfn = BASE_PFN; pfn < BASE_PFN + blocks * BLOCK_PAGES; pfn += PB_PAGES)
		if (get_pfnblock_flags(pfn) != MT_MOVABLE)
			model_bug("setup: pageblock not MIGRATE_MOVABLE", pfn);
	if (zone.c.nr_free_pages != (long)(blocks * BLOCK_PAGES) ||
	    zone.c.managed_pages != (long)(blocks * BLOCK_PAGES) ||
	    zone.c.nr_isolate_pageblock)
		model_bug("setup: counters", BASE_PFN);
}

static bool have_clflushopt;

static void flush_range(void *start, size_t bytes)
{
	char *p = (char *)((uintptr_t)start & ~63UL), *end = (char *)start + bytes;

	if (have_clflushopt)
		for (; p < end; p += 64)
			asm volatile("clflushopt %0" : "+m"(*p));
	else
		for (; p < end; p += 64)
			asm volatile("clflush %0" : "+m"(*p));
}

static void flush_caches(unsigned long blocks)
{
	flush_range(map, blocks * BLOCK_PAGES * sizeof(struct page));
	flush_range(pageblock_flags,
		    (blocks * BLOCK_PAGES / PB_PAGES / PB_PER_WORD + 1) * sizeof(uint64_t));
	flush_range(sections, blocks * sizeof(*sections));
	flush_range(sb_plugged, blocks * sizeof(*sb_plugged));
	asm volatile("mfence" ::: "memory");
}

/* What a method leaves, for the comparison between base and series */
struct end_state {
	struct counters c;
	uint64_t *pb;
};

static void fail(const char *method, unsigned long blocks, const char *what,
		 unsigned long pfn)
{
	fprintf(stderr, "unplug-model: FAIL: %s, %lu blocks: %s (pfn %#lx)\n",
		method, blocks, what, pfn);
	exit(1);
}

/* The end state of one method: free lists, counters, sections, map */
static void check_end(unsigned long blocks, int method, struct end_state *out)
{
	const char *m = method_name[method];
	const unsigned long end = BASE_PFN + blocks * BLOCK_PAGES;
	size_t pbbytes = (blocks * BLOCK_PAGES / PB_PAGES / PB_PER_WORD + 1) *
			 sizeof(uint64_t);
	unsigned long pfn, mb;
	int o, t;

	for (o = 0; o < NR_ORDERS; o++) {
		for (t = 0; t < MIGRATE_TYPES; t++) {
			struct list_head *head = &zone.free_area[o].free_list[t], *l;
			unsigned long n = 0;

			for (l = head->next; l != head; l = l->next) {
				struct page *page = lru_to_page(l);

				if (page >= map && page < map + blocks * BLOCK_PAGES)
					fail(m, blocks, "a page of the blocks still on a free list",
					     page_to_pfn(page));
				if (++n > blocks * BLOCK_PAGES)
					fail(m, blocks, "a free list loops", 0);
			}
			if (n)
				fail(m, blocks, "a free list not empty", 0);
		}
		if (zone.free_area[o].nr_free)
			fail(m, blocks, "free_area[].nr_free not 0", 0);
	}
	if (zone.c.nr_free_pages || zone.c.nr_free_pages_blocks ||
	    zone.c.managed_pages || zone.c.totalram_pages || zone.c.present_pages ||
	    zone.c.node_present_pages || zone.c.nr_isolate_pageblock)
		fail(m, blocks, "zone counters not back to 0 (NR_FREE_PAGES, "
		     "NR_FREE_PAGES_BLOCKS, managed, totalram, present, "
		     "nr_isolate_pageblock)", 0);
	if (zone.lock)
		fail(m, blocks, "zone lock held", 0);
	for (mb = 0; mb < blocks; mb++) {
		if (sections[mb] & SECTION_IS_ONLINE)
			fail(m, blocks, "a section still online", BASE_PFN + mb * SECTION_PAGES);
		if (sb_plugged[mb])
			fail(m, blocks, "a subblock still plugged", BASE_PFN + mb * BLOCK_PAGES);
	}
	for (pfn = BASE_PFN; pfn < end; pfn += PB_PAGES)
		if (get_pfnblock_flags(pfn) != (MT_MOVABLE | PB_ISOLATE_BIT))
			fail(m, blocks, "pageblock not MIGRATE_MOVABLE and isolated "
			     "(offlining leaves it so)", pfn);
	for (pfn = BASE_PFN; pfn < end; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (PageBuddy(page))
			fail(m, blocks, "a page still PageBuddy", pfn);
		if (method == M_BASE && (!PageOffline(page) || page->refcount))
			fail(m, blocks, "a page not fake-offline with no reference", pfn);
		if (method == M_SERIES && (PageOffline(page) || page->refcount))
			fail(m, blocks, "a free page PageOffline or referenced", pfn);
	}
	out->c = zone.c;
	memcpy(out->pb, pageblock_flags, pbbytes);
}

static void compare_end(unsigned long blocks, const struct end_state *b,
			const struct end_state *s)
{
	size_t pbbytes = (blocks * BLOCK_PAGES / PB_PAGES / PB_PER_WORD + 1) *
			 sizeof(uint64_t);
	/* pgfree counts the untimed onlining only; compared all the same */
	if (memcmp(&b->c, &s->c, sizeof(b->c)))
		fail("series", blocks, "zone counters differ from the base's", 0);
	if (memcmp(b->pb, s->pb, pbbytes))
		fail("series", blocks, "pageblock bitmap differs from the base's", 0);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: unplug-model [--blocks N,N,...] [--runs N]\n"
"  A native model of the memory-map work of unplugging free 128 MiB\n"
"  ZONE_MOVABLE memory blocks with virtio-mem (SBM) on Linux 7.3.4: base\n"
"  (alloc_contig_range(), fake-offline, offline_and_remove_memory()) and\n"
"  the series (offline_and_remove_free_memory()); see the header of\n"
"  unplug-model.c for the kernel functions each modelled load and store\n"
"  stands for, and what is not modelled.\n"
"  --blocks  blocks unplugged per run, 1-%lu each, 2 MiB of memory map per\n"
"            block; default 1,8,64 (64 blocks: 128 MiB of map, past most\n"
"            last-level caches)\n"
"  --runs N  timed runs per method, 1-99 (default 7); fewer than 64 blocks\n"
"            get more (N times 64/blocks, at most 16 N); methods interleaved,\n"
"            their order alternating\n"
"Prints the last-level cache, then per block count the median ns per struct\n"
"page of each method with min-max, and base/series (>1: the series is\n"
"faster); comment lines give the base's split and the median us per block.\n"
"Every run's end state is checked (free lists, zone counters, pageblocks,\n"
"map); a mismatch stops with exit status 1.  Memory: the largest map plus\n"
"little.  x86-64 only; run natively, never meaningful under TCG.\n",
		MAX_BLOCKS);
}

static int parse_ulong(const char *s, unsigned long *v)
{
	char *e;

	errno = 0;
	*v = strtoul(s, &e, 10);
	return errno || e == s || *e || s[0] == '-';
}

static void print_llc(void)
{
	char path[128], buf[64];
	int idx, best = -1;
	long best_kb = 0;

	for (idx = 0; idx < 8; idx++) {
		FILE *f;
		long kb;
		int level;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fscanf(f, "%d", &level) != 1)
			level = 0;
		fclose(f);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		kb = strtol(buf, NULL, 10);
		if (strchr(buf, 'M'))
			kb *= 1024;
		if (level >= 2 && kb > best_kb) {
			best_kb = kb;
			best = level;
		}
	}
	if (best < 0)
		printf("# last-level cache: unknown (no /sys/devices/system/cpu/cpu0/cache)\n");
	else
		printf("# last-level cache (sysfs, cpu0): L%d %ld KiB = the map of %.1f blocks\n",
		       best, best_kb, best_kb / 2048.0);
}

static void print_load(const char *when)
{
	char buf[128] = "?";
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			strcpy(buf, "?\n");
		fclose(f);
	}
	printf("# load %s: %s", when, buf);
}

static void print_thp(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "AnonHugePages:", 14))
			printf("# map in 2 MiB pages: %s", line);
	fclose(f);
}

int main(int argc, char **argv)
{
	static const unsigned long default_blocks[] = { 1, 8, 64 };
	unsigned long blocks[32], nblocks = 0, runs = 7, max_blocks = 0, v, s;
	unsigned int eax, ebx, ecx, edx;
	struct end_state st[NR_METHODS];
	double *t[NR_METHODS], *tphase;
	size_t bytes, pbbytes;
	int k, m;
	void *mem;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[k], "--runs") && k + 1 < argc) {
			if (parse_ulong(argv[++k], &runs) || runs < 1 || runs > 99) {
				fprintf(stderr, "unplug-model: --runs wants 1-99, not '%s'\n",
					argv[k]);
				return 2;
			}
		} else if (!strcmp(argv[k], "--blocks") && k + 1 < argc) {
			char *list = strdup(argv[++k]), *tok, *save = NULL;

			if (!list) {
				fprintf(stderr, "unplug-model: out of memory\n");
				return 1;
			}
			nblocks = 0;
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (parse_ulong(tok, &v) || !v || v > MAX_BLOCKS ||
				    nblocks == 32) {
					fprintf(stderr,
						"unplug-model: bad block count '%s' (1-%lu, at most 32 counts)\n",
						tok, MAX_BLOCKS);
					free(list);
					return 2;
				}
				blocks[nblocks++] = v;
			}
			free(list);
			if (!nblocks) {
				fprintf(stderr, "unplug-model: --blocks wants a list\n");
				return 2;
			}
		} else {
			fprintf(stderr, "unplug-model: unknown or incomplete argument '%s'\n",
				argv[k]);
			usage(stderr);
			return 2;
		}
	}
	if (!nblocks) {
		nblocks = sizeof(default_blocks) / sizeof(default_blocks[0]);
		memcpy(blocks, default_blocks, sizeof(default_blocks));
	}
	for (s = 0; s < nblocks; s++)
		if (blocks[s] > max_blocks)
			max_blocks = blocks[s];

	__cpuid_count(7, 0, eax, ebx, ecx, edx);
	have_clflushopt = ebx & (1u << 23);
	__cpuid(1, eax, ebx, ecx, edx);

	/* The map, 2 MiB aligned and in 2 MiB pages, as the vmemmap. */
	bytes = max_blocks * BLOCK_PAGES * sizeof(struct page);
	mem = mmap(NULL, bytes + (2UL << 20), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "unplug-model: mmap of %lu MiB: %s\n",
			(bytes >> 20) + 2, strerror(errno));
		return 1;
	}
	map = (struct page *)(((uintptr_t)mem + (2UL << 20) - 1) & ~((2UL << 20) - 1));
	madvise(map, bytes, MADV_HUGEPAGE);
	memset(map, 0, bytes);
	pbbytes = (max_blocks * BLOCK_PAGES / PB_PAGES / PB_PER_WORD + 1) *
		  sizeof(uint64_t);
	pageblock_flags = calloc(1, pbbytes);
	sections = calloc(max_blocks, sizeof(*sections));
	sb_plugged = calloc(max_blocks, sizeof(*sb_plugged));
	for (m = 0; m < NR_METHODS; m++) {
		t[m] = malloc(16 * runs * sizeof(double));
		st[m].pb = malloc(pbbytes);
	}
	tphase = malloc(16 * runs * sizeof(double));
	if (!pageblock_flags || !sections || !sb_plugged || !tphase ||
	    !t[M_BASE] || !t[M_SERIES] || !st[M_BASE].pb || !st[M_SERIES].pb) {
		fprintf(stderr, "unplug-model: out of memory\n");
		return 1;
	}

	printf("# unplug-model: the memory-map work of a virtio-mem (SBM) unplug of free\n"
	       "# 128 MiB ZONE_MOVABLE blocks, Linux 7.3.4 (base: alloc_contig_range(),\n"
	       "# fake-offline, offline_pages()) against the series\n"
	       "# (offline_and_remove_free_memory(): offline_pages(free_only)); ns per\n"
	       "# struct page (32768 a block), cold map; no device, vmemmap free,\n"
	       "# lru_cache_disable() or memory block devices (see unplug-model.c)\n");
	printf("# native (not TCG), %ld CPUs online, cpu flag hypervisor: %s\n",
	       sysconf(_SC_NPROCESSORS_ONLN),
	       ecx & (1u << 31) ? "yes (a VM)" : "no (bare metal)");
	print_llc();
	printf("# cache flush before each run: %s\n",
	       have_clflushopt ? "clflushopt" : "clflush");
	print_thp();

	/* Self-check before timing: 2 blocks (or 1), both methods */
	{
		unsigned long n = max_blocks < 2 ? max_blocks : 2;

		for (m = 0; m < NR_METHODS; m++) {
			setup(n);
			unplug_all(n, m);
			check_end(n, m, &st[m]);
		}
		compare_end(n, &st[M_BASE], &st[M_SERIES]);
		printf("# self-check (%lu blocks): both methods take every page off the free lists; "
		       "zone counters, pageblocks equal: ok\n", n);
	}
	printf("blocks,path,base_ns,base_min,base_max,series_ns,series_min,series_max,"
	       "base/series\n");
	fflush(stdout);

	for (s = 0; s < nblocks; s++) {
		unsigned long b = blocks[s], pages = b * BLOCK_PAGES;
		unsigned long n = runs * (b >= 64 ? 1 : 64 / b > 16 ? 16 : 64 / b);
		double med[NR_METHODS], phase;
		unsigned long r;

		print_load("before");
		for (r = 0; r < n; r++) {
			for (k = 0; k < NR_METHODS; k++) {
				/* alternate the order of the methods */
				int mm = (k + r) % NR_METHODS;
				double t0;

				setup(b);
				flush_caches(b);
				phase_ns = 0;
				t0 = now();
				unplug_all(b, mm);
				t[mm][r] = (now() - t0) * 1e9 / pages;
				if (mm == M_BASE)
					tphase[r] = phase_ns / pages;
				check_end(b, mm, &st[mm]);
			}
			compare_end(b, &st[M_BASE], &st[M_SERIES]);
		}
		phase = median(tphase, n);
		printf("%lu,sbm-unplug-free", b);
		for (m = 0; m < NR_METHODS; m++) {
			med[m] = median(t[m], n);	/* sorts */
			printf(",%.3f,%.3f,%.3f", med[m], t[m][0], t[m][n - 1]);
		}
		printf(",%.1f\n", med[M_BASE] / med[M_SERIES]);
		printf("# %lu blocks (%lu MiB of map): %lu struct pages, %lu runs per method, "
		       "end state checked after each: ok\n",
		       b, b * 2, pages, n);
		printf("# %lu blocks: median us per block: base %.1f, series %.2f; base split "
		       "(ns/page): virtio_mem_fake_offline() %.3f, offline_and_remove_memory() ~%.3f\n",
		       b, med[M_BASE] * BLOCK_PAGES / 1e3, med[M_SERIES] * BLOCK_PAGES / 1e3,
		       phase, med[M_BASE] - phase);
		print_load("after");
		fflush(stdout);
	}
	return 0;
}
