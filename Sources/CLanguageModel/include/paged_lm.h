#ifndef JARVIS_PAGED_LM_H
#define JARVIS_PAGED_LM_H
#include <stddef.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/ngram_model.h>

/// Opens a sphinxbase trie language model (`.lm.bin`, order 2 or 3, 16-bit quantised) as an `ngram_model_t`
/// whose n-grams stay in the file until a lookup needs them. A lookup of a word after its history searches the
/// word's bigram contexts, then the trigram contexts of the bigram found: each such range of entries is copied
/// from the file the first time it is searched (ranges up to 32 KiB; the longer ones, the contexts of the most
/// frequent words, are searched in a reservation of the file's size into which the 4096-byte pages a search
/// probes are read, as are the quantiser tables' pages). The unigrams and words are read at once (sphinxbase
/// needs every word). Scores, backoffs and `n_used` are those of sphinxbase's own reader of the same file (the
/// same records, the same float arithmetic). The copies are dropped when they pass half the file's size (and
/// made again as lookups need them), so a model in constant use holds at most about that, plus the pages.
///
/// Why: a decode of a few seconds looks up the contexts of a few thousand words; sphinxbase reads all of a
/// 20,000-word model's 21 MB of n-grams at load.
///
/// Returns NULL when the file cannot be read, is not such a model, or this sphinxbase's `ngram_model_t` does not
/// have the layout this reader was built for (checked against the library's own accessors; the few hundred
/// kilobytes the library allocated then cannot be freed); the caller then loads it with `ngram_model_read`.
/// The file stays open until the model is freed (`ngram_model_free`), so removing it meanwhile is harmless.
ngram_model_t *jarvis_paged_lm_read(const char *path, logmath_t *lmath);

/// Whether `model` was made by `jarvis_paged_lm_read`.
int jarvis_paged_lm_is_paged(ngram_model_t *model);

/// Bytes `model` holds of its file so far: the ranges copied, the pages read, the unigram records read at open
/// and the tables that find the copies. 0 for a model not made by `jarvis_paged_lm_read`.
size_t jarvis_paged_lm_resident_bytes(ngram_model_t *model);

/// Bytes of the file `model` pages from (its reservation). 0 for a model not made by `jarvis_paged_lm_read`.
size_t jarvis_paged_lm_file_bytes(ngram_model_t *model);

/// Whether a read of `model`'s file failed (the lookups that needed it then backed off to lower orders).
int jarvis_paged_lm_read_failed(ngram_model_t *model);

/// Past `bytes` of range copies (and their tables), `model` drops them all before its next lookup, which copies
/// what it needs again (default: half the file's size). No effect on a model not made by `jarvis_paged_lm_read`.
void jarvis_paged_lm_set_copy_budget(ngram_model_t *model, size_t bytes);

/// How many times `model` has dropped its copies (0 for a model not made by `jarvis_paged_lm_read`).
size_t jarvis_paged_lm_copy_drops(ngram_model_t *model);

#endif
