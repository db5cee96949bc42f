import CPocketSphinx
import Foundation
import Synchronization

/// The part of a PocketSphinx acoustic model that a decoder over a small grammar can ever use: its
/// context-independent phones, the triphones of the grammar's words (every cross-word context of their first
/// and last phones, every context of a one-phone word), and the mixture weights of the senones those use.
/// Means, variances and transition matrices stay the model's own files.
///
/// The live decoder (the wake proposer) hears only the wake grammar's ~120 words and its 17 loop phones, yet
/// loaded the whole model definition (137,053 triphones, 2.9 MB, every page touched when it is read) and
/// mixture weights (5,126 senones, 1.9 MB) a second time beside the grammar decoder. Its subset holds about
/// 33,000 triphones and 3,400 senones: the dev stream's peak memory 90.4 → 87.3 MB, its events unchanged.
/// Each context PocketSphinx can ask for gets the triphone it would take from the whole model (`nearest`);
/// the scores still differ a little (1.3 % on a fixture's path), as the senones of the triphones left out are
/// no longer part of each frame's normalisation.
///
/// Supports the binary model definition (`mdef`, native byte order, a fixed number of states per phone) and
/// the 8-bit, unclustered `sendump` of Debian's models; anything else is `Unsupported` (use the whole model).
public struct AcousticModelSubset: Sendable {
    /// The model definition in PocketSphinx's text format (version 0.3).
    public let modelDefinition: String
    /// The mixture weights (`sendump` format) of the kept senones, renumbered as in `modelDefinition`.
    public let mixtureWeights: Data
    /// Triphones (context-dependent phones) kept, and senones kept (context-independent ones included).
    public let triphoneCount: Int
    public let senoneCount: Int

    public struct Unsupported: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// - Parameters:
    ///   - modelFolder: the acoustic model folder (`mdef`, `sendump`, …).
    ///   - pronunciations: the phones of every pronunciation of every word the decoder's grammar holds.
    public init(modelFolder: String, pronunciations: [[String]]) throws(Unsupported) {
        let definition = try BinaryModelDefinition(path: modelFolder + "/mdef")
        // Every triphone the decoder can ask for: the first phone of a word after any phone, the last before
        // any, the inner ones between their neighbours, a one-phone word between any two. Each gets the
        // triphone PocketSphinx would take from the whole model (`nearest`), so every HMM is the same.
        let all = 0..<definition.ciPhones.count
        var queries = Set<BinaryModelDefinition.Context>()
        for phones in pronunciations {
            let ids = try phones.map { phone throws(Unsupported) -> Int in
                guard let id = definition.phoneIDs[phone] else {
                    throw Unsupported(description: "the model has no phone \(phone)")
                }
                return id
            }
            guard let first = ids.first, let last = ids.last else { continue }
            guard ids.count > 1 else {
                for l in all { for r in all { queries.insert(.init(first, l, r, .single)) } }
                continue
            }
            for other in all {
                queries.insert(.init(first, other, ids[1], .begin))
                queries.insert(.init(last, ids[ids.count - 2], other, .end))
            }
            for i in 1..<(ids.count - 1) { queries.insert(.init(ids[i], ids[i - 1], ids[i + 1], .internal)) }
        }
        let kept = Set(queries.compactMap(definition.nearest)).sorted().map { definition.triphones[$0] }
        // Context-independent senones keep their numbers (they come first); the kept triphones' own follow.
        let ciSenones = definition.contextIndependentSenones
        let cdSenones = Set(kept.flatMap(definition.senones)).filter { $0 >= ciSenones }.sorted()
        var renumbered = [Int: Int]()
        for (i, s) in cdSenones.enumerated() { renumbered[s] = ciSenones + i }
        let order = Array(0..<ciSenones) + cdSenones

        var text = """
            0.3
            \(definition.ciPhones.count) n_base
            \(kept.count) n_tri
            \((definition.ciPhones.count + kept.count) * (definition.statesPerPhone + 1)) n_state_map
            \(order.count) n_tied_state
            \(ciSenones) n_tied_ci_state
            \(definition.transitionMatrices) n_tied_tmat
            #

            """
        for phone in definition.ciPhones {
            text += "\(phone.name) - - - \(phone.filler ? "filler" : "n/a") \(phone.transitionMatrix) "
                + phone.senones.map(String.init).joined(separator: " ") + " N\n"
        }
        for t in kept {
            let names = [t.base, t.left, t.right].map { definition.ciPhones[Int($0)].name }
            text += "\(names.joined(separator: " ")) \(t.position.letter) "
                + "\(definition.ciPhones[Int(t.base)].filler ? "filler" : "n/a") \(t.transitionMatrix) "
                + definition.senones(of: t).map { String(renumbered[$0] ?? $0) }.joined(separator: " ") + " N\n"
        }
        modelDefinition = text
        mixtureWeights = try Self.mixtureWeights(path: modelFolder + "/sendump", senones: order,
                                                 of: definition.senoneCount)
        triphoneCount = kept.count
        senoneCount = order.count
    }

