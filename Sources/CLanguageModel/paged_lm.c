// A sphinxbase trie language model read from its file as lookups need it (see paged_lm.h).
//
// The file, as sphinxbase 5prealpha writes it (little-endian): "Trie Language Model", the order (1 byte), one
// uint32 count per order; a uint32 quantiser type (1: 16-bit) and 2 * (order - 2) + 1 tables of 65,536 floats
// (probability and backoff of each middle order, probability of the highest); count[0] + 1 unigram records
// (probability, backoff: float; first child: uint32); one bit-packed array per higher order, entries of
// (word, backoff code: 16 bits, probability code: 16 bits, first child) for middle orders and (word, probability
// code: 16 bits) for the highest, each array (1 + count) entries long plus 8 bytes; the word list (a 32- or
// 64-bit byte length, then NUL-ended words). The trie is keyed from the predicted word backwards: an entry under
// a parent adds the word heard before the parent's words. Scores are in the log-math object's units.

#include "paged_lm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/hash_table.h>

// sphinxbase 5prealpha's ngram_model_t and its method table (ngram_model_internal.h, which Debian does not
// install): every model type embeds this base first. `jarvis_paged_lm_read` checks the layout against the
// library's own accessors and a guard area before it hands a model out.
struct ngram_model_s {
    int refcount;
    uint32 *n_counts;
    int32 n_1g_alloc;
    int32 n_words;
    uint8 n;
    uint8 n_classes;
    uint8 writable;
    uint8 flags;
    logmath_t *lmath;
    float32 lw;
    int32 log_wip;
    int32 log_zero;
    char **word_str;
    hash_table_t *wid;
    int32 *tmp_wids;
    struct ngram_class_s **classes;
    struct ngram_funcs_s *funcs;
};

typedef struct ngram_funcs_s {
    void (*free)(ngram_model_t *model);
    int (*apply_weights)(ngram_model_t *model, float32 lw, float32 wip);
    int32 (*score)(ngram_model_t *model, int32 wid, int32 *history, int32 n_hist, int32 *n_used);
    int32 (*raw_score)(ngram_model_t *model, int32 wid, int32 *history, int32 n_hist, int32 *n_used);
    int32 (*add_ug)(ngram_model_t *model, int32 wid, int32 lweight);
    void (*flush)(ngram_model_t *model);
} ngram_funcs_t;

int32 ngram_model_init(ngram_model_t *model, ngram_funcs_t *funcs, logmath_t *lmath, int32 n, int32 n_unigram);

enum {
    MAX_ORDER = 3,
    QUANT_16 = 1,
    QUANT_BINS = 65536,
    GUARD_BYTES = 256,
    /// A range of entries longer than this (bytes) is searched in the paged image rather than copied whole: a
    /// search probes a few of its pages (the contexts of the 29 most frequent words of the 20,000-word model span
    /// 33–150 KiB each).
    RANGE_COPY_LIMIT = 32768,
    /// The copies are cut from blocks of this size (bytes), mapped apart from the heap and unmapped together
    /// when the model is freed.
    COPY_BLOCK_BYTES = 262144,
};

static const uint32 EMPTY_KEY = 0xFFFFFFFFu;

static const char header[] = "Trie Language Model";

typedef struct {
    float prob;
    float bo;
    uint32 next;
} unigram_t;

/// One order above the unigrams: a bit-packed array in the file.
typedef struct {
    size_t offset;         ///< file offset of the array (bytes)
    uint32 entries;
    int middle;            ///< has backoffs and children (not the highest order)
    uint8 word_bits, next_bits, total_bits;
    uint32 word_mask, next_mask;
    size_t prob_table;     ///< file offset of its probability table (bytes)
    size_t backoff_table;  ///< file offset of its backoff table (middle orders)
} level_t;

/// Where the range copies live: blocks of `COPY_BLOCK_BYTES`, filled in order.
typedef struct {
    uint8 **blocks;
    size_t count;
    size_t used;           ///< bytes used of the last block
} copy_arena_t;

