// Faster evaluation of PocketSphinx's phonetically tied mixtures, the same scores to the bit
// (see gaussian_scoring.h).
//
// A ptm model has one codebook of Gaussians per base phone (en-us: 42 codebooks, 3 feature streams of 13
// dimensions, 128 Gaussians each). For each frame PocketSphinx (ptm_mgau.c):
//   1. copies the previous frame's best N Gaussians of every codebook and stream, marks the codebooks of the
//      senones the search asks for as active;
//   2. scores those N Gaussians again on the new frame, keeping them sorted (best first);
//   3. on every `-ds`-th frame, scores every Gaussian of each active codebook, one at a time, dropping it as
//      soon as its running score falls under the N-th best (the running score only falls: each dimension
//      subtracts a square times a positive inverse variance), and inserts those that stay at least as good;
//   4. turns the best N scores into small negated integers relative to the best codebook of each stream;
//   5. combines them with each senone's mixture weights (a table log-add) into the senone scores.
// Step 3 is most of the time. Here it scores eight Gaussians side by side, each lane doing the same float
// operations in the same order as PocketSphinx does for one Gaussian, so every lane's score is the same float;
// the lanes that end at least as good as the N-th best (as it stood when the block began: it only rises) then
// go through PocketSphinx's own test and insertion one at a time, in Gaussian order, so the lists come out the
// same, ties included. Step 2 scores eight (codebook, rank) pairs of a stream side by side the same way (AVX2
// only: their Gaussians are gathered), then sorts each list as PocketSphinx does. Steps 1, 4 and 5 are done as
// PocketSphinx does them.

#include "gaussian_scoring.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sphinxbase/bitvec.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/fe.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/logmath.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// No fused multiply-adds: every product and difference is rounded to float, as in PocketSphinx's build.
#pragma STDC FP_CONTRACT OFF

// ---- PocketSphinx 5prealpha's layouts (its internal headers, which Debian does not install) ----
// acmod.h: an acoustic model's Gaussian evaluator is a struct whose first member points to its function table.
struct mgau_s;
typedef int (*frame_eval_fn)(struct mgau_s *m, int16 *senone_scores, uint8 *senone_active, int32 n_senone_active,
                             mfcc_t **features, int32 frame, int32 compute_all);
typedef struct {
    const char *name;
    frame_eval_fn frame_eval;
    int (*transform)(struct mgau_s *m, void *mllr);
    void (*free)(struct mgau_s *m);
} mgau_funcs_t;
typedef struct mgau_s {
    mgau_funcs_t *vt;
    int frame_idx;
} mgau_t;
// ptm_mgau.h and ms_gauden.h.
typedef struct {
    int32 cw;
    int32 score;
} topn_t;
typedef struct {
    topn_t ***topn;         // [codebook][stream][rank]
    bitvec_t *mgau_active;
} fast_eval_t;
typedef struct {
    mfcc_t ****mean;        // [codebook][stream][Gaussian][dimension], each [codebook][stream] contiguous
    mfcc_t ****var;         // inverse variances, precomputed (positive)
    mfcc_t ***det;          // [codebook][stream][Gaussian]
    logmath_t *lmath;
    int32 n_mgau;
    int32 n_feat;
    int32 n_density;
    int32 *featlen;
} gauden_t;
typedef struct {
    mgau_t base;
    cmd_ln_t *config;
    gauden_t *g;
    int32 n_sen;
    uint8 *sen2cb;
    uint8 ***mixw;          // [stream][Gaussian][senone], negated quantised log weights
    void *sendump_mmap;
    uint8 *mixw_cb;         // 4-bit weights' codebook, or NULL
    int16 max_topn;
    int16 ds_ratio;
    fast_eval_t *hist;
    fast_eval_t *f;
    int n_fast_hist;
    logmath_t *lmath_8b;
    logmath_t *lmath;
} ptm_t;
// acmod.h and pocketsphinx_internal.h: the first members of the acoustic model and of the decoder.
typedef struct {
    cmd_ln_t *config;
    logmath_t *lmath;
    void *strings;
    fe_t *fe;
    feat_t *fcb;
    void *mdef;
    void *tmat;
    mgau_t *mgau;
} acmod_head_t;
typedef struct {
    cmd_ln_t *config;
    int refcount;
    acmod_head_t *acmod;
    void *dict;
    void *d2p;
    logmath_t *lmath;
} decoder_head_t;

