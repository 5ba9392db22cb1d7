// SPDX-License-Identifier: GPL-2.0
/*
 * memmap-model: a native user-space model of the memory-map paths of Linux
 * 7.3.4 (the base) and of this project's stack (the series: memmap-template,
 * memcpy-streaming and memmap-once), store for store and load for load, so
 * that their cost on real caches and memory bandwidth can be measured.
 * QEMU TCG cannot show that: it models no caches or bandwidth, and runs
 * movnti as a plain store.  It replaces memmap-passes.c, which modelled
 * "one, two, three passes" abstractly.
 *
 * The memory map is an array of 64-byte struct pages laid out as on x86-64
 * (include/linux/mm_types.h): flags (word 0); lru / buddy_list (words 1-2),
 * which are also compound_info (word 1) for tails and pgmap, zone_device_data
 * (words 1-2) for ZONE_DEVICE pages; mapping (3); index (4); private (5);
 * page_type/_mapcount and _refcount (two 32-bit halves of word 6);
 * memcg_data (7).  It is mapped with 2 MiB pages (MADV_HUGEPAGE), as the
 * kernel maps the vmemmap with PMDs.  A model zone holds free lists per
 * order and migratetype, the zone lock (an atomic exchange), the counters
 * (managed pages: atomic adds, vmstat: plain adds) and the pageblock bitmap
 * (8 bits per pageblock, updated with cmpxchg as set_pfnblock_flags_mask()
 * does).  Plain kernel stores are plain C stores; WRITE_ONCE(), atomic_set()
 * and set_page_count() are volatile stores; non-atomic bit operations
 * (__SetPageReserved() ...) are read-modify-writes.  PFNs start at 4 GiB
 * (1 << 20), so that every block is aligned; x86-64 constants:
 * pageblock_order 9, MAX_PAGE_ORDER 10, 128 MiB sections and memory blocks,
 * MEMMAP_STREAM_BATCH 4096 struct pages (256 KiB).  Configuration modelled:
 * SPARSEMEM_VMEMMAP, no page checks (no DEBUG_VM, init_on_free), no KASAN,
 * page_ref_set tracepoint off, no page reporting or shuffling, LAST_CPUPID
 * in page flags.
 *
 * Methods, for every path:
 *   base      the 7.3.4 code;
 *   cached    the series as posted (for ZONE_DEVICE: memmap-template
 *             without memcpy-streaming), every store cached;
 *   nt-tails  the series with movnti (memcpy_streaming()) for the struct
 *             pages nothing reads before allocation, cached stores for the
 *             heads that the free lists (or compound page set-up) touch
 *             right after; an sfence (memcpy_streaming_drain()) ends every
 *             template copy call, at most MEMMAP_STREAM_BATCH pages, before
 *             any of those pages is published on a free list;
 *   nt-all    the series with every struct page streamed, heads included.
 *
 * Paths, and which kernel code each modelled store and load stands for:
 *
 * deferred  deferred struct page init of a zone (deferred_init_memmap_chunk(),
 *           a MAX_ORDER chunk at a time).
 *   base:   deferred_init_pages(): __init_single_page() per page
 *           (mm_zero_struct_page()'s eight stores, set_page_links() and
 *           page_cpupid_reset_last() on flags, init_page_count(),
 *           atomic_set(_mapcount, -1), INIT_LIST_HEAD(lru));
 *           deferred_free_pages(): pageblock_migratetype_init_range()
 *           (init_pageblock_migratetype(): cmpxchg of the bitmap word),
 *           __free_pages_core(MAX_PAGE_ORDER, MEMINIT_EARLY): per page
 *           __ClearPageReserved() (flags read-modify-write) and
 *           set_page_count(0); managed_pages atomic add; __free_pages_ok() ->
 *           __free_pages_prepare(): PageCompound/mlocked/HWPoison reads of
 *           the head, per tail flags &= ~PAGE_FLAGS_CHECK_AT_PREP, anon and
 *           page_has_type() reads, page_cpupid_reset_last(), flags and
 *           private of the head; free_one_page(): zone lock,
 *           split_large_buddy() into two pageblock_order halves, each
 *           get_pfnblock_migratetype() and __free_one_page():
 *           page_is_buddy() loads of the buddy (page_type, private, flags),
 *           __del_page_from_free_list() of the first half when the second
 *           merges (list_del: the neighbours' lru), set_buddy_order()
 *           (private, page_type), __add_to_free_list() (list_add_tail: the
 *           head's lru, the previous tail's lru.next, the list head).
 *   series: memmap_init_free_chunk(): memmap_free_template()
 *           (__init_single_page() and __free_pages_core_page() in the
 *           chunk's first page, memmap_template_take() copies it back),
 *           __memmap_init_hotplug_pages() -> memmap_init_from_template()
 *           with a self-pointing lru patched per page (eight stores a page),
 *           __pageblock_migratetype_init_range(), then
 *           __free_pages_memmap_once() -> free_pages_core_block() ->
 *           __free_pages_ok(FPI_MEMMAP_ONCE): the same head work and free
 *           lists as the base, no per-page pass.  Heads: the pageblock-
 *           aligned struct pages (0 and 512 of the chunk), which
 *           split_large_buddy() and __free_one_page() touch.
 *
 * hotplug   onlining of 128 MiB memory blocks (online_pages()).
 *   base:   move_pfn_range_to_zone() -> memmap_init_range(MEMINIT_HOTPLUG):
 *           __init_single_page() and __SetPageOffline() per page, per
 *           pageblock init_pageblock_migratetype(MIGRATE_MOVABLE, isolate);
 *           online_pages_range() -> generic_online_page() ->
 *           __free_pages_core(MEMINIT_HOTPLUG) per MAX_ORDER block: per page
 *           __ClearPageOffline() (page_type load and store) and
 *           set_page_count(0), adjust_managed_page_count(), then the free
 *           path as above (onto the MIGRATE_ISOLATE lists);
 *           undo_isolate_page_range() -> unset_migratetype_isolate() per
 *           pageblock: __move_freepages_block_isolate() (find_large_buddy(),
 *           del_page_from_free_list(), split_large_buddy()) for the first
 *           pageblock of each block, __isolate_free_page() and
 *           __putback_isolated_page() (the merge back to MAX_PAGE_ORDER) for
 *           the second: loads and stores of both heads and list neighbours.
 *   series: __memmap_init_hotplug(free): __init_hotplug_page() and
 *           __free_pages_core_page() in the first page, the template copied
 *           by memmap_init_pageblocks() a pageblock at a time (self lru
 *           patched), pageblock bitmap per pageblock; online_fresh_page() ->
 *           __free_pages_memmap_once(); undo_isolate_page_range() unchanged.
 *           Heads: pageblock-aligned pages, as for deferred.
 *
 * early     the boot memory map without deferred init, then
 *           memblock_free_all().
 *   base:   memmap_init() -> memmap_init_range(MEMINIT_EARLY):
 *           __init_single_page() per page, init_pageblock_migratetype() per
 *           pageblock, over the whole map; then free_low_memory_core_early()
 *           -> __free_pages_memory() -> memblock_free_pages() ->
 *           __free_pages_core(MEMINIT_EARLY) per MAX_ORDER block, every page
 *           walked again (as deferred, but the whole map in between).
 *   series: __memmap_init_early(): __init_single_page() in the first page,
 *           memmap_template_take(), memmap_init_pageblocks() (template copy,
 *           self lru patched, per pageblock); memblock_free_all() unchanged,
 *           so every struct page is read back; heads as above.
 *
 * fsdax     ZONE_DEVICE order-0 pages (fsdax map=dev: an altmap, the memory
 *           map on the device, here DRAM), memmap_init_zone_device().
 *   base:   __init_zone_device_page() per page: __init_single_page(),
 *           __SetPageReserved(), page_folio() (READ_ONCE of compound_info),
 *           folio->pgmap, zone_device_data, set_page_count(0) (FS_DAX);
 *           pageblock_migratetype_init_range() after the loop.
 *   series: __init_zone_device_page() into a template on the stack,
 *           memmap_init_order0_from_template(): memmap_init_from_template()
 *           a section at a time, eight stores a page and nothing patched
 *           (on x86-64 nothing in an order-0 ZONE_DEVICE struct page depends
 *           on the PFN: no section bits in flags with SPARSEMEM_VMEMMAP, one
 *           pgmap, init_page_virtual() empty).  Nothing is freed or read
 *           back, so there are no heads: nt-tails is nt-all here (and is
 *           what memcpy-streaming does).
 *
 * devdax    ZONE_DEVICE compound pages, devdax align=2M with map=dev (altmap:
 *           no vmemmap optimisation, all 512 struct pages written).
 *   base:   per compound page __init_zone_device_page() of the head
 *           (MEMORY_DEVICE_GENERIC keeps refcount 1), memmap_init_compound():
 *           __SetPageHead(), per tail __init_zone_device_page(),
 *           prep_compound_tail() (mapping = TAIL_MAPPING, WRITE_ONCE of
 *           compound_info), set_page_count(0); prep_compound_head()
 *           (folio_set_order(), _large_mapcount, _nr_pages_mapped,
 *           _entire_mapcount, _pincount, _mm_ids, _mm_id_mapcount in page[1],
 *           _deferred_list in page[2]).
 *   series: head copied from the template, __SetPageHead(), a tail template
 *           per compound page (__init_zone_device_tail() on the stack), tails
 *           1-2 copied with cached stores (prep_compound_head() writes them
 *           right after), tails 3-511 with memcpy_streaming() in nt-tails
 *           (what memcpy-streaming does), cached in cached; nt-all streams
 *           the head and tails 1-2 too.
 *
 * Before every timed run the whole map is flushed from the caches
 * (clflushopt), as a memory map the kernel writes for the first time is not
 * cached; dirty lines a run leaves in the cache are written back after its
 * timing ends, as they would be in the kernel, off the critical path.  Sizes
 * below the last-level cache therefore favour cached stores.  Before timing,
 * every path's series methods are checked to leave the memory map, the free
 * lists, the pageblock bitmap and the counters byte-identical to the base
 * (as the kernel's KUnit tests check the series).
 *
 * Build: gcc -O2 -Wall -Wextra -o memmap-model bench/nt-store/memmap-model.c
 * (the pragma below keeps GCC from vectorising, as the kernel's -mno-sse
 * does, and from strict aliasing, as -fno-strict-aliasing does).
 * x86-64 only; runs natively, never meaningful under TCG.  --help for usage.
 */