    /// The subset for these pronunciations, made once per process for the last ones asked for: the pipeline's
    /// second recogniser (`RecognizerSettings.highVoiceWarp`) and each file of a `replay` or `eval` ask for the
    /// same one (measured: making it is about 2 % of the dev stream's CPU).
    public static func shared(modelFolder: String, pronunciations: [[String]]) throws(Unsupported) -> AcousticModelSubset {
        try lastMade.withLock { last throws(Unsupported) -> AcousticModelSubset in
            if let last, last.modelFolder == modelFolder, last.pronunciations == pronunciations { return last.subset }
            let subset = try AcousticModelSubset(modelFolder: modelFolder, pronunciations: pronunciations)
            last = (modelFolder, pronunciations, subset)
            return subset
        }
    }

    private static let lastMade = Mutex<(modelFolder: String, pronunciations: [[String]], subset: AcousticModelSubset)?>(nil)

    /// A folder holding the subset for these pronunciations, its definition in PocketSphinx's binary format:
    /// from the cache (`PrunedLanguageModel`'s folders), made there first when missing. A decoder reads the
    /// binary definition without parsing it; making the subset and parsing its text took about half of a
    /// replay's start-up (measured below). Keyed by the model's files (path, size, modification time) and the
    /// pronunciations; the folder is made under a temporary name and renamed, so processes making the same one
    /// at once never see it partial. nil when no cache folder is writable (use `writeTemporary`).
    public static func cachedFolder(modelFolder: String, pronunciations: [[String]],
                                    cacheDirectory: String? = nil) throws(Unsupported) -> String? {
        var key = "am-v1|\(modelFolder)"
        for file in ["mdef", "sendump"] { key += "|" + PrunedLanguageModel.fileStamp(modelFolder + "/" + file) }
        key += "|" + Set(pronunciations.map { $0.joined(separator: " ") }).sorted().joined(separator: ",")
        let name = "am-\(String(fnv1a(key.utf8), radix: 16))"
        for directory in cacheDirectory.map({ [$0] }) ?? PrunedLanguageModel.defaultCacheDirectories() {
            let target = directory + "/" + name
            if isComplete(folder: target) {
                utimes(target, nil)  // marks it used now, for `removeStale`
                return target
            }
            guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil,
                  FileManager.default.isWritableFile(atPath: directory) else { continue }
            let subset = try shared(modelFolder: modelFolder, pronunciations: pronunciations)
            guard let made = try? subset.writeTemporary(in: directory) else { continue }
            defer { try? FileManager.default.removeItem(atPath: made) }
            let text = made + "/mdef", binary = made + "/mdef.bin"
            guard jarvis_mdef_text_to_binary(text, binary) == 0, rename(binary, text) == 0 else { continue }
            if FileManager.default.fileExists(atPath: target) && !isComplete(folder: target) {
                // A damaged one, moved aside first (`removeStale` deletes it): another process may be making it.
                _ = rename(target, directory + "/jarvis-live-model-damaged-\(UUID().uuidString)")
            }
            // When another process made it meanwhile, the rename fails and theirs is taken.
            if rename(made, target) != 0 && !isComplete(folder: target) { continue }
            removeStale(in: directory)
            return target
        }
        return nil
    }