// Exported by libpocketsphinx: `jarvis_fast_gaussians_install` checks the model's function table against them.
extern int ptm_mgau_frame_eval(mgau_t *m, int16 *senone_scores, uint8 *senone_active, int32 n_senone_active,
                               mfcc_t **features, int32 frame, int32 compute_all);
extern void ptm_mgau_free(mgau_t *m);

enum {
    LANES = 8,              // Gaussians side by side in the interleaved copy
    SCORE_SHIFT = 10,       // SENSCR_SHIFT
    MAX_NEGATED_SCORE = 96, // MAX_NEG_ASCR
    MAX_STREAMS = 8,
    MAX_DIMENSIONS = 64,
    MAX_CODEBOOKS = 256,
    MAX_TOPN = 16,
};
static const int32 worst_score = (int32)0xE0000000; // WORST_SCORE

// ---- The interleaved copy of a model's Gaussians, shared by the decoders of one model ----
typedef struct layout_s {
    struct layout_s *next;
    uint64_t key;
    int refs;
    int n_mgau, n_feat, n_density, n_block;
    int featlen[MAX_STREAMS];
    size_t stream_offset[MAX_STREAMS]; // floats from a codebook's start to the stream's
    size_t codebook_floats;            // floats per codebook (all streams)
    float *mean;                       // [codebook][stream][block][dimension][lane]
    float *var;
    float *det;                        // [codebook][stream][block][lane]; padding lanes -inf (never kept)
} layout_t;

static pthread_mutex_t layouts_lock = PTHREAD_MUTEX_INITIALIZER;
static layout_t *layouts;

// FNV-1a over 8-byte words (then the bytes left): the key of a model's Gaussians, made at every decoder's start.
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h ^= w;
        h *= 1099511628211ULL;
    }
    for (; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t gauden_key(const gauden_t *g) {
    uint64_t h = 14695981039346656037ULL;
    h = hash_bytes(h, &g->n_mgau, sizeof g->n_mgau);
    h = hash_bytes(h, &g->n_feat, sizeof g->n_feat);
    h = hash_bytes(h, &g->n_density, sizeof g->n_density);
    h = hash_bytes(h, g->featlen, sizeof(int32) * (size_t)g->n_feat);
    for (int cb = 0; cb < g->n_mgau; ++cb) {
        for (int f = 0; f < g->n_feat; ++f) {
            size_t n = (size_t)g->n_density * (size_t)g->featlen[f];
            h = hash_bytes(h, g->mean[cb][f][0], n * sizeof(mfcc_t));
            h = hash_bytes(h, g->var[cb][f][0], n * sizeof(mfcc_t));
            h = hash_bytes(h, g->det[cb][f], (size_t)g->n_density * sizeof(mfcc_t));
        }
    }
    return h;
}

static void layout_free(layout_t *l) {
    free(l->mean);
    free(l->var);
    free(l->det);
    free(l);
}

static float *aligned_floats(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, (n ? n : 1) * sizeof(float)) != 0) return NULL;
    return p;
}

static layout_t *layout_build(const gauden_t *g, uint64_t key) {
    layout_t *l = calloc(1, sizeof *l);
    if (l == NULL) return NULL;
    l->key = key;
    l->refs = 1;
    l->n_mgau = g->n_mgau;
    l->n_feat = g->n_feat;
    l->n_density = g->n_density;
    l->n_block = (g->n_density + LANES - 1) / LANES;
    size_t per_codebook = 0;
    for (int f = 0; f < g->n_feat; ++f) {
        l->featlen[f] = g->featlen[f];
        l->stream_offset[f] = per_codebook;
        per_codebook += (size_t)l->n_block * LANES * (size_t)g->featlen[f];
    }
    l->codebook_floats = per_codebook;
    size_t total = per_codebook * (size_t)g->n_mgau;
    size_t dets = (size_t)g->n_mgau * (size_t)g->n_feat * (size_t)l->n_block * LANES;
    l->mean = aligned_floats(total);
    l->var = aligned_floats(total);
    l->det = aligned_floats(dets);
    if (l->mean == NULL || l->var == NULL || l->det == NULL) {
        layout_free(l);
        return NULL;
    }
    memset(l->mean, 0, total * sizeof(float));
    memset(l->var, 0, total * sizeof(float));
    for (size_t i = 0; i < dets; ++i) l->det[i] = -INFINITY;
    for (int cb = 0; cb < g->n_mgau; ++cb) {
        for (int f = 0; f < g->n_feat; ++f) {
            int len = g->featlen[f];
            const mfcc_t *mean = g->mean[cb][f][0], *var = g->var[cb][f][0], *det = g->det[cb][f];
            float *m = l->mean + (size_t)cb * per_codebook + l->stream_offset[f];
            float *v = l->var + (size_t)cb * per_codebook + l->stream_offset[f];
            float *d = l->det + ((size_t)cb * g->n_feat + f) * (size_t)l->n_block * LANES;
            for (int cw = 0; cw < g->n_density; ++cw) {
                size_t block = (size_t)(cw / LANES) * (size_t)len * LANES, lane = (size_t)(cw % LANES);
                for (int j = 0; j < len; ++j) {
                    m[block + (size_t)j * LANES + lane] = mean[(size_t)cw * len + j];
                    v[block + (size_t)j * LANES + lane] = var[(size_t)cw * len + j];
                }
                d[cw] = det[cw];
            }
        }
    }
    return l;
}

