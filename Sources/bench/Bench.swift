import Crypto
import Foundation
import Migration
import MigrationPackage
import Records
import WireCore

/// `swift run -c release bench`: throughput of the envelope and of pack/unpack, as ratios to
/// `openssl speed` measured in the same run on the same machine, and the peak memory of pack
/// and unpack for a small and a large store (run in child processes, read from their rusage).
@main
struct Bench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.count >= 2, arguments[1] == "child" {
            if ["send", "receive"].contains(arguments.dropFirst(2).first) {
                defer { printPeak() }
                try await MigrationBench.play(Array(arguments.dropFirst(2)))
            } else {
                try child(Array(arguments.dropFirst(2)))
            }
            return
        }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(
                """
                usage: bench [--quick] [--records | --package | --transfer | --migration] [--window N] [--cipher NAME]
                  (none)      every row: envelope, records, pack and unpack of 256 MiB and 2 GiB stores, 1 GiB transfers, 2 GiB migrations
                  --quick     smaller sizes (64 MiB stores, 256 MiB transfers)
                  --records   only the records rows
                  --package   only the envelope, pack and unpack rows
                  --transfer  only the transfer rows; --window N compares window N with window 1
                  --migration only the store-to-store rows, file-first against streaming (2 GiB; --quick: 256 MiB)
                  child store DIR MIB | child pack STORE OUT | child unpack OUT DIR   one step alone, to profile
                  --cipher    the envelope rows through one AES-GCM implementation: libcrypto or swift-crypto (default: each this build has)
                Build it in release mode: swift run -c release bench
                """)
            return
        }
        let quick = arguments.contains("--quick")
        // `--records` runs only the records rows (quick to profile: `perf record bench --records`).
        if arguments.contains("--records") {
            records(count: 100_000)
            return
        }
        if arguments.contains("--migration") {
            let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-\(getpid())")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let window = arguments.firstIndex(of: "--window").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? 16
            try MigrationBench.rows(quick: quick, window: window, work: work)
            return
        }
        // `--transfer` runs only the network transfer rows (they take the longest to set up).
        let transferOnly = arguments.contains("--transfer")
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        var ciphers = SegmentCipher.available
        if let i = arguments.firstIndex(of: "--cipher") {
            guard arguments.indices.contains(i + 1), let cipher = SegmentCipher(rawValue: arguments[i + 1]), ciphers.contains(cipher) else {
                FileHandle.standardError.write(Data("bench: --cipher takes one of \(ciphers.map(\.rawValue).joined(separator: ", "))\n".utf8))
                exit(2)
            }
            ciphers = [cipher]
        }
        print("bench: \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores; ratios are to openssl measured now")
        let calibration = SegmentCipher.calibration.map { "\($0.cipher.rawValue) \(Int($0.bytesPerSecond / 1e6)) MB/s" }
        print("bench: pack, unpack and transfers seal and open through \(SegmentCipher.fastest.rawValue) (measured at start: \(calibration.joined(separator: ", ")); DEVICE_DATA_AES_GCM names one)")
        let gcmRuns = Sample((0..<3).compactMap { _ in openssl(["-evp", "aes-256-gcm"]) })
        let shaRuns = Sample((0..<3).compactMap { _ in openssl(["-evp", "sha256"]) })
        let opensslGCM = gcmRuns?.median
        let opensslSHA = shaRuns?.median
        print(row("openssl aes-256-gcm (16 KiB blocks)", gcmRuns, nil))
        print(row("openssl sha256 (16 KiB blocks)", shaRuns, nil))

        // `--package` runs only the envelope, pack and unpack rows.
        let packageOnly = arguments.contains("--package")
        if !transferOnly {
            try packageRows(quick: quick, records: !packageOnly, ciphers: ciphers, work: work, opensslGCM: opensslGCM, opensslSHA: opensslSHA)
        }
        if packageOnly { return }

        let defaultWindow = try await transferRows(quick: quick, arguments: arguments, work: work, opensslSHA: opensslSHA)
        if !transferOnly { try MigrationBench.rows(quick: quick, window: defaultWindow, work: work) }
    }

    /// Transfers over loopback WebSocket with 1 MiB chunks, window 1 (the seed's send-then-wait)
    /// against the default window, with and without a 20 ms round trip, and watched. Returns the
    /// window compared.
    static func transferRows(quick: Bool, arguments: [String], work: URL, opensslSHA: Double?) async throws -> Int {
        let transferBytes: Int64 = quick ? 256 << 20 : 1 << 30
        let package = try TransferBench.package(bytes: transferBytes, chunkSize: 1 << 20, in: work)
        // The receiver writes to memory when it can, so the disk's rate for new files (measured
        // here, dd-style) does not cap what is a protocol measurement.
        let shm = URL(fileURLWithPath: "/dev/shm")
        let incoming = FileManager.default.isWritableFile(atPath: shm.path) ? shm.appendingPathComponent("bench-\(getpid())") : work
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: incoming) }
        let disk = Sample(try (0..<3).map { _ in try TransferBench.freshWriteRate(bytes: transferBytes, in: work) })
        print(row("new-file write to \(work.deletingLastPathComponent().path) (baseline)", disk, nil))
        // `--window N` compares another window with window 1 (the default: the machines' default).
        let defaultWindow = arguments.firstIndex(of: "--window").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
            ?? SenderMachine.Configuration().maxWindow
        let mib = transferBytes >> 20
        var rates: [String: Double] = [:]
        // Two cores shared by both peers and the kernel make single runs noisy (up to 2x between
        // runs here): each row is the median of three, with the spread beside it.
        for (window, delay) in [(1, false), (defaultWindow, false), (1, true), (defaultWindow, true)] {
            var runs: [Double] = []
            for _ in 0..<3 {
                runs.append(try await TransferBench.run(package, window: window, oneWayDelay: delay ? .milliseconds(10) : nil, folder: incoming))
            }
            let sample = Sample(runs)
            rates["\(window)-\(delay)"] = sample?.median
            print(row("transfer \(mib) MiB, window \(window)\(delay ? ", 20 ms RTT" : "")", sample, opensslSHA))
        }
        let slow = rates["1-true"] ?? .nan
        let fast = rates["\(defaultWindow)-true"] ?? .nan
        print(String(format: "  with 20 ms RTT, window %d / window 1: %.1fx", defaultWindow, fast / slow))
        // The same transfer through `conformance watch`, which judges every frame on the way.
        var watchedRuns: [Double] = []
        for _ in 0..<3 {
            watchedRuns.append(try await TransferBench.run(package, window: defaultWindow, oneWayDelay: .milliseconds(10), folder: incoming, watched: true))
        }
        let watched = Sample(watchedRuns)
        print(row("watched transfer, window \(defaultWindow), 20 ms RTT", watched, opensslSHA))
        print(String(format: "  watched / direct, window %d, 20 ms RTT: %.2fx", defaultWindow, (watched?.median ?? .nan) / fast))
        print("(transfer: from BackupMeta to the last chunk written by the receiver, into \(incoming.path); every chunk's SHA-256 is")
        print(" computed by the sender in the pass that hashes the package for BackupMeta and checked by the receiver;")
        print(" each side receives everything 10 ms late)")
        print("(every row: the median of 3 runs after a warm-up, min ... max in parentheses)")
        return defaultWindow
    }

    /// Envelope, SHA-256, records, and pack/unpack of growing stores with their peak memory.
    static func packageRows(quick: Bool, records withRecords: Bool, ciphers: [SegmentCipher], work: URL, opensslGCM: Double?, opensslSHA: Double?) throws {
        try envelopeRows(quick: quick, ciphers: ciphers, opensslGCM: opensslGCM, opensslSHA: opensslSHA)
        if withRecords { records(count: quick ? 20_000 : 100_000) }

        for size in quick ? [Int64(64 << 20)] : [Int64(256 << 20), Int64(2 << 30)] {
            let store = work.appendingPathComponent("store-\(size)")
            let package = work.appendingPathComponent("package-\(size).enc")
            let target = work.appendingPathComponent("target-\(size)")
            var options = SampleStore.Options()
            options.mediaBytes = size
            // The same entities and files at every size, only larger: what grows is bytes, not metadata.
            options.mediaCount = 400
            try SampleStore.generate(at: store, seed: 1, options: options)
            let storeBytes = Double(try directorySize(store))
            // The disk pack and unpack write to, as pack writes: a new file as large as the
            // store, 1 MiB at a time, then fsync. (Without the fsync and at 1 GiB this read
            // 0.7 to 5 GB/s here, depending on how much the kernel still had to write back.)
            let disk = Sample(try (0..<3).map { _ in try TransferBench.freshWriteRate(bytes: Int64(storeBytes), in: work, sync: true) })
            var packs: [(seconds: Double, peakKiB: Int)] = []
            var unpacks: [(seconds: Double, peakKiB: Int)] = []
            // Each unpack goes to the target the one before it left, removed first: its pages are
            // reused. (Pages this VM never used before are slow to touch: kept targets made every
            // unpack after the first half as fast, as the disk baseline's first run is.) A run that
            // follows the removal of thousands of files pays for it in ext4 without a journal, this
            // machine's root: creating a file walks past every inode deleted in the last minute
            // (`recently_deleted`); the bench's 400 files keep that small. Packs and unpacks take
            // turns: three packs in a row ran at a third of the first one's speed.
            // The package before it is removed first too: rename(2) over a 2 GiB file frees its
            // blocks inside the call (0.6 s here), which is not packing.
            for _ in 0..<3 {
                try? FileManager.default.removeItem(at: target)
                try? FileManager.default.removeItem(at: package)
                packs.append(try runChild(["pack", store.path, package.path]))
                unpacks.append(try runChild(["unpack", package.path, target.path]))
            }
            let mib = Int(storeBytes / 1_048_576)
            print(row("disk: new \(mib) MiB file + fsync", disk, nil))
            for (name, runs) in [("pack", packs), ("unpack", unpacks)] {
                let sample = Sample(runs.map { storeBytes / $0.seconds })
                let peak = runs.map(\.peakKiB).max() ?? -1
                print(row("\(name) \(mib) MiB store", sample, opensslSHA, baselineName: "openssl SHA-256") + String(format: "   %.2fx disk", (sample?.median ?? 0) / (disk?.median ?? .nan)) + "  peak RSS \(peak / 1024) MiB")
            }
            try? FileManager.default.removeItem(at: store)
            try? FileManager.default.removeItem(at: package)
            try? FileManager.default.removeItem(at: target)
        }
        print("(stores: 300 stories, 400 media files whose size grows with the store; pack and unpack include")
        print(" PBKDF2 with 1000 test iterations, zip, SHA-256 of every file and the atomic switch; each in its own")
        print(" process, the peak RSS the largest of its runs)")
    }

    /// Seal and open through each cipher, streaming as packing does (one segment at a time into a
    /// reused frame buffer), and swift-crypto's SHA-256.
    static func envelopeRows(quick: Bool, ciphers: [SegmentCipher], opensslGCM: Double?, opensslSHA: Double?) throws {
        // Streaming, as packing does: one segment at a time into a reused frame buffer.
        let total = quick ? 64 << 20 : 256 << 20
        let segment = [UInt8](repeating: 0x5A, count: 1 << 16)
        var random = ScriptedBytes(Array(repeating: 1, count: 23))
        let small = try Envelope.seal([UInt8](repeating: 0x5A, count: 32 << 20), password: "bench", segmentSize: 1 << 16, iterations: 1000, random: &random)
        var frames: [[UInt8]] = []
        var offset = EnvelopeHeader.length
        while offset < small.count {
            frames.append(Array(small[offset..<min(small.count, offset + (1 << 16) + EnvelopeHeader.frameOverhead)]))
            offset += (1 << 16) + EnvelopeHeader.frameOverhead
        }
        for cipher in ciphers {
            let seal = try measure(bytes: total) {
                var random = ScriptedBytes(Array(repeating: 1, count: 23))
                var sealer = try EnvelopeSealer(
                    password: "bench", plaintextLength: UInt64(total), segmentSize: 1 << 16, iterations: 1000, cipher: cipher, random: &random)
                var frame: [UInt8] = []
                frame.reserveCapacity(segment.count + EnvelopeHeader.frameOverhead)
                while !sealer.isFinished {
                    frame.removeAll(keepingCapacity: true)
                    try sealer.seal(segment, appendingTo: &frame)
                }
            }
            print(row("envelope seal (64 KiB, \(cipher.rawValue))", seal, opensslGCM))
            let open = try measure(bytes: (32 << 20) * (total / (32 << 20))) {
                for _ in 0..<(total / (32 << 20)) {
                    var opener = try EnvelopeOpener(
                        header: Array(small.prefix(EnvelopeHeader.length)), password: "bench", policy: EnvelopePolicy(iterations: 1...10_000_000), cipher: cipher)
                    for frame in frames { _ = try opener.open(frame) }
                }
            }
            print(row("envelope open (64 KiB, \(cipher.rawValue))", open, opensslGCM))
        }
        let payload = [UInt8](repeating: 0x5A, count: total)
        let sha = try measure(bytes: payload.count) { _ = SHA256.hash(data: payload) }
        print(row("swift-crypto SHA-256", sha, opensslSHA))
    }

    /// Records decoded and validated per second (the records family's full rules) against a plain
    /// `JSONDecoder` decode of the same documents into Codable structs (no validation at all).
    static func records(count: Int) {
        let documents: [Data] = (0..<count).map { i in
            let id = String(format: "%08x-9b7d-4c2e-8f10-5a6b7c8d9e0f", i)
            return Data(#"""
                {"recordName":"\#(id)","recordType":"Idea","recordChangeTag":"t\#(i)","fields":{"id":{"value":"\#(id)","type":"STRING"},\#
                "title":{"value":"买菜 🥬 item \#(i)","type":"STRING"},"description":{"value":"Milk, eggs and bread for the week","type":"STRING"},\#
                "isCompleted":{"value":\#(i % 2),"type":"INT64"},"createdAt":{"value":1747300000000,"type":"TIMESTAMP"},\#
                "updatedAt":{"value":1747300005000,"type":"TIMESTAMP"},"deviceId":{"value":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","type":"STRING"},\#
                "version":{"value":3,"type":"INT64"}},"created":{"timestamp":1747300000000},"modified":{"timestamp":1747300006000}}
                """#.utf8)
        }
        let bytes = documents.map { [UInt8]($0) }
        var accepted = 0
        let decoder = JSONDecoder()
        var decoded = 0
        let paired = try? measurePaired(
            items: count,
            {
                accepted = 0
                for document in bytes {
                    if (try? CloudRecord.decode(JSONParser.parse(document), as: "Idea")) != nil { accepted += 1 }
                }
            },
            against: {
                decoded = 0
                for document in documents {
                    if (try? decoder.decode(IdeaRecordCodable.self, from: document)) != nil { decoded += 1 }
                }
            })
        print(row("records decode + validate (Idea)", paired?.ours, nil, unit: "records/s") + "   (all \(accepted) accepted)")
        print(row("JSONDecoder into Codable (no checks)", paired?.baseline, nil, unit: "records/s"))
        if let ratio = paired?.ratio {
            print("  records validated per second / JSONDecoder decodes per second, each round's pair: " + String(format: "%.2fx (%.2f ... %.2f)", ratio.median, ratio.min, ratio.max))
        }
        _ = decoded
        // One object of many members (security review D1): linear parsing keeps the rate per
        // member whatever the object's size; the quadratic parser fell 10x per 10x members.
        var rates: [Int: Sample] = [:]
        for members in [20_000, 200_000] {
            let text = Array(("{" + (0..<members).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + "}").utf8)
            rates[members] = (try? measure(items: members) { _ = try JSONParser.parse(text, limits: JSONLimits(maxBytes: 64 << 20, maxDepth: 64)) }) ?? nil
            print(row("one object of \(members) members", rates[members], nil, unit: "members/s"))
        }
        print("  members/s at 200,000 / at 20,000 (linear: near 1x, caches aside; quadratic: 0.1x): " + String(format: "%.2fx", (rates[200_000]?.median ?? 0) / max(rates[20_000]?.median ?? 1, 1)))
    }

    /// Pack or unpack in this process, so the parent reads its peak memory alone.
    static func child(_ arguments: [String]) throws {
        defer { printPeak() }
        var random = GeneratorBytes(SystemRandomNumberGenerator())
        var pack = Packer.Options()
        pack.iterations = 1000
        switch arguments.first {
        case "pack":
            _ = try Packer.pack(DeviceStore(URL(fileURLWithPath: arguments[1])), to: URL(fileURLWithPath: arguments[2]), password: "bench", options: pack, now: 1_747_300_000, random: &random)
        case "store":
            // A store to profile pack and unpack on (`perf record bench child pack STORE OUT`).
            var options = SampleStore.Options()
            options.mediaBytes = Int64(arguments[2])! << 20
            options.mediaCount = 400
            try SampleStore.generate(at: URL(fileURLWithPath: arguments[1]), seed: 1, options: options)
        case "unpack":
            var options = Restorer.Options()
            options.policy = EnvelopePolicy(iterations: 1000...10_000_000)
            _ = try Restorer.restore(URL(fileURLWithPath: arguments[1]), password: "bench", into: DeviceStore(URL(fileURLWithPath: arguments[2])), options: options)
        default:
            throw BenchError.usage
        }
    }

    /// This process's own peak, VmHWM: Linux carries ru_maxrss across fork and exec, so rusage
    /// would count the parent's memory.
    static func printPeak() {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        print("peak-kib \(line.split(separator: " ").dropFirst().first ?? "-1")")
    }

    enum BenchError: Error { case usage, child(Int32), judged(String) }

    static func runChild(_ arguments: [String]) throws -> (seconds: Double, peakKiB: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["child"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        // Each run starts with nothing left to write back: a run that follows another's 2 GiB
        // of dirty pages is throttled by their writeback (unpack read half its speed then).
        sync()
        let start = Date()
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        guard process.terminationStatus == 0 else { throw BenchError.child(process.terminationStatus) }
        let peak = output.split(separator: "\n").first { $0.hasPrefix("peak-kib ") }.flatMap { Int($0.dropFirst(9)) } ?? -1
        return (seconds, peak)
    }

    /// Bytes (or items) per second of `body`: three timed runs after a warm-up.
    static func measure(bytes: Int, _ body: () throws -> Void) throws -> Sample? {
        try measure(items: bytes, body)
    }

    static func measure(items: Int, _ body: () throws -> Void) throws -> Sample? {
        try body()  // warm up
        return Sample(try (0..<3).map { _ in try rate(items: items, body) })
    }

    /// Items per second of one run of `body`.
    static func rate(items: Int, _ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        let d = start.duration(to: .now)
        return Double(items) / (Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }

    /// Rounds of `ours` and `baseline` run back to back, their order alternating, and each round's
    /// ratio: this VM's speed drifts within seconds, so a ratio of two medians measured apart moved
    /// from 1.7x to 2.9x between runs, while both sides of one round see the same machine.
    static func measurePaired(items: Int, rounds: Int = 5, _ ours: () throws -> Void, against baseline: () throws -> Void) throws -> (ours: Sample, baseline: Sample, ratio: Sample)? {
        try ours()  // warm up
        try baseline()
        var pairs: [(ours: Double, baseline: Double)] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                let a = try rate(items: items, ours)
                pairs.append((a, try rate(items: items, baseline)))
            } else {
                let b = try rate(items: items, baseline)
                pairs.append((try rate(items: items, ours), b))
            }
        }
        guard let o = Sample(pairs.map(\.ours)), let b = Sample(pairs.map(\.baseline)), let r = Sample(pairs.map { $0.ours / $0.baseline }) else { return nil }
        return (o, b, r)
    }

    /// The CPU's name (`/proc/cpuinfo`'s first model name): the ratios hold per kind of CPU.
    static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        else { return "CPU unknown" }
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    /// Bytes per second from `openssl speed -bytes 16384 -seconds 2`.
    static func openssl(_ arguments: [String]) -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "speed"] + arguments + ["-bytes", "16384", "-seconds", "2"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let last = text.split(separator: "\n").last, let field = last.split(separator: " ").last, field.hasSuffix("k"),
            let kilo = Double(field.dropLast())
        else { return nil }
        return kilo * 1000
    }

    static func directorySize(_ url: URL) throws -> Int64 {
        var total: Int64 = 0
        for case let file as URL in FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey]) ?? FileManager.default.enumerator(atPath: "/")! {
            total += Int64((try file.resourceValues(forKeys: [.fileSizeKey])).fileSize ?? 0)
        }
        return total
    }

    /// One row: the median rate, its ratio to `baseline` (measured in the same run), and the spread.
    static func row(_ name: String, _ sample: Sample?, _ baseline: Double?, baselineName: String = "openssl", unit: String = "MB/s") -> String {
        let label = name.padding(toLength: 40, withPad: " ", startingAt: 0)
        guard let sample else { return label + "   (not available)" }
        let scale = unit == "MB/s" ? 1_000_000.0 : 1
        var text = label + String(format: "%9.0f ", sample.median / scale) + unit
        if let baseline { text += String(format: "   %.2fx ", sample.median / baseline) + baselineName }
        return text + String(format: "   (%.0f ... %.0f)", sample.min / scale, sample.max / scale)
    }
}

/// Rates of repeated runs: the median is reported, min and max beside it (this machine varies up
/// to 2x between runs).
struct Sample {
    let median: Double
    let min: Double
    let max: Double

    init?(_ runs: [Double]) {
        guard !runs.isEmpty else { return nil }
        let sorted = runs.sorted()
        median = sorted[sorted.count / 2]
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }
}

/// The same Idea record as plain Codable structs: what an app without the kit would decode.
struct IdeaRecordCodable: Decodable {
    struct Field<T: Decodable>: Decodable {
        var value: T
        var type: String
    }
    struct Stamp: Decodable { var timestamp: Int64 }
    struct Fields: Decodable {
        var id: Field<String>
        var title: Field<String>
        var description: Field<String>?
        var isCompleted: Field<Int64>
        var createdAt: Field<Int64>
        var updatedAt: Field<Int64>
        var deviceId: Field<String>
        var version: Field<Int64>
        var lastSyncedAt: Field<Int64>?
    }
    var recordName: String
    var recordType: String
    var recordChangeTag: String?
    var fields: Fields
    var created: Stamp?
    var modified: Stamp?
}
