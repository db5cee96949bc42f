#ifndef JARVIS_POCKETSPHINX_SHIM_H
#define JARVIS_POCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/glist.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/fe.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/ngram_model.h>
#include <malloc.h>

/* PocketSphinx's model-definition reader and writer (bin_mdef.h, not installed; exported by the library). */
struct bin_mdef_s;
struct bin_mdef_s *bin_mdef_read_text(cmd_ln_t *config, const char *filename);
int bin_mdef_write(struct bin_mdef_s *m, const char *filename);
int bin_mdef_free(struct bin_mdef_s *m);

/// Reads the text model definition at `text_path` and writes it in PocketSphinx's binary format (which a
/// decoder reads without parsing) to `binary_path`. Returns 0, or -1 when either fails.
static inline int jarvis_mdef_text_to_binary(const char *text_path, const char *binary_path) {
    struct bin_mdef_s *m = bin_mdef_read_text(NULL, text_path);
    if (m == NULL) return -1;
    int status = bin_mdef_write(m, binary_path);
    bin_mdef_free(m);
    return status < 0 ? -1 : 0;
}

/// Hands freed heap memory back to the system (glibc), after a large model is released.
static inline void jarvis_release_free_memory(void) {
    malloc_trim(0);
}

/// cmd_ln_init is variadic, which Swift cannot call: build a config from an argv array instead.
/// Returns NULL when an option is unknown or a value is invalid.
static inline cmd_ln_t *jarvis_ps_config(int argc, char **argv) {
    return cmd_ln_parse_r(NULL, ps_args(), argc, argv, FALSE);
}

/// Builds a word FSG from parallel arrays of transitions (words[i] NULL: a null transition) and gives it to
/// the decoder as search `name`. `logp_ln` are natural-log probabilities before the language weight.
/// Returns ps_set_fsg's status (negative on failure).
static inline int jarvis_ps_set_graph(ps_decoder_t *ps, const char *name, int n_state, int start, int final,
                                      int n_trans, const int *from, const int *to, const double *logp_ln,
                                      const char *const *words) {
    logmath_t *lmath = ps_get_logmath(ps);
    float32 lw = (float32)cmd_ln_float_r(ps_get_config(ps), "-lw");
    fsg_model_t *fsg = fsg_model_init(name, lmath, lw, n_state);
    if (fsg == NULL) return -1;
    for (int i = 0; i < n_trans; ++i) {
        int32 logp = (int32)(logmath_ln_to_log(lmath, logp_ln[i]) * lw);
        if (words[i] == NULL) {
            fsg_model_null_trans_add(fsg, from[i], to[i], logp);
        } else {
            int32 wid = fsg_model_word_add(fsg, words[i]);
            fsg_model_trans_add(fsg, from[i], to[i], logp, wid);
        }
    }
    fsg->start_state = start;
    fsg->final_state = final;
    glist_t nulls = fsg_model_null_trans_closure(fsg, NULL);
    glist_free(nulls);
    int status = ps_set_fsg(ps, name, fsg);
    fsg_model_free(fsg);  /* the search keeps its own reference */
    return status;
}

/// Sets float option `name` (e.g. "-wbeam") of the decoder's configuration, which a search reads when it is added,
/// and returns its previous value.
static inline double jarvis_ps_swap_float_option(ps_decoder_t *ps, const char *name, double value) {
    cmd_ln_t *config = ps_get_config(ps);
    double old = cmd_ln_float_r(config, name);
    cmd_ln_set_float_r(config, name, value);
    return old;
}

/// Gives a model read outside `ngram_model_read` the decoder's `-lw` and `-wip`, as that function does.
static inline void jarvis_lm_apply_config_weights(ps_decoder_t *ps, ngram_model_t *model) {
    cmd_ln_t *config = ps_get_config(ps);
    ngram_model_apply_weights(model, (float32)cmd_ln_float_r(config, "-lw"), (float32)cmd_ln_float_r(config, "-wip"));
}

/// The names of a mixed set's models: the base, then the extra ones.
static char *const jarvis_mixed_lm_names[4] = {"base", "extra1", "extra2", "extra3"};