static layout_t *layout_acquire(const gauden_t *g) {
    uint64_t key = gauden_key(g);
    pthread_mutex_lock(&layouts_lock);
    for (layout_t *l = layouts; l != NULL; l = l->next) {
        if (l->key == key && l->n_mgau == g->n_mgau && l->n_feat == g->n_feat && l->n_density == g->n_density) {
            ++l->refs;
            pthread_mutex_unlock(&layouts_lock);
            return l;
        }
    }
    layout_t *l = layout_build(g, key);
    if (l != NULL) {
        l->next = layouts;
        layouts = l;
    }
    pthread_mutex_unlock(&layouts_lock);
    return l;
}

static void layout_release(layout_t *l) {
    pthread_mutex_lock(&layouts_lock);
    if (--l->refs == 0) {
        for (layout_t **p = &layouts; *p != NULL; p = &(*p)->next) {
            if (*p == l) {
                *p = l->next;
                break;
            }
        }
        layout_free(l);
    }
    pthread_mutex_unlock(&layouts_lock);
}

// ---- The scorer that replaces the model's function table ----
typedef struct {
    mgau_funcs_t funcs;        // first: the model's `vt` points here
    mgau_funcs_t *original;
    layout_t *layout;
} scorer_t;

static int scorer_frame_eval(mgau_t *m, int16 *senone_scores, uint8 *senone_active, int32 n_senone_active,
                             mfcc_t **features, int32 frame, int32 compute_all);

static int checking;
static long checked_frames, mismatched_frames;

typedef void (*codebook_kernel_fn)(const ptm_t *s, const layout_t *l, int cb, int f, const mfcc_t *z);
static codebook_kernel_fn codebook_kernel;
// Step 2 for one stream of every codebook.
typedef void (*rescore_fn)(const ptm_t *s, const layout_t *l, int f, const mfcc_t *z);
static void rescore_best(const ptm_t *s, const layout_t *l, int f, const mfcc_t *z);
#if defined(__x86_64__)
static void rescore_best_avx2(const ptm_t *s, const layout_t *l, int f, const mfcc_t *z);
#endif
static rescore_fn rescore_kernel = rescore_best;
static const char *kernel_name = "none";

// Offers Gaussian `cw`, scored `d`, to a codebook stream's best-N list (sorted, best first), as PocketSphinx
// does: kept when at least as good as the worst of the list (compared as floats) and not in it already,
// inserted before entries of an equal integer score, the worst dropped.
static inline void offer(topn_t *best, int n, int cw, float d) {
    if (d < (float)best[n - 1].score) return;
    for (int i = 0; i < n; ++i)
        if (best[i].cw == cw) return;
    int32 v = (int32)d;
    int k = n - 2;
    while (k >= 0 && v >= best[k].score) {
        best[k + 1] = best[k];
        --k;
    }
    best[k + 1].cw = cw;
    best[k + 1].score = v;
}

// One codebook stream's best-N list and its part of the interleaved copy.
typedef struct {
    topn_t *best;
    int n, len;
    const float *mean, *var, *det;
} stream_view_t;

static inline stream_view_t stream_view(const ptm_t *s, const layout_t *l, int cb, int f) {
    stream_view_t v;
    v.best = s->f->topn[cb][f];
    v.n = s->max_topn;
    v.len = l->featlen[f];
    v.mean = l->mean + (size_t)cb * l->codebook_floats + l->stream_offset[f];
    v.var = l->var + (size_t)cb * l->codebook_floats + l->stream_offset[f];
    v.det = l->det + ((size_t)cb * l->n_feat + f) * (size_t)l->n_block * LANES;
    return v;
}

