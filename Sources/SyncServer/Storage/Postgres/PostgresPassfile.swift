import Foundation

/// Where a PostgreSQL password comes from when the URL carries none, as libpq looks for it (PostgreSQL documentation,
/// "The Password File" and "Environment Variables"): `PGPASSWORD`, then the password file (the URL's `passfile`,
/// else `PGPASSFILE`, else `~/.pgpass`). A password on the command line is visible to every user of the machine in
/// its process list; these keep it out of there.
///
/// Each line of the file is `hostname:port:database:username:password`; any of the first four may be `*`, `\:` and
/// `\\` stand for `:` and `\`, and lines starting with `#` are comments. The first line that matches wins. A socket
/// connection also matches the host name `localhost`, as libpq's does.
enum PostgresPassfile {
    /// What the password is looked up for.
    struct Target {
        var host: String
        var port: Int
        var database: String
        var user: String
    }

    /// The password for `target` from the environment or a password file; nil when there is none. A file that others
    /// may read, or one that cannot be read although it was named, is refused by `fail`'s error (libpq would only warn
    /// and go on without the password, to fail later as an authentication error).
    static func password(for target: Target, passfile named: String?, environment: [String: String],
                         fail: (String) -> ServerStorageError) throws -> String? {
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        let explicit = named ?? environment["PGPASSFILE"]
        guard let path = explicit ?? environment["HOME"].map({ $0 + "/.pgpass" }) else { return nil }
        guard FileManager.default.fileExists(atPath: path) else {
            if explicit != nil { throw fail("passfile \(path) does not exist") }
            return nil
        }
        try PostgresURL.checkPrivate(path, named: "passfile", rootMayShareWithGroup: false, fail: fail)
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw fail("passfile \(path) cannot be read as text")
        }
        return password(for: target, in: text)
    }

    /// The password of the first line of `text` that matches `target`.
    static func password(for target: Target, in text: String) -> String? {
        let socket = target.host.hasPrefix("/")
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = self.fields(of: line)
            guard fields.count == 5 else { continue }
            let hostMatches = fields[0] == "*" || fields[0] == target.host || (socket && fields[0] == "localhost")
            guard hostMatches, matches(fields[1], String(target.port)), matches(fields[2], target.database),
                  matches(fields[3], target.user) else { continue }
            return fields[4]
        }
        return nil
    }

    private static func matches(_ field: String, _ value: String) -> Bool {
        field == "*" || field == value
    }

    /// A line's fields, split at `:` that no backslash escapes; the last field keeps any further `:` as libpq does.
    static func fields(of line: Substring) -> [String] {
        var fields: [String] = [], current = "", escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