/// Copies of ranges by the index of the entry they belong to (open addressing, linear probing).
typedef struct {
    uint32 *keys;          ///< EMPTY_KEY where free
    uint8 **values;
    size_t capacity;       ///< a power of two, or 0
    size_t count;
} range_map_t;

typedef struct {
    ngram_model_t base;
    /// Stays zero unless the library's ngram_model_t is larger than the one declared above.
    uint8 guard[GUARD_BYTES];
    int fd;
    uint8 *image;          ///< file byte k at image[k] once page k / page_size is loaded
    size_t image_size;     ///< the file's size (bytes)
    size_t reserved;       ///< image_size rounded up to whole pages
    size_t page_size;
    uint8 *loaded;         ///< one flag per page
    size_t pages_loaded;
    int read_failed;
    unigram_t *unigrams;   ///< n_1g_alloc + 1 records (the last one ends the last word's children)
    level_t level[MAX_ORDER - 1];
    /// Copies of the bigram ranges read so far, by the word whose contexts they hold (n_1g_alloc + 1; NULL:
    /// not read yet).
    uint8 **word_ranges;
    size_t word_range_slots;
    /// Copies of the trigram ranges read so far, by the bigram entry they belong to.
    range_map_t trigram_ranges;
    copy_arena_t copies;
    size_t copied_bytes;   ///< bytes in those copies
    size_t copy_budget;    ///< past this many bytes of copies and their tables, all are dropped (bytes)
    size_t copy_drops;
    float backoff_cache[MAX_ORDER];
    int32 hist_cache[MAX_ORDER - 1];
} paged_lm_t;

static ngram_funcs_t paged_funcs;

// MARK: reading the file

