import Foundation
import TesteeProtocol
import WireCore

/// Another implementation, started as a child process that speaks the testee protocol on
/// stdin/stdout. It is restarted after a crash, a timeout or a garbled answer. Every wait is
/// bounded: a testee that hangs, floods, stops reading or dies costs its case, never the run.
public final class ExecPeer: Peer {
    public let command: String
    public let timeout: TimeInterval
    private var child: ChildProcess?
    private var output: LineChannel?
    private var errors: StderrTail?
    /// Lines that were not answers, read while waiting for the current answer: how many, and
    /// the first (cut to 200 bytes). A testee that logs in a loop must not fill memory.
    private var strays = Strays()
    public private(set) var hello: TesteeHello?
    /// Starts that failed one after another; after `maxFailedStarts` the testee is not started
    /// again and every further case gets the last start's failure (a testee that dies in
    /// `hello` must not cost a restart per case).
    private var failedStarts = 0
    private var lastStartFailure: PeerFailure?
    static let maxFailedStarts = 3
    /// Cases the testee answered in this run, and timeouts since its last answer: a testee
    /// that has answered nothing and timed out `maxFailedStarts` times is not asked again.
    private var answered = 0
    private var timeoutsInARow = 0

    public init(command: String, timeout: TimeInterval = 10) {
        self.command = command
        self.timeout = timeout
        // A testee that dies while we write must fail its case, not kill the runner.
        signal(SIGPIPE, SIG_IGN)
    }

    public var name: String {
        "exec: \(command)" + (hello.map { " (\($0.implementation))" } ?? "")
    }

    /// Starts the testee and reads its `hello`.
    public func start() -> Result<TesteeHello, PeerFailure> {
        stop()
        let result = launch()
        switch result {
        case .success:
            failedStarts = 0
            lastStartFailure = nil
        case .failure(let failure):
            failedStarts += 1
            lastStartFailure = failure
            stop()
        }
        return result
    }

    private func launch() -> Result<TesteeHello, PeerFailure> {
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(shell: command)
        } catch {
            return .failure(.crashed("cannot start \(command): \(error)"))
        }
        self.child = child
        self.output = LineChannel(fd: child.stdout)
        self.errors = StderrTail(fd: child.stderr)
        switch exchange(TesteeRequest.hello.json, during: "hello") {
        case .failure(let failure):
            return .failure(failure)
        case .success(let (line, value)):
            if let stray = strays.first {
                return .failure(.garbled("it wrote \(strays.description) that are not answers before its hello, first \(stray)"))
            }
            do throws(Violation) {
                let hello = try TesteeHello.decode(value)
                self.hello = hello
                return .success(hello)
            } catch {
                return .failure(.garbled("the answer to hello is not a hello: \(Self.problem(error)); the line: \(Self.quote(line))"))
            }
        }
    }

    public func declines(_ request: TesteeRequest) -> String? {
        if child == nil && failedStarts < Self.maxFailedStarts { _ = start() }
        return hello?.declines(request)
    }

    public func evaluate(_ request: TesteeRequest) -> Result<Outcome, PeerFailure> {
        if answered == 0 && timeoutsInARow >= Self.maxFailedStarts {
            return .failure(.timeout("not asked: the testee answered none of its first \(timeoutsInARow) cases within \(seconds(timeout)) s"))
        }
        if child?.isRunning != true || output == nil {
            if failedStarts >= Self.maxFailedStarts, let lastStartFailure {
                return .failure(lastStartFailure.appending("; not started again after \(Self.maxFailedStarts) failed starts"))
            }
            if case .failure(let failure) = start() { return .failure(failure) }
        }
        let answer = exchange(request.json, during: "case")
        if case .failure(.timeout) = answer { timeoutsInARow += 1 } else { timeoutsInARow = 0 }
        switch answer {
        case .failure(let failure):
            return .failure(failure)
        case .success(let (line, value)):
            answered += 1
            if let stray = strays.first {
                // In step again after stray output: the case is garbled, the testee may stay.
                defer { strays = Strays() }
                return .failure(.garbled("it wrote \(strays.description) that are not answers before its answer, first \(stray)"))
            }
            do throws(Violation) {
                return .success(try TesteeAnswer.decode(value, caseID: request.caseID ?? ""))
            } catch {
                stop()
                return .failure(.garbled("not an answer to this case: \(Self.problem(error)); the line: \(Self.quote(line))"))
            }
        }
    }

    /// Sends `request` and waits for the answer: the first line that is a JSON object, with its
    /// parsed value. Every read honours the deadline, also when lines are already buffered.
    private func exchange(_ request: JSONValue, during step: String) -> Result<([UInt8], JSONValue), PeerFailure> {
        guard let child, let output else { return .failure(.crashed("not running")) }
        let deadline = Date(timeIntervalSinceNow: timeout)
        switch child.write(Array((JSONSerializer.compact(request) + "\n").utf8), deadline: deadline) {
        case .written:
            break
        case .timedOut:
            stop()
            return .failure(.timeout("the testee did not read its input within \(seconds(timeout)) s" + stderrQuote))
        case .closed:
            let failure = PeerFailure.crashed(ended(child, "closed its standard input") + stderrQuote)
            stop()
            return .failure(failure)
        }
        strays = Strays()
        var last = output.readLine(timeout: max(0, deadline.timeIntervalSinceNow))
        while case .line(let line) = last {
            // Only a JSON object can be an answer; anything else is stray output (a print left
            // in the testee), skipped so the answer after it is still found.
            if let value = Self.answer(line) { return .success((line, value)) }
            strays.add(line)
            guard deadline.timeIntervalSinceNow > 0 else {
                last = .timedOut
                break
            }
            last = output.readLine(timeout: max(0, deadline.timeIntervalSinceNow))
        }
        switch last {
        case .line:
            preconditionFailure("every line is taken in the loop")
        case .endOfFile:
            let failure = PeerFailure.crashed(ended(child, "closed its standard output") + stderrQuote)
            stop()
            return .failure(failure)
        case .timedOut:
            // Only what follows the last newline is a line without one; lines before it were
            // still unread when the time was up.
            let pending = output.pending
            let partial = pending.lastIndex(of: 0x0A).map { Array(pending[($0 + 1)...]) } ?? pending
            var what = partial.isEmpty ? "" : "; it wrote \(Self.quote(partial)) without a newline"
            if let stray = strays.first { what += "; it wrote \(strays.description) that are not answers, first \(stray)" }
            stop()
            return .failure(.timeout("no answer to \(step) within \(seconds(timeout)) s\(what)" + stderrQuote))
        case .tooLong:
            stop()
            return .failure(.garbled("an answer line over \(output.maxLineBytes) bytes"))
        }
    }

    /// The line's value when it is a JSON object (only an object can be an answer). A line that
    /// does not begin with `{` is not parsed at all.
    static func answer(_ line: [UInt8]) -> JSONValue? {
        guard line.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) == UInt8(ascii: "{") else { return nil }
        guard let value = try? JSONParser.parse(line, limits: TesteeAnswer.limits), case .object = value else { return nil }
        return value
    }

    /// "exited with status 1" when the testee is gone; what it did while still alive otherwise.
    private func ended(_ child: ChildProcess, _ alive: String) -> String {
        // An exiting testee closes its pipes a moment before its exit status is there to read.
        if child.waitForExit(seconds: 0.5), let how = child.exitDescription { return "the testee \(how)" }
        return "the testee \(alive) but is still running"
    }

    private var stderrQuote: String {
        guard let lines = errors?.errorLines(), !lines.isEmpty else { return "" }
        return " (its stderr: \(lines.joined(separator: " | ")))"
    }

    private func stop() {
        output?.stop()
        errors?.stop()
        if let child {
            child.closeInput()
            child.terminateGroup()
        }
        child = nil
        output = nil
        errors = nil
    }

    public func close() {
        if let child, child.isRunning {
            _ = child.write(Array((JSONSerializer.compact(TesteeRequest.bye.json) + "\n").utf8), deadline: Date(timeIntervalSinceNow: 1))
            child.closeInput()
            _ = child.waitForExit(seconds: 2)
        }
        stop()
    }

    /// A protocol problem in words, without a rule id: the testee protocol is not a Spec rule.
    static func problem(_ v: Violation) -> String {
        let at = v.path == .root ? "the line" : "member \(v.path)"
        return "\(at): expected \(v.expected), found \(v.found)"
    }

    static func quote(_ bytes: [UInt8], limit: Int = 200) -> String {
        let text = String(decoding: bytes.prefix(limit), as: UTF8.self)
        return JSONSerializer.quoted(text) + (bytes.count > limit ? " (\(bytes.count) bytes)" : "")
    }

    private func seconds(_ t: TimeInterval) -> String {
        t == t.rounded() ? String(Int(t)) : String(t)
    }
}

