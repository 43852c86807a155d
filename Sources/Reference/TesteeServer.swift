import Foundation
import TesteeProtocol
import WireCore

/// The answering side of the testee protocol, for `reference-peer testee`: reads requests
/// line by line and answers each with `answer`.
public enum TesteeServer {
    /// Serves until `bye` or end of input. `answer` may be replaced to build deliberately
    /// wrong testees for the kit's own tests.
    public static func serve(
        input: FileHandle = .standardInput, output: FileHandle = .standardOutput,
        hello: TesteeHello = Reference.hello,
        answer: (TesteeRequest) -> Outcome = Reference.answer
    ) {
        let lines = LineChannel(fd: input.fileDescriptor, ownsDescriptor: false)
        while case .line(let line) = lines.readLine(timeout: nil) {
            let reply: JSONValue
            do throws(Violation) {
                let request = try TesteeRequest.decode(line)
                switch request {
                case .bye: return
                case .hello: reply = hello.json
                default: reply = TesteeAnswer.json(caseID: request.caseID ?? "", outcome: answer(request))
                }
            } catch {
                // Answer under the request's case id when it has one, so the runner can tell
                // which request this testee could not read (an `op` from a later protocol).
                let caseID = (try? JSONParser.parse(line))?["case"]?.stringValue ?? ""
                reply = TesteeAnswer.json(caseID: caseID, outcome: .invalidRequest(reason: error.description))
            }
            output.write(Data((JSONSerializer.compact(reply) + "\n").utf8))
        }
    }
}
