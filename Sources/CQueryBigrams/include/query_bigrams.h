#ifndef JARVIS_QUERY_BIGRAMS_H
#define JARVIS_QUERY_BIGRAMS_H

/// Word pairs of search queries, a line a first word: "first\tsecond log10p\tsecond log10p...", NUL-terminated
/// (scripts/make-query-bigrams.py).
const char *jarvis_query_bigrams(void);

#endif