#if !defined(__x86_64__)
#error "memmap-model: x86-64 only (movnti, sfence, clflushopt)"
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
#define STREAM_BATCH		4096UL		/* MEMMAP_STREAM_BATCH: 256 KiB */
#define DAX_ORDER		9		/* devdax align=2M: vmemmap_shift */
#define BASE_PFN		(1UL << 20)
#define NR_PAGEBLOCK_BITS	8
#define PB_PER_WORD		(64 / NR_PAGEBLOCK_BITS)

/* Page flags (values are the model's; what matters is which word) */
#define PG_head			(1UL << 6)
#define PG_reserved		(1UL << 10)
#define PG_reported		(1UL << 17)
#define PG_mlocked		(1UL << 19)
#define PG_hwpoison		(1UL << 21)
#define NR_PAGEFLAGS		24
#define PAGE_FLAGS_CHECK_AT_PREP (((1UL << NR_PAGEFLAGS) - 1) & ~PG_hwpoison)
#define LAST_CPUPID_PGSHIFT	24
#define LAST_CPUPID_MASK	((1UL << 21) - 1)
#define NODES_PGSHIFT		51
#define NODES_MASK		((1UL << 10) - 1)
#define ZONES_PGSHIFT		61
#define ZONES_MASK		7UL
#define ZONEID_PGSHIFT		NODES_PGSHIFT

#define PGTY_buddy		0xf0u
#define PGTY_offline		0xf2u
#define UINT_MAX_		0xffffffffu
#define POISON_DELTA		0xdead000000000000UL
#define LIST_POISON1		((struct list_head *)(0x100 + POISON_DELTA))
#define LIST_POISON2		((struct list_head *)(0x122 + POISON_DELTA))
#define TAIL_MAPPING		(0x400 + POISON_DELTA)

enum { ZONE_NORMAL = 2, ZONE_MOVABLE = 3, ZONE_DEVICE = 4 };
enum { MT_UNMOVABLE, MT_MOVABLE, MT_RECLAIMABLE, MT_HIGHATOMIC, MT_ISOLATE,
       MIGRATE_TYPES };
#define PCPTYPES		3
#define MIGRATETYPE_MASK	7UL
#define PB_ISOLATE_BIT		(1UL << 4)

enum { MEMINIT_EARLY, MEMINIT_HOTPLUG };
#define FPI_NONE		0
#define FPI_TO_TAIL		(1 << 1)
#define FPI_SKIP_REPORT		(1 << 0)
#define FPI_MEMMAP_ONCE		(1 << 5)

enum { MEMORY_DEVICE_FS_DAX, MEMORY_DEVICE_GENERIC };

struct list_head {
	struct list_head *next, *prev;
};

