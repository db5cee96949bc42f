// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "jarvis",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "jarvis", targets: ["jarvis"]),
        .library(name: "JarvisCore", targets: ["JarvisCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // Thin system-library targets: one per C library, nothing vendored.
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CPocketSphinx", pkgConfig: "pocketsphinx",
                       providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev", "libsamplerate0-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // sphinxbase's trie language model, read from its file on demand (C: its lookups run per search frame).
        .target(name: "CLanguageModel", dependencies: ["CPocketSphinx"]),
        // PocketSphinx's tied-mixture Gaussians scored eight at a time, the same scores to the bit (C: SIMD).
        .target(name: "CGaussianScoring", dependencies: ["CPocketSphinx"]),
        // The word pairs of search queries (scripts/make-query-bigrams.py), a C string.
        .target(name: "CQueryBigrams"),
        // sphinxbase's log caught: errors kept for the message, a fatal one reported before the library exits (C:
        // its callback is variadic).
        .target(name: "CSphinxLog", dependencies: ["CPocketSphinx"]),
        .target(
            name: "JarvisCore",
            dependencies: ["CFFTW", "CPocketSphinx", "CLanguageModel", "CGaussianScoring", "CQueryBigrams", "CSphinxLog",
                           "CSndFile", "CALSA", "Yams"]
        ),
        .executableTarget(
            name: "jarvis",
            dependencies: [
                "JarvisCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "JarvisCoreTests", dependencies: ["JarvisCore"]),
        .testTarget(name: "JarvisEndToEndTests", dependencies: ["JarvisCore"]),
    ]
)