/// Adds search `name` over the language model `base` and the `n_extra` (1 to 3) models at `extra_paths`, at first
/// on the base model alone; `jarvis_lm_mix` interpolates it with one of the extra models. The set takes its own
/// reference to `base`. Returns the model set, of which the caller owns one reference (ngram_model_free), or NULL
/// on failure.
static inline ngram_model_t *jarvis_ps_set_mixed_lm(ps_decoder_t *ps, const char *name, ngram_model_t *base,
                                                    char *const *extra_paths, int n_extra) {
    if (n_extra < 1 || n_extra > 3) return NULL;
    ngram_model_t *models[4] = {base, NULL, NULL, NULL};
    for (int i = 0; i < n_extra; ++i) {
        models[i + 1] = ngram_model_read(ps_get_config(ps), extra_paths[i], NGRAM_AUTO, ps_get_logmath(ps));
        if (models[i + 1] == NULL) {
            for (int j = 1; j <= i; ++j) ngram_model_free(models[j]);
            return NULL;
        }
    }
    /* No weights: each decode sets its own (`jarvis_lm_mix`). */
    ngram_model_t *set = ngram_model_set_init(ps_get_config(ps), models, (char **)jarvis_mixed_lm_names, NULL, n_extra + 1);
    for (int i = 1; i <= n_extra; ++i) ngram_model_free(models[i]);  /* the set holds its own references */
    if (set == NULL) return NULL;
    ngram_model_set_select(set, "base");
    if (ps_set_lm(ps, name, set) < 0) { ngram_model_free(set); return NULL; }
    return set;
}

/// Switches a set made by jarvis_ps_set_mixed_lm to its base model alone (`extra` 0) or to the base
/// interpolated with extra model `extra` (1 to 3) at `extra_weight`, the other extra models silent.
static inline void jarvis_lm_mix(ngram_model_t *set, int extra, float extra_weight) {
    if (extra <= 0 || extra > ngram_model_set_count(set) - 1) { ngram_model_set_select(set, "base"); return; }
    float32 weights[4] = {1.0f - extra_weight, extra == 1 ? extra_weight : 0.0f, extra == 2 ? extra_weight : 0.0f,
                          extra == 3 ? extra_weight : 0.0f};
    ngram_model_set_interp(set, (const char **)jarvis_mixed_lm_names, weights);
}

/// Length of the decoder's cepstral vectors (13 for en-us).
static inline int jarvis_ps_ceplen(ps_decoder_t *ps) {
    return feat_cepsize(ps_get_feat(ps));
}

/// The decoder's current cepstral mean (after a batch decode: the mean of that utterance).
static inline void jarvis_ps_cmn_get(ps_decoder_t *ps, float *out) {
    cmn_t *c = ps_get_feat(ps)->cmn_struct;
    for (int i = 0; i < c->veclen; ++i) out[i] = (float)c->cmn_mean[i];
}

/// Sets the live CMN mean (used by decoders created with `-cmn live` for the frames fed next) as sphinxbase's
/// `cmn_live_set` does: the mean, and the window's sum as `CMN_WIN` frames of it. Without that function's 28 log
/// lines (each formats a float): the live decoder's mean is set at every 20 ms of speech, and those lines took 2 %
/// of the CPU in speech.
static inline void jarvis_cmn_set(cmn_t *c, const float *mean) {
    for (int i = 0; i < c->veclen; ++i) {
        c->cmn_mean[i] = (mfcc_t)mean[i];
        c->sum[i] = (mfcc_t)mean[i] * CMN_WIN;
    }
    c->nframe = CMN_WIN;
}

static inline void jarvis_ps_cmn_set(ps_decoder_t *ps, const float *mean) {
    jarvis_cmn_set(ps_get_feat(ps)->cmn_struct, mean);
}

/// A front end with the decoder's settings, to compute cepstra beside it.
static inline fe_t *jarvis_fe_new(ps_decoder_t *ps) {
    return fe_init_auto_r(ps_get_config(ps));
}

/// Computes the cepstra of `n` samples (the front end keeps the overlap between calls) and adds those
/// with non-negative c0 (as batch CMN counts them) to `sum` (ceplen doubles) and `count`.
static inline int jarvis_fe_accumulate(fe_t *fe, const int16 *samples, size_t n, double *sum, int *count) {
    int ceplen = fe_get_output_size(fe);
    int32 nfr = 0;
    size_t probe = n;
    if (fe_process_frames(fe, NULL, &probe, NULL, &nfr, NULL) < 0) return -1;
    int32 rows = nfr + 2;
    mfcc_t **buf = (mfcc_t **)ckd_calloc_2d(rows, ceplen, sizeof(mfcc_t));
    int16 const *p = samples;
    size_t left = n;
    int32 got = rows;
    int status = fe_process_frames(fe, &p, &left, buf, &got, NULL);
    if (status >= 0) {
        for (int f = 0; f < got; ++f) {
            if (buf[f][0] < 0) continue;
            for (int i = 0; i < ceplen; ++i) sum[i] += buf[f][i];
            *count += 1;
        }
    }
    ckd_free_2d(buf);
    return status < 0 ? status : got;
}
#endif
