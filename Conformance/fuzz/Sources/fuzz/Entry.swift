import Foundation
import FuzzTargets

/// One libFuzzer entry point for every target; `FUZZ_TARGET` picks which (see `run`).
let current: FuzzTarget = {
    guard let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"], let target = FuzzTarget(rawValue: name) else {
        fatalError("set FUZZ_TARGET to one of " + FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    current.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
