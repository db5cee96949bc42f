#ifndef JARVIS_POCKETSPHINX_SHIM_H
#define JARVIS_POCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/glist.h>
#include <sphinxbase/ngram_model.h>
#include <malloc.h>

/// Hands freed heap memory back to the system (glibc), after a large model is released.
static inline void jarvis_release_free_memory(void) {
    malloc_trim(0);
}

/// cmd_ln_init is variadic, which Swift cannot call: build a config from an argv array instead.
/// Returns NULL when an option is unknown or a value is invalid.
static inline cmd_ln_t *jarvis_ps_config(int argc, char **argv) {
    return cmd_ln_parse_r(NULL, ps_args(), argc, argv, FALSE);
}

/// Silence sphinxbase's logging (it writes to stderr by default).
static inline void jarvis_ps_quiet(void) {
    err_set_logfp(NULL);
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
#endif
