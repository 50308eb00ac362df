import MTProto

/// Telegram's limits on what a profile holds (core.telegram.org/api/config, core.telegram.org/method/account.updateUsername).
extension InputLimits {
    /// A user's bio (`about`): 70 UTF-16 units, as for accounts without Premium (`ABOUT_TOO_LONG`).
    static let bioLength = 70
    /// Usernames: 5…32 characters.
    static let usernameLengths = 5...32

    static func bio(_ about: String) throws(RPCError) -> String {
        let trimmed = about.trimmingBlanks()
        guard fits(trimmed, units: bioLength) else { throw .badRequest("ABOUT_TOO_LONG") }
        return trimmed
    }

    /// A username: 5…32 of a–z, A–Z, 0–9 and `_`, starting with a letter and not ending with `_`
    /// (`USERNAME_INVALID`). Its case is kept; lookups ignore it.
    static func username(_ username: String) throws(RPCError) -> String {
        let scalars = Array(username.unicodeScalars.prefix(usernameLengths.upperBound + 1))
        let allowed = scalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        guard usernameLengths.contains(scalars.count), allowed, let first = scalars.first, first.properties.isAlphabetic,
              scalars.last != "_" else {
            throw .badRequest("USERNAME_INVALID")
        }
        return username
    }
}
