import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A testee process the runner can always get rid of. Foundation's `Process` cannot promise
/// that: the child inherits the spawning thread's signal mask (seen here: every signal but a few
/// blocked, so SIGTERM never arrives), a `sh -c` wrapper is killed while its child lives on with
/// the pipes, and `waitUntilExit` waits without a bound. This spawns `/bin/sh -c COMMAND` with
/// `posix_spawn` as the leader of its own process group, with an empty signal mask and default
/// dispositions, and ends it by signalling the whole group, TERM first and KILL after a bounded
/// grace, so nothing the testee started outlives it.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    /// Our ends of the child's standard streams.
    let stdin: Int32
    let stdout: Int32
    let stderr: Int32
    private let lock = NSLock()
    private var reaped: Int32?

    private init(pid: pid_t, stdin: Int32, stdout: Int32, stderr: Int32) {
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
    }

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    static func spawn(shell command: String) throws -> ChildProcess {
        var fds: [[Int32]] = []
        for _ in 0..<3 {
            var pair: [Int32] = [-1, -1]
            guard pipe(&pair) == 0 else {
                for p in fds { p.forEach { close($0) } }
                throw SpawnError(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
            }
            // Our ends must not leak into this or any later child.
            for fd in pair { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            fds.append(pair)
        }
        let (inRead, inWrite) = (fds[0][0], fds[0][1])
        let (outRead, outWrite) = (fds[1][0], fds[1][1])
        let (errRead, errWrite) = (fds[2][0], fds[2][1])

        #if os(Linux)
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #else
            var actions: posix_spawn_file_actions_t?
            var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        // dup2 clears close-on-exec on the target descriptor: the child gets exactly 0, 1 and 2.
        posix_spawn_file_actions_adddup2(&actions, inRead, 0)
        posix_spawn_file_actions_adddup2(&actions, outWrite, 1)
        posix_spawn_file_actions_adddup2(&actions, errWrite, 2)

        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        // Dispositions the runner changed (SIGPIPE ignored) go back to their defaults.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        // `--`: a command beginning with `-` is the command, not the shell's options.
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup("--"), strdup(command), nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        for fd in [inRead, outWrite, errWrite] { close(fd) }
        guard status == 0 else {
            for fd in [inWrite, outRead, errRead] { close(fd) }
            throw SpawnError(description: "cannot start /bin/sh: \(String(cString: strerror(status)))")
        }
        // Writes to a testee that stopped reading must wait with a deadline, not block.
        _ = fcntl(inWrite, F_SETFL, fcntl(inWrite, F_GETFL) | O_NONBLOCK)
        return ChildProcess(pid: pid, stdin: inWrite, stdout: outRead, stderr: errRead)
    }

    /// The wait status once the leader has exited (reaping it), nil while it runs.
    func exitStatus() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let reaped { return reaped }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid || (r == -1 && errno == ECHILD) {
            reaped = r == pid ? status : 0
            return reaped
        }
        return nil
    }

    // No peak memory here: a posix_spawn child execs from this process's memory, and Linux keeps
    // that memory's high-water mark in the new program's ru_maxrss (Tests/Fixtures/peak.py).

    var isRunning: Bool { exitStatus() == nil }

    /// Waits up to `seconds` for the leader to exit; true if it did.
    func waitForExit(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while exitStatus() == nil {
            if Date() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Ends the whole process group: TERM, then KILL after `grace` seconds. Also kills what the
    /// leader left behind when it had already exited. Bounded: returns within about grace + 1 s.
    func terminateGroup(grace: Double = 1) {
        if isRunning {
            kill(-pid, SIGTERM)
            if !waitForExit(seconds: grace) {
                kill(-pid, SIGKILL)
                _ = waitForExit(seconds: 1)
            }
        }
        // Stragglers in the group (a `sh -c` wrapper's child): gone whatever the leader did.
        kill(-pid, SIGKILL)
    }

    /// How the leader ended, in words, or nil while it runs.
    var exitDescription: String? {
        guard let status = exitStatus() else { return nil }
        let signal = status & 0x7F
        if signal == 0 { return "exited with status \((status >> 8) & 0xFF)" }
        return "was killed by signal \(signal)"
    }

    /// Writes all of `bytes` to the child's standard input, or fails at `deadline`.
    func write(_ bytes: [UInt8], deadline: Date) -> WriteResult {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { systemWrite(stdin, $0.baseAddress, $0.count) }
            if n > 0 {
                offset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                let left = deadline.timeIntervalSinceNow
                if left <= 0 { return .timedOut }
                var p = pollfd(fd: stdin, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, Int32(min(left, 1) * 1000) + 1)
                continue
            }
            return .closed
        }
        return .written
    }

    enum WriteResult {
        case written
        case timedOut
        /// The child closed its standard input (or exited).
        case closed
    }

    private var inputOpen = true

    /// Closes our end of the child's standard input (the child reads end of file). Idempotent.
    func closeInput() {
        lock.lock()
        defer { lock.unlock() }
        if inputOpen { close(stdin) }
        inputOpen = false
    }

    deinit {
        closeInput()
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
#endif
