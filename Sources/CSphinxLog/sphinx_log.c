// sphinxbase's log callback: keeps the first error line of each thread, hands a fatal one to a handler.
#include "sphinx_log.h"
#include <sphinxbase/err.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[512];  // the first error line since the last take
static _Atomic(jarvis_sphinx_fatal_handler) fatal_handler = NULL;

/// The message of a formatted line: sphinxbase writes errors as `ERROR: "file.c", line 42: text` (and info as
/// `INFO: file.c(42): text`); what follows the location is the text.
static const char *message_text(const char *line) {
    const char *at = strstr(line, "\", line ");
    if (at == NULL) return line;
    const char *colon = strstr(at, ": ");
    return colon ? colon + 2 : line;
}

static void log_line(void *user_data, err_lvl_t level, const char *format, ...) {
    (void)user_data;
    if (level != ERR_ERROR && level != ERR_FATAL) return;
    char line[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    // One line: a system error's text ends with its own newline before ": <strerror>".
    char text[sizeof last_error];
    size_t n = 0;
    for (const char *c = message_text(line); *c != '\0' && n < sizeof text - 1; ++c) {
        char ch = (*c == '\n' || *c == '\t') ? ' ' : *c;
        if (ch == ' ' && (n == 0 || text[n - 1] == ' ')) continue;
        if (ch == ':' && n > 0 && text[n - 1] == ' ') --n;  // "text\n: reason" -> "text: reason"
        text[n++] = ch;
    }
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '.')) --n;
    text[n] = '\0';
    // The first error is the cause ("Failed to read density data from file 'means'"); the ones after it say
    // what could not be done because of it ("Failed to read acoustic model").
    if (last_error[0] == '\0') memcpy(last_error, text, n + 1);
    jarvis_sphinx_fatal_handler handler = atomic_load(&fatal_handler);
    if (level == ERR_FATAL && handler != NULL) handler(text);
}

void jarvis_sphinx_log_install(void) {
    err_set_logfp(NULL);  // no log file either: ps_init writes its settings to it (stderr when none was set)
    err_set_callback(log_line, NULL);
}

size_t jarvis_sphinx_take_error(char *buffer, size_t size) {
    if (size == 0) return 0;
    size_t n = strlen(last_error);
    if (n >= size) n = size - 1;
    memcpy(buffer, last_error, n);
    buffer[n] = '\0';
    last_error[0] = '\0';
    return n;
}

void jarvis_sphinx_set_fatal_handler(jarvis_sphinx_fatal_handler handler) {
    atomic_store(&fatal_handler, handler);
}
