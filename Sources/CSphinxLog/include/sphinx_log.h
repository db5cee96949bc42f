#ifndef JARVIS_SPHINX_LOG_H
#define JARVIS_SPHINX_LOG_H
#include <stddef.h>

/// sphinxbase's log, caught: its debug, info and warning lines are dropped; the first error or fatal line is kept
/// (per thread) so that a failed call can say why. Installed once per process; a decoder made with `-logfn` would
/// put sphinxbase's own file logger back, so jarvis's decoders are made without it.
void jarvis_sphinx_log_install(void);

/// Copies the calling thread's first error line from sphinxbase since the last call (its text only, without the
/// level, source file and line) into `buffer` (`size` bytes, NUL-terminated) and forgets it. Returns its length, 0
/// when there is none.
size_t jarvis_sphinx_take_error(char *buffer, size_t size);

/// Called with the text of a fatal line, just before sphinxbase ends the process with `exit(1)`: the handler may
/// report it and end the process itself with a status of its own. NULL (the default): sphinxbase exits.
typedef void (*jarvis_sphinx_fatal_handler)(const char *message);
void jarvis_sphinx_set_fatal_handler(jarvis_sphinx_fatal_handler handler);

#endif