struct page {
	uint64_t flags;
	union {
		struct list_head lru;			/* also buddy_list */
		struct {
			uint64_t compound_info;		/* tails: head | 1 */
			void *zone_device_data;
		};
		void *pgmap;				/* folio->pgmap */
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

/* The page[1] and page[2] fields of a folio (prep_compound_head()). */
struct folio_1 {
	uint64_t flags_1, head_1;
	int32_t large_mapcount, nr_pages_mapped, entire_mapcount, pincount;
	int32_t mm_id_mapcount[2];
	uint64_t mm_ids;
	int32_t mapcount_1, refcount_1;
	uint32_t nr_pages, pad;
};
struct folio_2 {
	uint64_t flags_2, head_2;
	struct list_head deferred_list;
	uint64_t rest[4];
};
_Static_assert(sizeof(struct folio_1) == 64 && sizeof(struct folio_2) == 64,
	       "folio pages");

union template {
	struct page page;
	uint64_t word[8];
};

struct free_area {
	struct list_head free_list[MIGRATE_TYPES];
	unsigned long nr_free;
};

struct zone {
	int lock;
	long managed_pages, totalram_pages;
	long nr_free_pages, nr_free_pages_blocks, pgfree;
	long nr_isolate_pageblock;
	struct free_area free_area[NR_ORDERS];
};

static struct zone zone;
static struct page *map;		/* the memory map: PFN BASE_PFN onwards */
static uint64_t *pageblock_flags;
static const int nid = 0;
static struct { int type; } pgmap_fsdax = { MEMORY_DEVICE_FS_DAX },
			   pgmap_devdax = { MEMORY_DEVICE_GENERIC };

static always_inline struct page *pfn_to_page(unsigned long pfn)
{
	return map + (pfn - BASE_PFN);
}

static always_inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - map) + BASE_PFN;
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

static always_inline void list_del(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	WRITE_ONCE(entry->prev->next, entry->next);
	entry->next = LIST_POISON1;
	entry->prev = LIST_POISON2;
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

static always_inline bool get_pageblock_isolate(unsigned long pfn)
{
	return get_pfnblock_flags(pfn) & PB_ISOLATE_BIT;
}

static always_inline void init_pageblock_migratetype(struct page *page, int mt,
						     bool isolate)
{
	set_pfnblock_flags_mask(page_to_pfn(page),
				mt | (isolate ? PB_ISOLATE_BIT : 0),
				MIGRATETYPE_MASK | PB_ISOLATE_BIT);
}

static always_inline void clear_pageblock_isolate(unsigned long pfn)
{
	set_pfnblock_flags_mask(pfn, 0, PB_ISOLATE_BIT);
}

static noinline void
__pageblock_migratetype_init_range(unsigned long pfn, unsigned long nr_pages,
				   int mt, bool isolate)
{
	const unsigned long end = pfn + nr_pages;

	for (pfn &= ~(PB_PAGES - 1); pfn < end; pfn += PB_PAGES)
		init_pageblock_migratetype(pfn_to_page(pfn), mt, isolate);
}

/* ------------------------------------------------------ struct page ops */

static always_inline void set_page_count(struct page *page, int v)
{
	WRITE_ONCE(page->refcount, v);
}

static always_inline bool PageBuddy(const struct page *page)
{
	return (READ_ONCE(page->page_type) >> 24) == PGTY_buddy;
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

static always_inline int page_zone_id(const struct page *page)
{
	return page->flags >> ZONEID_PGSHIFT;
}

/* mm_zero_struct_page(), then the rest of __init_single_page() */
static always_inline void __init_single_page(struct page *page,
					     unsigned long pfn, unsigned long zid,
					     int n)
{
	uint64_t *pp = (uint64_t *)page;

	(void)pfn;
	pp[7] = 0;
	pp[6] = 0;
	pp[5] = 0;
	pp[4] = 0;
	pp[3] = 0;
	pp[2] = 0;
	pp[1] = 0;
	pp[0] = 0;
	/* set_page_links(): set_page_zone(), set_page_node() */
	page->flags &= ~(ZONES_MASK << ZONES_PGSHIFT);
	page->flags |= (zid & ZONES_MASK) << ZONES_PGSHIFT;
	page->flags &= ~(NODES_MASK << NODES_PGSHIFT);
	page->flags |= ((uint64_t)n & NODES_MASK) << NODES_PGSHIFT;
	set_page_count(page, 1);			/* init_page_count() */
	WRITE_ONCE(page->mapcount, -1);			/* atomic_set() */
	page->flags |= LAST_CPUPID_MASK << LAST_CPUPID_PGSHIFT;	/* page_cpupid_reset_last() */
	INIT_LIST_HEAD(&page->lru);
}

/* mm/page_alloc.h: __free_pages_core_page() (the series) */
static always_inline void __free_pages_core_page(struct page *page, int context)
{
	if (context == MEMINIT_HOTPLUG)
		__ClearPageType(page);			/* __ClearPageOffline() */
	else
		page->flags &= ~PG_reserved;		/* __ClearPageReserved() */
	set_page_count(page, 0);
}

/* ---------------------------------------------------------- free path */

static always_inline void zone_lock(void)
{
	while (__atomic_exchange_n(&zone.lock, 1, __ATOMIC_ACQUIRE))
		;
}

static always_inline void zone_unlock(void)
{
	__atomic_store_n(&zone.lock, 0, __ATOMIC_RELEASE);
}

static always_inline void account_freepages(long nr, int mt)
{
	if (mt == MT_ISOLATE)
		return;
	zone.nr_free_pages += nr;
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
	if (buddy->private != order)
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
		zone.nr_free_pages_blocks += 1L << order;
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
		zone.nr_free_pages_blocks -= 1L << order;
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
			    (mt >= PCPTYPES || buddy_mt >= PCPTYPES))
				break;
		}
		__del_page_from_free_list(buddy, order, buddy_mt);
		if (buddy_mt != mt)			/* change_pageblock_range() */
			__pageblock_migratetype_init_range(buddy_pfn, 1UL << order,
							   mt, false);
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

static always_inline void free_one_page(struct page *page, unsigned long pfn,
					unsigned int order, int fpi)
{
	zone_lock();
	split_large_buddy(page, pfn, order, fpi);
	zone_unlock();
	zone.pgfree += 1L << order;			/* __count_vm_events() */
}

/* __free_pages_prepare() without page checks, of a non-compound block */
static always_inline bool __free_pages_prepare(struct page *page,
					       unsigned int order, int fpi)
{
	bool compound = (page->flags & PG_head) || (page->compound_info & 1);

	if (page->flags & PG_mlocked)			/* folio_test_mlocked() */
		page->flags &= ~PG_mlocked;
	if ((page->flags & PG_hwpoison) && !order)
		return false;
	use(compound);
	if (order && !(fpi & FPI_MEMMAP_ONCE)) {
		unsigned long i;

		for (i = 1; i < (1UL << order); i++)
			page[i].flags &= ~PAGE_FLAGS_CHECK_AT_PREP;
	}
	if (page->mapping & 1)				/* folio_test_anon() */
		page->mapping = 0;
	if ((page->page_type >> 24) >= 0xf0 && page->page_type != UINT_MAX_)
		page->page_type = UINT_MAX_;		/* page_has_type() */
	page->flags |= LAST_CPUPID_MASK << LAST_CPUPID_PGSHIFT;
	page->flags &= ~PAGE_FLAGS_CHECK_AT_PREP;
	page->private = 0;
	return true;
}

static always_inline void __free_pages_ok(struct page *page, unsigned int order,
					  int fpi)
{
	unsigned long pfn = page_to_pfn(page);

	use(page_zone_id(page));			/* page_zone() */
	if (__free_pages_prepare(page, order, fpi))
		free_one_page(page, pfn, order, fpi);
}

static always_inline void adjust_managed_page_count(const struct page *page,
						    long count)
{
	use(page_zone_id(page));			/* page_zone() */
	__atomic_fetch_add(&zone.managed_pages, count, __ATOMIC_RELAXED);
	__atomic_fetch_add(&zone.totalram_pages, count, __ATOMIC_RELAXED);
}

/* mm/page_alloc.c: __free_pages_core() of the base (and of both stacks) */
static noinline void __free_pages_core(struct page *page, unsigned int order,
				       int context)
{
	unsigned long nr_pages = 1UL << order, loop;
	struct page *p = page;

	if (context == MEMINIT_HOTPLUG) {
		for (loop = 0; loop < nr_pages; loop++, p++) {
			__ClearPageType(p);		/* __ClearPageOffline() */
			set_page_count(p, 0);
		}
		adjust_managed_page_count(page, nr_pages);
	} else {
		for (loop = 0; loop < nr_pages; loop++, p++) {
			p->flags &= ~PG_reserved;	/* __ClearPageReserved() */
			set_page_count(p, 0);
		}
		__atomic_fetch_add(&zone.managed_pages, nr_pages, __ATOMIC_RELAXED);
	}
	__free_pages_ok(page, order, FPI_TO_TAIL);
}

/* The series: __free_pages_memmap_once() -> free_pages_core_block() */
static noinline void __free_pages_memmap_once(struct page *page,
					      unsigned int order, int context)
{
	unsigned long nr_pages = 1UL << order;

	if (context == MEMINIT_HOTPLUG)
		adjust_managed_page_count(page, nr_pages);
	else
		__atomic_fetch_add(&zone.managed_pages, nr_pages, __ATOMIC_RELAXED);
	__free_pages_ok(page, order, FPI_TO_TAIL | FPI_MEMMAP_ONCE);
}

/* ------------------------------------------- undo_isolate_page_range() */

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
	if (pfn + (1UL << page->private) > start_pfn)
		return pfn;
	return start_pfn;
}

static always_inline void move_to_free_list(struct page *page,
					    unsigned int order, int old_mt,
					    int new_mt)
{
	struct free_area *area = &zone.free_area[order];

	list_del(&page->lru);				/* list_move_tail() */
	list_add_tail(&page->lru, &area->free_list[new_mt]);
	account_freepages(-(1L << order), old_mt);
	account_freepages(1L << order, new_mt);
	if (order >= PB_ORDER && (old_mt == MT_ISOLATE) != (new_mt == MT_ISOLATE))
		zone.nr_free_pages_blocks += old_mt == MT_ISOLATE ?
					     1L << order : -(1L << order);
}

static void __move_freepages_block_isolate(struct page *page, bool isolate)
{
	unsigned long pfn = page_to_pfn(page), start_pfn = pfn, buddy_pfn, p;
	struct page *buddy;
	int from_mt, to_mt;

	if (isolate == get_pageblock_isolate(pfn))
		return;
	buddy_pfn = find_large_buddy(start_pfn);
	buddy = pfn_to_page(buddy_pfn);
	if (PageBuddy(buddy) && buddy->private > PB_ORDER) {
		unsigned int order = buddy->private;

		del_page_from_free_list(buddy, order,
					get_pfnblock_migratetype(buddy_pfn));
		clear_pageblock_isolate(pfn);		/* toggle_pageblock_isolate() */
		split_large_buddy(buddy, buddy_pfn, order, FPI_NONE);
		return;
	}
	from_mt = MT_ISOLATE;
	to_mt = get_pfnblock_flags(pfn) & MIGRATETYPE_MASK;
	for (p = start_pfn; p < start_pfn + PB_PAGES;) {	/* __move_freepages_block() */
		struct page *pg = pfn_to_page(p);

		if (!PageBuddy(pg)) {
			p++;
			continue;
		}
		move_to_free_list(pg, pg->private, from_mt, to_mt);
		p += 1UL << pg->private;
	}
	clear_pageblock_isolate(start_pfn);
}

static always_inline unsigned long __isolate_free_page(struct page *page,
						       unsigned int order)
{
	unsigned long pfn = page_to_pfn(page), end = pfn + (1UL << order) - 1;
	int mt = get_pfnblock_migratetype(pfn);

	/* isolated pageblock: no watermark check */
	del_page_from_free_list(page, order, mt);
	/*
	 * Pageblocks of the page: move_freepages_block() only for mergeable
	 * migratetypes, never an isolated pageblock as here.
	 */
	if (order >= PB_ORDER - 1)
		for (; pfn < end; pfn += PB_PAGES)
			use(get_pfnblock_migratetype(pfn));
	return 1UL << order;
}

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
		order = page->private;
		if (order >= PB_ORDER && order < MAX_PAGE_ORDER) {
			buddy = find_buddy_page_pfn(page, pfn, order, NULL);
			if (buddy && !get_pageblock_isolate(page_to_pfn(buddy)))
				isolated_page = __isolate_free_page(page, order);
		}
	}
	if (!isolated_page) {
		__move_freepages_block_isolate(page, false);
	} else {
		clear_pageblock_isolate(pfn);
		/* __putback_isolated_page() */
		__free_one_page(page, pfn, order, get_pfnblock_migratetype(pfn),
				FPI_SKIP_REPORT | FPI_TO_TAIL);
	}
	zone.nr_isolate_pageblock--;