    /// Whether `folder` holds a binary model definition and mixture weights.
    static func isComplete(folder: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: folder + "/mdef") else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4)) ?? Data()
        let magic = head.count == 4 ? head.withUnsafeBytes { Int32(littleEndian: $0.loadUnaligned(as: Int32.self)) } : 0
        let weights = (try? FileManager.default.attributesOfItem(atPath: folder + "/sendump"))?[.size] as? NSNumber
        return magic == BinaryModelDefinition.magic && (weights?.intValue ?? 0) > 0
    }

    /// How many subsets the cache keeps (each command set and wake phrase makes its own, about 1.5 MB).
    public static let cachedSubsets = 4

    /// Removes all but the `cachedSubsets` most recently used subsets in `directory`, and folders an
    /// interrupted run left there more than 10 minutes ago.
    static func removeStale(in directory: String) {
        PrunedLanguageModel.removeStaleEntries(in: directory, keeping: cachedSubsets, isEntry: { $0.hasPrefix("am-") },
                                               isLeftover: { $0.hasPrefix("jarvis-live-model-") })
    }

    /// Writes `mdef` and `sendump` into a new temporary folder and returns its path (the caller removes it
    /// once the decoder is made: the definition is read whole, the weights' mapping outlives the file).
    public func writeTemporary(in directory: String = NSTemporaryDirectory()) throws(DecoderError) -> String {
        let folder = directory + "/jarvis-live-model-\(getpid())-\(UUID().uuidString)"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(modelDefinition.utf8).write(to: URL(fileURLWithPath: folder + "/mdef"))
            try mixtureWeights.write(to: URL(fileURLWithPath: folder + "/sendump"))
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw DecoderError(operation: "acoustic model subset", status: -1, detail: "cannot write \(folder)")
        }
        return folder
    }

    /// `sendump` keeping only `senones` (in that order): each of its rows (one per feature stream and
    /// Gaussian) holds one byte per senone.
    static func mixtureWeights(path: String, senones: [Int], of senoneCount: Int) throws(Unsupported) -> Data {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            throw Unsupported(description: "cannot read \(path)")
        }
        return try withBytes(of: data) { raw throws(Unsupported) -> Data in
            var reader = ByteReader(raw: raw)
            var out = Data()
            func appendInt32(_ value: Int) { withUnsafeBytes(of: Int32(value).littleEndian) { out.append(contentsOf: $0) } }
            // Length-prefixed header strings, ended by a zero length.
            while true {
                let length = try reader.int32()
                guard length >= 0 else { throw Unsupported(description: "\(path): bad header") }
                if length == 0 { break }
                var string = try reader.bytes(Int(length))
                let text = String(decoding: string.prefix { $0 != 0 }, as: UTF8.self)
                if text.hasPrefix("cluster_count "), text != "cluster_count 0" {
                    throw Unsupported(description: "\(path): clustered mixture weights")
                }
                if text.hasPrefix("cluster_bits "), text != "cluster_bits 8" {
                    throw Unsupported(description: "\(path): \(text)")
                }
                if text.hasPrefix("model_count ") {
                    string = Array("model_count \(senones.count)".utf8) + [0]
                }
                appendInt32(string.count)
                out.append(contentsOf: string)
            }
            appendInt32(0)
            let rows = Int(try reader.int32()), columns = Int(try reader.int32())
            guard columns == senoneCount, rows > 0, reader.remaining % (rows * columns) == 0 else {
                throw Unsupported(description: "\(path): \(columns) senones by \(rows), the model definition has \(senoneCount)")
            }
            appendInt32(rows)
            appendInt32(senones.count)
            let rowCount = reader.remaining / columns
            var row = [UInt8](repeating: 0, count: senones.count)
            for _ in 0..<rowCount {
                let start = reader.offset
                for (i, s) in senones.enumerated() { row[i] = raw[start + s] }
                out.append(contentsOf: row)
                reader.offset += columns
            }
            return out
        }
    }
}

/// `Data.withUnsafeBytes` for a body that throws only `Unsupported`.
func withBytes<T>(of data: Data, _ body: (UnsafeRawBufferPointer) throws(AcousticModelSubset.Unsupported) -> T)
    throws(AcousticModelSubset.Unsupported) -> T {
    let result = data.withUnsafeBytes { raw in
        Result { () throws(AcousticModelSubset.Unsupported) -> T in try body(raw) }
    }
    return try result.get()
}

/// Little-endian reads from a byte buffer, each bounds-checked.
struct ByteReader {
    let raw: UnsafeRawBufferPointer
    var offset = 0
    var remaining: Int { raw.count - offset }

