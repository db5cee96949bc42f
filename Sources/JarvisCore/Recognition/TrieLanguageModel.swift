import Foundation

/// An n-gram language model read from sphinxbase's binary trie format (`.lm.bin`, as Debian's `en-us.lm.bin`).
///
/// sphinxbase can score such a model but cannot list its n-grams (its trie has no iterator, and writing it as
/// ARPA aborts), so a smaller model can only be made from it by reading the format itself. The layout, as
/// sphinxbase 5prealpha writes it (all little-endian):
/// - the text `Trie Language Model`, the order (1 byte), one 32-bit count per order;
/// - from order 2: a 32-bit quantiser type and the quantiser's tables, 65,536 floats each: probability and
///   backoff for every middle order, then probability for the highest;
/// - the unigrams, `count[0] + 1` records of (probability: Float, backoff: Float, first child: UInt32);
/// - each middle order as a bit-packed array of (word, backoff code: 16 bits, probability code: 16 bits, first
///   child), then the highest order as (word, probability code);
/// - the word list: its length in bytes (32-bit) and the words, each ended by a NUL.
///
/// The trie is keyed from the predicted word backwards: an entry at level k under a parent at level k − 1
/// adds the word heard before the parent's words. Scores are in sphinxbase's log units (base 1.0001);
/// this type gives them as log10.
public struct TrieLanguageModel: Sendable {
    /// Why a file cannot be read as a trie model.
    public struct FormatError: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let reason: String
        public var description: String { "'\(path)' is not a usable sphinxbase trie language model: \(reason)." }
    }

    /// One order of the model.
    public struct Level: Sendable {
        /// The word each entry adds: at level 1 the predicted word (the entry's index), above it the word heard
        /// before the parent's words.
        public var word: [Int32] = []
        /// The entry's parent in the level below: the same n-gram without its oldest word (level 1: empty).
        public var parent: [Int32] = []
        /// log10 P(last word | the words before it).
        public var log10Probability: [Float] = []
        /// log10 backoff weight of the n-gram as a history (empty at the highest order).
        public var log10Backoff: [Float] = []
        /// The entry's children in the level above are `next[i] ..< next[i + 1]` (empty at the highest order).
        public var next: [Int32] = []
        /// Above level 1: the quantiser's codes of the probability and backoff (as stored).
        var probabilityCode: [UInt16] = []
        var backoffCode: [UInt16] = []

        public var count: Int { log10Probability.count }
    }

    /// sphinxbase's log base is 1.0001; one unit is this much log10.
    static let log10PerUnit = Float(log10(1.0001))
    private static let header = Array("Trie Language Model".utf8)
    private static let quantBins = 65_536

    public let words: [String]
    private let wordIDs: [String: Int32]
    /// `levels[0]` holds the unigrams, `levels[order - 1]` the highest order.
    public let levels: [Level]
    public var order: Int { levels.count }
    /// As stored: the quantiser's type and tables (log units), the unigrams' (probability, backoff) pairs (log
    /// units), and the size of the word list's length field (4 or 8 bytes).
    private var quantizerType: UInt32 = 0
    private var quantizerTables: [[Float]] = []
    private var rawUnigrams: [Float] = []
    private var wordListLengthBytes = 4

    /// Reads the model at `path` (memory-mapped while reading).
    public init(path: String) throws(FormatError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw FormatError(path: path, reason: "it cannot be read (\(error.localizedDescription))")
        }
        let parsed: Result<Parsed, FormatError> = data.withUnsafeBytes { raw in
            do throws(FormatError) {
                return .success(try Self.parse(raw, path: path))
            } catch {
                return .failure(error)
            }
        }
        let p = try parsed.get()
        (words, levels) = (p.words, p.levels)
        (quantizerType, quantizerTables, rawUnigrams, wordListLengthBytes) =
            (p.quantizerType, p.quantizerTables, p.rawUnigrams, p.wordListLengthBytes)
        wordIDs = Dictionary(words.enumerated().map { ($0.element, Int32($0.offset)) }, uniquingKeysWith: { a, _ in a })
    }

    /// Whether the file at `path` starts like a trie model (reads only its first bytes).
    public static func isTrieModel(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: header.count)).map { Array($0) == header } ?? false
    }

    // MARK: queries

    /// The word's id, nil when the model does not know it.
    public func id(of word: String) -> Int32? {
        wordIDs[word]
    }

    /// The words of entry `index` at `level` (0-based), oldest first (as an ARPA line lists them).
    public func words(level: Int, entry index: Int) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(level + 1)
        var l = level, i = index
        while l > 0 {
            result.append(levels[l].word[i])
            i = Int(levels[l].parent[i])
            l -= 1
        }
        result.append(Int32(i))
        return result
    }

    /// The entry holding exactly the n-gram `ngram` (oldest word first), nil when the model has no such entry.
    public func find(_ ngram: some BidirectionalCollection<Int32>) -> Int? {
        guard let last = ngram.last, last >= 0, Int(last) < levels[0].count, ngram.count <= order else { return nil }
        var index = Int(last)
        var level = 0
        for word in ngram.reversed().dropFirst() {
            let next = levels[level].next
            guard !next.isEmpty else { return nil }
            let range = Int(next[index])..<Int(next[index + 1])
            level += 1
            guard let found = Self.search(levels[level].word, in: range, for: word) else { return nil }
            index = found
        }
        return index
    }

    /// log10 P(`word` | `history`) with backoff, as an ARPA model defines it (`history` oldest first).
    public func log10Probability(of word: Int32, after history: [Int32]) -> Float {
        let context = Array(history.suffix(order - 1))
        if let entry = find(context + [word]) {
            return levels[context.count].log10Probability[entry]
        }
        guard !context.isEmpty else { return -99 }
        let backoff = find(context).map { levels[context.count - 1].log10Backoff.isEmpty ? 0
                                                : levels[context.count - 1].log10Backoff[$0] } ?? 0
        return backoff + log10Probability(of: word, after: Array(context.dropFirst()))
    }

    /// Binary search for `word` among the sorted words `words[range]`.
    private static func search(_ words: [Int32], in range: Range<Int>, for word: Int32) -> Int? {
        var low = range.lowerBound, high = range.upperBound
        while low < high {
            let mid = (low + high) / 2
            let w = words[mid]
            if w == word { return mid }
            if w < word { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    // MARK: writing

    /// The model cut down to the entries marked in `kept` (one array per level; a kept entry's parent must be
    /// kept), in the same format: the same quantiser, so every kept n-gram keeps its exact score. Words keep
    /// their order, so children stay sorted for sphinxbase's search.
    public func binary(keeping kept: [[Bool]]) -> Data {
        precondition(kept.count == order && zip(kept, levels).allSatisfy { $0.count == $1.count })
        // New indices of kept entries, level by level.
        var newIndex: [[Int32]] = []
        var counts: [Int] = []
        for k in kept {
            var indices = [Int32](repeating: -1, count: k.count)
            var next: Int32 = 0
            for i in k.indices where k[i] {
                indices[i] = next
                next += 1
            }
            newIndex.append(indices)
            counts.append(Int(next))
        }
        var out = Data()
        out.append(contentsOf: Self.header)
        out.append(UInt8(order))
        for c in counts { Self.append(UInt32(c), to: &out) }
        if order > 1 {
            Self.append(quantizerType, to: &out)
            for table in quantizerTables {
                table.withUnsafeBytes { out.append(contentsOf: $0) }
            }
        }
        // Unigrams, each with the index of its first kept child.
        let wordBits = Self.requiredBits(UInt32(counts[0]))
        var firstChild: Int32 = 0
        for i in 0..<levels[0].count where kept[0][i] {
            Self.append(rawUnigrams[2 * i].bitPattern, to: &out)
            Self.append(rawUnigrams[2 * i + 1].bitPattern, to: &out)
            Self.append(UInt32(firstChild), to: &out)
            if order > 1 {
                firstChild += Int32(kept[1][Int(levels[0].next[i])..<Int(levels[0].next[i + 1])].lazy.filter { $0 }.count)
            }
        }
        Self.append(0 as UInt32, to: &out)
        Self.append(0 as UInt32, to: &out)
        Self.append(UInt32(firstChild), to: &out)
        for l in 1..<order {
            let level = levels[l]
            let isLongest = l == order - 1
            let nextBits = isLongest ? 0 : Self.requiredBits(UInt32(counts[l + 1]))
            let totalBits = wordBits + (isLongest ? 16 : 32) + nextBits
            var bits = [UInt8](repeating: 0, count: ((1 + counts[l]) * totalBits + 7) / 8 + 8)
            var at = 0
            var child: Int32 = 0
            for e in 0..<level.count where kept[l][e] {
                Self.put(UInt64(newIndex[0][Int(level.word[e])]), at: at, in: &bits)
                if isLongest {
                    Self.put(UInt64(level.probabilityCode[e]), at: at + wordBits, in: &bits)
                } else {
                    Self.put(UInt64(level.backoffCode[e]) | UInt64(level.probabilityCode[e]) << 16, at: at + wordBits, in: &bits)
                    Self.put(UInt64(child), at: at + wordBits + 32, in: &bits)
                    child += Int32(kept[l + 1][Int(level.next[e])..<Int(level.next[e + 1])].lazy.filter { $0 }.count)
                }
                at += totalBits
            }
            if !isLongest { Self.put(UInt64(child), at: at + wordBits + 32, in: &bits) }
            out.append(contentsOf: bits)
        }
        var list: [UInt8] = []
        for i in words.indices where kept[0][i] { list += Array(words[i].utf8) + [0] }
        if wordListLengthBytes == 8 { Self.append(UInt64(list.count), to: &out) } else { Self.append(UInt32(list.count), to: &out) }
        out.append(contentsOf: list)
        return out
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    /// ORs `value` into `bits` at bit offset `at` (little-endian, as sphinxbase's bit arrays; at most 57 bits).
    private static func put(_ value: UInt64, at: Int, in bits: inout [UInt8]) {
        let shifted = value << UInt64(at & 7)
        for i in 0..<8 where shifted >> UInt64(8 * i) != 0 {
            bits[at >> 3 + i] |= UInt8(truncatingIfNeeded: shifted >> UInt64(8 * i))
        }
    }

    // MARK: parsing

    /// Bits needed for values up to `max` (sphinxbase's `bitarr_required_bits`).
    static func requiredBits(_ max: UInt32) -> Int {
        max == 0 ? 0 : UInt32.bitWidth - max.leadingZeroBitCount
    }

    private struct Parsed {
        var words: [String] = []
        var levels: [Level] = []
        var quantizerType: UInt32 = 0
        var quantizerTables: [[Float]] = []
        var rawUnigrams: [Float] = []
        var wordListLengthBytes = 4
    }

    /// The quantiser's tables from order 2: probability and backoff for each middle order, probability for the
    /// highest.
    static func quantizerTableCount(order: Int) -> Int { 2 * (order - 2) + 1 }

    /// Bytes of level `level` (≥ 1) of a model with these header counts: one bit-packed record more than
    /// its count (the end of the last child range) and 8 bytes of slack, as sphinxbase sizes it.
    static func levelBytes(_ level: Int, counts: [UInt32]) -> Int {
        let isLongest = level == counts.count - 1
        let totalBits = requiredBits(counts[0]) + (isLongest ? 16 : 32) + (isLongest ? 0 : requiredBits(counts[level + 1]))
        return ((1 + Int(counts[level])) * totalBits + 7) / 8 + 8
    }

    /// Whether the file at `path` has a trie model's header and exactly the length its header and word list
    /// promise (reads the header and the word list's length only): a cheap check that it is whole.
    public static func isComplete(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let start = try? handle.read(upToCount: header.count + 1 + 5 * 4), start.count > header.count,
              Array(start.prefix(header.count)) == header else { return false }
        let order = Int(start[header.count])
        guard (1...5).contains(order), start.count >= header.count + 1 + 4 * order,
              let fileSize = try? handle.seekToEnd() else { return false }
        let counts = (0..<order).map { i in
            start.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: header.count + 1 + 4 * i, as: UInt32.self)) }
        }
        var offset = header.count + 1 + 4 * order + (Int(counts[0]) + 1) * 12
        if order > 1 { offset += 4 + quantizerTableCount(order: order) * quantBins * 4 }
        for level in 1..<order { offset += levelBytes(level, counts: counts) }
        // The word list's length field (32-bit, or 64-bit in later sphinxbase) must account for the rest.
        guard fileSize >= UInt64(offset), (try? handle.seek(toOffset: UInt64(offset))) != nil,
              let field = try? handle.read(upToCount: 8), field.count >= 4 else { return false }
        let rest = fileSize - UInt64(offset)
        let length32 = field.withUnsafeBytes { UInt64(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        let length64 = field.count == 8 ? field.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) } : nil
        return length32 == rest - 4 || (rest >= 8 && length64 == rest - 8)
    }

    private static func parse(_ raw: UnsafeRawBufferPointer, path: String) throws(FormatError) -> Parsed {
        var result = Parsed()
        var reader = ByteReader(raw: raw)
        func fail(_ reason: String) -> FormatError { FormatError(path: path, reason: reason) }
        guard raw.count > header.count, Array(raw.prefix(header.count)) == header else {
            throw fail("it does not start with \"Trie Language Model\"")
        }
        reader.offset = header.count
        guard let orderByte = reader.bytes(1)?.first, (1...5).contains(orderByte) else {
            throw fail("its order is missing or not between 1 and 5")
        }
        let order = Int(orderByte)
        var counts: [UInt32] = []
        for _ in 0..<order {
            guard let c = reader.uint32() else { throw fail("it ends inside its header") }
            counts.append(c)
        }
        guard counts[0] > 0, counts[0] < 1 << 25 else { throw fail("its unigram count \(counts[0]) is out of range") }

        var tables: [[Float]] = []
        if order > 1 {
            guard let type = reader.uint32() else { throw fail("it ends inside its header") }
            result.quantizerType = type
            for _ in 0..<quantizerTableCount(order: order) {
                guard let table = reader.floats(quantBins) else { throw fail("it ends inside its quantiser tables") }
                result.quantizerTables.append(table)
                tables.append(table.map { $0 * log10PerUnit })
            }
        }

        // Unigrams: (probability, backoff, first child) records.
        let unigramCount = Int(counts[0])
        guard let unigramBytes = reader.bytes((unigramCount + 1) * 12) else { throw fail("it ends inside its unigrams") }
        var unigrams = Level()
        unigrams.word = []
        unigrams.log10Probability.reserveCapacity(unigramCount)
        unigrams.log10Backoff.reserveCapacity(unigramCount)
        unigrams.next.reserveCapacity(unigramCount + 1)
        for i in 0...unigramCount {
            let base = unigramBytes.baseAddress! + i * 12
            if i < unigramCount {
                let probability = base.loadUnaligned(as: Float.self)
                let backoff = base.loadUnaligned(fromByteOffset: 4, as: Float.self)
                result.rawUnigrams += [probability, backoff]
                unigrams.log10Probability.append(probability * log10PerUnit)
                unigrams.log10Backoff.append(backoff * log10PerUnit)
            }
            unigrams.next.append(Int32(bitPattern: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
        }
        if order == 1 { unigrams.next = [] }
        // Child ranges must be ordered and start at 0, or a damaged file would send reads out of bounds.
        func checkRanges(_ next: [Int32], order n: Int) throws(FormatError) {
            guard next.isEmpty || (next[0] == 0 && zip(next, next.dropFirst()).allSatisfy { $0 <= $1 }) else {
                throw fail("its order-\(n) entries point to their children out of order")
            }
        }
        try checkRanges(unigrams.next, order: 1)
        var levels = [unigrams]

        // Higher orders: bit-packed arrays, sized from the header's counts.
        let wordBits = requiredBits(counts[0])
        var entries = order > 1 ? Int(unigrams.next[unigramCount]) : 0
        for level in 1..<order {
            let isLongest = level == order - 1
            let nextBits = isLongest ? 0 : requiredBits(counts[level + 1])
            let totalBits = wordBits + (isLongest ? 16 : 32) + nextBits
            let declared = Int(counts[level])
            let size = levelBytes(level, counts: counts)
            guard entries <= declared else {
                throw fail("its order-\(level + 1) entries (\(entries)) exceed the header's count (\(declared))")
            }
            guard let bits = reader.bytes(size) else { throw fail("it ends inside its order-\(level + 1) n-grams") }
            let below = levels[level - 1]
            var current = Level()
            current.word.reserveCapacity(entries)
            current.parent.reserveCapacity(entries)
            current.log10Probability.reserveCapacity(entries)
            let probabilities = tables[2 * (level - 1)]
            let backoffs = isLongest ? [] : tables[2 * (level - 1) + 1]
            let wordMask = UInt64(1) << wordBits - 1
            let codeMask = UInt64(0xFFFF)
            let nextMask = UInt64(1) << nextBits - 1
            func field(_ bitOffset: Int, _ mask: UInt64) -> UInt64 {
                let word = (bits.baseAddress! + bitOffset >> 3).loadUnaligned(as: UInt64.self)
                return (UInt64(littleEndian: word) >> UInt64(bitOffset & 7)) & mask
            }
            var parent = 0
            for e in 0...entries {
                let at = e * totalBits
                if !isLongest {
                    current.next.append(Int32(field(at + wordBits + 32, nextMask)))
                }
                guard e < entries else { break }
                while parent + 1 < below.next.count, Int(below.next[parent + 1]) <= e { parent += 1 }
                let word = field(at, wordMask)
                guard word < UInt64(counts[0]) else { throw fail("an order-\(level + 1) entry names word \(word)") }
                current.word.append(Int32(word))
                current.parent.append(Int32(parent))
                let probabilityCode = Int(field(at + wordBits + (isLongest ? 0 : 16), codeMask))
                current.probabilityCode.append(UInt16(probabilityCode))
                current.log10Probability.append(probabilities[probabilityCode])
                if !isLongest {
                    let backoffCode = Int(field(at + wordBits, codeMask))
                    current.backoffCode.append(UInt16(backoffCode))
                    current.log10Backoff.append(backoffs[backoffCode])
                }
            }
            try checkRanges(current.next, order: level + 1)
            levels.append(current)
            entries = isLongest ? 0 : Int(current.next[current.count])
        }

        // The word list: 32-bit length (64-bit in later sphinxbase), then NUL-ended words.
        let listStart = reader.offset
        var words: [String]?
        for lengthBytes in [4, 8] {
            reader.offset = listStart
            let length = lengthBytes == 4 ? reader.uint32().map(Int.init) : reader.uint64().map(Int.init)
            guard let length, listStart + lengthBytes + length == raw.count, let list = reader.bytes(length) else { continue }
            let split = list.split(separator: 0, omittingEmptySubsequences: false)
            guard split.count == unigramCount + 1 else { continue }
            words = split.dropLast().map { String(decoding: $0, as: UTF8.self) }
            result.wordListLengthBytes = lengthBytes
            break
        }
        guard let words else { throw fail("its word list does not hold \(unigramCount) words to the end of the file") }
        result.words = words
        result.levels = levels
        return result
    }

    /// Sequential reads from a byte buffer; nil past its end.
    private struct ByteReader {
        let raw: UnsafeRawBufferPointer
        var offset = 0

        mutating func bytes(_ n: Int) -> UnsafeRawBufferPointer? {
            guard n >= 0, offset + n <= raw.count else { return nil }
            defer { offset += n }
            return UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + n)])
        }

        mutating func uint32() -> UInt32? {
            bytes(4).map { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        }

        mutating func uint64() -> UInt64? {
            bytes(8).map { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        }

        mutating func floats(_ n: Int) -> [Float]? {
            bytes(n * 4).map { b in (0..<n).map { b.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) } }
        }
    }
}