out:
	zone_unlock();
}

static void undo_isolate_page_range(unsigned long start, unsigned long end)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn += PB_PAGES) {
		struct page *page = pfn_to_page(pfn);	/* __first_valid_page() */

		if (!get_pageblock_isolate(pfn))
			continue;
		unset_migratetype_isolate(page);
	}
}

/* ---------------------------------------------------- template copies */

enum { M_BASE, M_CACHED, M_NT_TAILS, M_NT_ALL, NR_METHODS };
static const char *const method_name[] = { "base", "cached", "nt-tails", "nt-all" };

/* How a template copy stores: cached, movnti but for pageblock heads, movnti */
enum { S_CACHED, S_NT_TAILS, S_NT_ALL };

static always_inline void nt_store(uint64_t *dst, uint64_t v)
{
	asm volatile("movnti %1, %0" : "=m"(*dst) : "r"(v));
}

static always_inline void sfence(void)
{
	asm volatile("sfence" ::: "memory");
}

/*
 * memmap_copy_template(): the template's eight words stored to every struct
 * page of [page, end), the lru patched to point to itself with @self_lru.
 * S_NT_TAILS keeps cached stores for pageblock-aligned pages (the heads the
 * free path touches next) and streams the others.
 */
static always_inline void memmap_copy_template(struct page *page,
					       struct page *end,
					       const union template *t,
					       bool self_lru, int how)
{
	uint64_t w0 = t->word[0], w1 = t->word[1], w2 = t->word[2],
		 w3 = t->word[3], w4 = t->word[4], w5 = t->word[5],
		 w6 = t->word[6], w7 = t->word[7];

	for (; page < end; page++) {
		uint64_t *dst = (uint64_t *)page;

		if (self_lru)
			w1 = w2 = (uint64_t)(uintptr_t)&page->lru;
		/* the map is 2 MiB aligned: a pageblock head is 32 KiB aligned */
		if (how == S_NT_ALL ||
		    (how == S_NT_TAILS &&
		     ((uintptr_t)page & (PB_PAGES * sizeof(*page) - 1)))) {
			nt_store(&dst[0], w0);
			nt_store(&dst[1], w1);
			nt_store(&dst[2], w2);
			nt_store(&dst[3], w3);
			nt_store(&dst[4], w4);
			nt_store(&dst[5], w5);
			nt_store(&dst[6], w6);
			nt_store(&dst[7], w7);
			continue;
		}
		dst[0] = w0;
		dst[1] = w1;
		dst[2] = w2;
		dst[3] = w3;
		dst[4] = w4;
		dst[5] = w5;
		dst[6] = w6;
		dst[7] = w7;
	}
}

