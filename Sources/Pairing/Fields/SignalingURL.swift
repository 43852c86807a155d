import Foundation

import WireCore

/// WebSocket URLs of signaling servers (PAIR-URL-001) and relays (PAIR-URL-002).
/// A small parser of its own: Foundation's `URL` accepts and repairs too much, and differs
/// between Apple platforms and Linux.
public enum SignalingURL {
    /// Why `text` is not a signaling URL, or nil when it is one.
    public static func problem(_ text: String, relay: Bool) -> String? {
        guard let schemeEnd = text.range(of: "://") else { return "no scheme" }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "ws" || scheme == "wss" else { return "scheme \(scheme), not ws or wss" }
        if text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
            return "whitespace, control or non-ASCII characters"
        }
        if text.contains("#") { return "a fragment" }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" })
        if authority.contains("@") { return "user-info" }
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return "an unclosed IPv6 literal" }
            host = authority[...close]
            let inner = authority[authority.index(after: authority.startIndex)..<close]
            guard isIPv6(inner) else { return "an invalid IPv6 literal" }
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return "text after the IPv6 literal" }
                portText = after.dropFirst()
            }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
            guard !host.isEmpty else { return "an empty host" }
            if let problem = hostProblem(host) { return problem }
        }
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let port = Int(portText), port >= 1, port <= 65535
            else { return "port \(portText), not 1-65535" }
        }
        if relay && scheme == "ws" && !isLoopback(host.lowercased()) {
            return "ws:// to a host that is not loopback (a relay needs wss://)"
        }
        return nil
    }

    /// RFC 3986's IPv6address: eight groups of 1 to 4 hex digits, or fewer with one `::`
    /// standing for the rest, the last two groups optionally a dotted IPv4 address.
    static func isIPv6(_ text: Substring) -> Bool {
        var groups = 0
        var text = text
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            let v4 = text[text.index(after: lastColon)...]
            let octets = v4.split(separator: ".", omittingEmptySubsequences: false)
            guard octets.count == 4, octets.allSatisfy({ o in
                !o.isEmpty && o.count <= 3 && o.allSatisfy({ $0.isASCII && $0.isNumber }) && (Int(o) ?? 256) <= 255
            }) else { return false }
            groups += 2
            // Keep the colon before the IPv4 part so "::1.2.3.4" still ends in "::".
            text = text[..<text.index(after: lastColon)]
            if text.hasSuffix(":") && !text.hasSuffix("::") { text = text.dropLast() }
        }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        for half in halves where !half.isEmpty {
            for group in half.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), group.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return false }
                groups += 1
            }
        }
        return halves.count == 2 ? groups <= 7 : groups == 8
    }

    /// A host that is not a bracketed IPv6 literal is an IPv4 address when its last label is all
    /// digits (as WHATWG URL parsers read it), else a DNS name (RFC 1123): labels of 1 to 63
    /// ASCII letters, digits and hyphens, not starting or ending with a hyphen, at most 253 bytes.
    static func hostProblem(_ host: Substring) -> String? {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if let last = labels.last, !last.isEmpty, last.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard labels.count == 4, labels.allSatisfy({ octet in
                !octet.isEmpty && octet.count <= 3 && octet.allSatisfy({ $0.isASCII && $0.isNumber })
                    && (octet.count == 1 || octet.first != "0") && (Int(octet) ?? 256) <= 255
            }) else { return "a host ending in a number that is not an IPv4 address (four decimal octets 0-255)" }
            return nil
        }
        guard host.utf8.count <= 253 else { return "a host name over 253 bytes" }
        for label in labels {
            guard !label.isEmpty else { return "an empty label in the host name" }
            guard label.count <= 63 else { return "a host name label over 63 characters" }
            guard label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                return "a host name with characters other than letters, digits and hyphens"
            }
            guard label.first != "-", label.last != "-" else { return "a host name label starting or ending with a hyphen" }
        }
        return nil
    }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { o in !o.isEmpty && o.count <= 3 && o.allSatisfy(\.isNumber) && (Int(o) ?? 256) <= 255 }
    }

    /// Reads an optional signaling URL; absent, null and "" all mean none.
    public static func readOptional(_ reader: ObjectReader, _ key: String, relay: Bool) throws(Violation) -> String? {
        guard let url = try reader.optionalString(key), !url.isEmpty else { return nil }
        try check(url, at: reader.pointer(key), relay: relay)
        return url
    }

    public static func read(_ reader: ObjectReader, _ key: String, relay: Bool) throws(Violation) -> String {
        let url = try reader.string(key)
        try check(url, at: reader.pointer(key), relay: relay)
        return url
    }

    static func check(_ url: String, at path: JSONPointer, relay: Bool) throws(Violation) {
        if let problem = problem(url, relay: relay) {
            throw Violation(
                rule: relay ? PairingRule.relayURL : PairingRule.signalingURL, path: path,
                expected: relay ? "a wss:// relay URL (ws:// on loopback only)" : "a ws:// or wss:// URL with a host",
                found: JSONSerializer.quoted(url) + " (\(problem))")
        }
    }
}
