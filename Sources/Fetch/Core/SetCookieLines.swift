/// The `Set-Cookie` fields inside one value that Foundation joined with `, ` (`HTTPURLResponse` keeps one value per
/// name, on Apple platforms and on swift-corelibs-foundation alike).
///
/// A comma starts a new cookie only where `name=` follows it: RFC 6265 §4.1.1 lets no comma into a cookie's name or
/// value, so the only commas inside one cookie are in its attributes (`Expires=Wed, 21 Oct 2015 07:28:00 GMT`),
/// where no `token=` follows them.
package enum SetCookieLines {
    /// The cookies of `value`, each as its own `Set-Cookie` value, in order; `value` itself when it holds one.
    ///
    /// - Parameter value: One `Set-Cookie` value, or several joined with commas.
    /// - Returns: One value per cookie, without the space the join added.
    package static func split(_ value: String) -> [String] {
        var lines: [String] = []
        for piece in value.split(separator: ",", omittingEmptySubsequences: false) {
            if let last = lines.last, !startsCookie(piece) {
                lines[lines.count - 1] = last + "," + piece
            } else {
                lines.append(String(lines.isEmpty ? piece : piece.drop { $0 == " " }))
            }
        }
        return lines
    }

    /// Whether `piece` (what follows a comma) begins a new cookie: a token, then `=`.
    private static func startsCookie(_ piece: Substring) -> Bool {
        let trimmed = piece.drop { $0 == " " }
        guard let equals = trimmed.firstIndex(of: "=") else {
            return false
        }
        let name = trimmed[..<equals]
        return !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0) }
    }
}