/*
 * memmap_init_from_template(): cached, or in sections of at most
 * MEMMAP_STREAM_BATCH pages each drained by memcpy_streaming_drain()
 * (sfence) before the next (preempt_disable() has no user-space cost).
 */
static always_inline void memmap_init_from_template(unsigned long pfn,
						    unsigned long end_pfn,
						    const struct page *tmpl,
						    bool self_lru, int how)
{
	struct page *page = pfn_to_page(pfn), *end = page + (end_pfn - pfn), *next;
	union template t;

	memcpy(&t, tmpl, sizeof(t));
	if (how == S_CACHED) {
		memmap_copy_template(page, end, &t, self_lru, S_CACHED);
		return;
	}
	for (; page < end; page = next) {
		next = page + (end - page < (long)STREAM_BATCH ?
			       end - page : (long)STREAM_BATCH);
		if (how == S_NT_ALL)
			memmap_copy_template(page, next, &t, self_lru, S_NT_ALL);
		else
			memmap_copy_template(page, next, &t, self_lru, S_NT_TAILS);
		sfence();
	}
}

static noinline void memmap_init_from_template_call(unsigned long pfn,
						    unsigned long end_pfn,
						    const struct page *tmpl,
						    bool self_lru, int how)
{
	memmap_init_from_template(pfn, end_pfn, tmpl, self_lru, how);
}

/* memmap_template_take() */
static always_inline void memmap_template_take(struct page *tmpl,
					       const struct page *first, int count)
{
	memcpy(tmpl, first, sizeof(*tmpl));
	WRITE_ONCE(tmpl->refcount, count);
}

static int method_store(int method)
{
	return method == M_NT_ALL ? S_NT_ALL :
	       method == M_NT_TAILS ? S_NT_TAILS : S_CACHED;
}

/* ------------------------------------------------------------- deferred */

static noinline void deferred_init_pages(unsigned long pfn, unsigned long end)
{
	struct page *page = pfn_to_page(pfn);

	for (; pfn < end; pfn++, page++)
		__init_single_page(page, pfn, ZONE_NORMAL, nid);
}

static void deferred_free_pages(unsigned long pfn, unsigned long nr_pages)
{
	__pageblock_migratetype_init_range(pfn, nr_pages, MT_MOVABLE, false);
	/* whole, aligned MAX_ORDER chunks only in this model */
	__free_pages_core(pfn_to_page(pfn), MAX_PAGE_ORDER, MEMINIT_EARLY);
}

/* memmap_free_template() */
static void memmap_free_template(struct page *tmpl, unsigned long pfn)
{
	struct page *page = pfn_to_page(pfn);

	__init_single_page(page, pfn, ZONE_NORMAL, nid);
	__free_pages_core_page(page, MEMINIT_EARLY);
	memmap_template_take(tmpl, page, 0);
}

static noinline void memmap_init_free_chunk(unsigned long pfn, unsigned long end,
					    int how)
{
	struct page tmpl;

	memmap_free_template(&tmpl, pfn);
	memmap_init_from_template_call(pfn, end, &tmpl, true, how);
	__pageblock_migratetype_init_range(pfn, end - pfn, MT_MOVABLE, false);
	__free_pages_memmap_once(pfn_to_page(pfn), MAX_PAGE_ORDER, MEMINIT_EARLY);
}

static void path_deferred(unsigned long pages, int method)
{
	unsigned long pfn, end = BASE_PFN + pages;

	for (pfn = BASE_PFN; pfn < end; pfn += MAX_ORDER_NR_PAGES) {
		if (method == M_BASE) {
			deferred_init_pages(pfn, pfn + MAX_ORDER_NR_PAGES);
			deferred_free_pages(pfn, MAX_ORDER_NR_PAGES);
		} else {
			memmap_init_free_chunk(pfn, pfn + MAX_ORDER_NR_PAGES,
					       method_store(method));
		}
	}
}

/* -------------------------------------------------------------- hotplug */

/* memmap_init_range(MEMINIT_HOTPLUG) of the base */
static noinline void memmap_init_range_hotplug(unsigned long start,
					       unsigned long end)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn++) {
		struct page *page = pfn_to_page(pfn);

		__init_single_page(page, pfn, ZONE_MOVABLE, nid);
		__SetPageType(page, PGTY_offline);	/* __SetPageOffline() */
		if (!(pfn & (PB_PAGES - 1)))
			init_pageblock_migratetype(page, MT_MOVABLE, true);
	}
}

