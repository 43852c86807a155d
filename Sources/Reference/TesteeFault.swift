import Foundation
import TesteeProtocol
import WireCore

/// Deliberately wrong behaviours of `reference-peer testee --fault NAME`. They exist to prove
/// that the kit catches real implementation bugs, precisely (the case, the path, the rule),
/// and survives misbehaving testees. Never used for a verdict on the reference.
public enum TesteeFault: String, CaseIterable, Sendable {
    /// Accepts five-digit pairing codes, as an implementation with `^\d{5,6}$` would.
    case acceptFiveDigitCodes = "accept-five-digit-codes"
    /// Exits as soon as it is asked to run a machine.
    case crashOnMachines = "crash-on-machines"

    public func answer(_ request: TesteeRequest) -> Outcome {
        switch self {
        case .crashOnMachines:
            if case .runMachine = request { exit(3) }
            return Reference.answer(request)
        case .acceptFiveDigitCodes:
            return acceptingFiveDigitCodes(request)
        }
    }

    private func acceptingFiveDigitCodes(_ request: TesteeRequest) -> Outcome {
        let outcome = Reference.answer(request)
        guard case .validate(let id, let family, let kind, let document, let context) = request,
            case .reject(let violations, _) = outcome, let first = violations.first, first.rule == "PAIR-CODE-001",
            let value = try? JSONParser.parse(document), case .string(let code)? = first.path.resolve(in: value)
        else { return outcome }
        // The buggy check lets a five-digit code (or alias) through; everything after it still runs.
        let (prefix, digits) = code.hasPrefix("pairing-code:") ? ("pairing-code:", String(code.dropFirst(13))) : ("", code)
        guard digits.utf8.count == 5, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let patched = first.path.replacing(in: value, with: .string(prefix + "0" + digits))
        else { return outcome }
        let retried = Reference.answer(
            .validate(caseID: id, family: family, kind: kind, document: Array(JSONSerializer.compact(patched).utf8), context: context))
        guard case .accept(let canonical) = retried else { return retried }
        return .accept(canonical: first.path.replacing(in: canonical, with: .string(code)) ?? canonical)
    }
}
