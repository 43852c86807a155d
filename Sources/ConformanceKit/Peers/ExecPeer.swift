import Foundation
import WireCore

/// Another implementation, started as a child process that speaks the testee protocol on
/// stdin/stdout. It is restarted after a crash, a timeout or a garbled answer.
public final class ExecPeer: Peer {
    public let command: String
    public let timeout: TimeInterval
    private var process: Process?
    private var input: FileHandle?
    private var output: LineChannel?
    private var stderrTail = StderrTail()
    public private(set) var hello: TesteeHello?

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            return .failure(.crashed("cannot start \(command): \(error)"))
        }
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.output = LineChannel(handle: stdout.fileHandleForReading)
        stderrTail.follow(stderr.fileHandleForReading)
        switch exchange(TesteeRequest.hello.json) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let line):
            do throws(Violation) {
                let hello = try TesteeHello.decode(line)
                self.hello = hello
                return .success(hello)
            } catch {
                stop()
                return .failure(.garbled("bad hello answer: \(error)"))
            }
        }
    }

    public func evaluate(_ request: TesteeRequest) -> Result<Outcome, PeerFailure> {
        if process == nil || process?.isRunning == false {
            if case .failure(let failure) = start() { return .failure(failure) }
        }
        switch exchange(request.json) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let line):
            do throws(Violation) {
                return .success(try TesteeAnswer.decode(line, caseID: request.caseID ?? ""))
            } catch {
                stop()
                return .failure(.garbled("\(error)"))
            }
        }
    }

    private func exchange(_ request: JSONValue) -> Result<[UInt8], PeerFailure> {
        guard let input, let output else { return .failure(.crashed("not running")) }
        do {
            try input.write(contentsOf: Data((JSONSerializer.compact(request) + "\n").utf8))
        } catch {
            stop()
            return .failure(.crashed("the testee closed its input" + stderrTail.suffix))
        }
        switch output.readLine(timeout: timeout) {
        case .line(let line):
            return .success(line)
        case .endOfFile:
            stop()
            return .failure(.crashed("the testee exited" + stderrTail.suffix))
        case .timedOut:
            stop()
            return .failure(.timeout("no answer within \(timeout) s" + stderrTail.suffix))
        case .tooLong:
            stop()
            return .failure(.garbled("an answer line over \(output.maxLineBytes) bytes"))
        }
    }

    private func stop() {
        if let process, process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? input?.close()
        process = nil
        input = nil
        output = nil
    }

    public func close() {
        if let input, process?.isRunning == true {
            try? input.write(contentsOf: Data((JSONSerializer.compact(TesteeRequest.bye.json) + "\n").utf8))
            try? input.close()
            self.input = nil
            let deadline = Date(timeIntervalSinceNow: 2)
            while process?.isRunning == true && Date() < deadline { usleep(10_000) }
        }
        stop()
    }
}

/// Keeps the last lines a testee wrote to stderr, to show with its failures.
final class StderrTail: @unchecked Sendable {
    private let lock = NSLock()
    private var tail: [UInt8] = []

    func follow(_ handle: FileHandle) {
        handle.readabilityHandler = { [self] h in
            let data = h.availableData
            if data.isEmpty {
                h.readabilityHandler = nil
                return
            }
            lock.lock()
            tail.append(contentsOf: data)
            if tail.count > 2048 { tail.removeFirst(tail.count - 2048) }
            lock.unlock()
        }
    }

    var suffix: String {
        lock.lock()
        defer { lock.unlock() }
        let text = String(decoding: tail, as: UTF8.self).split(separator: "\n").suffix(3).joined(separator: " | ")
        return text.isEmpty ? "" : " (stderr: \(text))"
    }
}
