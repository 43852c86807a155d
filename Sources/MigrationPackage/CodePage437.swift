/// Names in a zip without the UTF-8 flag (bit 11) are IBM code page 437 (APPNOTE appendix D).
/// Bytes below 0x80 are ASCII, control characters included, as in Python's `cp437` codec, so that
/// a control character in a name is refused as one (ZIPFoundation shows 0x01 to 0x1F as symbols).
enum CodePage437 {
    static func decode(_ bytes: [UInt8]) -> String {
        var text = String.UnicodeScalarView()
        for byte in bytes {
            text.append(byte < 0x80 ? Unicode.Scalar(byte) : upper[Int(byte - 0x80)])
        }
        return String(text)
    }

    /// 0x80 to 0xFF.
    private static let upper: [Unicode.Scalar] = Array((
        "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒ" +
        "áíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐" +
        "└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀" +
        "αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{A0}"
    ).unicodeScalars)
}