    mutating func int32() throws(AcousticModelSubset.Unsupported) -> Int32 {
        guard remaining >= 4 else { throw AcousticModelSubset.Unsupported(description: "the file ends early") }
        defer { offset += 4 }
        return Int32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self))
    }

    mutating func byte() throws(AcousticModelSubset.Unsupported) -> UInt8 {
        guard remaining >= 1 else { throw AcousticModelSubset.Unsupported(description: "the file ends early") }
        defer { offset += 1 }
        return raw[offset]
    }

    mutating func skip(_ count: Int) throws(AcousticModelSubset.Unsupported) {
        guard count >= 0, remaining >= count else {
            throw AcousticModelSubset.Unsupported(description: "the file ends early")
        }
        offset += count
    }

    mutating func bytes(_ count: Int) throws(AcousticModelSubset.Unsupported) -> [UInt8] {
        guard count >= 0, remaining >= count else {
            throw AcousticModelSubset.Unsupported(description: "the file ends early")
        }
        defer { offset += count }
        return Array(raw[offset..<(offset + count)])
    }
}

/// PocketSphinx's binary model definition (`bin_mdef.c`'s format, version 1): phones and their senones.
/// Kept compact (a few MB for Debian's 137,053 triphones, freed once the subset is made): this runs while the
/// decoders load, and its peak adds to the process's.
struct BinaryModelDefinition {
    struct CIPhone {
        let name: String
        let filler: Bool
        let transitionMatrix: Int
        let senones: [Int]
    }
    enum Position: UInt8 {
        case `internal` = 0, begin, end, single
        var letter: Character { Array("ibes")[Int(rawValue)] }
    }
    struct Triphone {
        let base: UInt8, left: UInt8, right: UInt8
        let position: Position
        let transitionMatrix: Int32
        /// Index of its senone sequence (`senones(of:)`).
        let sequence: Int32
    }
    /// A phone in context, as PocketSphinx asks for it.
    struct Context: Hashable {
        let base: Int, left: Int, right: Int
        let position: Position
        init(_ base: Int, _ left: Int, _ right: Int, _ position: Position) {
            (self.base, self.left, self.right, self.position) = (base, left, right, position)
        }
    }
    let ciPhones: [CIPhone]
    let phoneIDs: [String: Int]
    let triphones: [Triphone]
    let statesPerPhone: Int
    let contextIndependentSenones: Int
    let senoneCount: Int
    let transitionMatrices: Int
    /// The senone sequences, `statesPerPhone` senones each.
    private let sequences: [UInt16]
    /// Index in `triphones` (or −1) of each context, at `key(_:)`.
    private let index: [Int32]

    static let magic: Int32 = 0x4644_4D42   // "BMDF" read in native (little-endian) order

