#ifndef JARVIS_POCKETSPHINX_SHIM_H
#define JARVIS_POCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>

/// cmd_ln_init is variadic, which Swift cannot call: build a config from an argv array instead.
/// Returns NULL when an option is unknown or a value is invalid.
static inline cmd_ln_t *jarvis_ps_config(int argc, char **argv) {
    return cmd_ln_parse_r(NULL, ps_args(), argc, argv, FALSE);
}

/// Silence sphinxbase's logging (it writes to stderr by default).
static inline void jarvis_ps_quiet(void) {
    err_set_logfp(NULL);
}
#endif