static int read_exactly(int fd, void *buffer, size_t length, size_t offset) {
    size_t done = 0;
    while (done < length) {
        ssize_t got = pread(fd, (uint8 *)buffer + done, length - done, (off_t)(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        done += (size_t)got;
    }
    return 1;
}

/// Makes file bytes [offset, offset + length) readable at image[offset...], reading their pages if needed.
static int ensure(paged_lm_t *m, size_t offset, size_t length) {
    if (length == 0 || offset > m->image_size || length > m->image_size - offset) return 0;
    size_t first = offset / m->page_size, last = (offset + length - 1) / m->page_size;
    for (size_t page = first; page <= last; ++page) {
        if (m->loaded[page]) continue;
        size_t start = page * m->page_size;
        size_t size = m->image_size - start < m->page_size ? m->image_size - start : m->page_size;
        if (!read_exactly(m->fd, m->image + start, size, start)) {
            m->read_failed = 1;
            return 0;
        }
        m->loaded[page] = 1;
        m->pages_loaded += 1;
    }
    return 1;
}

/// The `mask`-wide field at bit `bit` of level `l`'s array (fields are little-endian, at most 32 bits wide).
static int field(paged_lm_t *m, const level_t *l, uint64_t bit, uint32 mask, uint32 *out) {
    size_t byte = l->offset + (size_t)(bit >> 3);
    if (!ensure(m, byte, sizeof(uint64_t))) return 0;
    uint64_t word;
    memcpy(&word, m->image + byte, sizeof word);
    *out = (uint32)((word >> (bit & 7)) & mask);
    return 1;
}

/// Entry `code` of the quantiser table at file offset `table`.
static int table_value(paged_lm_t *m, size_t table, uint32 code, float *out) {
    size_t at = table + (size_t)code * sizeof(float);
    if (!ensure(m, at, sizeof(float))) return 0;
    memcpy(out, m->image + at, sizeof(float));
    return 1;
}

// MARK: ranges

/// `length` (at most COPY_BLOCK_BYTES) bytes for a copy. NULL when memory runs out.
static uint8 *copy_space(copy_arena_t *arena, size_t length) {
    length = (length + 7) & ~(size_t)7;
    if (arena->count == 0 || arena->used + length > COPY_BLOCK_BYTES) {
        uint8 **blocks = (uint8 **)realloc(arena->blocks, (arena->count + 1) * sizeof *blocks);
        if (blocks == NULL) return NULL;
        arena->blocks = blocks;
        void *block = mmap(NULL, COPY_BLOCK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (block == MAP_FAILED) return NULL;
        madvise(block, COPY_BLOCK_BYTES, MADV_NOHUGEPAGE);
        arena->blocks[arena->count++] = (uint8 *)block;
        arena->used = 0;
    }
    uint8 *space = arena->blocks[arena->count - 1] + arena->used;
    arena->used += length;
    return space;
}

static void free_copies(copy_arena_t *arena) {
    for (size_t i = 0; i < arena->count; ++i) munmap(arena->blocks[i], COPY_BLOCK_BYTES);
    free(arena->blocks);
    *arena = (copy_arena_t){0};
}

static void free_range_map(range_map_t *map) {
    free(map->keys);
    free(map->values);
    *map = (range_map_t){0};
}

/// Bytes of the copies and of the tables that find them.
static size_t copy_bytes(const paged_lm_t *m) {
    return m->copied_bytes + m->trigram_ranges.capacity * (sizeof(uint32) + sizeof(uint8 *));
}

/// Forgets every copy (lookups copy what they need again): a model used without a pause long enough to be
/// released would otherwise end up holding more than the file (each of the 1.6 million trigram ranges of a
/// bigram, a few bytes, costs a copy's slack and a table slot).
static void drop_copies(paged_lm_t *m) {
    free_copies(&m->copies);
    free_range_map(&m->trigram_ranges);
    memset(m->word_ranges, 0, m->word_range_slots * sizeof *m->word_ranges);
    m->copied_bytes = 0;
    m->copy_drops += 1;
}

/// The slot of `key` in `map`, made (empty) when absent. NULL when memory runs out.
static uint8 **range_slot(range_map_t *map, uint32 key) {
    if (2 * (map->count + 1) > map->capacity) {
        size_t capacity = map->capacity ? 2 * map->capacity : 1024;
        uint32 *keys = (uint32 *)malloc(capacity * sizeof *keys);
        uint8 **values = (uint8 **)calloc(capacity, sizeof *values);
        if (keys == NULL || values == NULL) {
            free(keys);
            free(values);
            return NULL;
        }
        memset(keys, 0xFF, capacity * sizeof *keys);
        for (size_t i = 0; i < map->capacity; ++i) {
            if (map->keys[i] == EMPTY_KEY) continue;
            size_t at = (map->keys[i] * 2654435761u) & (capacity - 1);
            while (keys[at] != EMPTY_KEY) at = (at + 1) & (capacity - 1);
            keys[at] = map->keys[i];
            values[at] = map->values[i];
        }
        free(map->keys);
        free(map->values);
        map->keys = keys;
        map->values = values;
        map->capacity = capacity;
    }
    size_t at = (key * 2654435761u) & (map->capacity - 1);
    while (map->keys[at] != EMPTY_KEY && map->keys[at] != key) at = (at + 1) & (map->capacity - 1);
    if (map->keys[at] == EMPTY_KEY) {
        map->keys[at] = key;
        map->count += 1;
    }
    return &map->values[at];
}

/// Where the entries [begin, end) of one level are read from: a copy of their bytes, or the paged image.
typedef struct {
    const level_t *level;
    const uint8 *bytes;    ///< the copy (byte `first` of the level's array at bytes[0]); NULL: the paged image
    size_t first;
    size_t length;
} span_t;

/// The span of entries [begin, end) of level `k`, the children of `holder` (level 0: of a unigram, by word;
/// level 1: of a bigram entry, by its index). Copies them from the file the first time, unless they are longer
/// than `RANGE_COPY_LIMIT`. 0 when they cannot be read.
static int open_span(paged_lm_t *m, int k, uint32 holder, uint32 begin, uint32 end, span_t *span) {
    const level_t *l = &m->level[k];
    span->level = l;
    span->bytes = NULL;
    // Through the child pointer after the last entry, and room for an 8-byte read at any field.
    size_t first = (size_t)(((uint64_t)begin * l->total_bits) >> 3);
    size_t last = (size_t)((((uint64_t)end + 1) * l->total_bits) >> 3) + sizeof(uint64_t);
    if (l->offset + last > m->image_size) last = m->image_size - l->offset;
    if (last <= first || last - first > RANGE_COPY_LIMIT) return 1;
    if (k == 0 && holder >= m->word_range_slots) return 0;
    uint8 **slot = k == 0 ? &m->word_ranges[holder] : range_slot(&m->trigram_ranges, holder);
    if (slot == NULL) return 0;
    if (*slot == NULL) {
        uint8 *copy = copy_space(&m->copies, last - first);
        if (copy == NULL) return 0;
        if (!read_exactly(m->fd, copy, last - first, l->offset + first)) {
            m->read_failed = 1;  // the space stays unused
            return 0;
        }
        *slot = copy;
        m->copied_bytes += last - first;
    }
    span->bytes = *slot;
    span->first = first;
    span->length = last - first;
    return 1;
}

/// The `mask`-wide field at bit `bit` of the span's level.
static int span_field(paged_lm_t *m, const span_t *span, uint64_t bit, uint32 mask, uint32 *out) {
    if (span->bytes == NULL) return field(m, span->level, bit, mask, out);
    size_t byte = (size_t)(bit >> 3);
    if (byte < span->first || byte - span->first + sizeof(uint64_t) > span->length) return 0;
    uint64_t word;
    memcpy(&word, span->bytes + (byte - span->first), sizeof word);
    *out = (uint32)((word >> (bit & 7)) & mask);
    return 1;
}

// MARK: lookups

/// Finds `word` among entries [*begin, *end) of level `k` (sorted by word), the children of `holder` (see
/// `open_span`). On success sets `*entry`, `*span` (to read the entry's weights from) and, for a middle
/// order, `[*begin, *end)` to the entry's children. 0 when absent or unreadable.
static int find(paged_lm_t *m, int k, uint32 holder, uint32 word, uint32 *begin, uint32 *end, uint32 *entry,
                span_t *span) {
    const level_t *l = &m->level[k];
    uint32 low = *begin, high = *end;
    if (low >= high || high > l->entries || !open_span(m, k, holder, low, high, span)) return 0;
    while (low < high) {
        uint32 mid = low + (high - low) / 2, w;
        if (!span_field(m, span, (uint64_t)mid * l->total_bits, l->word_mask, &w)) return 0;
        if (w < word) {
            low = mid + 1;
        } else if (w > word) {
            high = mid;
        } else {
            if (l->middle) {
                uint64_t at = (uint64_t)mid * l->total_bits + l->word_bits + 32;
                uint32 first, after;
                if (!span_field(m, span, at, l->next_mask, &first)
                    || !span_field(m, span, at + l->total_bits, l->next_mask, &after)) return 0;
                *begin = first;
                *end = after;
            }
            *entry = mid;
            return 1;
        }
    }
    return 0;
}

static int entry_prob(paged_lm_t *m, const span_t *span, uint32 entry, float *prob) {
    const level_t *l = span->level;
    uint32 code;
    uint64_t at = (uint64_t)entry * l->total_bits + l->word_bits + (l->middle ? 16 : 0);
    return span_field(m, span, at, 0xFFFF, &code) && table_value(m, l->prob_table, code, prob);
}

static int entry_backoff(paged_lm_t *m, const span_t *span, uint32 entry, float *backoff) {
    const level_t *l = span->level;
    uint32 code;
    uint64_t at = (uint64_t)entry * l->total_bits + l->word_bits;
    return l->middle && span_field(m, span, at, 0xFFFF, &code) && table_value(m, l->backoff_table, code, backoff);
}

static int known_word(const paged_lm_t *m, int32 wid) {
    return wid >= 0 && (uint32)wid < m->base.n_counts[0];
}

/// The unigram of `wid` and the range of its children.
static float unigram(const paged_lm_t *m, int32 wid, uint32 *begin, uint32 *end) {
    *begin = m->unigrams[wid].next;
    *end = m->unigrams[wid + 1].next;
    return m->unigrams[wid].prob;
}

/// Backoff weights of the history's n-grams, longest match first ended: [0] of hist[0], [1] of (hist[1] hist[0]).
static void update_backoff(paged_lm_t *m, const int32 *hist, int32 n_hist) {
    memset(m->backoff_cache, 0, sizeof m->backoff_cache);
    memcpy(m->hist_cache, hist, (size_t)n_hist * sizeof *hist);
    if (!known_word(m, hist[0])) return;
    uint32 begin, end, entry, holder = (uint32)hist[0];
    span_t span;
    m->backoff_cache[0] = m->unigrams[hist[0]].bo;
    unigram(m, hist[0], &begin, &end);
    for (int32 i = 1; i < n_hist; ++i) {
        float backoff;
        if (!find(m, i - 1, holder, (uint32)hist[i], &begin, &end, &entry, &span)
            || !entry_backoff(m, &span, entry, &backoff)) break;
        m->backoff_cache[i] = backoff;
        holder = entry;
    }
}

/// log P(wid | hist) with a full history (n_hist == order - 1), as sphinxbase's trie computes it.
static float score_full(paged_lm_t *m, int32 wid, const int32 *hist, int32 n_hist, int32 *n_used) {
    if (memcmp(hist, m->hist_cache, (size_t)n_hist * sizeof *hist) != 0) update_backoff(m, hist, n_hist);
    uint32 begin, end, entry, holder = (uint32)wid;
    span_t span;
    float prob = unigram(m, wid, &begin, &end), found;
    *n_used = 1;
    for (int32 i = 0; i < n_hist - 1; ++i) {
        if (!find(m, i, holder, (uint32)hist[i], &begin, &end, &entry, &span) || !entry_prob(m, &span, entry, &found)) {
            for (int32 j = i; j < n_hist; ++j) prob += m->backoff_cache[j];
            return prob;
        }
        *n_used += 1;
        prob = found;
        holder = entry;
    }
    int longest = m->base.n - 2;
    if (!find(m, longest, holder, (uint32)hist[n_hist - 1], &begin, &end, &entry, &span)
        || !entry_prob(m, &span, entry, &found))
        return prob + m->backoff_cache[n_hist - 1];
    *n_used += 1;
    return found;
}

/// log P(wid | hist) with a shorter history (at most one word: orders are at most 3).
static float score_short(paged_lm_t *m, int32 wid, const int32 *hist, int32 n_hist, int32 *n_used) {
    uint32 begin, end, entry;
    span_t span;
    float prob = unigram(m, wid, &begin, &end), found;
    *n_used = 1;
    if (n_hist == 0) return prob;
    if (find(m, 0, (uint32)wid, (uint32)hist[0], &begin, &end, &entry, &span) && entry_prob(m, &span, entry, &found)) {
        *n_used = 2;
        return found;
    }
    float backoff = 0.0f;
    if (known_word(m, hist[0])) backoff += m->unigrams[hist[0]].bo;
    return prob + backoff;
}

// MARK: ngram_model_t methods

static int32 paged_raw_score(ngram_model_t *base, int32 wid, int32 *hist, int32 n_hist, int32 *n_used) {
    paged_lm_t *m = (paged_lm_t *)base;
    if (n_hist > base->n - 1) n_hist = base->n - 1;
    for (int32 i = 0; i < n_hist; ++i) {
        if (hist[i] < 0) {
            n_hist = i;
            break;
        }
    }
    if (!known_word(m, wid)) {
        *n_used = 1;
        return base->log_zero;
    }
    // Only here, between lookups: no span of an earlier lookup is in use.
    if (copy_bytes(m) > m->copy_budget) drop_copies(m);
    float score = n_hist < base->n - 1 ? score_short(m, wid, hist, n_hist, n_used)
                                       : score_full(m, wid, hist, n_hist, n_used);
    return (int32)score;
}

static int32 weighted(ngram_model_t *base, int32 score) {
    return (int32)(score * base->lw + base->log_wip);
}

static int32 paged_score(ngram_model_t *base, int32 wid, int32 *hist, int32 n_hist, int32 *n_used) {
    return weighted(base, paged_raw_score(base, wid, hist, n_hist, n_used));
}

static int paged_apply_weights(ngram_model_t *base, float32 lw, float32 wip) {
    base->lw = lw;
    base->log_wip = logmath_log(base->lmath, wip);
    return 0;
}

/// A word added at run time (`ngram_model_add_word`, which has already grown the word list): a unigram of
/// `lweight` times the uniform probability, with no n-grams.
static int32 paged_add_ug(ngram_model_t *base, int32 wid, int32 lweight) {
    paged_lm_t *m = (paged_lm_t *)base;
    m->unigrams = (unigram_t *)ckd_realloc(m->unigrams, sizeof *m->unigrams * (size_t)(base->n_1g_alloc + 1));
    m->word_ranges = (uint8 **)ckd_realloc(m->word_ranges, sizeof *m->word_ranges * (size_t)(base->n_1g_alloc + 1));
    memset(m->word_ranges + m->word_range_slots, 0,
           ((size_t)base->n_1g_alloc + 1 - m->word_range_slots) * sizeof *m->word_ranges);
    m->word_range_slots = (size_t)base->n_1g_alloc + 1;
    memset(m->unigrams + base->n_counts[0] + 1, 0,
           (size_t)(base->n_1g_alloc - (int32)base->n_counts[0]) * sizeof *m->unigrams);
    base->n_counts[0] += 1;
    lweight += logmath_log(base->lmath, 1.0 / base->n_counts[0]);
    m->unigrams[wid + 1].next = m->unigrams[wid].next;
    m->unigrams[wid].prob = (float)lweight;
    m->unigrams[wid].bo = 0;
    if ((uint32)wid >= base->n_counts[0]) base->n_counts[0] = (uint32)wid + 1;
    return weighted(base, lweight);
}

static void paged_flush(ngram_model_t *base) {
    paged_lm_t *m = (paged_lm_t *)base;
    memset(m->hist_cache, -1, sizeof m->hist_cache);
    memset(m->backoff_cache, 0, sizeof m->backoff_cache);
}

/// Releases what this reader added to the base (the library frees the base's own fields and the model).
static void release(paged_lm_t *m) {
    if (m->image) munmap(m->image, m->reserved);
    if (m->fd >= 0) close(m->fd);
    free(m->loaded);
    ckd_free(m->unigrams);
    ckd_free(m->word_ranges);
    free_copies(&m->copies);
    free_range_map(&m->trigram_ranges);
    m->word_ranges = NULL;
    m->image = NULL;
    m->fd = -1;
    m->loaded = NULL;
    m->unigrams = NULL;
}

static void paged_free(ngram_model_t *base) {
    release((paged_lm_t *)base);
}

static ngram_funcs_t paged_funcs = {
    paged_free, paged_apply_weights, paged_score, paged_raw_score, paged_add_ug, paged_flush,
};

// MARK: opening

static uint8 required_bits(uint32 max) {
    return max == 0 ? 0 : (uint8)(32 - __builtin_clz(max));
}

static uint32 mask_of(uint8 bits) {
    return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
}

/// Whether the library reads this model's base fields where this file declares them, and calls its methods.
static int layout_matches(paged_lm_t *m, logmath_t *lmath, int order) {
    ngram_model_t *base = &m->base;
    for (size_t i = 0; i < GUARD_BYTES; ++i) {
        if (m->guard[i] != 0) return 0;
    }
    int32 last = base->n_words - 1;
    int32 n_used = 0;
    uint32 begin, end;
    if (base->refcount != 1 || base->n != order || base->lmath != lmath || base->funcs != &paged_funcs
        || base->word_str == NULL || base->wid == NULL || base->n_counts == NULL || last < 0
        || base->n_1g_alloc != base->n_words || base->log_zero != logmath_get_zero(lmath)) return 0;
    if (ngram_model_get_size(base) != order || (const void *)ngram_model_get_counts(base) != (const void *)base->n_counts
        || ngram_zero(base) != base->log_zero || ngram_word(base, last) != base->word_str[last]
        || ngram_wid(base, base->word_str[last]) != last) return 0;
    // The method table: the library's scoring calls paged_score, its flush paged_flush.
    if (ngram_ng_score(base, last, NULL, 0, &n_used) != weighted(base, (int32)unigram(m, last, &begin, &end))
        || n_used != 1) return 0;
    m->hist_cache[0] = 7;
    ngram_model_flush(base);
    return m->hist_cache[0] == -1;
}

ngram_model_t *jarvis_paged_lm_read(const char *path, logmath_t *lmath) {
    if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) return NULL;  // fields are read as little-endian words
    if (path == NULL || lmath == NULL) return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    uint8 start[sizeof header - 1 + 1 + 4 * MAX_ORDER + 4];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof start
        || !read_exactly(fd, start, sizeof header - 1 + 1, 0) || memcmp(start, header, sizeof header - 1) != 0) {
        close(fd);
        return NULL;
    }
    size_t file_size = (size_t)st.st_size;
    int order = start[sizeof header - 1];
    if (order < 2 || order > MAX_ORDER) {
        close(fd);
        return NULL;
    }
    uint32 counts[MAX_ORDER], quant_type;
    size_t offset = sizeof header - 1 + 1;
    if (!read_exactly(fd, counts, 4 * (size_t)order, offset)
        || !read_exactly(fd, &quant_type, 4, offset + 4 * (size_t)order)
        || quant_type != QUANT_16 || counts[0] == 0 || counts[0] >= (1u << 25)) {
        close(fd);
        return NULL;
    }
    offset += 4 * (size_t)order + 4;

    paged_lm_t *m = (paged_lm_t *)ckd_calloc(1, sizeof *m);
    m->fd = fd;
    m->image_size = file_size;
    m->page_size = (size_t)sysconf(_SC_PAGESIZE);
    memset(m->hist_cache, -1, sizeof m->hist_cache);

    // Layout: tables, unigrams, the bit-packed orders, the word list.
    size_t tables = offset;
    size_t table_bytes = (size_t)QUANT_BINS * sizeof(float);
    offset += (size_t)(2 * (order - 2) + 1) * table_bytes;
    size_t unigrams_at = offset;
    offset += ((size_t)counts[0] + 1) * sizeof(unigram_t);
    uint8 word_bits = required_bits(counts[0]);
    for (int k = 0; k < order - 1; ++k) {
        level_t *l = &m->level[k];
        l->middle = k < order - 2;
        l->entries = counts[k + 1];
        l->word_bits = word_bits;
        l->word_mask = mask_of(word_bits);
        l->next_bits = l->middle ? required_bits(counts[k + 2]) : 0;
        l->next_mask = mask_of(l->next_bits);
        l->total_bits = (uint8)(word_bits + (l->middle ? 32 : 16) + l->next_bits);
        l->prob_table = tables + (size_t)(2 * k) * table_bytes;
        l->backoff_table = tables + (size_t)(2 * k + 1) * table_bytes;
        l->offset = offset;
        offset += ((1 + (size_t)l->entries) * l->total_bits + 7) / 8 + 8;
    }
    size_t words_at = offset;
    uint32 length32 = 0;
    uint64_t length64 = 0;
    size_t list_at = 0, list_length = 0;
    if (words_at + 4 <= file_size && read_exactly(fd, &length32, 4, words_at)
        && (size_t)length32 == file_size - words_at - 4) {
        list_at = words_at + 4;
        list_length = length32;
    } else if (words_at + 8 <= file_size && read_exactly(fd, &length64, 8, words_at)
               && length64 == (uint64_t)(file_size - words_at - 8)) {
        list_at = words_at + 8;
        list_length = (size_t)length64;
    }
    char *list = list_length > 0 ? (char *)malloc(list_length) : NULL;
    m->unigrams = (unigram_t *)ckd_calloc((size_t)counts[0] + 1, sizeof *m->unigrams);
    m->word_ranges = (uint8 **)ckd_calloc((size_t)counts[0] + 1, sizeof *m->word_ranges);
    m->word_range_slots = (size_t)counts[0] + 1;
    m->copy_budget = file_size / 2;
    size_t pages = (file_size + m->page_size - 1) / m->page_size;
    m->reserved = pages * m->page_size;
    m->loaded = (uint8 *)calloc(pages, 1);
    void *image = mmap(NULL, m->reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    m->image = image == MAP_FAILED ? NULL : (uint8 *)image;
    int usable = list != NULL && m->loaded != NULL && m->image != NULL
        && read_exactly(fd, list, list_length, list_at) && list[list_length - 1] == '\0'
        && read_exactly(fd, m->unigrams, ((size_t)counts[0] + 1) * sizeof *m->unigrams, unigrams_at)
        && m->unigrams[0].next == 0 && m->unigrams[counts[0]].next <= counts[1];
    size_t n_words = 0;
    for (size_t i = 0; usable && i < list_length; ++i) n_words += list[i] == '\0';
    if (!usable || n_words != counts[0]) {
        free(list);
        release(m);
        ckd_free(m);
        return NULL;
    }
    if (m->image) madvise(m->image, m->reserved, MADV_NOHUGEPAGE);

    ngram_model_t *base = &m->base;
    ngram_model_init(base, &paged_funcs, lmath, order, (int32)counts[0]);
    if (base->n_counts != NULL && base->word_str != NULL && base->wid != NULL) {
        for (int i = 0; i < order; ++i) base->n_counts[i] = counts[i];
        base->writable = TRUE;
        const char *word = list;
        for (uint32 i = 0; i < counts[0]; ++i) {
            base->word_str[i] = ckd_salloc(word);
            hash_table_enter_int32(base->wid, base->word_str[i], (int32)i);
            word += strlen(word) + 1;
        }
    }
    free(list);
    if (!layout_matches(m, lmath, order)) {
        // The library's base differs from the one declared here: the fields it allocated cannot be found to be
        // freed (a few hundred kilobytes, once).
        release(m);
        ckd_free(m);
        return NULL;
    }
    return base;
}

int jarvis_paged_lm_is_paged(ngram_model_t *model) {
    return model != NULL && model->funcs == &paged_funcs;
}

size_t jarvis_paged_lm_resident_bytes(ngram_model_t *model) {
    if (!jarvis_paged_lm_is_paged(model)) return 0;
    paged_lm_t *m = (paged_lm_t *)model;
    return m->pages_loaded * m->page_size + copy_bytes(m)
        + ((size_t)model->n_1g_alloc + 1) * (sizeof(unigram_t) + sizeof(uint8 *));
}

size_t jarvis_paged_lm_file_bytes(ngram_model_t *model) {
    return jarvis_paged_lm_is_paged(model) ? ((paged_lm_t *)model)->image_size : 0;
}

int jarvis_paged_lm_read_failed(ngram_model_t *model) {
    return jarvis_paged_lm_is_paged(model) && ((paged_lm_t *)model)->read_failed;
}

void jarvis_paged_lm_set_copy_budget(ngram_model_t *model, size_t bytes) {
    if (jarvis_paged_lm_is_paged(model)) ((paged_lm_t *)model)->copy_budget = bytes;
}

size_t jarvis_paged_lm_copy_drops(ngram_model_t *model) {
    return jarvis_paged_lm_is_paged(model) ? ((paged_lm_t *)model)->copy_drops : 0;
}