    init(path: String) throws(AcousticModelSubset.Unsupported) {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            throw AcousticModelSubset.Unsupported(description: "cannot read \(path)")
        }
        func fail(_ what: String) -> AcousticModelSubset.Unsupported { .init(description: "\(path): \(what)") }
        var ci: [CIPhone] = [], tri: [Triphone] = [], sequences: [UInt16] = []
        var header: [Int] = []
        try withBytes(of: data) { raw throws(AcousticModelSubset.Unsupported) in
            var r = ByteReader(raw: raw)
            guard try r.int32() == Self.magic else { throw fail("not a native-order binary model definition") }
            guard try r.int32() <= 1 else { throw fail("a newer format") }
            r.offset += Int(try r.int32())   // the format description
            header = try (0..<10).map { _ throws(AcousticModelSubset.Unsupported) in Int(try r.int32()) }
            let (ciCount, phoneCount, states, ciSenones, senones, sequenceCount, treeNodes) =
                (header[0], header[1], header[2], header[3], header[4], header[6], header[8])
            guard states > 0, ciCount > 0, ciCount < 256, phoneCount >= ciCount, ciSenones > 0, senones >= ciSenones,
                  sequenceCount > 0, treeNodes >= 0 else { throw fail("an unsupported layout") }
            // Phone names (NUL-terminated), padded to 4 bytes; then the context tree, which is not needed.
            let namesStart = r.offset
            var names: [String] = []
            for _ in 0..<ciCount {
                var name: [UInt8] = []
                while case let byte = try r.byte(), byte != 0 { name.append(byte) }
                names.append(String(decoding: name, as: UTF8.self))
            }
            r.offset = namesStart + ((r.offset - namesStart + 3) & ~3)
            try r.skip(treeNodes * 8)
            var entries: [(sequence: Int32, tmat: Int32, attributes: (UInt8, UInt8, UInt8, UInt8))] = []
            entries.reserveCapacity(phoneCount)
            for _ in 0..<phoneCount {
                let sequence = try r.int32(), tmat = try r.int32()
                entries.append((sequence, tmat, (try r.byte(), try r.byte(), try r.byte(), try r.byte())))
            }
            guard Int(try r.int32()) == sequenceCount * states, r.remaining >= sequenceCount * states * 2 else {
                throw fail("bad senone sequences")
            }
            sequences = (0..<(sequenceCount * states)).map { i in
                UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: r.offset + 2 * i, as: UInt16.self))
            }
            guard sequences.allSatisfy({ Int($0) < senones }),
                  entries.allSatisfy({ $0.sequence >= 0 && Int($0.sequence) < sequenceCount }) else {
                throw fail("senone numbers out of range")
            }
            for (i, e) in entries[..<ciCount].enumerated() {
                let own = sequences[(Int(e.sequence) * states)..<(Int(e.sequence) * states + states)].map(Int.init)
                guard own.allSatisfy({ $0 < ciSenones }) else { throw fail("a context-independent phone's senones") }
                ci.append(CIPhone(name: names[i], filler: e.attributes.0 != 0, transitionMatrix: Int(e.tmat), senones: own))
            }
            tri.reserveCapacity(phoneCount - ciCount)
            for e in entries[ciCount...] {
                let (position, base, left, right) = e.attributes
                guard let position = Position(rawValue: position),
                      Int(base) < ciCount, Int(left) < ciCount, Int(right) < ciCount else { throw fail("a bad triphone") }
                tri.append(Triphone(base: base, left: left, right: right, position: position,
                                    transitionMatrix: e.tmat, sequence: e.sequence))
            }
        }
        ciPhones = ci
        triphones = tri
        self.sequences = sequences
        (statesPerPhone, contextIndependentSenones, senoneCount, transitionMatrices) =
            (header[2], header[3], header[4], header[5])
        phoneIDs = Dictionary(ci.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        var index = [Int32](repeating: -1, count: ci.count * ci.count * ci.count * 4)
        let n = ci.count
        for (i, t) in tri.enumerated() {
            let key = ((Int(t.base) * n + Int(t.left)) * n + Int(t.right)) * 4 + Int(t.position.rawValue)
            if index[key] < 0 { index[key] = Int32(i) }
        }
        self.index = index
    }

    /// The senones of a triphone's states.
    func senones(of triphone: Triphone) -> [Int] {
        let start = Int(triphone.sequence) * statesPerPhone
        return sequences[start..<(start + statesPerPhone)].map(Int.init)
    }

    private func triphone(_ base: Int, _ left: Int, _ right: Int, _ position: Position) -> Int? {
        let n = ciPhones.count
        let i = index[((base * n + left) * n + right) * 4 + Int(position.rawValue)]
        return i < 0 ? nil : Int(i)
    }

    /// The triphone PocketSphinx uses for `context` (`bin_mdef_phone_id_nearest`): the exact one, else the
    /// same contexts in another word position, else with silence for a filler context (and for the outer
    /// side of a word's first or last phone), in any position; nil: the context-independent phone.
    func nearest(_ context: Context) -> Int? {
        func anyPosition(_ left: Int, _ right: Int) -> Int? {
            if let i = triphone(context.base, left, right, context.position) { return i }
            for position in [Position.internal, .begin, .end, .single] where position != context.position {
                if let i = triphone(context.base, left, right, position) { return i }
            }
            return nil
        }
        if let i = anyPosition(context.left, context.right) { return i }
        guard let silence = phoneIDs["SIL"] else { return nil }
        let p = context.position
        let left = ciPhones[context.left].filler || p == .begin || p == .single ? silence : context.left
        let right = ciPhones[context.right].filler || p == .end || p == .single ? silence : context.right
        guard left != context.left || right != context.right else { return nil }
        return anyPosition(left, right)
    }
}