// Offers the Gaussians of block `b` whose lanes are set in `kept` (their scores in `lanes`), in Gaussian order.
static inline void offer_block(const stream_view_t *v, int b, int kept, const float *lanes) {
    while (kept) {
        int lane = __builtin_ctz((unsigned)kept);
        kept &= kept - 1;
        offer(v->best, v->n, b * LANES + lane, lanes[lane]);
    }
}

#if defined(__x86_64__)
__attribute__((target("avx2")))
static void search_codebook_avx2(const ptm_t *s, const layout_t *l, int cb, int f, const mfcc_t *z) {
    stream_view_t v = stream_view(s, l, cb, f);
    int len = v.len;
    const float *mean = v.mean, *var = v.var;
    __m256 obs[MAX_DIMENSIONS];
    for (int j = 0; j < len; ++j) obs[j] = _mm256_set1_ps(z[j]);
    for (int b = 0; b < l->n_block; ++b, mean += (size_t)len * LANES, var += (size_t)len * LANES) {
        __m256 threshold = _mm256_set1_ps((float)v.best[v.n - 1].score);
        __m256 d = _mm256_load_ps(v.det + (size_t)b * LANES);
        int j = 0, alive = 1;
        for (; j < len; ++j) {
            __m256 diff = _mm256_sub_ps(obs[j], _mm256_load_ps(mean + (size_t)j * LANES));
            __m256 square = _mm256_mul_ps(diff, diff);
            __m256 term = _mm256_mul_ps(square, _mm256_load_ps(var + (size_t)j * LANES));
            d = _mm256_sub_ps(d, term);
            if ((j & 3) == 3 && !_mm256_movemask_ps(_mm256_cmp_ps(d, threshold, _CMP_GE_OQ))) {
                alive = 0;
                break;
            }
        }
        if (!alive) continue;
        float lanes[LANES];
        _mm256_storeu_ps(lanes, d);
        offer_block(&v, b, _mm256_movemask_ps(_mm256_cmp_ps(d, threshold, _CMP_GE_OQ)), lanes);
    }
}

static void search_codebook_sse2(const ptm_t *s, const layout_t *l, int cb, int f, const mfcc_t *z) {
    stream_view_t v = stream_view(s, l, cb, f);
    int len = v.len;
    const float *mean = v.mean, *var = v.var;
    __m128 obs[MAX_DIMENSIONS];
    for (int j = 0; j < len; ++j) obs[j] = _mm_set1_ps(z[j]);
    for (int b = 0; b < l->n_block; ++b, mean += (size_t)len * LANES, var += (size_t)len * LANES) {
        __m128 threshold = _mm_set1_ps((float)v.best[v.n - 1].score);
        __m128 lo = _mm_load_ps(v.det + (size_t)b * LANES), hi = _mm_load_ps(v.det + (size_t)b * LANES + 4);
        int j = 0, alive = 1;
        for (; j < len; ++j) {
            const float *mj = mean + (size_t)j * LANES, *vj = var + (size_t)j * LANES;
            __m128 dl = _mm_sub_ps(obs[j], _mm_load_ps(mj)), dh = _mm_sub_ps(obs[j], _mm_load_ps(mj + 4));
            __m128 sl = _mm_mul_ps(dl, dl), sh = _mm_mul_ps(dh, dh);
            lo = _mm_sub_ps(lo, _mm_mul_ps(sl, _mm_load_ps(vj)));
            hi = _mm_sub_ps(hi, _mm_mul_ps(sh, _mm_load_ps(vj + 4)));
            if ((j & 3) == 3 && !(_mm_movemask_ps(_mm_cmpge_ps(lo, threshold)) |
                                  _mm_movemask_ps(_mm_cmpge_ps(hi, threshold)))) {
                alive = 0;
                break;
            }
        }
        if (!alive) continue;
        float lanes[LANES];
        _mm_storeu_ps(lanes, lo);
        _mm_storeu_ps(lanes + 4, hi);
        offer_block(&v, b, _mm_movemask_ps(_mm_cmpge_ps(lo, threshold)) | (_mm_movemask_ps(_mm_cmpge_ps(hi, threshold)) << 4),
                    lanes);
    }
}

static void report_checks(void) {
    fprintf(stderr, "gaussian scoring check: %ld frames compared, %ld differed\n", checked_frames, mismatched_frames);
}

