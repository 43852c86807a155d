import Crypto
import Foundation
import Migration
import WireCore

/// One thing that happened on a watched connection, as `conformance watch` sees it live and as a
/// session log records it (Conformance/session-log.md). The judges read only what a log can
/// hold, so a replay of the log is judged exactly as the live session was.
public struct WireEvent: Sendable, Hashable {
    /// Which end of the connection sent it: the client (the one that connected: a phone, a
    /// desktop, the new phone) or the server (the relay, the old phone).
    public enum Side: String, Sendable, Hashable {
        case client, server
    }

    /// A binary frame: its length, its first `BinaryFrame.headLength` bytes, the SHA-256 of the
    /// bytes after them (for a `BackupChunk`, the digest of its data), and the whole frame when
    /// it is no longer than the log's cap.
    public struct BinaryFrame: Sendable, Hashable {
        /// The longest header a protocol here defines (`BackupChunk`'s 72 bytes).
        public static let headLength = 72

        public var length: Int
        public var head: [UInt8]
        public var restSHA256: String
        public var bytes: [UInt8]?

        public init(length: Int, head: [UInt8], restSHA256: String, bytes: [UInt8]?) {
            self.length = length
            self.head = head
            self.restSHA256 = restSHA256
            self.bytes = bytes
        }

        /// `frame` as a log keeps it: whole only when at most `cap` bytes.
        public init(_ frame: [UInt8], cap: Int) {
            length = frame.count
            head = Array(frame.prefix(Self.headLength))
            restSHA256 = frame.dropFirst(Self.headLength).withUnsafeBytes { SHA256.hash(data: $0) }.hexEncoded
            bytes = frame.count <= cap ? frame : nil
        }
    }

    public enum Body: Sendable, Hashable {
        /// The connection was accepted: the client's address and the path it asked for.
        case open(peer: String, path: String)
        /// The client's socket is held by a process the kit started (the matrix) under this
        /// label, or by one that process started: the connection is that implementation's,
        /// whatever ids it registers.
        case owner(String)
        case text(from: Side, String)
        case binary(from: Side, BinaryFrame)
        /// A WebSocket ping frame, or a pong.
        case ping(from: Side)
        case pong(from: Side)
        /// The connection ended; `by` is who closed it when that is known, `code` its close code.
        case close(by: Side?, code: Int?)
        /// Migration: the watch saw every chunk of the envelope whole and put their data together
        /// in index order: its SHA-256 and length (what the final digest check compares).
        case envelope(sha256: String, length: Int64)
        /// Migration, with the password: the envelope's segments opened as they passed, and the
        /// first failure (then no more were opened), or nil when every one opened.
        case segments(opened: Int, refused: EnvelopeError?)
    }

    /// Epoch milliseconds.
    public var at: EpochMillis
    /// The watch's number for the client's connection, from 1.
    public var connection: Int
    public var body: Body

    public init(at: EpochMillis, connection: Int, _ body: Body) {
        self.at = at
        self.connection = connection
        self.body = body
    }
}
