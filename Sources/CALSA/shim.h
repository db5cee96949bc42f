#include <alsa/asoundlib.h>

/* alsa-lib prints its own diagnostics ("ALSA lib pcm.c:…") on stderr; jarvis reports every failure itself,
   as one sentence and an event, so it installs this silent handler (a variadic C callback, which Swift
   cannot define). */
static void jarvis_alsa_quiet_handler(const char *file, int line, const char *function, int err,
                                      const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void jarvis_alsa_silence_errors(void) {
    snd_lib_error_set_handler(jarvis_alsa_quiet_handler);
}