static void choose_kernel(void) {
    const char *check = getenv("JARVIS_CHECK_GAUSSIANS");
    if (check != NULL && strcmp(check, "1") == 0) {
        checking = 1;
        atexit(report_checks);
    }
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        codebook_kernel = search_codebook_avx2;
        rescore_kernel = rescore_best_avx2;
        kernel_name = "avx2";
    } else {
        codebook_kernel = search_codebook_sse2;
        rescore_kernel = rescore_best;
        kernel_name = "sse2";
    }
}
#else
static void choose_kernel(void) {}
#endif

static pthread_once_t kernel_once = PTHREAD_ONCE_INIT;

const char *jarvis_fast_gaussians_kernel(void) {
    pthread_once(&kernel_once, choose_kernel);
    return kernel_name;
}

int jarvis_fast_gaussians_use_kernel(const char *name) {
    pthread_once(&kernel_once, choose_kernel);
#if defined(__x86_64__)
    if (strcmp(name, "sse2") == 0) {
        codebook_kernel = search_codebook_sse2;
        rescore_kernel = rescore_best;
        kernel_name = "sse2";
        return 1;
    }
    if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2")) {
        codebook_kernel = search_codebook_avx2;
        rescore_kernel = rescore_best_avx2;
        kernel_name = "avx2";
        return 1;
    }
#endif
    return 0;
}

int jarvis_fast_gaussians_shared_models(void) {
    int n = 0;
    pthread_mutex_lock(&layouts_lock);
    for (layout_t *l = layouts; l != NULL; l = l->next) ++n;
    pthread_mutex_unlock(&layouts_lock);
    return n;
}

// Step 2: the previous frame's best N of each codebook and stream scored on this frame (every dimension, in
// order), then sorted again as PocketSphinx sorts them: entry by entry, each moving up only past strictly worse
// ones. `scores[i]` is the new score of entry i as it stood before.
static void resort_best(topn_t *best, int n, const float *scores) {
    for (int i = 0; i < n; ++i) {
        int32 v = (int32)scores[i];
        topn_t moved = best[i];
        moved.score = v;
        int k = i - 1;
        while (k >= 0 && v > best[k].score) {
            best[k + 1] = best[k];
            --k;
        }
        best[k + 1] = moved;
    }
}

static void rescore_best(const ptm_t *s, const layout_t *l, int f, const mfcc_t *z) {
    (void)l;
    int len = s->g->featlen[f];
    float scores[MAX_TOPN];
    for (int cb = 0; cb < s->g->n_mgau; ++cb) {
        topn_t *best = s->f->topn[cb][f];
        const mfcc_t *means = s->g->mean[cb][f][0], *vars = s->g->var[cb][f][0], *dets = s->g->det[cb][f];
        for (int i = 0; i < s->max_topn; ++i) {
            int cw = best[i].cw;
            const mfcc_t *mean = means + (size_t)cw * len, *var = vars + (size_t)cw * len;
            mfcc_t d = dets[cw];
            for (int j = 0; j < len; ++j) {
                mfcc_t diff = z[j] - mean[j];
                mfcc_t square = diff * diff;
                mfcc_t term = square * var[j];
                d = d - term;
            }
            scores[i] = d;
        }
        resort_best(best, s->max_topn, scores);
    }
}

#if defined(__x86_64__)
// The same for a whole stream, eight (codebook, rank) pairs at a time, their means and variances gathered
// from the interleaved copy.
__attribute__((target("avx2")))
static void rescore_best_avx2(const ptm_t *s, const layout_t *l, int f, const mfcc_t *z) {
    int n = s->max_topn, len = l->featlen[f], pairs = l->n_mgau * n;
    const float *mean = l->mean + l->stream_offset[f], *var = l->var + l->stream_offset[f];
    const float *det = l->det + (size_t)f * (size_t)l->n_block * LANES;
    size_t det_stride = (size_t)l->n_feat * (size_t)l->n_block * LANES;
    float scores[MAX_CODEBOOKS * MAX_TOPN];
    for (int k0 = 0; k0 < pairs; k0 += LANES) {
        int32_t at[LANES], det_at[LANES];
        for (int lane = 0; lane < LANES; ++lane) {
            int k = k0 + lane < pairs ? k0 + lane : k0;
            int cb = k / n, cw = s->f->topn[cb][f][k % n].cw;
            at[lane] = (int32_t)((size_t)cb * l->codebook_floats + (size_t)(cw / LANES) * (size_t)len * LANES +
                                 (size_t)(cw % LANES));
            det_at[lane] = (int32_t)((size_t)cb * det_stride + (size_t)cw);
        }
        __m256i where = _mm256_loadu_si256((const __m256i *)at);
        __m256 d = _mm256_i32gather_ps(det, _mm256_loadu_si256((const __m256i *)det_at), 4);
        for (int j = 0; j < len; ++j) {
            __m256 diff = _mm256_sub_ps(_mm256_set1_ps(z[j]), _mm256_i32gather_ps(mean + (size_t)j * LANES, where, 4));
            __m256 square = _mm256_mul_ps(diff, diff);
            __m256 term = _mm256_mul_ps(square, _mm256_i32gather_ps(var + (size_t)j * LANES, where, 4));
            d = _mm256_sub_ps(d, term);
        }
        float lanes[LANES];
        _mm256_storeu_ps(lanes, d);
        for (int lane = 0; lane < LANES && k0 + lane < pairs; ++lane) scores[k0 + lane] = lanes[lane];
    }
    for (int cb = 0; cb < l->n_mgau; ++cb) resort_best(s->f->topn[cb][f], n, scores + (size_t)cb * n);
}
#endif