/* memmap_init_pageblocks() */
static noinline void memmap_init_pageblocks(unsigned long start,
					    unsigned long end, bool isolate,
					    const struct page *tmpl, int how)
{
	unsigned long pfn, next;

	for (pfn = start; pfn < end; pfn = next) {
		next = (pfn + PB_PAGES) & ~(PB_PAGES - 1);
		if (next > end)
			next = end;
		memmap_init_from_template_call(pfn, next, tmpl, true, how);
		if (!(pfn & (PB_PAGES - 1)))
			init_pageblock_migratetype(pfn_to_page(pfn), MT_MOVABLE,
						   isolate);
	}
}

static void online_pages_range(unsigned long start, unsigned long nr, bool once)
{
	unsigned long pfn;

	for (pfn = start; pfn < start + nr;) {
		int order = __builtin_ctzl(pfn);

		if (order > MAX_PAGE_ORDER)
			order = MAX_PAGE_ORDER;
		if (once)	/* online_fresh_page() */
			__free_pages_memmap_once(pfn_to_page(pfn), order,
						 MEMINIT_HOTPLUG);
		else		/* generic_online_page() */
			__free_pages_core(pfn_to_page(pfn), order, MEMINIT_HOTPLUG);
		pfn += 1UL << order;
	}
}

static void path_hotplug(unsigned long pages, int method)
{
	unsigned long pfn, end = BASE_PFN + pages;

	for (pfn = BASE_PFN; pfn < end; pfn += BLOCK_PAGES) {
		unsigned long bend = pfn + BLOCK_PAGES;

		if (method == M_BASE) {
			memmap_init_range_hotplug(pfn, bend);
		} else {
			/* __memmap_init_hotplug(..., free) */
			struct page *first = pfn_to_page(pfn), tmpl;

			__init_single_page(first, pfn, ZONE_MOVABLE, nid);
			__SetPageType(first, PGTY_offline);
			__free_pages_core_page(first, MEMINIT_HOTPLUG);
			memmap_template_take(&tmpl, first, 0);
			memmap_init_pageblocks(pfn, bend, true, &tmpl,
					       method_store(method));
		}
		zone_lock();
		zone.nr_isolate_pageblock += BLOCK_PAGES / PB_PAGES;
		zone_unlock();
		online_pages_range(pfn, BLOCK_PAGES, method != M_BASE);
		undo_isolate_page_range(pfn, bend);
	}
}

/* ---------------------------------------------------------------- early */

static noinline void memmap_init_range_early(unsigned long start,
					     unsigned long end)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn++) {
		struct page *page = pfn_to_page(pfn);

		__init_single_page(page, pfn, ZONE_NORMAL, nid);
		if (!(pfn & (PB_PAGES - 1)))
			init_pageblock_migratetype(page, MT_MOVABLE, false);
	}
}

/* free_low_memory_core_early() -> __free_pages_memory() */
static void memblock_free_all(unsigned long start, unsigned long end)
{
	while (start < end) {
		int order = __builtin_ctzl(start);

		if (order > MAX_PAGE_ORDER)
			order = MAX_PAGE_ORDER;
		while (start + (1UL << order) > end)
			order--;
		/* memblock_free_pages() */
		__free_pages_core(pfn_to_page(start), order, MEMINIT_EARLY);
		start += 1UL << order;
	}
}

static void path_early(unsigned long pages, int method)
{
	unsigned long end = BASE_PFN + pages;

	if (method == M_BASE) {
		memmap_init_range_early(BASE_PFN, end);
	} else {
		/* __memmap_init_early() */
		struct page tmpl;

		__init_single_page(pfn_to_page(BASE_PFN), BASE_PFN, ZONE_NORMAL, nid);
		memmap_template_take(&tmpl, pfn_to_page(BASE_PFN), 1);
		memmap_init_pageblocks(BASE_PFN, end, false, &tmpl,
				       method_store(method));
	}
	barrier();
	memblock_free_all(BASE_PFN, end);
}

/* ---------------------------------------------------------- ZONE_DEVICE */

static always_inline void __init_zone_device_page(struct page *page,
						  unsigned long pfn, int type)
{
	struct page *folio;
	uint64_t info;

	__init_single_page(page, pfn, ZONE_DEVICE, nid);
	page->flags |= PG_reserved;			/* __SetPageReserved() */
	info = READ_ONCE(page->compound_info);		/* page_folio() */
	folio = info & 1 ? (struct page *)(uintptr_t)(info - 1) : page;
	folio->pgmap = type == MEMORY_DEVICE_FS_DAX ? (void *)&pgmap_fsdax :
						       (void *)&pgmap_devdax;
	page->zone_device_data = NULL;
	if (type == MEMORY_DEVICE_FS_DAX)
		set_page_count(page, 0);
}

static noinline void zone_device_pages_base(unsigned long start, unsigned long end)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn++)
		__init_zone_device_page(pfn_to_page(pfn), pfn, MEMORY_DEVICE_FS_DAX);
}

static void path_fsdax(unsigned long pages, int method)
{
	unsigned long pfn, end = BASE_PFN + pages;

	if (method == M_BASE) {
		zone_device_pages_base(BASE_PFN, end);
	} else {
		/* the template on the stack, memmap_init_order0_from_template() */
		struct page tmpl;

		__init_zone_device_page(&tmpl, BASE_PFN, MEMORY_DEVICE_FS_DAX);
		for (pfn = BASE_PFN; pfn < end; pfn += SECTION_PAGES)
			memmap_init_from_template_call(pfn, pfn + SECTION_PAGES,
						       &tmpl, false,
						       method == M_CACHED ?
						       S_CACHED : S_NT_ALL);
	}
	__pageblock_migratetype_init_range(BASE_PFN, pages, MT_MOVABLE, false);
}

static always_inline void prep_compound_tail(struct page *tail,
					     const struct page *head)
{
	tail->mapping = TAIL_MAPPING;
	WRITE_ONCE(tail->compound_info, (uint64_t)(uintptr_t)head | 1);	/* set_compound_head() */
}

