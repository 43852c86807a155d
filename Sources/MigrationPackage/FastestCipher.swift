import Foundation
import Migration
import WireCore

extension SegmentCipher {
    /// The AES-GCM implementation the package paths use (pack, unpack, the streamed restore, the
    /// watch's digest): the faster of those this build has on this CPU, measured once per process
    /// (`calibration`, a few milliseconds), unless `DEVICE_DATA_AES_GCM` names one. Neither is
    /// faster everywhere: swift-crypto sealed at 1.9x openssl on one Xeon and at 0.6x on an EPYC.
    public static let fastest: SegmentCipher = {
        if let name = ProcessInfo.processInfo.environment["DEVICE_DATA_AES_GCM"], let named = SegmentCipher(rawValue: name), available.contains(named) {
            return named
        }
        return calibration.max { $0.bytesPerSecond < $1.bytesPerSecond }?.cipher ?? .preferred
    }()

    /// Each available implementation's sealing speed here: the best of 3 runs of 1 MiB in 64 KiB
    /// segments, each after one warm-up segment.
    public static let calibration: [(cipher: SegmentCipher, bytesPerSecond: Double)] = available.map { cipher in
        let segment = [UInt8](repeating: 0x5A, count: 1 << 16)
        let clock = ContinuousClock()
        var best = Duration.seconds(1)
        for _ in 0..<3 {
            var random = ScriptedBytes(Array(repeating: 1, count: 23))
            guard var sealer = try? EnvelopeSealer(
                password: "", plaintextLength: UInt64(17 << 16), segmentSize: 1 << 16, iterations: 1, cipher: cipher, random: &random)
            else { return (cipher, 0) }
            var frame: [UInt8] = []
            frame.reserveCapacity(segment.count + EnvelopeHeader.frameOverhead)
            _ = try? sealer.seal(segment, appendingTo: &frame)
            let took = clock.measure {
                while !sealer.isFinished {
                    frame.removeAll(keepingCapacity: true)
                    _ = try? sealer.seal(segment, appendingTo: &frame)
                }
            }
            best = min(best, took)
        }
        let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
        return (cipher, Double(16 << 16) / max(seconds, 1e-9))
    }
}