// Step 4: each stream's scores relative to its best active codebook, shifted, negated and capped.
static void normalise(const ptm_t *s) {
    const gauden_t *g = s->g;
    bitvec_t *active = s->f->mgau_active;
    for (int f = 0; f < g->n_feat; ++f) {
        int32 norm = worst_score;
        for (int cb = 0; cb < g->n_mgau; ++cb) {
            if (bitvec_is_clear(active, cb)) continue;
            int32 top = s->f->topn[cb][f][0].score >> SCORE_SHIFT;
            if (norm < top) norm = top;
        }
        for (int cb = 0; cb < g->n_mgau; ++cb) {
            if (bitvec_is_clear(active, cb)) continue;
            topn_t *best = s->f->topn[cb][f];
            for (int k = 0; k < s->max_topn; ++k) {
                int32 v = best[k].score >> SCORE_SHIFT;
                v = -(v - norm);
                best[k].score = v > MAX_NEGATED_SCORE ? MAX_NEGATED_SCORE : v;
            }
        }
    }
}

// Step 5: the senone scores (negated, relative to the best senone of the frame).
static void score_senones(const ptm_t *s, int16 *senone_scores, const uint8 *senone_active, int32 n_active,
                          int compute_all) {
    const gauden_t *g = s->g;
    const uint8 *table = (const uint8 *)LOGMATH_TABLE(s->lmath_8b)->table;
    memset(senone_scores, 0, (size_t)s->n_sen * sizeof *senone_scores);
    int32 n = compute_all ? s->n_sen : n_active;
    int best_score = 0x7fffffff;
    for (int32 i = 0, last = 0; i < n; ++i) {
        int sen = compute_all ? i : senone_active[i] + last;
        last = sen;
        int cb = s->sen2cb[sen];
        if (bitvec_is_clear(s->f->mgau_active, cb)) {
            for (int f = 0; f < g->n_feat; ++f)
                for (int k = 0; k < s->max_topn; ++k) s->f->topn[cb][f][k].score = MAX_NEGATED_SCORE;
        }
        int score = 0;
        for (int f = 0; f < g->n_feat; ++f) {
            const topn_t *best = s->f->topn[cb][f];
            int density = 0;
            for (int k = 0; k < s->max_topn; ++k) {
                int term = s->mixw[f][best[k].cw][sen] + best[k].score;
                if (k == 0) {
                    density = term;
                } else {
                    // Log-add of two negated log probabilities by table (both under 256).
                    int gap, low;
                    if (density > term) {
                        gap = density - term;
                        low = term;
                    } else {
                        gap = term - density;
                        low = density;
                    }
                    density = low - table[gap];
                }
            }
            score += density;
        }
        if (score < best_score) best_score = score;
        senone_scores[sen] = (int16)score;
    }
    for (int32 i = 0; i < s->n_sen; ++i) senone_scores[i] = (int16)(senone_scores[i] - best_score);
}