static always_inline void prep_compound_head(struct page *head, unsigned int order)
{
	struct folio_1 *f1 = (struct folio_1 *)(head + 1);
	struct folio_2 *f2 = (struct folio_2 *)(head + 2);

	f1->flags_1 = (f1->flags_1 & ~0xffUL) | order;	/* folio_set_order() */
	f1->nr_pages = 1u << order;
	WRITE_ONCE(f1->large_mapcount, -1);
	WRITE_ONCE(f1->nr_pages_mapped, 0);		/* CONFIG_PAGE_MAPCOUNT */
	f1->mm_ids = 0;					/* CONFIG_MM_ID */
	f1->mm_id_mapcount[0] = -1;
	f1->mm_id_mapcount[1] = -1;
	WRITE_ONCE(f1->pincount, 0);
	WRITE_ONCE(f1->entire_mapcount, -1);
	INIT_LIST_HEAD(&f2->deferred_list);		/* order > 1 */
}

/* __init_zone_device_tail() */
static always_inline void __init_zone_device_tail(struct page *page,
						  unsigned long pfn,
						  const struct page *head)
{
	__init_zone_device_page(page, pfn, MEMORY_DEVICE_GENERIC);
	prep_compound_tail(page, head);
	set_page_count(page, 0);
}

static noinline void memmap_init_compound(struct page *head, unsigned long head_pfn,
					  unsigned long nr, int method)
{
	unsigned long pfn, end = head_pfn + nr;

	head->flags |= PG_head;				/* __SetPageHead() */
	if (method == M_BASE) {
		for (pfn = head_pfn + 1; pfn < end; pfn++)
			__init_zone_device_tail(pfn_to_page(pfn), pfn, head);
	} else {
		struct page tmpl;

		__init_zone_device_tail(&tmpl, head_pfn + 1, head);
		if (method == M_NT_ALL) {
			memmap_init_from_template_call(head_pfn + 1, end, &tmpl,
						       false, S_NT_ALL);
		} else {
			memmap_init_from_template_call(head_pfn + 1, head_pfn + 3,
						       &tmpl, false, S_CACHED);
			memmap_init_from_template_call(head_pfn + 3, end, &tmpl,
						       false,
						       method == M_NT_TAILS ?
						       S_NT_ALL : S_CACHED);
		}
	}
	prep_compound_head(head, DAX_ORDER);
}

static void path_devdax(unsigned long pages, int method)
{
	const unsigned long per = 1UL << DAX_ORDER;
	unsigned long pfn, end = BASE_PFN + pages;
	struct page tmpl;

	if (method != M_BASE)
		__init_zone_device_page(&tmpl, BASE_PFN, MEMORY_DEVICE_GENERIC);
	for (pfn = BASE_PFN; pfn < end; pfn += per) {
		struct page *page = pfn_to_page(pfn);

		if (method == M_BASE)
			__init_zone_device_page(page, pfn, MEMORY_DEVICE_GENERIC);
		else	/* a head: plain stores, __SetPageHead() rewrites it */
			memmap_init_from_template_call(pfn, pfn + 1, &tmpl, false,
						       method == M_NT_ALL ?
						       S_NT_ALL : S_CACHED);
		memmap_init_compound(page, pfn, per, method);
	}
	__pageblock_migratetype_init_range(BASE_PFN, pages, MT_MOVABLE, false);
}

/* ------------------------------------------------------------- harness */

enum { P_DEFERRED, P_HOTPLUG, P_EARLY, P_FSDAX, P_DEVDAX, NR_PATHS };
static const char *const path_name[] = { "deferred", "hotplug", "early", "fsdax",
					 "devdax" };
static void (*const path_fn[])(unsigned long, int) = {
	path_deferred, path_hotplug, path_early, path_fsdax, path_devdax,
};

static void zone_reset(unsigned long pages)
{
	int o, t;

	memset(&zone, 0, sizeof(zone));
	for (o = 0; o < NR_ORDERS; o++)
		for (t = 0; t < MIGRATE_TYPES; t++)
			INIT_LIST_HEAD(&zone.free_area[o].free_list[t]);
	memset(pageblock_flags, 0,
	       (pages / PB_PAGES / PB_PER_WORD + 1) * sizeof(uint64_t));
}

static bool have_clflushopt;

static void flush_map(unsigned long pages)
{
	char *p = (char *)map, *end = (char *)(map + pages);

	if (have_clflushopt)
		for (; p < end; p += 64)
			asm volatile("clflushopt %0" : "+m"(*p));
	else
		for (; p < end; p += 64)
			asm volatile("clflush %0" : "+m"(*p));
	asm volatile("mfence" ::: "memory");
}

