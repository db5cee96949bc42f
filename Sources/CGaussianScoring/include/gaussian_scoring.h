#ifndef JARVIS_GAUSSIAN_SCORING_H
#define JARVIS_GAUSSIAN_SCORING_H
#include <pocketsphinx.h>

/// Gives `ps`'s acoustic model a faster evaluation of its phonetically tied Gaussians (PocketSphinx's "ptm"
/// models, such as Debian's en-us): the same arithmetic, each float operation in the same order, so the same
/// senone scores to the bit, but eight Gaussians of a codebook at a time (AVX2; SSE2 without it) where
/// PocketSphinx evaluates one. Its per-frame Gaussian search is most of a decoder's CPU.
///
/// The means and variances are copied once into an interleaved layout (eight Gaussians side by side per
/// dimension; shared by every decoder of the same model, about 1.7 MB for en-us) and released with the last
/// decoder that uses them.
///
/// Returns 1 when installed; 0 when the model is not a ptm model or has a layout this scorer does not take
/// (4-bit mixture weights, more than 256 Gaussians per codebook, more than 16 best ones kept per frame) or the
/// CPU is not x86-64; a negative value when the decoder does not have the layout of the PocketSphinx it was
/// built for (5prealpha, checked against the library's own accessors and function addresses): nothing is
/// changed then.
int jarvis_fast_gaussians_install(ps_decoder_t *ps);

/// Checking mode (for tests), process-wide: each frame is evaluated by PocketSphinx's own function as well,
/// on a copy of the state, and the senone scores and top-N lists compared. Returns the number of frames
/// compared so far; `mismatches` receives how many differed. `JARVIS_CHECK_GAUSSIANS=1` in the environment turns
/// it on for the whole process and prints the two counts to stderr at exit.
void jarvis_fast_gaussians_set_checking(int on);
long jarvis_fast_gaussians_checked_frames(long *mismatches);

/// Which kernel runs: "avx2", "sse2" or "none".
const char *jarvis_fast_gaussians_kernel(void);

/// Chooses the kernel ("avx2" or "sse2"; for tests), process-wide. Returns 1 when it runs on this CPU.
int jarvis_fast_gaussians_use_kernel(const char *name);

/// How many interleaved copies of models' Gaussians are held (one per distinct model in use).
int jarvis_fast_gaussians_shared_models(void);

#endif