static void fast_frame_eval(ptm_t *s, const layout_t *l, int16 *senone_scores, uint8 *senone_active,
                            int32 n_active, mfcc_t **features, int32 frame, int32 compute_all) {
    const gauden_t *g = s->g;
    int slot = frame % s->n_fast_hist;
    s->f = s->hist + slot;
    if (frame >= s->base.frame_idx) {
        const fast_eval_t *previous = s->hist + (slot == 0 ? s->n_fast_hist : slot) - 1;
        memcpy(s->f->topn[0][0], previous->topn[0][0],
               (size_t)g->n_mgau * (size_t)g->n_feat * (size_t)s->max_topn * sizeof(topn_t));
        // Step 1: the codebooks of the senones asked for (deltas of senone ids).
        if (compute_all) {
            bitvec_set_all(s->f->mgau_active, g->n_mgau);
        } else {
            bitvec_clear_all(s->f->mgau_active, g->n_mgau);
            for (int32 i = 0, last = 0; i < n_active; ++i) {
                int sen = senone_active[i] + last;
                bitvec_set(s->f->mgau_active, s->sen2cb[sen]);
                last = sen;
            }
        }
        for (int f = 0; f < g->n_feat; ++f) rescore_kernel(s, l, f, features[f]);
        if (frame % s->ds_ratio == 0) {
            for (int cb = 0; cb < g->n_mgau; ++cb) {
                if (bitvec_is_clear(s->f->mgau_active, cb)) continue;
                for (int f = 0; f < g->n_feat; ++f) codebook_kernel(s, l, cb, f, features[f]);
            }
        }
        normalise(s);
    }
    score_senones(s, senone_scores, senone_active, n_active, compute_all);
}

// Checking mode: PocketSphinx's own evaluation of the frame on a copy of the state, then this one, compared.
static void checked_frame_eval(mgau_t *m, scorer_t *sc, int16 *senone_scores, uint8 *senone_active,
                               int32 n_active, mfcc_t **features, int32 frame, int32 compute_all) {
    ptm_t *s = (ptm_t *)m;
    const gauden_t *g = s->g;
    fast_eval_t *slot = s->hist + frame % s->n_fast_hist;
    size_t topn_bytes = (size_t)g->n_mgau * (size_t)g->n_feat * (size_t)s->max_topn * sizeof(topn_t);
    size_t active_bytes = (size_t)bitvec_size(g->n_mgau) * sizeof(bitvec_t);
    size_t score_bytes = (size_t)s->n_sen * sizeof(int16);
    unsigned char *saved = malloc(2 * (topn_bytes + active_bytes) + score_bytes);
    if (saved == NULL) {
        fast_frame_eval(s, sc->layout, senone_scores, senone_active, n_active, features, frame, compute_all);
        return;
    }
    unsigned char *theirs = saved + topn_bytes + active_bytes;
    int16 *their_scores = (int16 *)(theirs + topn_bytes + active_bytes);
    memcpy(saved, slot->topn[0][0], topn_bytes);
    memcpy(saved + topn_bytes, slot->mgau_active, active_bytes);
    fast_eval_t *f_before = s->f;
    sc->original->frame_eval(m, their_scores, senone_active, n_active, features, frame, compute_all);
    memcpy(theirs, slot->topn[0][0], topn_bytes);
    memcpy(theirs + topn_bytes, slot->mgau_active, active_bytes);
    memcpy(slot->topn[0][0], saved, topn_bytes);
    memcpy(slot->mgau_active, saved + topn_bytes, active_bytes);
    s->f = f_before;
    fast_frame_eval(s, sc->layout, senone_scores, senone_active, n_active, features, frame, compute_all);
    int differs = memcmp(their_scores, senone_scores, score_bytes) != 0 ||
                  memcmp(theirs, slot->topn[0][0], topn_bytes) != 0 ||
                  memcmp(theirs + topn_bytes, slot->mgau_active, active_bytes) != 0;
    __atomic_add_fetch(&checked_frames, 1, __ATOMIC_RELAXED);
    if (differs) __atomic_add_fetch(&mismatched_frames, 1, __ATOMIC_RELAXED);
    free(saved);
}

static int scorer_frame_eval(mgau_t *m, int16 *senone_scores, uint8 *senone_active, int32 n_senone_active,
                             mfcc_t **features, int32 frame, int32 compute_all) {
    scorer_t *sc = (scorer_t *)m->vt;
    if (__atomic_load_n(&checking, __ATOMIC_RELAXED)) {
        checked_frame_eval(m, sc, senone_scores, senone_active, n_senone_active, features, frame, compute_all);
    } else {
        fast_frame_eval((ptm_t *)m, sc->layout, senone_scores, senone_active, n_senone_active, features, frame,
                        compute_all);
    }
    return 0;
}

// Gives the model back its own function table (and frees this scorer).
static void scorer_uninstall(mgau_t *m) {
    scorer_t *sc = (scorer_t *)m->vt;
    m->vt = sc->original;
    layout_release(sc->layout);
    free(sc);
}