/* Every series method must leave what the base leaves. */
static int identity_check(unsigned long pages)
{
	size_t bytes = pages * sizeof(struct page),
	       pbbytes = (pages / PB_PAGES / PB_PER_WORD + 1) * sizeof(uint64_t);
	void *want_map = malloc(bytes), *want_pb = malloc(pbbytes);
	struct zone want_zone;
	int p, m, bad = 0;

	if (!want_map || !want_pb) {
		fprintf(stderr, "memmap-model: out of memory for the identity check\n");
		return 1;
	}
	for (p = 0; p < NR_PATHS; p++) {
		for (m = 0; m < NR_METHODS; m++) {
			memset(map, m == M_BASE ? 0x5a : 0xa5, bytes);
			zone_reset(pages);
			path_fn[p](pages, m);
			if (m == M_BASE) {
				memcpy(want_map, map, bytes);
				memcpy(want_pb, pageblock_flags, pbbytes);
				want_zone = zone;
				continue;
			}
			if (memcmp(want_map, map, bytes) ||
			    memcmp(want_pb, pageblock_flags, pbbytes) ||
			    memcmp(&want_zone, &zone, sizeof(zone))) {
				fprintf(stderr,
					"memmap-model: %s %s does not leave what the base leaves\n",
					path_name[p], method_name[m]);
				bad = 1;
			}
		}
	}
	free(want_map);
	free(want_pb);
	return bad;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: memmap-model [--sizes MiB,MiB,...] [--runs N] [--paths P,P,...]\n"
"  A native model of the memory-map paths of Linux 7.3.4 (base) and of the\n"
"  series (cached, nt-tails, nt-all): see the header of memmap-model.c for\n"
"  the kernel functions each modelled store and load stands for.\n"
"  --sizes   memory map sizes in MiB of 64-byte struct pages, each a multiple\n"
"            of 2 (128 MiB memory blocks), at most 8192; default\n"
"            4,16,64,256,1024,4096 (4096 MiB: the map of 256 GiB of memory)\n"
"  --runs N  timed runs per method, 1-99 (default 7); maps under 256 MiB get\n"
"            more (N times 256/size, at most 16 N); methods interleaved\n"
"  --paths   deferred,hotplug,early,fsdax,devdax (default: all)\n"
"Prints the last-level cache, then per size and path the median ns per\n"
"struct page of each method with min-max, and base/method (>1: the series\n"
"method is faster).  Memory: the largest map, plus 4 MiB for the identity\n"
"check.  x86-64 only; run natively, never meaningful under TCG.\n");
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
		printf("# last-level cache (sysfs, cpu0): L%d %ld KiB = %.1f MiB of struct pages\n",
		       best, best_kb, best_kb / 1024.0);
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
	static const unsigned long default_sizes[] = { 4, 16, 64, 256, 1024, 4096 };
	unsigned long sizes[32], nsizes = 0, runs = 7, max_mib = 0, v;
	bool want_path[NR_PATHS] = { true, true, true, true, true };
	unsigned int eax, ebx, ecx, edx;
	unsigned long s;
	size_t bytes;
	double *t[NR_PATHS][NR_METHODS];
	int k, p, m;
	void *mem;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[k], "--runs") && k + 1 < argc) {
			if (parse_ulong(argv[++k], &runs) || runs < 1 || runs > 99) {
				fprintf(stderr, "memmap-model: --runs wants 1-99, not '%s'\n",
					argv[k]);
				return 2;
			}
		} else if (!strcmp(argv[k], "--sizes") && k + 1 < argc) {
			char *list = strdup(argv[++k]), *tok, *save = NULL;

			nsizes = 0;
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (parse_ulong(tok, &v) || !v || v % 2 || v > 8192 ||
				    nsizes == 32) {
					fprintf(stderr,
						"memmap-model: bad size '%s' (MiB: even, 2-8192, at most 32 sizes)\n",
						tok);
					return 2;
				}
				sizes[nsizes++] = v;
			}
			free(list);
			if (!nsizes) {
				fprintf(stderr, "memmap-model: --sizes wants a list\n");
				return 2;
			}
		} else if (!strcmp(argv[k], "--paths") && k + 1 < argc) {
			char *list = strdup(argv[++k]), *tok, *save = NULL;

			memset(want_path, 0, sizeof(want_path));
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				for (p = 0; p < NR_PATHS; p++)
					if (!strcmp(tok, path_name[p]))
						break;
				if (p == NR_PATHS) {
					fprintf(stderr,
						"memmap-model: unknown path '%s' (deferred, hotplug, early, fsdax, devdax)\n",
						tok);
					return 2;
				}
				want_path[p] = true;
			}
			free(list);
		} else {
			fprintf(stderr, "memmap-model: unknown or incomplete argument '%s'\n",
				argv[k]);
			usage(stderr);
			return 2;
		}
	}
	if (!nsizes) {
		nsizes = sizeof(default_sizes) / sizeof(default_sizes[0]);
		memcpy(sizes, default_sizes, sizeof(default_sizes));
	}
	for (s = 0; s < nsizes; s++)
		if (sizes[s] > max_mib)
			max_mib = sizes[s];

	__cpuid_count(7, 0, eax, ebx, ecx, edx);
	have_clflushopt = ebx & (1u << 23);
	__cpuid(1, eax, ebx, ecx, edx);

	/* The map, 2 MiB aligned and in 2 MiB pages, as the vmemmap. */
	bytes = max_mib << 20;
	mem = mmap(NULL, bytes + (2UL << 20), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "memmap-model: mmap of %lu MiB: %s\n", max_mib + 2,
			strerror(errno));
		return 1;
	}
	map = (struct page *)(((uintptr_t)mem + (2UL << 20) - 1) & ~((2UL << 20) - 1));
	madvise(map, bytes, MADV_HUGEPAGE);
	memset(map, 0, bytes);
	pageblock_flags = calloc(bytes / 64 / PB_PAGES / PB_PER_WORD + 1,
				 sizeof(uint64_t));
	for (p = 0; p < NR_PATHS; p++)
		for (m = 0; m < NR_METHODS; m++)
			t[p][m] = malloc(16 * runs * sizeof(double));
	if (!pageblock_flags || !t[NR_PATHS - 1][NR_METHODS - 1]) {
		fprintf(stderr, "memmap-model: out of memory\n");
		return 1;
	}

	printf("# memmap-model: native (not TCG), %ld CPUs online, cpu flag hypervisor: %s\n",
	       sysconf(_SC_NPROCESSORS_ONLN),
	       ecx & (1u << 31) ? "yes (a VM)" : "no (bare metal)");
	print_llc();
	printf("# cache flush before each run: %s\n",
	       have_clflushopt ? "clflushopt" : "clflush");
	print_thp();
	{
		/* on 4 MiB (or the one 2 MiB size): one more map-sized buffer */
		unsigned long check = max_mib < 4 ? max_mib : 4;

		if (identity_check(check << 20 >> 6))
			return 1;
		printf("# identity check (%lu MiB map): every series method leaves the base's memory map, free lists, pageblock bitmap and counters: ok\n",
		       check);
	}
	printf("size_mib,path,base_ns,base_min,base_max,cached_ns,cached_min,cached_max,"
	       "nt_tails_ns,nt_tails_min,nt_tails_max,nt_all_ns,nt_all_min,nt_all_max,"
	       "base/cached,base/nt_tails,base/nt_all\n");
	fflush(stdout);

	for (s = 0; s < nsizes; s++) {
		unsigned long pages = sizes[s] << 20 >> 6;
		unsigned long n = runs * (sizes[s] >= 256 ? 1 :
					  256 / sizes[s] > 16 ? 16 : 256 / sizes[s]);
		unsigned long r;

		print_load("before");
		for (r = 0; r < n; r++)
			for (p = 0; p < NR_PATHS; p++) {
				if (!want_path[p])
					continue;
				for (k = 0; k < NR_METHODS; k++) {
					/* rotate the order of the methods */
					int mm = (k + r) % NR_METHODS;
					double t0;

					zone_reset(pages);
					flush_map(pages);
					t0 = now();
					path_fn[p](pages, mm);
					t[p][mm][r] = (now() - t0) * 1e9 / pages;
				}
			}
		for (p = 0; p < NR_PATHS; p++) {
			double med[NR_METHODS];

			if (!want_path[p])
				continue;
			printf("%lu,%s", sizes[s], path_name[p]);
			for (m = 0; m < NR_METHODS; m++) {
				med[m] = median(t[p][m], n);	/* sorts */
				printf(",%.2f,%.2f,%.2f", med[m], t[p][m][0],
				       t[p][m][n - 1]);
			}
			printf(",%.2f,%.2f,%.2f\n", med[M_BASE] / med[M_CACHED],
			       med[M_BASE] / med[M_NT_TAILS], med[M_BASE] / med[M_NT_ALL]);
		}
		printf("# %lu MiB: %lu struct pages, %lu runs per method\n", sizes[s],
		       pages, n);
		print_load("after");
		fflush(stdout);
	}
	return 0;
}