/// Stray lines: counted, the first one quoted.
struct Strays {
    private(set) var count = 0
    private(set) var first: String?

    mutating func add(_ line: [UInt8]) {
        if first == nil { first = ExecPeer.quote(line) }
        count += 1
    }

    var description: String { count == 1 ? "1 line" : "\(count) lines" }
}

extension PeerFailure {
    func appending(_ note: String) -> PeerFailure {
        switch self {
        case .crashed(let d): return .crashed(d + note)
        case .timeout(let d): return .timeout(d + note)
        case .garbled(let d): return .garbled(d + note)
        }
    }
}

/// Keeps the end of what a testee wrote to stderr, to quote with its failures. Only the last
/// 8 KiB are kept, however much a chatty testee logs.
final class StderrTail: @unchecked Sendable {
    private let lock = NSLock()
    private var tail: [UInt8] = []
    private var reader: PipeReader?

    init(fd: Int32) {
        reader = PipeReader(fd: fd, ownsDescriptor: true) { [self] chunk in
            guard let chunk else { return false }
            lock.withLock {
                tail.append(contentsOf: chunk)
                if tail.count > 8192 { tail.removeFirst(tail.count - 8192) }
            }
            return true
        }
    }

    func stop() { reader?.stop() }

    /// The testee's own error message: the last lines that are not stack frames. Node, the JVM
    /// and Python print the message above (Node, JVM) or below (Python) frames indented with
    /// spaces or tabs; Node ends with its version line.
    func errorLines(limit: Int = 3) -> [String] {
        // Lines arrive through the reading thread: give a dying testee's last words a moment.
        usleep(50_000)
        let bytes = lock.withLock { tail }
        return Self.errorLines(String(decoding: bytes, as: UTF8.self), limit: limit)
    }

    static func errorLines(_ text: String, limit: Int = 3) -> [String] {
        let lines = text.split(separator: "\n").map { String($0.trimmingCharacters(in: .newlines)) }
        let meaningful = lines.filter { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed == "^" { return false }
            if line.first == " " || line.first == "\t" { return false }
            if trimmed.hasPrefix("Node.js v") { return false }
            return true
        }
        return meaningful.suffix(limit).map { $0.count > 300 ? String($0.prefix(300)) + "…" : $0 }
    }
}
