import FuzzTargets
import Records
import SwiftDataModel
import WireCore

/// The swift-model target: SwiftData `@Model` sources, read by swift-syntax, then checked as a
/// model. A binary of its own, because it builds swift-syntax (minutes in release): `run` builds
/// it only when the target is named. Oracles: time (1 s per KB) and a reason that steers no
/// terminal.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    withinTimeBudget(input) {
        do {
            guard let read = try SwiftDataModelReader.read([.init(name: "M.swift", bytes: input)]) else { return }
            _ = try? ModelChecker.check(read.model, previous: nil)
        } catch {
            steersNothing("\(error)".terminalSafe)
        }
    }
    return 0
}
