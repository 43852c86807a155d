import TesteeProtocol

extension TesteeRequest {
    /// The request for one vector case.
    public init(_ vector: VectorCase) {
        switch vector.body {
        case .document(let kind, let input, _):
            self = .validate(caseID: vector.id, family: vector.family, kind: kind, document: input, context: vector.context)
        case .machine(let name, let events, _):
            self = .runMachine(caseID: vector.id, family: vector.family, machine: name, context: vector.context, events: events)
        }
    }
}
