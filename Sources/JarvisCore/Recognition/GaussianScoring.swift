import CGaussianScoring

/// The SIMD scorer of tied-mixture Gaussians that decoders use (`PocketSphinxDecoder.fastGaussians`):
/// process-wide controls for tests and benchmarks.
public enum GaussianScoring {
    /// The kernel in use: "avx2", "sse2", or "none" (not an x86-64 CPU: PocketSphinx scores).
    public static var kernel: String { String(cString: jarvis_fast_gaussians_kernel()) }

    /// Chooses the kernel ("avx2", "sse2"); false when this CPU cannot run it.
    @discardableResult
    public static func useKernel(_ name: String) -> Bool { jarvis_fast_gaussians_use_kernel(name) == 1 }

    /// Checking mode: every frame is scored by PocketSphinx's own function too, on a copy of the state, and
    /// the results compared (`checkedFrames`). Slow; for tests.
    public static func setChecking(_ on: Bool) { jarvis_fast_gaussians_set_checking(on ? 1 : 0) }

    /// Frames compared in checking mode so far, and how many of them differed.
    public static var checkedFrames: (frames: Int, mismatches: Int) {
        var mismatches = 0
        let frames = jarvis_fast_gaussians_checked_frames(&mismatches)
        return (frames, mismatches)
    }

    /// Interleaved copies of models' Gaussians held now (one per distinct model in use).
    public static var sharedModels: Int { Int(jarvis_fast_gaussians_shared_models()) }
}