static void scorer_free(mgau_t *m) {
    scorer_uninstall(m);
    m->vt->free(m);
}

// A speaker adaptation (MLLR) rewrites the means and variances: the copy is made again from them.
static int scorer_transform(mgau_t *m, void *mllr) {
    scorer_t *sc = (scorer_t *)m->vt;
    m->vt = sc->original;
    int status = m->vt->transform(m, mllr);
    m->vt = &sc->funcs;
    layout_t *fresh = layout_acquire(((ptm_t *)m)->g);
    if (fresh == NULL) {
        scorer_uninstall(m);
    } else {
        layout_release(sc->layout);
        sc->layout = fresh;
    }
    return status;
}

static mgau_t *model_of(ps_decoder_t *ps, int *status) {
    decoder_head_t *d = (decoder_head_t *)ps;
    if (d->config != ps_get_config(ps) || d->lmath != ps_get_logmath(ps)) {
        *status = -1;
        return NULL;
    }
    acmod_head_t *a = d->acmod;
    if (a == NULL || a->config != d->config || a->lmath != d->lmath || a->fe != ps_get_fe(ps) ||
        a->fcb != ps_get_feat(ps) || a->mgau == NULL || a->mgau->vt == NULL) {
        *status = -2;
        return NULL;
    }
    *status = 0;
    return a->mgau;
}

int jarvis_fast_gaussians_install(ps_decoder_t *ps) {
#if !defined(__x86_64__)
    (void)ps;
    return 0;
#else
    pthread_once(&kernel_once, choose_kernel);
    int status;
    mgau_t *m = model_of(ps, &status);
    if (m == NULL) return status;
    if (m->vt->frame_eval == scorer_frame_eval) return 1;
    if (m->vt->frame_eval != ptm_mgau_frame_eval) return 0; // another kind of model
    if (m->vt->free != ptm_mgau_free || m->vt->name == NULL || strcmp(m->vt->name, "ptm") != 0) return -3;
    ptm_t *s = (ptm_t *)m;
    const gauden_t *g = s->g;
    cmd_ln_t *config = ps_get_config(ps);
    if (s->config != config || g == NULL || s->hist == NULL || s->sen2cb == NULL || s->mixw == NULL ||
        s->lmath_8b == NULL || s->n_sen < 1 || s->ds_ratio < 1 || s->n_fast_hist < 2)
        return -4;
    if (s->ds_ratio != cmd_ln_int32_r(config, "-ds")) return -5;
    if (g->n_feat < 1 || g->n_feat > MAX_STREAMS || g->n_mgau < 1 || g->n_mgau > MAX_CODEBOOKS || g->n_density < 1)
        return -6;
    if (s->max_topn < 1 || s->max_topn > g->n_density) return -7;
    if (s->max_topn > MAX_TOPN) return 0; // more best Gaussians kept than this scorer holds
    feat_t *fcb = ps_get_feat(ps);
    if ((int)feat_dimension1(fcb) != g->n_feat) return -8;
    for (int f = 0; f < g->n_feat; ++f) {
        if (g->featlen[f] < 1 || g->featlen[f] > MAX_DIMENSIONS || g->featlen[f] != (int)feat_dimension2(fcb, f))
            return -8;
    }
    for (int32 i = 0; i < s->n_sen; ++i)
        if (s->sen2cb[i] >= g->n_mgau) return -9;
    if (s->mixw_cb != NULL || g->n_density > 256) return 0; // 4-bit weights, or more Gaussians than 8-bit ids
    scorer_t *sc = calloc(1, sizeof *sc);
    if (sc == NULL) return 0;
    sc->layout = layout_acquire(g);
    if (sc->layout == NULL) {
        free(sc);
        return 0;
    }
    sc->original = m->vt;
    sc->funcs = *m->vt;
    sc->funcs.frame_eval = scorer_frame_eval;
    sc->funcs.transform = scorer_transform;
    sc->funcs.free = scorer_free;
    m->vt = &sc->funcs;
    return 1;
#endif
}

void jarvis_fast_gaussians_set_checking(int on) { __atomic_store_n(&checking, on ? 1 : 0, __ATOMIC_RELAXED); }

long jarvis_fast_gaussians_checked_frames(long *mismatches) {
    if (mismatches) *mismatches = __atomic_load_n(&mismatched_frames, __ATOMIC_RELAXED);
    return __atomic_load_n(&checked_frames, __ATOMIC_RELAXED);
}
